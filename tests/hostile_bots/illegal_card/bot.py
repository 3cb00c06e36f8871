"""Always plays a card it may not play: one of its own that does not follow the rules, or,
when every card it holds is legal, a card it does not hold."""

import random

from arena.sdk import Bot, serve

DECK = [r + s for s in "SHDC" for r in "23456789TJQKA"]


class IllegalCard(Bot):
    name = "illegal-card"

    def call(self, obs):
        return random.choice(obs.legal_calls)

    def play(self, obs):
        legal = {str(c) for c in obs.legal_cards}
        held = [str(c) for c in obs.hand if str(c) not in legal]
        if held:
            return held[0]
        mine = {str(c) for c in obs.hand}
        return next(c for c in DECK if c not in mine)


if __name__ == "__main__":
    serve(IllegalCard())
