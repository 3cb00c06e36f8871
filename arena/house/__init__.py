"""The platform's built-in bots: fillers for short tables and yardsticks for ratings."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

from arena.house.base import BotStrategy, HouseBot, RandomBot
from arena.house.heuristic import HeuristicBot


def master_bot(seed: int = 0, **options) -> HouseBot:
    """The search player (``arena.house.master``), imported on first use: it needs
    numpy, and numba for its kernels, which the other house bots should not pay for."""
    from arena.house.master import MasterBot

    return MasterBot(seed=seed, **options)


HOUSE_BOTS: Mapping[str, Callable[..., HouseBot]] = MappingProxyType(
    {"random": RandomBot, "heuristic": HeuristicBot, "master": master_bot}
)

__all__ = ["HOUSE_BOTS", "BotStrategy", "HeuristicBot", "HouseBot", "RandomBot"]
