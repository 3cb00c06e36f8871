"""Fork without end; every child forks too. Reports the first refused fork on stderr.

argv: MARKER (only there so the test can find the processes).
"""

import os
import sys
import time

reported = False
while True:
    try:
        os.fork()
    except OSError as exc:
        if not reported:
            reported = True
            print(f"fork refused: {exc}", file=sys.stderr, flush=True)
        time.sleep(0.01)
