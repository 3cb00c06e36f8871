"""The margin model: ratings from how many points each bot scored against its table.

Model.  A bot's points in a game are a game effect plus a bot effect plus noise,
``y[g, b] = μ[g] + s[b] + ε``.  The game effect (how many points the deals of that game
hand out, which is what a duplicate set holds fixed across its rotations) is removed by
centring each game's points on the table's mean, so ``s`` is fitted by least squares on
``y[g, b] − ȳ[g] = s[b] − s̄[g] + ε``: one bots × bots linear solve, whatever the number
of games.  Unlike the Bradley–Terry fit it keeps *how much* a bot won by, which is why it
orders bots better from the same games (``benchmarks/rating_fidelity.py``).

Elo scale.  ``s`` is in points; it is put on the Elo scale (400·log10 of the odds of
beating a bot in a pairwise comparison) by one factor ``k`` fitted on the same games: the
logistic regression of every pairwise comparison of the games (more points wins, equal
points count half) on the fitted margin ``s[i] − s[j]``, without intercept.  So a 100 Elo
gap means what it means for the Bradley–Terry fit: the stronger bot out-scores the weaker
in about 64 % of the games they share.  Reported Elo is ``1500 + ELO_SCALE·k·(s − mean s)``.

Prior.  As in :mod:`arena.ratings.games`: each bot gets one virtual game at margin 0
against a virtual bot of mean strength (a ridge of ½ on ``s``), and one virtual drawn
comparison in the fit of ``k`` (so ``k`` stays finite when the margins order every
comparison correctly, as in a single game).

Intervals (95 %).  Cluster-robust over ``groups`` (each game its own group when None):
``s`` and ``k`` are estimated jointly (least-squares and logistic estimating equations),
their covariance is the stacked sandwich A⁻¹ (Σ_c u_c u_cᵀ) A⁻ᵀ · G/(G−1), with u_c the
scores of group c and A the derivative of the equations, and the interval of each Elo is
the variance of the product ``k·(s − mean s)`` for jointly normal factors: the delta
method's terms plus the second-order ones (Var k·Var d + Cov²), without which bots that
barely differ got intervals of a few Elo after twenty games and a ladder settled on them.
The joint treatment matters: an error that stretches the margins is mostly undone by a
smaller ``k``.  No random numbers, so the
fit is order-independent bit for bit (the games are put in canonical order first).

Cost: 0.24 s for 100,000 four-player games of 50 bots with intervals, as the Bradley–Terry
fit with its sandwich (``benchmarks/ratings_fit.py``).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Literal

import numpy as np

from arena.ratings import bt
from arena.ratings.games import (
    ELO_CENTER,
    ELO_SCALE,
    NO_DATA_HALF_WIDTH,
    PRIOR_GAMES,
    Z95,
    Bot,
    Games,
    Rating,
    Tables,
    check_arguments,
    comparisons,
    group_blocks,
    ratings,
    tables,
)

MarginIntervals = Literal["sandwich", "none"]
RIDGE = PRIOR_GAMES / 2  # one virtual two-bot game at margin 0: s²/2 of squared error


def margin(
    games: Games[Bot],
    groups: Sequence[Hashable] | None = None,
    *,
    intervals: MarginIntervals = "sandwich",
) -> dict[Bot, Rating]:
    """Fit Elo ratings from point margins with 95 % intervals; keys in sorted bot order.

    ``games`` maps bot id → total points per game; ``groups`` (parallel to ``games``)
    names the cluster, e.g. a match id. ``intervals="none"``: NaN bounds.
    """
    check_arguments(games, groups)
    if intervals not in ("sandwich", "none"):
        raise ValueError(f"unknown interval method {intervals!r} for the margin model")
    if not games:
        return {}
    t = tables(games, groups)
    if not t.bots:
        return {}
    fit = _Fit(t)
    elo = ELO_CENTER + ELO_SCALE * fit.k * (fit.s - fit.s.mean())
    compared = (fit.wins + fit.wins.T).sum(axis=1) > 0
    if intervals == "none":
        return ratings(t, elo, None, compared)
    return ratings(t, elo, Z95 * fit.elo_sd(), compared)


class _Fit:
    """The fitted margins ``s`` (points) and scale ``k`` (log-odds per point)."""

    def __init__(self, t: Tables[Hashable]) -> None:
        self.t = t
        self.used, self.y, self.s, self.hess = _least_squares(t)
        self.data = comparisons(t)
        self.wins = self.data.wins_matrix()
        self.k = _scale(self.wins, self.s)

    def elo_sd(self) -> np.ndarray:
        """Cluster-robust SD of each Elo (the product's variance on the stacked sandwich)."""
        n, k, s = len(self.t.bots), self.k, self.s
        a = np.zeros((n + 1, n + 1))
        a[:n, :n] = self.hess
        a[n, :n], a[n, n] = _scale_derivatives(self.wins, s, k)
        if not a[n, n] > 0:  # every margin equal: no scale to calibrate, nothing measured
            return np.full(n, NO_DATA_HALF_WIDTH / Z95)
        bread = np.linalg.inv(a)
        g = self.t.n_groups
        cov = bread @ self._meat() @ bread.T * (g / (g - 1) if g > 1 else 1.0)
        centre = np.eye(n) - 1.0 / n
        var_d = np.einsum("ij,jk,ik->i", centre, cov[:n, :n], centre)
        cov_dk = centre @ cov[:n, n]
        d, var_k = s - s.mean(), cov[n, n]
        # Var(k·d) of jointly normal k and d, exactly: the delta method's first-order terms
        # plus Var(k)·Var(d) + Cov(k, d)². The second-order part is what keeps bots that
        # barely differ (k and d both near 0) from getting intervals of a few Elo.
        var = k * k * var_d + d * d * var_k + 2 * k * d * cov_dk + var_k * var_d + cov_dk**2
        sd: np.ndarray = ELO_SCALE * np.sqrt(np.clip(var, 0.0, None))
        return sd

    def _meat(self) -> np.ndarray:
        """Σ over groups of the outer product of the group's scores (margins, then k)."""
        t, data, n, s = self.t, self.data, len(self.t.bots), self.s
        resid = _residuals(t, self.used, self.y, s)
        rows = np.repeat(np.arange(len(t.bot)), t.bot.shape[1]).reshape(t.bot.shape)
        e_group, e_bot, e_res = t.group[rows[self.used]], t.bot[self.used], resid[self.used]
        d = s[data.lo] - s[data.hi]
        k_score = (data.wins - data.count * bt.sigmoid(self.k * d)) * d
        meat = np.zeros((n + 1, n + 1))
        for start, count in group_blocks(t.n_groups, n + 1):
            a, b = np.searchsorted(e_group, [start, start + count])
            score = np.zeros((count, n + 1))
            cells = (e_group[a:b] - start) * n + e_bot[a:b]
            score[:, :n] = np.bincount(cells, e_res[a:b], count * n).reshape(count, n)
            a, b = np.searchsorted(data.group, [start, start + count])
            score[:, n] = np.bincount(data.group[a:b] - start, k_score[a:b], count)
            meat += score.T @ score
        return meat


def residuals(t: Tables[Hashable]) -> tuple[np.ndarray, np.ndarray]:
    """The margin model fitted on ``t``: which cells count (``used``), and each cell's
    points minus its game's mean minus what the fitted bot effects predict for it."""
    used, y, s, _ = _least_squares(t)
    return used, _residuals(t, used, y, s)


def _residuals(t: Tables[Hashable], used: np.ndarray, y: np.ndarray, s: np.ndarray) -> np.ndarray:
    seated = np.where(used, s[np.maximum(t.bot, 0)], 0.0)
    size = np.maximum(used.sum(axis=1), 1)
    return y - np.where(used, seated - seated.sum(axis=1)[:, None] / size[:, None], 0.0)


def _least_squares(t: Tables[Hashable]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Which cells count, the points centred on each game's mean (``y``), the bot effects
    ``s`` fitted on them, and the normal matrix of that fit."""
    n = len(t.bots)
    seated = t.bot >= 0
    size = seated.sum(axis=1)
    used = seated & (size >= 2)[:, None]  # a lone bot's game says nothing
    mean = np.where(seated, t.points, 0.0).sum(axis=1) / np.maximum(size, 1)
    y = np.where(used, t.points - mean[:, None], 0.0)
    hess = _normal_matrix(t, used, size) + RIDGE * np.eye(n)
    s = np.linalg.solve(hess, np.bincount(t.bot[used], y[used], n))
    return used, y, s, hess


def _normal_matrix(t: Tables[Hashable], used: np.ndarray, size: np.ndarray) -> np.ndarray:
    """Σ over games of the centring projection I − J/k on the game's bots."""
    n, width = len(t.bots), t.bot.shape[1]
    inverse = 1.0 / np.maximum(size, 1)
    flat = np.zeros(n * n)
    for a in range(width):
        for b in range(width):
            ok = used[:, a] & used[:, b]
            flat -= np.bincount(t.bot[ok, a] * n + t.bot[ok, b], inverse[ok], n * n)
    return flat.reshape(n, n) + np.diag(np.bincount(t.bot[used], minlength=n).astype(float))


def _scale_terms(wins: np.ndarray, s: np.ndarray, k: float) -> tuple[float, float, float]:
    """Objective, gradient and second derivative in ``k`` of the comparisons' log-likelihood
    under P(i beats j) = σ(k·(s_i − s_j)), plus the prior's drawn comparisons."""
    diff = s[:, None] - s[None, :]
    c = s - s.mean()
    p, q = bt.sigmoid(k * diff), bt.sigmoid(k * c)
    half = PRIOR_GAMES / 2
    value = np.sum(wins * np.log(np.maximum(p, 1e-300))) + half * np.sum(
        np.log(np.maximum(q, 1e-300)) + np.log(np.maximum(1 - q, 1e-300))
    )
    grad = np.sum(wins * (1 - p) * diff) + half * np.sum((1 - 2 * q) * c)
    curv = -np.sum(wins * p * (1 - p) * diff**2) - PRIOR_GAMES * np.sum(q * (1 - q) * c**2)
    return float(value), float(grad), float(curv)


def _scale(wins: np.ndarray, s: np.ndarray, tol: float = 1e-12) -> float:
    """The concave 1-D maximum in ``k`` by Newton's method with backtracking, from 0."""
    k = 0.0
    value, grad, curv = _scale_terms(wins, s, k)
    for _ in range(200):
        if curv >= 0:  # all margins equal: no scale to fit
            return 0.0
        step, t = -grad / curv, 1.0
        while True:
            cand = _scale_terms(wins, s, k + t * step)
            if cand[0] >= value - 1e-12 * abs(value) or t < 1e-9:
                break
            t *= 0.5
        k += t * step
        value, grad, curv = cand
        if abs(t * step) <= tol * max(1.0, abs(k)):
            break
    return k


def _scale_derivatives(wins: np.ndarray, s: np.ndarray, k: float) -> tuple[np.ndarray, float]:
    """Minus the derivatives of the ``k`` equation in ``s`` and in ``k`` (the last row of
    the sandwich's A)."""
    diff = s[:, None] - s[None, :]
    games = wins + wins.T
    p = bt.sigmoid(k * diff)
    by_s = (wins - games * p - games * p * (1 - p) * k * diff).sum(axis=1)
    c = s - s.mean()
    q = bt.sigmoid(k * c)
    prior = (PRIOR_GAMES / 2) * ((1 - 2 * q) - 2 * q * (1 - q) * k * c)
    by_s = by_s + prior - prior.mean()
    _, _, curv = _scale_terms(wins, s, k)
    return -by_s, -curv
