"""Allocate (and touch) memory in 32 MiB steps, up to 2 GiB: below the 4 GiB address-space
backstop, so only a real memory limit can stop it.

Run alone (the sandbox tests) it prints how far it got ("allocated N MiB"); a MemoryError
is reported ("MemoryError after N MiB") and ends it with status 3. The bot beside it
(bot.py) grabs the same way for its cards.
"""

import sys

STEP = 32 * 1024 * 1024
CAP = 2 * 1024**3


def grab(held: list[bytes], report) -> None:
    """Append touched blocks of STEP bytes to ``held`` until it holds CAP, calling
    ``report(mib)`` with the MiB held after each."""
    while len(held) * STEP < CAP:
        held.append(b"x" * STEP)
        report(len(held) * STEP >> 20)


if __name__ == "__main__":
    chunks: list[bytes] = []
    try:
        grab(chunks, lambda mib: print(f"allocated {mib} MiB", flush=True))
    except MemoryError:
        print(f"MemoryError after {len(chunks) * STEP >> 20} MiB", flush=True)
        sys.exit(3)
