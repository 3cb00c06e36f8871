"""Plays legal cards, but writes 1 MiB to stderr in every decision first
(``stderr_flood.py``)."""

import random

from stderr_flood import flood

from arena.sdk import Bot, serve

CHUNK = ("flood " * 1024)[:4096].encode()


class StderrFlood(Bot):
    name = "stderr-flood"

    def call(self, obs):
        flood(1, CHUNK)
        return random.choice(obs.legal_calls)

    def play(self, obs):
        flood(1, CHUNK)
        return random.choice(obs.legal_cards)


if __name__ == "__main__":
    serve(StderrFlood())
