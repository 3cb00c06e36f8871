"""A game: several deals with the deal passing to the right and cumulative scores."""

from __future__ import annotations

from arena.game.deal import DEFAULT_SHUFFLE, OVER, Deal, derive_seed
from arena.game.errors import IllegalAction
from arena.game.observation import Observation
from arena.game.rules import Ruleset


class Game:
    """``rules.deals_per_game`` deals from one seed; the same seed gives the same deals."""

    def __init__(
        self, rules: Ruleset, seed: int, first_dealer: int = 0, shuffle: str = DEFAULT_SHUFFLE
    ) -> None:
        if first_dealer not in range(4):
            raise ValueError(f"first_dealer must be a seat 0-3, not {first_dealer!r}")
        self.rules, self.seed, self.first_dealer = rules, seed, first_dealer
        self.shuffle = shuffle
        self.scores = [0, 0, 0, 0]
        self.finished: list[Deal] = []
        self.deal: Deal = self._new_deal(0)

    def _new_deal(self, index: int) -> Deal:
        dealer = (self.first_dealer + index) % 4
        seed = derive_seed(self.seed, index)
        return Deal(self.rules, seed, dealer, index, tuple(self.scores), shuffle=self.shuffle)

    @property
    def over(self) -> bool:
        return self.deal.phase == OVER and len(self.finished) == self.rules.deals_per_game

    def call(self, seat: int, n: int) -> None:
        self._check_live()
        self.deal.call(seat, n)

    def play(self, seat: int, card: int) -> int | None:
        self._check_live()
        winner = self.deal.play(seat, card)
        if self.deal.phase == OVER:
            self._close_deal()
        return winner

    def _close_deal(self) -> None:
        for seat, pts in enumerate(self.deal.points()):
            self.scores[seat] += pts
        self.finished.append(self.deal)
        if len(self.finished) < self.rules.deals_per_game:
            self.deal = self._new_deal(len(self.finished))

    def _check_live(self) -> None:
        if self.over:
            raise IllegalAction("the game is over")

    def observation(self, seat: int) -> Observation:
        return self.deal.observation(seat)
