"""Compiled card-set helpers shared by the master's kernels: suits, ranks and trick heads.

Cards are bit indices (suit * 13 + rank, spades are suit 0, the ace is rank 12); a hand is
an int64 mask. The trick rules themselves come from the engine (``arena.game.playout``).
"""

from __future__ import annotations

import numba
import numpy as np

from arena.game.playout import add_nb, winner_nb

SPADES_BITS = (1 << 13) - 1


@numba.njit(cache=True)
def suit_mask(suit):
    return np.int64(SPADES_BITS) << (13 * suit)


@numba.njit(cache=True)
def above(card):
    """The cards of ``card``'s suit ranking above it."""
    suit = card // 13
    return suit_mask(suit) & ~((np.int64(1) << (card + 1)) - 1)


@numba.njit(cache=True)
def top(mask):
    index = -1
    while mask:
        mask >>= 1
        index += 1
    return index


@numba.njit(cache=True)
def heads(card, led, best_led, best_spade):
    """Whether ``card`` would head the trick summarised (any card heads an empty trick)."""
    if led < 0:
        return True
    a, b, c = add_nb(card, led, best_led, best_spade)
    return winner_nb(a, b, c) == card


@numba.njit(cache=True)
def others(hands, seat):
    """The cards in every hand but ``seat``'s."""
    out = np.int64(0)
    for s in range(4):
        if s != seat:
            out |= hands[s]
    return out
