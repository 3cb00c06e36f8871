"""Plays legal moves at random until its first card of game 3, deal 2 (a hand of the match
that one game never deals it), then hard-exits with status 3 (no clean shutdown)."""

import os
import random
import sys

from arena.sdk import Bot, serve

CRASH_GAME, CRASH_DEAL = 2, 1  # counted from 0, as the protocol does


class CrashesInALaterGame(Bot):
    name = "crashes-in-a-later-game"

    def call(self, obs):
        return random.choice(obs.legal_calls)

    def play(self, obs):
        if (self.game, obs.deal) == (CRASH_GAME, CRASH_DEAL):
            where = f"game {self.game + 1}, deal {obs.deal + 1}"
            print(f"crashing in {where}", file=sys.stderr, flush=True)
            os._exit(3)
        return random.choice(obs.legal_cards)


if __name__ == "__main__":
    serve(CrashesInALaterGame())
