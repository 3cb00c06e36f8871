"""Fork without end; every child forks too. Reports the first refused fork on stderr.

Run alone (the sandbox tests), argv: MARKER (only there so the test can find the
processes). The bot beside it (bot.py) does this on its first card request.
"""

import os
import sys
import time


def fork_forever() -> None:
    reported = False  # per process: a child inherits it
    while True:
        try:
            os.fork()
        except OSError as exc:
            if not reported:
                reported = True
                print(f"fork refused: {exc}", file=sys.stderr, flush=True)
            time.sleep(0.01)


if __name__ == "__main__":
    fork_forever()
