"""Exits at once with a reason on stderr, as a bot missing a dependency would."""

import sys

print("crash-at-start: no model file here", file=sys.stderr, flush=True)
sys.exit(3)
