"""Calls normally; at its first card it grabs (and touches) 32 MiB at a time and keeps it,
up to 2 GiB (``memory_hog.py``): below the 4 GiB address-space backstop, so only a real
memory limit stops it. Reports how far it got on stderr ("holding N MiB", or "MemoryError at
N MiB")."""

import random
import sys

from memory_hog import STEP, grab

from arena.sdk import Bot, serve

held: list[bytes] = []


def report(mib: int) -> None:
    print(f"holding {mib} MiB", file=sys.stderr, flush=True)


class MemoryHog(Bot):
    name = "memory-hog"

    def call(self, obs):
        return random.choice(obs.legal_calls)

    def play(self, obs):
        try:
            grab(held, report)
        except MemoryError:
            print(f"MemoryError at {len(held) * STEP >> 20} MiB", file=sys.stderr, flush=True)
            raise
        return random.choice(obs.legal_cards)


if __name__ == "__main__":
    serve(MemoryHog())
