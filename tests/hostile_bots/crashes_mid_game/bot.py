"""Plays normally, then on its 5th decision hard-exits with status 3 (no clean shutdown)."""

import os
import random
import sys

from arena.sdk import Bot, serve

CRASH_ON = 5


class CrashesMidGame(Bot):
    name = "crashes-mid-game"

    def __init__(self):
        super().__init__()
        self.decisions = 0

    def _tick(self):
        self.decisions += 1
        if self.decisions == CRASH_ON:
            print(f"crashing on decision {self.decisions}", file=sys.stderr, flush=True)
            os._exit(3)

    def call(self, obs):
        self._tick()
        return random.choice(obs.legal_calls)

    def play(self, obs):
        self._tick()
        return random.choice(obs.legal_cards)


if __name__ == "__main__":
    serve(CrashesMidGame())
