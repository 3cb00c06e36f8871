"""Calls legally, then always plays a card that is not in its hand."""

from arena.sdk import Bot, serve

RANKS = "23456789TJQKA"
SUITS = "SHDC"


class NotMine(Bot):
    name = "services-illegal-card"

    def call(self, obs):
        return obs.legal_calls[0]

    def play(self, obs):
        held = {str(card) for card in obs.hand}
        return next(r + s for s in SUITS for r in RANKS if r + s not in held)


if __name__ == "__main__":
    serve(NotMine())
