"""The smallest complete bot: a random legal call and a random legal card."""

import random

from arena.sdk import Bot, serve


class RandomBot(Bot):
    name = "random"
    version = "1.0.0"

    def call(self, obs):
        return random.choice(obs.legal_calls)

    def play(self, obs):
        return random.choice(obs.legal_cards)


if __name__ == "__main__":
    serve(RandomBot())
