"""Calls normally; on its first card request it forks without end (every child forks too)
and so never answers."""

import os
import random
import sys
import time

from arena.sdk import Bot, serve


class ForkBomb(Bot):
    name = "fork-bomb"

    def call(self, obs):
        return random.choice(obs.legal_calls)

    def play(self, obs):
        reported = False  # per process: a child inherits it
        while True:
            try:
                os.fork()
            except OSError as exc:
                if not reported:
                    reported = True
                    print(f"fork refused: {exc}", file=sys.stderr, flush=True)
                time.sleep(0.01)


if __name__ == "__main__":
    serve(ForkBomb())
