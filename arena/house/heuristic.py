"""The rule-based house bot, with a noise knob that gives a ladder of known strength order."""

from __future__ import annotations

from arena.game import Card, Observation
from arena.game.cards import CARDS, mask_of
from arena.house.base import HouseBot
from arena.house.calling import choose_call, estimate_tricks
from arena.house.knowledge import View
from arena.house.play import choose_card


class HeuristicBot(HouseBot):
    """Calls its sure and likely winners, then plays to make exactly what the scoring rewards.

    With ``noise=p`` each decision is replaced by a uniformly random legal one with chance
    ``p``: ``noise=0`` is the full bot, ``noise=1`` plays like ``RandomBot``.
    """

    name = "heuristic"

    def __init__(self, seed: int = 0, noise: float = 0.0) -> None:
        if not 0.0 <= noise <= 1.0:
            raise ValueError(f"noise must be a probability in [0, 1], not {noise!r}")
        super().__init__(seed)
        self.noise = noise

    def __repr__(self) -> str:
        return f"HeuristicBot(seed={self.seed}, noise={self.noise})"

    def _noisy(self) -> bool:
        return self.noise > 0.0 and self._rng.random() < self.noise

    def call(self, obs: Observation) -> int:
        if self._noisy():
            return self._rng.choice(obs.legal_calls)
        hand = 0
        for card in obs.hand:
            hand |= 1 << card
        return choose_call(estimate_tricks(hand), obs.rules.scoring, obs.legal_calls)

    def play(self, obs: Observation) -> Card:
        legal = obs.legal_cards
        if self._noisy():
            return self._rng.choice(legal)
        if len(legal) == 1:
            return legal[0]
        v = View(obs)
        wants = wants_tricks(obs.won[obs.seat], obs.calls[obs.seat] or 0, obs.rules.scoring)
        return CARDS[
            choose_card(
                mask_of(legal),
                v.hand,
                v.unseen,
                v.voids,
                v.seat,
                v.n,
                v.led,
                v.best_led,
                v.best_spade,
                wants,
            )
        ]


def wants_tricks(won: int, call: int, scoring: str) -> bool:
    """Whether one more trick helps a seat that has ``won`` tricks on ``call``.

    Under bhoos every trick beyond the call still scores 0.1 and may sink an opponent's call.
    Under pagat the call fails above call + 1 tricks, so once the call is made the bot ducks,
    unless it has already overshot (then the deal is lost anyway and it spoils others').
    """
    return wants(won, call, scoring == "bhoos")


def wants(won: int, call: int, bhoos: bool) -> bool:
    """``wants_tricks`` for numba (see ``cardsets``): the scoring as a flag."""
    return bhoos or won < call or won > call + 1
