"""A random legal call and card, each after a 10 ms think: a match lasts long enough for a
test to stop the platform while the bots are playing rather than starting."""

import random
import time

from arena.sdk import Bot, serve

THINK_S = 0.01


class SlowRandom(Bot):
    name = "services-slow-random"

    def call(self, obs):
        time.sleep(THINK_S)
        return random.choice(obs.legal_calls)

    def play(self, obs):
        time.sleep(THINK_S)
        return random.choice(obs.legal_cards)


if __name__ == "__main__":
    serve(SlowRandom())
