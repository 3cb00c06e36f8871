"""Write to stderr as fast as possible.

Run alone (the sandbox tests), argv: MIB; writes MIB MiB, then exits normally. The bot
beside it (bot.py) writes 1 MiB in every decision.
"""

import os
import sys


def flood(mib: int, block: bytes) -> None:
    """``mib`` MiB of ``block`` over and over on stderr (fd 2)."""
    for _ in range((mib << 20) // len(block)):
        os.write(2, block)


if __name__ == "__main__":
    flood(int(sys.argv[1]), b"E" * 65536)
    sys.exit(0)
