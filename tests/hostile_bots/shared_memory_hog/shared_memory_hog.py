"""Hold MAP_SHARED anonymous memory, which RLIMIT_DATA does not count, from two processes:
a shared mapping is touched half by this process and half by a forked child, 16 MiB at a
time; each reports "<role> touched <n> MiB" as it goes.

Run alone (the sandbox tests), argv: MIB (the mapping's size), reports on stdout, then
"held MIB MiB; child status N". The bot beside it (bot.py) maps 1 GiB at its first card.
"""

import mmap
import os
import sys

STEP = 16 * 1024 * 1024


def touch(shared: mmap.mmap, start: int, size: int, role: str, out) -> None:
    for offset in range(0, size, STEP):
        for page in range(start + offset, start + offset + STEP, mmap.PAGESIZE):
            shared[page] = 1
        print(f"{role} touched {(offset + STEP) >> 20} MiB", file=out, flush=True)


if __name__ == "__main__":
    total = int(sys.argv[1]) * 1024 * 1024
    shared = mmap.mmap(-1, total)  # MAP_SHARED | MAP_ANONYMOUS
    half = total // 2
    child = os.fork()
    role, start = ("child", half) if child == 0 else ("parent", 0)
    touch(shared, start, half, role, sys.stdout)
    if child == 0:
        os._exit(0)
    _, status = os.waitpid(child, 0)
    print(f"held {total >> 20} MiB; child status {status}", flush=True)
