"""Allocate (and touch) memory in 32 MiB steps until something stops it.

Prints how far it got; a MemoryError is reported and ends the script normally.
"""

import sys

chunks = []
step = 32 * 1024 * 1024
try:
    for _ in range(1024):  # up to 32 GiB
        chunks.append(b"x" * step)
        print(f"allocated {len(chunks) * 32} MiB", flush=True)
except MemoryError:
    print(f"MemoryError after {len(chunks) * 32} MiB", flush=True)
    sys.exit(3)
