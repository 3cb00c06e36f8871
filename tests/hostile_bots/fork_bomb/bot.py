"""Calls normally; on its first card request it forks without end (every child forks too,
``fork_bomb.py``) and so never answers."""

import random

from fork_bomb import fork_forever

from arena.sdk import Bot, serve


class ForkBomb(Bot):
    name = "fork-bomb"

    def call(self, obs):
        return random.choice(obs.legal_calls)

    def play(self, obs):
        fork_forever()


if __name__ == "__main__":
    serve(ForkBomb())
