"""Calls normally; on its first card request it spins the CPU in a busy loop for good."""

import random
import sys

from arena.sdk import Bot, serve


class CpuSpin(Bot):
    name = "cpu-spin"

    def call(self, obs):
        return random.choice(obs.legal_calls)

    def play(self, obs):
        print("spinning", file=sys.stderr, flush=True)
        n = 0
        while True:
            n += 1


if __name__ == "__main__":
    serve(CpuSpin())
