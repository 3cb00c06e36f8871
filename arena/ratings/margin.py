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
smaller ``k``. A bot seen in few groups has its margin's variance corrected for the small
sample (:mod:`arena.ratings.intervals`: pooled with the model-based σ²·H⁻¹NH⁻¹ scaled by
the measured misfit, and a t quantile). No random numbers, so the
fit is order-independent bit for bit (the games are put in canonical order first).

Successors.  Told which version succeeds which, the fit adds each successor's prior
(:mod:`arena.ratings.successors`): a penalty w·(s_new − s_old)²/2 with w = noise / SD²
(SD: ``SUCCESSOR_SD`` Elo in points, by the scale k of a first fit without it; noise: the
points' variance a cell times the misfit φ, so the prior weighs against the data as the
intervals do), and the pseudo-observation's own variance w·noise in the sandwich's middle.

Cost: 0.24 s for 100,000 four-player games of 50 bots with intervals, as the Bradley–Terry
fit with its sandwich (``benchmarks/ratings_fit.py``).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from arena.ratings import bt
from arena.ratings.games import (
    ELO_CENTER,
    ELO_SCALE,
    NO_DATA_HALF_WIDTH,
    PRIOR_GAMES,
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
from arena.ratings.intervals import groups_per_bot, misfit, moderated
from arena.ratings.successors import SUCCESSOR_SD, difference_matrix, links

MarginIntervals = Literal["sandwich", "none"]
RIDGE = PRIOR_GAMES / 2  # one virtual two-bot game at margin 0: s²/2 of squared error


def margin(
    games: Games[Bot],
    groups: Sequence[Hashable] | None = None,
    *,
    intervals: MarginIntervals = "sandwich",
    successors: Mapping[Bot, Bot] | None = None,
) -> dict[Bot, Rating]:
    """Fit Elo ratings from point margins with 95 % intervals; keys in sorted bot order.

    ``games`` maps bot id → total points per game; ``groups`` (parallel to ``games``)
    names the cluster, e.g. a match id. ``intervals="none"``: NaN bounds. ``successors``
    (version → the version it replaces): the predecessor's prior on each successor
    (:mod:`arena.ratings.successors`).
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
    pairs = links(t.bots, successors)
    if len(pairs):
        fit = _Fit(t, _Prior.of(fit, pairs))
    elo = ELO_CENTER + ELO_SCALE * fit.k * (fit.s - fit.s.mean())
    compared = (fit.wins + fit.wins.T).sum(axis=1) > 0
    if intervals == "none":
        return ratings(t, elo, None, compared)
    return ratings(t, elo, fit.elo_half_width(), compared)


@dataclass(frozen=True)
class _Prior:
    """The successors' prior as the least squares see it: ``weight``·(s_new − s_old)²/2
    a pair (``form``: the pairs' quadratic form), a pseudo-observation of the difference
    whose score has variance ``weight``·``noise`` (``noise``: the points' variance a cell
    as the intervals measure it, so weight = noise / SD² with SD in points)."""

    form: np.ndarray
    weight: float
    noise: float

    @classmethod
    def of(cls, fit: _Fit, pairs: np.ndarray) -> _Prior:
        """The prior of ``pairs`` on the scale of ``fit`` (made without it): SUCCESSOR_SD
        Elo is SUCCESSOR_SD / (ELO_SCALE·k) points."""
        form = difference_matrix(pairs, len(fit.t.bots))
        if not fit.k > 0:  # no scale: an Elo prior says nothing about points
            return cls(form, 0.0, 0.0)
        noise = fit.phi() * fit.sigma2
        sd = SUCCESSOR_SD / (ELO_SCALE * fit.k)
        return cls(form, noise / sd**2, noise)


class _Fit:
    """The fitted margins ``s`` (points) and scale ``k`` (log-odds per point)."""

    def __init__(self, t: Tables[Hashable], prior: _Prior | None = None) -> None:
        self.t, self.prior = t, prior
        penalty = None if prior is None else prior.weight * prior.form
        self.used, self.y, self.s, self.hess, self.normal = _least_squares(t, penalty)
        self.data = comparisons(t)
        self.wins = self.data.wins_matrix()
        self.k = _scale(self.wins, self.s)
        resid = _residuals(t, self.used, self.y, self.s)[self.used]
        cells = int(np.maximum(self.used.sum(axis=1) - 1, 0).sum()) - len(t.bots)
        self.sigma2 = float(np.sum(resid**2)) / max(cells, 1)  # the points' variance a cell
        self.groups = groups_per_bot(t)

    def elo_half_width(self) -> np.ndarray:
        """Each Elo's 95 % half-width: the product's variance on the stacked sandwich, with
        the small-sample correction of :mod:`arena.ratings.intervals`."""
        parts = self._variances()
        if parts is None:  # every margin equal: no scale to calibrate, nothing measured
            return np.full(len(self.t.bots), NO_DATA_HALF_WIDTH)
        robust, model, prior, cov_dk, var_k = parts
        var_d, quantile = moderated(robust, model, self.groups)
        var_d = var_d + prior
        k, d = self.k, self.s - self.s.mean()
        # Var(k·d) of jointly normal k and d, exactly: the delta method's first-order terms
        # plus Var(k)·Var(d) + Cov(k, d)². The second-order part is what keeps bots that
        # barely differ (k and d both near 0) from getting intervals of a few Elo.
        var = k * k * var_d + d * d * var_k + 2 * k * d * cov_dk + var_k * var_d + cov_dk**2
        half: np.ndarray = quantile * ELO_SCALE * np.sqrt(np.clip(var, 0.0, None))
        return half

    def phi(self) -> float:
        """The model's misfit φ on these games (:func:`arena.ratings.intervals.misfit`)."""
        parts = self._variances()
        return 1.0 if parts is None else misfit(parts[0], parts[1], self.groups)

    def _variances(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float] | None:
        """Per bot, the variance of its centred margin d = s − mean s as the data measure
        it (their part of the stacked sandwich), as the model says (σ²·H⁻¹NH⁻¹) and as the
        prior adds to it; then Cov(d, k) and Var(k). None: no scale to calibrate."""
        n, k, s = len(self.t.bots), self.k, self.s
        a = np.zeros((n + 1, n + 1))
        a[:n, :n] = self.hess
        a[n, :n], a[n, n] = _scale_derivatives(self.wins, s, k)
        if not a[n, n] > 0:
            return None
        bread = np.linalg.inv(a)
        g = self.t.n_groups
        data = bread @ self._meat() @ bread.T * (g / (g - 1) if g > 1 else 1.0)
        prior = np.zeros((n + 1, n + 1))
        if self.prior is not None:  # the pseudo-observation's score, its variance
            prior[:n, :n] = self.prior.weight * self.prior.noise * self.prior.form
            prior = bread @ prior @ bread.T
        h = bread[:n, :n]  # A is block triangular: the s-block of its inverse is H⁻¹
        centre = np.eye(n) - 1.0 / n
        cov = data + prior
        return (
            _centred_variance(data[:n, :n], centre),
            self.sigma2 * _centred_variance(h @ self.normal @ h.T, centre),
            _centred_variance(prior[:n, :n], centre),
            centre @ cov[:n, n],
            float(cov[n, n]),
        )

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
    used, y, s, _, _ = _least_squares(t)
    return used, _residuals(t, used, y, s)


def _residuals(t: Tables[Hashable], used: np.ndarray, y: np.ndarray, s: np.ndarray) -> np.ndarray:
    seated = np.where(used, s[np.maximum(t.bot, 0)], 0.0)
    size = np.maximum(used.sum(axis=1), 1)
    return y - np.where(used, seated - seated.sum(axis=1)[:, None] / size[:, None], 0.0)


def _least_squares(
    t: Tables[Hashable], penalty: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Which cells count, the points centred on each game's mean (``y``), the bot effects
    ``s`` fitted on them (with the ridge, and ``penalty``: the successors' prior), the
    matrix of that fit (H) and the games' own normal matrix (N)."""
    n = len(t.bots)
    seated = t.bot >= 0
    size = seated.sum(axis=1)
    used = seated & (size >= 2)[:, None]  # a lone bot's game says nothing
    mean = np.where(seated, t.points, 0.0).sum(axis=1) / np.maximum(size, 1)
    y = np.where(used, t.points - mean[:, None], 0.0)
    normal = _normal_matrix(t, used, size)
    hess = normal + RIDGE * np.eye(n)
    if penalty is not None:
        hess = hess + penalty
    s = np.linalg.solve(hess, np.bincount(t.bot[used], y[used], n))
    return used, y, s, hess, normal


def _centred_variance(cov: np.ndarray, centre: np.ndarray) -> np.ndarray:
    """The variance of each x − mean x, from the covariance of x."""
    out: np.ndarray = np.einsum("ij,jk,ik->i", centre, cov, centre)
    return out


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
