"""A deterministic bot: the smallest legal call and the lowest legal card, so two runs of
the same tournament give the same games."""

from arena.sdk import Bot, serve


class LowCard(Bot):
    name = "workers-lowcard"

    def call(self, obs):
        return min(obs.legal_calls)

    def play(self, obs):
        return min(obs.legal_cards)


if __name__ == "__main__":
    serve(LowCard())
