"""The platform's built-in bots: fillers for short tables and yardsticks for ratings."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

from arena.bots.house.base import BotStrategy, HouseBot, RandomBot
from arena.bots.house.heuristic import HeuristicBot
from arena.bots.house.master import MasterBot

HOUSE_BOTS: Mapping[str, Callable[..., HouseBot]] = MappingProxyType(
    {"random": RandomBot, "heuristic": HeuristicBot, "master": MasterBot}
)

__all__ = ["HOUSE_BOTS", "BotStrategy", "HeuristicBot", "HouseBot", "MasterBot", "RandomBot"]
