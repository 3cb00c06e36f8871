"""Allocate (and touch) memory in 32 MiB steps, up to 2 GiB: below the 4 GiB address-space
backstop, so only a real memory limit can stop it.

Prints how far it got; a MemoryError is reported and ends the script with status 3.
"""

import sys

chunks = []
step = 32 * 1024 * 1024
try:
    for _ in range(64):  # up to 2 GiB
        chunks.append(b"x" * step)
        print(f"allocated {len(chunks) * 32} MiB", flush=True)
except MemoryError:
    print(f"MemoryError after {len(chunks) * 32} MiB", flush=True)
    sys.exit(3)
