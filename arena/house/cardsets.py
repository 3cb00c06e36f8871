"""Card-set arithmetic of the house bots, on int masks (bit i is card i).

The heuristic is written so that numba can compile the very same functions for the master's
opponent model (``arena.house.master.opponent``): numba has no ``int.bit_count`` or
``int.bit_length``, so the model registers compiled versions of these three, and the rest
of the heuristic only calls them.
"""

from __future__ import annotations


def popcount(mask: int) -> int:
    return mask.bit_count()


def lowest(mask: int) -> int:
    """The lowest card of a non-empty mask."""
    return (mask & -mask).bit_length() - 1


def highest(mask: int) -> int:
    """The highest card of a non-empty mask."""
    return mask.bit_length() - 1
