"""Always calls more tricks than the rules allow (max_call + 1), then plays normally."""

import random

from arena.sdk import Bot, serve


class IllegalCall(Bot):
    name = "illegal-call"

    def call(self, obs):
        return max(obs.legal_calls) + 1

    def play(self, obs):
        return random.choice(obs.legal_cards)


if __name__ == "__main__":
    serve(IllegalCall())
