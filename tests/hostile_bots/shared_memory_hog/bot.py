"""Calls normally; at its first card it maps 1 GiB of MAP_SHARED anonymous memory (which
RLIMIT_DATA does not count), forks, and both processes touch their half of it 16 MiB at a
time, reporting "<role> touched <n> MiB" on stderr."""

import mmap
import os
import random
import sys

from arena.sdk import Bot, serve

STEP = 16 * 1024 * 1024
HALF = 512 * 1024 * 1024


def touch(shared, start, role):
    for offset in range(0, HALF, STEP):
        for page in range(start + offset, start + offset + STEP, mmap.PAGESIZE):
            shared[page] = 1
        print(f"{role} touched {(offset + STEP) >> 20} MiB", file=sys.stderr, flush=True)


class SharedMemoryHog(Bot):
    name = "shared-memory-hog"

    def call(self, obs):
        return random.choice(obs.legal_calls)

    def play(self, obs):
        shared = mmap.mmap(-1, 2 * HALF)
        if os.fork() == 0:
            touch(shared, HALF, "child")
            os._exit(0)
        touch(shared, 0, "parent")
        print("held 1 GiB", file=sys.stderr, flush=True)
        return random.choice(obs.legal_cards)


if __name__ == "__main__":
    serve(SharedMemoryHog())
