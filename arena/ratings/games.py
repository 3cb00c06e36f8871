"""What every rating model shares: the Elo scale, the prior, and games turned into arrays.

Games come in as a list of ``{bot: points}`` (one per game) plus an optional parallel list
of groups (the resampling unit, e.g. a match). Everything is put in a canonical order that
depends on the games' content only, never on the order of the list, so that every sum a
model takes is the same bit for bit however the games were listed.

The prior.  Each bot gets ``PRIOR_GAMES`` = 1 virtual comparison: a draw against a
virtual opponent of mean strength.  That keeps every estimate finite (a bot that won or
lost every comparison gets a large but finite rating), gives a lone bot 1500, and pins each
component of a disconnected comparison graph near the mean (ratings across components are
a convention, not a measurement).  Against the hundreds of comparisons a bot makes in a
tournament its pull is a fraction of a percent.

Intervals.  With fewer than two groups, or for a bot that was never compared with another,
the data say nothing about the spread: the interval is then the prior's own, ±
``NO_DATA_HALF_WIDTH`` Elo (1.96 prior standard deviations of a bot's log-odds, 2/√prior),
wide and finite.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Generic, TypeVar

import numpy as np

ELO_CENTER = 1500.0
ELO_SCALE = 400.0 / np.log(10.0)  # Elo points per unit of natural log-odds
PRIOR_GAMES = 1.0
Z95 = 1.959963984540054
NO_DATA_HALF_WIDTH = Z95 * ELO_SCALE * 2.0 / math.sqrt(PRIOR_GAMES)

# A bot as the games name it: any hashable key (a version id, a name); the ratings come back
# under the same keys.
Bot = TypeVar("Bot", bound=Hashable)
Bot_co = TypeVar("Bot_co", bound=Hashable, covariant=True)
Games = Sequence[Mapping[Bot, float]]


@dataclass(frozen=True)
class Rating:
    """A bot's Elo with its 95 % interval and the number of games it played."""

    elo: float
    ci_low: float
    ci_high: float
    games: int


@dataclass(frozen=True)
class Tables(Generic[Bot_co]):
    """Games as arrays in canonical order: ``bot[g, k]`` is the index (into ``bots``) of
    the bot in column k of game g (-1: empty), ``points[g, k]`` its points, ``group[g]``
    the canonical number of the game's group (0..n_groups-1, ascending)."""

    bots: Sequence[Bot_co]
    bot: np.ndarray
    points: np.ndarray
    group: np.ndarray
    n_groups: int

    @property
    def games_played(self) -> np.ndarray:
        return np.bincount(self.bot[self.bot >= 0], minlength=len(self.bots))


@dataclass(frozen=True)
class Comparisons:
    """Pairwise comparisons aggregated per (group, pair), sorted by group; lo < hi."""

    n_bots: int
    group: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    wins: np.ndarray  # comparisons won by ``lo`` (ties count half)
    count: np.ndarray  # comparisons made

    def wins_matrix(self, weights: np.ndarray | None = None) -> np.ndarray:
        """Bots × bots wins matrix, optionally with one weight per group."""
        n = self.n_bots
        w = np.ones(len(self.group)) if weights is None else weights[self.group]
        flat = self.lo * n + self.hi
        won = np.bincount(flat, weights=w * self.wins, minlength=n * n).reshape(n, n)
        lost = np.bincount(flat, weights=w * (self.count - self.wins), minlength=n * n)
        return won + lost.reshape(n, n).T


def check_arguments(games: Games[Bot], groups: Sequence[Hashable] | None) -> None:
    if groups is not None and len(groups) != len(games):
        raise ValueError("groups must be parallel to games")


def tables(games: Games[Bot], groups: Sequence[Hashable] | None) -> Tables[Bot]:
    """The games as canonical arrays (see :class:`Tables`)."""
    bots = sorted_unique(chain.from_iterable(games))
    bot, points = _tabulate(games, {b: i for i, b in enumerate(bots)})
    seat = np.argsort(np.where(bot < 0, np.iinfo(np.int64).max, bot), axis=1, kind="stable")
    bot = np.take_along_axis(bot, seat, axis=1)
    points = np.take_along_axis(points, seat, axis=1)
    if groups is None:
        group = np.zeros(len(games), dtype=np.int64)
    else:
        index = {g: i for i, g in enumerate(sorted_unique(groups))}
        group = np.array([index[g] for g in groups], dtype=np.int64)
    order = np.lexsort(
        [points[:, k] for k in reversed(range(points.shape[1]))]
        + [bot[:, k] for k in reversed(range(bot.shape[1]))]
        + [group]
    )
    bot, points, group = bot[order], points[order], group[order]
    if groups is None:  # each game its own group, numbered in canonical order
        group = np.arange(len(games), dtype=np.int64)
    n_groups = int(group.max()) + 1 if len(group) else 0
    return Tables(bots, bot, points, group, n_groups)


def comparisons(t: Tables[Hashable]) -> Comparisons:
    """Every pair of bots at a table is one comparison: more points wins, equal counts half."""
    n = len(t.bots)
    keys, won = [np.zeros(0, dtype=np.int64)], [np.zeros(0)]
    for a in range(t.bot.shape[1]):
        for b in range(a + 1, t.bot.shape[1]):
            ia, ib = t.bot[:, a], t.bot[:, b]
            ok = (ia >= 0) & (ib >= 0)
            pa, pb = t.points[ok, a], t.points[ok, b]
            w_a = (pa > pb) + 0.5 * (pa == pb)
            ia, ib = ia[ok], ib[ok]  # seats are sorted by bot: ia < ib
            keys.append(t.group[ok] * (n * n) + ia * n + ib)
            won.append(w_a)
    uniq, inverse = np.unique(np.concatenate(keys), return_inverse=True)
    pair = uniq % (n * n)
    return Comparisons(
        n_bots=n,
        group=uniq // (n * n),
        lo=pair // n,
        hi=pair % n,
        wins=np.bincount(inverse, weights=np.concatenate(won), minlength=len(uniq)),
        count=np.bincount(inverse, minlength=len(uniq)).astype(float),
    )


def sorted_unique(keys: Iterable[Bot]) -> list[Bot]:
    """Distinct keys in an order that depends on their values only."""
    distinct = set(keys)
    try:
        return sorted(distinct)  # type: ignore[type-var]
    except TypeError:
        return sorted(distinct, key=lambda k: (type(k).__qualname__, repr(k)))


def _tabulate(games: Games[Bot], index: Mapping[Bot, int]) -> tuple[np.ndarray, np.ndarray]:
    """Games as a (games × seats) table of bot indices (-1 = empty) and points."""
    sizes = np.fromiter(map(len, games), dtype=np.int64, count=len(games))
    total = int(sizes.sum())
    seated = map(index.__getitem__, chain.from_iterable(games))
    ids = np.fromiter(seated, dtype=np.int64, count=total)
    values = chain.from_iterable(g.values() for g in games)
    pts = np.fromiter(values, dtype=float, count=total)
    if not np.all(np.isfinite(pts)):
        raise ValueError("points must be finite numbers")
    rows = np.repeat(np.arange(len(games)), sizes)
    cols = np.arange(total) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    width = max(int(sizes.max()), 1)
    table = np.full((len(games), width), -1, dtype=np.int64)
    points = np.zeros((len(games), width))
    table[rows, cols] = ids
    points[rows, cols] = pts
    return table, points


def centred_sd(cov: np.ndarray) -> np.ndarray:
    """Standard deviations of x - mean(x) from the covariance of x."""
    n = cov.shape[0]
    c = np.eye(n) - 1.0 / n
    sd: np.ndarray = np.sqrt(np.clip(np.diag(c @ cov @ c), 0.0, None))
    return sd


def group_blocks(n_groups: int, n_bots: int) -> Iterable[tuple[int, int]]:
    """(first group, count) blocks small enough that a block's scores (count × bots)
    stay around 2M numbers, for any number of groups."""
    block = max(1, 2_000_000 // max(n_bots, 1))
    for start in range(0, n_groups, block):
        yield start, min(block, n_groups - start)


def ratings(
    t: Tables[Bot], elo: np.ndarray, half_width: np.ndarray | None, compared: np.ndarray
) -> dict[Bot, Rating]:
    """Ratings by bot; bots without comparisons, and every bot when fewer than two groups
    measure the spread, get the prior's half-width; a lone bot is exactly 1500. No
    ``half_width`` (intervals not asked for): NaN bounds."""
    if half_width is None:
        half_width = np.full(len(elo), np.nan)
    elif t.n_groups < 2:
        half_width = np.full(len(elo), NO_DATA_HALF_WIDTH)
    else:
        half_width = np.where(compared, half_width, NO_DATA_HALF_WIDTH)
    if len(elo) == 1:
        half_width = np.zeros(1)
    games = t.games_played
    return {
        bot: Rating(
            float(elo[i]),
            float(elo[i] - half_width[i]),
            float(elo[i] + half_width[i]),
            int(games[i]),
        )
        for i, bot in enumerate(t.bots)
    }
