"""The engine's trick rules compiled with numba, for the search kernels of house bots.

The kernels call ``legal_mask``, ``add_card`` and ``winning_card`` from ``arena.game.tricks``
— the very functions the state machine runs in CPython — so there is one copy of the rules,
run at native speed by the search. Compilation happens on first use (about 10 s cold, ~2 s
from numba's on-disk cache). numba checks that cache against each kernel's own file only, so
it is emptied first when the trick rules or the cards' tables the kernels inline have
changed (``arena.numba_cache``). Here, not in ``arena.game``: the rules stay free of I/O and
of the compiler.
"""

from __future__ import annotations

from pathlib import Path

import numba

from arena.game import cards, tricks
from arena.game.tricks import add_card, legal_mask, winning_card
from arena.numba_cache import drop_stale

# What the kernels here are built from; numba loads a cached kernel at its first call.
COMPILED_FROM = (Path(cards.__file__), Path(tricks.__file__), Path(__file__))
drop_stale(Path(__file__).parent, list(COMPILED_FROM))

legal_nb = numba.njit(cache=True)(legal_mask)
add_nb = numba.njit(cache=True)(add_card)
winner_nb = numba.njit(cache=True)(winning_card)


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
