"""The platform's master player, served as a process bot through the SDK.

Start-up loads the compiled search from the cache built outside the sandbox (see
``arena.house.master.cache``) before the socket opens, so the first decision is fast.
Each decision thinks for at most ``--share`` (default 0.5) of the time the request reports.
"""

import os
import sys
import time

from arena.house.master.cache import prepare, warm
from arena.sdk import Bot, serve


def share(argv: list[str]) -> float:
    """The share of each decision's time to think with: ``--share X`` in bot.toml's command."""
    return float(argv[argv.index("--share") + 1]) if "--share" in argv else 0.5


class Master(Bot):
    name = "master"
    version = "1.0.0"

    def __init__(self) -> None:
        super().__init__()
        from arena.house.master import MasterBot

        self.strategy = MasterBot(seed=int.from_bytes(os.urandom(4), "big"), share=share(sys.argv))

    def call(self, obs):
        self.strategy.set_clock(self.decision_ms, self.time_left_ms)
        return self.strategy.call(obs)

    def play(self, obs):
        self.strategy.set_clock(self.decision_ms, self.time_left_ms)
        return self.strategy.play(obs)


if __name__ == "__main__":
    t0 = time.perf_counter()
    cache = prepare()
    seconds, compiled = warm()
    where = f"cache copied to {cache}" if cache else "in-tree cache"
    took = time.perf_counter() - t0
    print(
        f"master: search ready in {took:.2f} s ({where}; kernels {seconds:.2f} s, "
        f"{compiled} compiled)",
        file=sys.stderr,
    )
    serve(Master())
