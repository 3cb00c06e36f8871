"""Whether this machine can start bots at all, asked before a worker takes a job: on a host
where bots cannot start (no usable sandbox, no Python for bots, a broken SDK), every match
would otherwise charge a start failure to each bot it seats."""

from __future__ import annotations

import tempfile
from pathlib import Path

from arena.bots.package import load_package
from arena.bots.process_player import ProcessPlayer
from arena.bots.runtimes import runtime_problem
from arena.game import PAGAT
from arena.players.player import BotFault, MatchInfo
from arena.runtime import Runtime
from arena.sandbox import SandboxError
from arena.tournaments.dispatch import DEFAULT_QUEUE, RUNTIME_QUEUES

PROBE_MANIFEST = 'name = "preflight"\nversion = "1"\ncommand = ["python3", "bot.py"]\n'
PROBE_BOT = """from arena.sdk import Bot, serve


class Probe(Bot):
    def call(self, obs):
        return obs.legal_calls[0]

    def play(self, obs):
        return obs.legal_cards[0]


serve(Probe())
"""
PROBE_ALLOWANCE_S = 30.0  # CPU seconds: a cold start of a first bot on a slow machine


def preflight(runtime: Runtime, queues: list[str] | tuple[str, ...] = ()) -> str | None:
    """Why bots cannot start here, in one line; None when a probe bot (the SDK's smallest)
    starts and stops in this machine's sandbox and every runtime ``queues`` needs exists."""
    needs = {queue: family for family, queue in RUNTIME_QUEUES.items() if queue != DEFAULT_QUEUE}
    for queue in queues:
        if (needed := needs.get(queue)) and (problem := runtime_problem(needed)):
            return f"queue {queue}: {problem}"
    with tempfile.TemporaryDirectory(prefix="arena-preflight-") as tmp:
        bot = Path(tmp) / "bot"
        bot.mkdir()
        (bot / "bot.toml").write_text(PROBE_MANIFEST)
        (bot / "bot.py").write_text(PROBE_BOT)
        player = ProcessPlayer(
            load_package(bot),
            "preflight",
            limits=runtime.limits,
            policy=runtime.policy,
            log_dir=Path(tmp) / "logs",
        )
        try:
            player.start(MatchInfo("preflight", PAGAT, 1000, 1000), PROBE_ALLOWANCE_S)
        except (BotFault, SandboxError) as exc:
            return f"a probe bot could not start in this machine's sandbox: {exc}"
        finally:
            player.close()
    return None
