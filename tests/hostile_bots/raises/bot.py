"""Plays the lowest legal move, except that its 2nd and 5th decisions of each game raise a
ValueError whose message holds markup, a terminal escape and far more text than is kept."""

from arena.sdk import Bot, serve

RAISE_ON = (2, 5)
MESSAGE = "bad hand <b>{n}</b>\x1b[2J " + "x" * 500


class Raises(Bot):
    name = "hostile-raises"

    def __init__(self):
        super().__init__()
        self.decisions = 0

    def _tick(self):
        self.decisions += 1
        if self.decisions in RAISE_ON:
            raise ValueError(MESSAGE.format(n=self.decisions))

    def call(self, obs):
        self._tick()
        return obs.legal_calls[0]

    def play(self, obs):
        self._tick()
        return obs.legal_cards[0]


if __name__ == "__main__":
    serve(Raises())
