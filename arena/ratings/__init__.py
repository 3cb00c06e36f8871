"""Ratings and per-bot statistics for tournament results (pure computation, no I/O).

``fit`` turns game results into Elo ratings with 95 % intervals by one of two models:
``"margin"`` (the default: point margins against the table, :mod:`arena.ratings.margin`)
or ``"bradley-terry"`` (the pairwise order of game totals, :mod:`arena.ratings.fit`).
Both report Elo relative to the games fitted: the mean rating of the bots in them is 1500.
``bot_stats`` summarises per-bot points, call success and faults.
"""

from collections.abc import Hashable, Sequence
from typing import Any

from arena.ratings.fit import IntervalMethod, bradley_terry
from arena.ratings.games import (
    ELO_CENTER,
    ELO_SCALE,
    NO_DATA_HALF_WIDTH,
    PRIOR_GAMES,
    Bot,
    Games,
    Rating,
)
from arena.ratings.margin import margin
from arena.ratings.stats import BotGameLine, BotStats, bot_stats

MODELS = {"margin": margin, "bradley-terry": bradley_terry}
DEFAULT_MODEL = "margin"
MODEL_LABELS = {
    "margin": "margin model (points against the table, Elo-calibrated)",
    "bradley-terry": "Bradley-Terry (order of game totals)",
}


def fit(
    games: Games[Bot],
    groups: Sequence[Hashable] | None = None,
    *,
    model: str = DEFAULT_MODEL,
    **options: Any,
) -> dict[Bot, Rating]:
    """Elo ratings with 95 % intervals by the named model (see ``MODELS``); ``options``
    go to the model (``intervals=...``; the Bradley–Terry fit also takes the bootstrap's)."""
    if model not in MODELS:
        raise ValueError(f"unknown rating model {model!r}; known: {', '.join(MODELS)}")
    return MODELS[model](games, groups, **options)


__all__ = [
    "DEFAULT_MODEL",
    "ELO_CENTER",
    "ELO_SCALE",
    "MODELS",
    "MODEL_LABELS",
    "NO_DATA_HALF_WIDTH",
    "PRIOR_GAMES",
    "BotGameLine",
    "BotStats",
    "IntervalMethod",
    "Rating",
    "bot_stats",
    "bradley_terry",
    "fit",
    "margin",
]
