"""Calls normally; at its first card it maps 1 GiB of MAP_SHARED anonymous memory (which
RLIMIT_DATA does not count), forks, and both processes touch their half of it 16 MiB at a
time (``shared_memory_hog.py``), reporting "<role> touched <n> MiB" on stderr."""

import mmap
import os
import random
import sys

from shared_memory_hog import touch

from arena.sdk import Bot, serve

HALF = 512 * 1024 * 1024


class SharedMemoryHog(Bot):
    name = "shared-memory-hog"

    def call(self, obs):
        return random.choice(obs.legal_calls)

    def play(self, obs):
        shared = mmap.mmap(-1, 2 * HALF)
        if os.fork() == 0:
            touch(shared, HALF, HALF, "child", sys.stderr)
            os._exit(0)
        touch(shared, 0, HALF, "parent", sys.stderr)
        print("held 1 GiB", file=sys.stderr, flush=True)
        return random.choice(obs.legal_cards)


if __name__ == "__main__":
    serve(SharedMemoryHog())
