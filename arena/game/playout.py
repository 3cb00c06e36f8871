"""The search fast path: batches of random playouts compiled with numba.

A search bot samples the unseen cards into hands, then plays each sample out many times.
The kernel below calls ``legal_mask``, ``add_card`` and ``winning_card`` from ``tricks`` —
the very functions the state machine runs in CPython — compiled by numba, so there is one
copy of the rules and the playouts run at native speed. Compilation happens on first use
(about 10 s cold, ~2 s from numba's on-disk cache). numba checks that cache against each
kernel's own file only, so it is emptied first when the trick rules or the cards' tables the
kernels inline have changed (``arena.numba_cache``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numba
import numpy as np

from arena.game.deal import PLAYING, Deal
from arena.game.tricks import add_card, head_code, legal_mask, winning_card
from arena.numba_cache import drop_stale

HERE = Path(__file__).parent
# What this folder's kernels are built from; numba loads a cached kernel at its first call.
COMPILED_FROM = ("cards.py", "tricks.py", "playout.py")
drop_stale(HERE, [HERE / name for name in COMPILED_FROM])

# The engine's trick rules compiled, for any search kernel (here and in the master bot).
legal_nb = numba.njit(cache=True)(legal_mask)
add_nb = numba.njit(cache=True)(add_card)
winner_nb = numba.njit(cache=True)(winning_card)


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
def popcount(x: int) -> int:
    count = 0
    while x:
        x &= x - 1
        count += 1
    return count


@numba.njit(cache=True)
def lowest_index(x: int) -> int:
    index = 0
    while not x & 1:
        x >>= 1
        index += 1
    return index


@numba.njit(cache=True)
def _playouts(
    hands: np.ndarray,
    to_act: int,
    leader: int,
    trick: np.ndarray,
    won: np.ndarray,
    head: int,
    must_trump: bool,
    seed: int,
) -> np.ndarray:
    np.random.seed(seed)
    n = hands.shape[0]
    out = np.empty((n, 4), np.int64)
    for w in range(n):
        out[w] = _one_playout(hands[w].copy(), to_act, leader, trick, won.copy(), head, must_trump)
    return out


@numba.njit(cache=True)
def _one_playout(
    hands: np.ndarray,
    seat: int,
    leader: int,
    trick: np.ndarray,
    won: np.ndarray,
    head: int,
    must_trump: bool,
) -> np.ndarray:
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
