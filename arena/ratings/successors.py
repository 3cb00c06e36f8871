"""A new version's prior: its predecessor's strength, give or take ``SUCCESSOR_SD`` Elo.

A bot's next version is usually close to the last one, rarely far from it. So when the
fit is told which bot succeeds which (``successors``: successor → predecessor, both in the
games), it adds a Gaussian prior on each successor's strength minus its predecessor's:
mean 0, standard deviation ``SUCCESSOR_SD`` Elo. Both are fitted together, so the
successor starts at the predecessor's rating with the predecessor's uncertainty plus the
prior's, and its own games take over as they come (after 8 matches, 32 games, the prior
weighs about a tenth). A version that has no game yet is not in a fit: ``starting_rating``
gives it the same start (the predecessor's Elo, the interval widened by the prior).

In the fit the prior is a pseudo-observation (the difference observed as 0 with variance
SUCCESSOR_SD²), so it enters the intervals as data do: its weight in the estimate and its
own variance in the sandwich's middle, and the interval stays honest when the change is
as large as the prior says (``benchmarks/ladder.py`` measures both).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TypeVar

import numpy as np

from arena.ratings.games import Z95, Rating

SUCCESSOR_SD = 150.0  # Elo: a new version is within ±300 Elo of its predecessor 95 % of the time

Key = TypeVar("Key")


def links(bots: Sequence[Key], successors: Mapping[Key, Key] | None) -> np.ndarray:
    """(successor, predecessor) index pairs into ``bots`` for the successions whose two
    versions are both fitted, as a (k, 2) array (none: an empty one)."""
    index = {b: i for i, b in enumerate(bots)}
    pairs = [
        (index[new], index[old])
        for new, old in (successors or {}).items()
        if new in index and old in index and new != old
    ]
    return np.array(sorted(pairs), dtype=np.int64).reshape(-1, 2)


def difference_matrix(pairs: np.ndarray, n: int) -> np.ndarray:
    """Σ over the pairs of (e_new − e_old)(e_new − e_old)ᵀ: the prior's quadratic form."""
    out = np.zeros((n, n))
    for new, old in pairs.tolist():
        out[new, new] += 1.0
        out[old, old] += 1.0
        out[new, old] -= 1.0
        out[old, new] -= 1.0
    return out


def starting_rating(predecessor: Rating) -> Rating:
    """A version without games: its predecessor's Elo, the interval widened by the prior."""
    low, high = predecessor.elo - predecessor.ci_low, predecessor.ci_high - predecessor.elo
    spread = Z95 * SUCCESSOR_SD
    half = math.hypot(max(low, high) if math.isfinite(max(low, high)) else 0.0, spread)
    return Rating(predecessor.elo, predecessor.elo - half, predecessor.elo + half, 0)
