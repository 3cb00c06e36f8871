"""The smallest complete bot: a random legal call and a random legal card.

Its choices come from ``self.rng``, which the SDK seeds from the match's id: a seeded
``arena play`` or ``arena demo`` repeats exactly."""

from arena.sdk import Bot, serve


class RandomBot(Bot):
    name = "random"
    version = "1.0.0"

    def call(self, obs):
        return self.rng.choice(obs.legal_calls)

    def play(self, obs):
        return self.rng.choice(obs.legal_cards)


if __name__ == "__main__":
    serve(RandomBot())
