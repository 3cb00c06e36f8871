"""Bradley–Terry Elo from multi-player game results (batch, order-independent).

Model.  Every game with k bots yields k·(k-1)/2 pairwise comparisons: the bot
with more points wins, equal points count half to each.  All comparisons are
summed into one bots × bots wins matrix and Bradley–Terry strengths are fitted
by damped Newton (:mod:`arena.ratings.bt`).  Strengths are reported on the Elo
scale (400·log10 of the odds) and centred so that the mean rating is 1500.
Because only sums of comparisons enter, the result does not depend on the
order of ``games`` (bit for bit: the sums are of halves and integers).

Regulariser.  Each bot gets ``PRIOR_GAMES`` = 1 virtual comparison, a draw
against a virtual opponent of strength 0 (≈ the mean strength); see
:mod:`arena.ratings.games`.  A bot that lost all of its 36 comparisons against
three equal bots ends about 750 Elo below them instead of at −∞.  With the hundreds of comparisons
per bot of a tournament the pull is under a percent; on 4 games it is visible: A
beating B in 3 of 4 gives ≈ 150 Elo instead of 400·log10(3) = 191.

Intervals (95 %).  The comparisons inside a game, or inside a match of several
games, are not independent, so the naive inverse-information interval is too
narrow (a one-off check on the 20-bot problem below covered only 88 %).
Two cluster-aware methods are implemented, both clustering/resampling by
``groups`` (each game is its own group when ``groups`` is None):

* ``"sandwich"`` (default): cluster-robust covariance H⁻¹ (Σ_g s_g s_gᵀ) H⁻¹ ·
  G/(G-1), with H the information matrix and s_g the score of group g.
* ``"bootstrap"``: 200 multinomial resamples of the groups; each resample
  reweights the per-group pairwise counts (one bincount, not a pass over the
  games) and refits the bots × bots matrix; the SD of the resamples.

Measured with ``benchmarks/ratings_fit.py`` (100,000 four-player games, 50
bots, one core, best of 3): point fit 0.30 s, with sandwich 0.34 s, with
bootstrap 1.6 s; the naive 200-sample bootstrap that refits the games takes
≈ 51 s (5.1 s measured on 10,000 games).  Coverage of the true Elo over 200
seeds (20 bots, 1,000 games): sandwich 95.6 %, bootstrap 95.7 % (5-game
matches as groups: 94.3 % vs 94.6 %); 8 close bots, 400 games, 300 seeds
(``rating_fidelity.py``): 94.2–95.0 % vs 94.1–95.3 % (94.0–94.9 % and 93.9–95.1 %
before the small-sample correction below).  Coverage is the same,
so the sandwich is the default: it adds ~0.04 s instead of ~1.3 s and uses no
random numbers, so order independence needs no care there.  Either variance then gets
the small-sample correction of :mod:`arena.ratings.intervals` (pooled with the inverse
information for a bot of few groups, a t quantile), which changes a bot of hundreds of
groups by under a percent.

Successors.  Told which version succeeds which, each successor and its predecessor get
4 / (SUCCESSOR_SD / ELO_SCALE)² drawn pseudo-comparisons (an information of a quarter
of that on their difference: a prior of ``SUCCESSOR_SD`` Elo), whose Bernoulli variance
joins the sandwich's middle (:mod:`arena.ratings.successors`).

One-sided records.  Every interval is finite.  A bot that never lost (or never
won) a comparison has estimates far out in the logistic tail, where the cluster
sandwich sees almost no variation and would be much too narrow; for such a bot the
variance is the larger of the corrected one and the model-based one (the
inverse information, prior included), which the prior dominates there: that bot
losing 36 of 36 gets about ±360 Elo, whose upper end lies above the "rule of
three" bound (tested).  Bots without comparisons, and every bot when there are
fewer than two groups, get the prior's interval (:mod:`arena.ratings.games`).  A
lone bot gets exactly (1500, 1500).
"""

from collections.abc import Hashable, Mapping, Sequence
from typing import Literal

import numpy as np

from arena.ratings import bt
from arena.ratings.games import (
    ELO_CENTER,
    ELO_SCALE,
    PRIOR_GAMES,
    Bot,
    Comparisons,
    Games,
    Rating,
    centred_sd,
    check_arguments,
    comparisons,
    group_blocks,
    ratings,
    tables,
)
from arena.ratings.intervals import groups_per_bot, moderated
from arena.ratings.successors import SUCCESSOR_SD, difference_matrix, links

IntervalMethod = Literal["sandwich", "bootstrap", "none"]


def bradley_terry(
    games: Games[Bot],
    groups: Sequence[Hashable] | None = None,
    *,
    intervals: IntervalMethod = "sandwich",
    n_boot: int = 200,
    seed: int = 0,
    successors: Mapping[Bot, Bot] | None = None,
) -> dict[Bot, Rating]:
    """Fit Elo ratings with 95 % intervals; keys come back in sorted bot order.

    ``games`` maps bot id → total points per game; ``groups`` (parallel to
    ``games``) names the resampling unit, e.g. a match id.  ``intervals="none"``
    skips the intervals (they are NaN).  ``n_boot`` and ``seed`` only matter
    for ``"bootstrap"``.  ``successors`` (version → the version it replaces): the
    predecessor's prior on each successor (:mod:`arena.ratings.successors`), as drawn
    pseudo-comparisons between the two.
    """
    check_arguments(games, groups)
    if intervals not in ("sandwich", "bootstrap", "none"):
        raise ValueError(f"unknown interval method {intervals!r}")
    if intervals == "bootstrap" and n_boot < 2:
        raise ValueError("the bootstrap needs n_boot >= 2")
    if not games:
        return {}
    t = tables(games, groups)
    if not t.bots:
        return {}
    data = comparisons(t)
    observed = data.wins_matrix()
    prior = _successor_draws(difference_matrix(links(t.bots, successors), len(t.bots)))
    wins = observed + prior
    theta = bt.solve(wins, PRIOR_GAMES)
    elo = ELO_CENTER + ELO_SCALE * (theta - theta.mean())
    won, played = observed.sum(axis=1), (observed + observed.T).sum(axis=1)
    if intervals == "none":
        return ratings(t, elo, None, played > 0)
    if intervals == "sandwich":
        robust = _sandwich_var(data, t.n_groups, theta, wins, prior)
    else:
        robust = _bootstrap_var(data, t.n_groups, n_boot, seed, prior)
    model = _model_var(wins, theta)
    var, quantile = moderated(robust, model, groups_per_bot(t))
    one_sided = (won == 0) | (won == played)
    var = np.where(one_sided, np.maximum(var, model), var)
    return ratings(t, elo, quantile * ELO_SCALE * np.sqrt(var), played > 0)


def _successor_draws(form: np.ndarray) -> np.ndarray:
    """The prior as drawn comparisons between each successor and its predecessor: w of
    them (w/2 won each way) give the difference an information of w/4, i.e. a standard
    deviation of SUCCESSOR_SD Elo when w = 4 / (SUCCESSOR_SD / ELO_SCALE)²."""
    draws = 4.0 / float(SUCCESSOR_SD / ELO_SCALE) ** 2
    off: np.ndarray = np.where(form < 0, -form, 0.0)  # the pairs both ways, off the diagonal
    return 0.5 * draws * off


def _model_var(wins: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Model-based variance of the centred strengths: the inverse information, prior
    included."""
    _, info = bt.derivatives(theta, wins, PRIOR_GAMES)
    var: np.ndarray = centred_sd(np.linalg.inv(info)) ** 2
    return var


def _sandwich_var(
    data: Comparisons, n_groups: int, theta: np.ndarray, wins: np.ndarray, prior: np.ndarray
) -> np.ndarray:
    """Cluster-robust (by group) variance of the centred strengths, a block of groups at
    a time (entries are sorted by group) so memory stays bounded for any number of
    groups; the successors' drawn comparisons (``prior``) add their own score variance."""
    n = data.n_bots
    resid = data.wins - data.count * bt.sigmoid(theta[data.lo] - theta[data.hi])
    meat = np.zeros((n, n))
    for start, rows in group_blocks(n_groups, n):
        a, b = np.searchsorted(data.group, [start, start + rows])
        cell, r = (data.group[a:b] - start) * n, resid[a:b]
        score = np.bincount(cell + data.lo[a:b], r, rows * n)
        score -= np.bincount(cell + data.hi[a:b], r, rows * n)
        score = score.reshape(rows, n)
        meat += score.T @ score
    factor = n_groups / (n_groups - 1) if n_groups > 1 else 1.0
    draws = prior + prior.T  # each pair's drawn comparisons, Bernoulli(½): variance ¼
    meat = factor * meat + 0.25 * (np.diag(draws.sum(axis=1)) - draws)
    _, info = bt.derivatives(theta, wins, PRIOR_GAMES)
    bread = np.linalg.inv(info)
    var: np.ndarray = centred_sd(bread @ meat @ bread) ** 2
    return var


def _bootstrap_var(
    data: Comparisons, n_groups: int, n_boot: int, seed: int, prior: np.ndarray
) -> np.ndarray:
    """Variance of the centred strengths over multinomial resamples of the groups (the
    successors' drawn comparisons, ``prior``, in every resample).

    Group counts come from G uniform draws (a multinomial); resamples are
    fitted as batches of Newton problems of at most ~4M matrix cells.
    """
    rng = np.random.default_rng(seed)
    n = data.n_bots
    chunk = max(1, 4_000_000 // (n * n))
    samples = []
    for start in range(0, n_boot, chunk):
        wins = np.stack(
            [
                data.wins_matrix(np.bincount(rng.integers(0, n_groups, n_groups), None, n_groups))
                + prior
                for _ in range(min(chunk, n_boot - start))
            ]
        )
        th = bt.solve(wins, PRIOR_GAMES)
        samples.append(th - th.mean(axis=1, keepdims=True))
    var: np.ndarray = np.concatenate(samples).var(axis=0, ddof=1)
    return var
