"""Dies before serving: prints a reason on stderr and exits with status 1."""

import sys

print("fatal: cannot load my opening book (hostile test bot)", file=sys.stderr, flush=True)
sys.exit(1)
