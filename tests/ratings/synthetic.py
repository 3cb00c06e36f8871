"""Synthetic games with known truth, for tests and benchmarks of :mod:`arena.ratings`.

Two generators, both returning games in the shape :func:`arena.ratings.fit`
takes (bot index → points):

* :func:`gumbel_games`: points = strength + Gumbel noise.  The difference of
  two Gumbels is logistic, so every pairwise comparison follows Bradley–Terry
  exactly and the true Elo is ``ELO_SCALE · strength`` (centred).
* :func:`points_games`: a bot's game total = 5 deals × its true mean points per
  deal + normal noise (``sd_per_deal`` per deal, default 3.0, a typical spread
  of Callbreak deal scores), rounded to 0.1 as real scores are.  Bradley–Terry
  is then only an approximation; :func:`population_elo` gives the Elo the Bradley–Terry fit
  converges to with unlimited games, which is the truth to compare against.
"""

import math
from collections.abc import Mapping

import numpy as np

from arena.ratings import bt
from arena.ratings.games import ELO_CENTER, ELO_SCALE, Rating

Game = dict[int, float]


def random_tables(rng: np.random.Generator, n_bots: int, n_games: int, size: int = 4) -> np.ndarray:
    """``n_games`` rows of ``size`` distinct bots drawn uniformly."""
    return np.argsort(rng.random((n_games, n_bots)), axis=1)[:, :size]


def _as_games(tables: np.ndarray, points: np.ndarray) -> list[Game]:
    return [
        dict(zip(t.tolist(), p.tolist(), strict=True)) for t, p in zip(tables, points, strict=True)
    ]


def gumbel_games(rng: np.random.Generator, strength: np.ndarray, tables: np.ndarray) -> list[Game]:
    """Games whose pairwise outcomes follow Bradley–Terry with ``strength`` (log-odds)."""
    return _as_games(tables, strength[tables] + rng.gumbel(size=tables.shape))


def points_games(
    rng: np.random.Generator,
    mean_per_deal: np.ndarray,
    tables: np.ndarray,
    deals: int = 5,
    sd_per_deal: float = 3.0,
) -> list[Game]:
    """Games whose totals are deals · mean + normal noise, rounded to 0.1."""
    noise = rng.normal(scale=sd_per_deal * math.sqrt(deals), size=tables.shape)
    return _as_games(tables, np.round(deals * mean_per_deal[tables] + noise, 1))


def elo_from_strength(strength: np.ndarray) -> np.ndarray:
    """Centred Elo of Bradley–Terry log-odds strengths."""
    elo: np.ndarray = ELO_CENTER + ELO_SCALE * (strength - strength.mean())
    return elo


def population_elo(
    mean_per_deal: np.ndarray, deals: int = 5, sd_per_deal: float = 3.0
) -> np.ndarray:
    """Limit of the fit for :func:`points_games` with uniformly random tables.

    Every pair meets equally often and i beats j with probability
    Φ(deals·Δmean / (sd·√(2·deals))); the fit of that expected matrix (scaled up
    so the regulariser is negligible) is the Bradley–Terry projection.
    """
    sd_diff = sd_per_deal * math.sqrt(2.0 * deals)
    diff = deals * (mean_per_deal[:, None] - mean_per_deal[None, :]) / sd_diff
    win = 0.5 * (1.0 + np.vectorize(math.erf)(diff / math.sqrt(2.0)))
    np.fill_diagonal(win, 0.0)
    theta = bt.solve(win * 1e6, prior=1.0)
    return elo_from_strength(theta)


def kendall_tau(x: np.ndarray, y: np.ndarray) -> float:
    """Kendall's tau-a: (concordant − discordant) / all pairs."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    sign = np.sign(x[:, None] - x[None, :]) * np.sign(y[:, None] - y[None, :])
    n = len(x)
    return float(np.triu(sign, 1).sum() / (n * (n - 1) / 2))


def covered(ratings: Mapping[int, Rating], true_elo: np.ndarray) -> int:
    """How many bots have their true Elo inside their interval."""
    return sum(r.ci_low <= true_elo[bot] <= r.ci_high for bot, r in ratings.items())


def fitted_elo(ratings: Mapping[int, Rating], n_bots: int) -> np.ndarray:
    """Fitted Elo as an array indexed by bot (bots that never played get 1500)."""
    out = np.full(n_bots, ELO_CENTER)
    for bot, r in ratings.items():
        out[bot] = r.elo
    return out
