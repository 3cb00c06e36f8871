"""Ratings and per-bot statistics for tournament results (pure computation, no I/O).

``fit`` turns game results into Bradley–Terry Elo ratings with 95 % intervals;
``bot_stats`` summarises per-bot points, call success and faults.
"""

from arena.ratings.fit import ELO_CENTER, ELO_SCALE, PRIOR_GAMES, IntervalMethod, Rating, fit
from arena.ratings.stats import BotGameLine, BotStats, bot_stats

__all__ = [
    "ELO_CENTER",
    "ELO_SCALE",
    "PRIOR_GAMES",
    "BotGameLine",
    "BotStats",
    "IntervalMethod",
    "Rating",
    "bot_stats",
    "fit",
]
