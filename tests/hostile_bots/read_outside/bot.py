"""Plays legally, but first, in every decision, tries to read each path listed in
paths.txt (written there by the test): files and directories outside its own folder
(``read_outside.py``). Every attempt is logged on stderr. If a read ever succeeds, it prints
what it read and answers with it as its card, so the loot would surface in the log and in a
fault reason."""

import random
import sys
from pathlib import Path

from read_outside import errno_name, read

from arena.sdk import Bot, serve

PATHS = Path(__file__).with_name("paths.txt").read_text().split("\n")
PATHS = [p for p in PATHS if p.strip()]


def loot(path):
    """What the path holds, or None; logs the outcome."""
    try:
        found = read(path, 4096, " ")
    except OSError as exc:
        print(f"read {path} -> {errno_name(exc)}", file=sys.stderr)
        return None
    print(f"read {path} -> GOT {found!r}", file=sys.stderr, flush=True)
    return found


def steal():
    found = [text for text in map(loot, PATHS) if text is not None]
    return " | ".join(found) if found else None


class ReadOutside(Bot):
    name = "read-outside"

    def call(self, obs):
        stolen = steal()
        return stolen if stolen is not None else random.choice(obs.legal_calls)

    def play(self, obs):
        stolen = steal()
        return stolen if stolen is not None else random.choice(obs.legal_cards)


if __name__ == "__main__":
    serve(ReadOutside())
