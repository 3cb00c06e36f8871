"""Plays legal cards, but writes 1 MiB to stderr in every decision first."""

import random
import sys

from arena.sdk import Bot, serve

CHUNK = ("flood " * 1024)[:4096]


def flood():
    for _ in range(256):  # 256 x 4 KiB = 1 MiB
        sys.stderr.write(CHUNK)
    sys.stderr.flush()


class StderrFlood(Bot):
    name = "stderr-flood"

    def call(self, obs):
        flood()
        return random.choice(obs.legal_calls)

    def play(self, obs):
        flood()
        return random.choice(obs.legal_cards)


if __name__ == "__main__":
    serve(StderrFlood())
