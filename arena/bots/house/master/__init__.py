"""The house master bot: determinised search over sampled deals, under the platform's clock."""

from arena.bots.house.master.strategy import MasterBot

__all__ = ["MasterBot"]
