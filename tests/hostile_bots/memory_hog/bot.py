"""Calls normally; for every card it first allocates a 4 GiB buffer (and, should that ever
succeed, touches every page of it)."""

import random
import sys

from arena.sdk import Bot, serve

GiB = 1024**3


class MemoryHog(Bot):
    name = "memory-hog"

    def call(self, obs):
        return random.choice(obs.legal_calls)

    def play(self, obs):
        print("allocating 4 GiB", file=sys.stderr, flush=True)
        hog = bytearray(4 * GiB)
        for i in range(0, len(hog), 4096):
            hog[i] = 1
        return random.choice(obs.legal_cards)


if __name__ == "__main__":
    serve(MemoryHog())
