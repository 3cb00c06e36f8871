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
  games) and refits the bots × bots matrix; interval = estimate ± 1.96·SD.

Measured with ``benchmarks/ratings_fit.py`` (100,000 four-player games, 50
bots, one core, best of 3): point fit 0.30 s, with sandwich 0.34 s, with
bootstrap 1.6 s; the naive 200-sample bootstrap that refits the games takes
≈ 51 s (5.1 s measured on 10,000 games).  Coverage of the true Elo over 200
seeds (20 bots, 1,000 games): sandwich 95.6 %, bootstrap 95.7 % (5-game
matches as groups: 94.3 % vs 94.6 %); 8 close bots, 400 games, 300 seeds
(``rating_fidelity.py``): 93.9–95.0 % vs 94.0–95.0 %.  Coverage is the same,
so the sandwich is the default: it adds ~0.04 s instead of ~1.3 s and uses no
random numbers, so order independence needs no care there.

One-sided records.  Every interval is finite.  A bot that never lost (or never
won) a comparison has estimates far out in the logistic tail, where the cluster
sandwich sees almost no variation and would be much too narrow; for such a bot the
standard deviation is the larger of the sandwich's and the model-based one (the
inverse information, prior included), which the prior dominates there: that bot
losing 36 of 36 gets about ±360 Elo, whose upper end lies above the "rule of
three" bound (tested).  Bots without comparisons, and every bot when there are
fewer than two groups, get the prior's interval (:mod:`arena.ratings.games`).  A
lone bot gets exactly (1500, 1500).
"""

from collections.abc import Hashable, Sequence
from typing import Literal

import numpy as np

from arena.ratings import bt
from arena.ratings.games import (
    ELO_CENTER,
    ELO_SCALE,
    PRIOR_GAMES,
    Z95,
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

IntervalMethod = Literal["sandwich", "bootstrap", "none"]


def bradley_terry(
    games: Games[Bot],
    groups: Sequence[Hashable] | None = None,
    *,
    intervals: IntervalMethod = "sandwich",
    n_boot: int = 200,
    seed: int = 0,
) -> dict[Bot, Rating]:
    """Fit Elo ratings with 95 % intervals; keys come back in sorted bot order.

    ``games`` maps bot id → total points per game; ``groups`` (parallel to
    ``games``) names the resampling unit, e.g. a match id.  ``intervals="none"``
    skips the intervals (they are NaN).  ``n_boot`` and ``seed`` only matter
    for ``"bootstrap"``.
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
    wins = data.wins_matrix()
    theta = bt.solve(wins, PRIOR_GAMES)
    elo = ELO_CENTER + ELO_SCALE * (theta - theta.mean())
    won, played = wins.sum(axis=1), (wins + wins.T).sum(axis=1)
    if intervals == "none":
        return ratings(t, elo, None, played > 0)
    if intervals == "sandwich":
        sd = _sandwich_sd(data, t.n_groups, theta)
    else:
        sd = _bootstrap_sd(data, t.n_groups, n_boot, seed)
    one_sided = (won == 0) | (won == played)
    sd = np.where(one_sided, np.maximum(sd, _model_sd(wins, theta)), sd)
    return ratings(t, elo, Z95 * ELO_SCALE * sd, played > 0)


def _model_sd(wins: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Model-based SD of the centred strengths: the inverse information, prior included."""
    _, info = bt.derivatives(theta, wins, PRIOR_GAMES)
    return centred_sd(np.linalg.inv(info))


def _sandwich_sd(data: Comparisons, n_groups: int, theta: np.ndarray) -> np.ndarray:
    """Cluster-robust (by group) SD of the centred strengths, a block of groups at a time
    (entries are sorted by group) so memory stays bounded for any number of groups."""
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
    _, info = bt.derivatives(theta, data.wins_matrix(), PRIOR_GAMES)
    bread = np.linalg.inv(info)
    factor = n_groups / (n_groups - 1) if n_groups > 1 else 1.0
    return centred_sd(factor * bread @ meat @ bread)


def _bootstrap_sd(data: Comparisons, n_groups: int, n_boot: int, seed: int) -> np.ndarray:
    """SD of the centred strengths over multinomial resamples of the groups.

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
                for _ in range(min(chunk, n_boot - start))
            ]
        )
        th = bt.solve(wins, PRIOR_GAMES)
        samples.append(th - th.mean(axis=1, keepdims=True))
    sd: np.ndarray = np.concatenate(samples).std(axis=0, ddof=1)
    return sd
