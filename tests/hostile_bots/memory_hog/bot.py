"""Calls normally; for every card it grabs (and touches) 32 MiB more and keeps it, up to
2 GiB: below the 4 GiB address-space backstop, so only a real memory limit stops it. Reports
how far it got on stderr ("holding N MiB", or "MemoryError at N MiB")."""

import random
import sys

from arena.sdk import Bot, serve

STEP = 32 * 1024 * 1024
held = []


class MemoryHog(Bot):
    name = "memory-hog"

    def call(self, obs):
        return random.choice(obs.legal_calls)

    def play(self, obs):
        while len(held) * STEP < 2 * 1024**3:
            try:
                held.append(b"x" * STEP)
            except MemoryError:
                print(f"MemoryError at {len(held) * 32} MiB", file=sys.stderr, flush=True)
                raise
            print(f"holding {len(held) * 32} MiB", file=sys.stderr, flush=True)
        return random.choice(obs.legal_cards)


if __name__ == "__main__":
    serve(MemoryHog())
