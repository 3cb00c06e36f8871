"""Uniformly random playouts compiled with numba, on the house bots' compiled trick rules: the
tests check those rules against the state machine through them, and benchmarks/engine.py
measures their speed."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numba
import numpy as np

from arena.game.deal import PLAYING, Deal
from arena.game.tricks import head_code
from arena.house.compiled import COMPILED_FROM, add_nb, legal_nb, lowest_index, popcount, winner_nb
from arena.numba_cache import drop_stale

drop_stale(Path(__file__).parent, [*COMPILED_FROM, Path(__file__)])


@dataclass
class Position:
    """A playing-phase position; ``hands`` may be real or sampled for the unseen cards."""

    hands: list[int]
    to_act: int
    leader: int
    trick: list[int]
    won: list[int]
    head: int
    must_trump: bool

    @classmethod
    def from_deal(cls, deal: Deal, hands: list[int] | None = None) -> Position:
        if deal.phase != PLAYING:
            raise ValueError("playouts start from a deal in its playing phase")
        return cls(
            hands=list(deal.hands if hands is None else hands),
            to_act=deal.to_act or 0,
            leader=deal.leader,
            trick=[int(c) for c in deal.trick],
            won=list(deal.won),
            head=head_code(deal.rules),
            must_trump=deal.rules.must_trump,
        )


def playouts(pos: Position, n: int, seed: int = 0, hands: np.ndarray | None = None) -> np.ndarray:
    """Tricks won by seat at the end of ``n`` uniformly random playouts of ``pos``.

    ``hands`` optionally gives each playout its own deal of the cards in hand (shape
    ``(n, 4)``, bitmasks), e.g. one sampled guess of the hidden hands per playout.
    """
    if hands is None:
        hands = np.tile(np.array(pos.hands, dtype=np.int64), (n, 1))
    if hands.shape != (n, 4):
        raise ValueError(f"hands must have shape ({n}, 4), not {hands.shape}")
    trick = np.array(pos.trick, dtype=np.int64)
    won = np.array(pos.won, dtype=np.int64)
    return _playouts(
        hands.astype(np.int64), pos.to_act, pos.leader, trick, won, pos.head, pos.must_trump, seed
    )


@numba.njit(cache=True)
def _playouts(hands, to_act, leader, trick, won, head, must_trump, seed):
    np.random.seed(seed)
    n = hands.shape[0]
    out = np.empty((n, 4), np.int64)
    for w in range(n):
        out[w] = _one_playout(hands[w].copy(), to_act, leader, trick, won.copy(), head, must_trump)
    return out


@numba.njit(cache=True)
def _one_playout(hands, seat, leader, trick, won, head, must_trump):
    played = np.empty(4, np.int64)
    led, best_led, best_spade, k = -1, -1, -1, 0
    for card in trick:
        led, best_led, best_spade = add_nb(card, led, best_led, best_spade)
        played[k] = card
        k += 1
    for _ in range(popcount(hands[0] | hands[1] | hands[2] | hands[3])):
        legal = legal_nb(hands[seat], led, best_led, best_spade, head, must_trump)
        for _ in range(int(np.random.random() * popcount(legal))):
            legal &= legal - 1  # skip a uniformly random number of the legal cards
        card = lowest_index(legal)
        hands[seat] ^= np.int64(1) << card
        led, best_led, best_spade = add_nb(card, led, best_led, best_spade)
        played[k] = card
        k += 1
        if k < 4:
            seat = (seat + 1) % 4
            continue
        best = winner_nb(led, best_led, best_spade)
        for i in range(4):
            if played[i] == best:
                seat = (leader + i) % 4
        won[seat] += 1
        leader, k, led, best_led, best_spade = seat, 0, -1, -1, -1
    return won
