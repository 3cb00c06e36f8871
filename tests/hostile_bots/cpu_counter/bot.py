"""An honest bot that measures its share of the CPU: at every decision it counts
loop turns for ``WINDOW`` seconds of wall time and reports ``WORK <turns>`` on stderr, its
log. Next to a quiet table the count is what one core gives; next to a bot that starves its
neighbours it falls."""

import sys
import time

from arena.sdk import Bot, serve

WINDOW = 0.02


def work():
    turns, end = 0, time.perf_counter() + WINDOW
    while time.perf_counter() < end:
        turns += 1
    print(f"WORK {turns}", file=sys.stderr, flush=True)


class CpuCounter(Bot):
    name = "cpu-counter"

    def call(self, obs):
        work()
        return obs.legal_calls[0]

    def play(self, obs):
        work()
        return obs.legal_cards[0]


if __name__ == "__main__":
    serve(CpuCounter())
