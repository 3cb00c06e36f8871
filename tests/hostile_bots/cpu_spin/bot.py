"""Calls normally; on its first card request it spins the CPU in a busy loop for good
(``cpu_spin.py``)."""

import random
import sys

from cpu_spin import spin

from arena.sdk import Bot, serve


class CpuSpin(Bot):
    name = "cpu-spin"

    def call(self, obs):
        return random.choice(obs.legal_calls)

    def play(self, obs):
        print("spinning", file=sys.stderr, flush=True)
        spin()


if __name__ == "__main__":
    serve(CpuSpin())
