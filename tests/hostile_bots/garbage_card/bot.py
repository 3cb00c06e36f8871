"""Answers card requests with text that is no card: "ZZ", then "", then 50 kB of junk
(just under the 64 KiB message cap)."""

import random

from arena.sdk import Bot, serve

GARBAGE = ["ZZ", "", "Q" * 50_000]


class GarbageCard(Bot):
    name = "garbage-card"

    def __init__(self):
        super().__init__()
        self.plays = 0

    def call(self, obs):
        return random.choice(obs.legal_calls)

    def play(self, obs):
        self.plays += 1
        return GARBAGE[(self.plays - 1) % len(GARBAGE)]


if __name__ == "__main__":
    serve(GarbageCard())
