"""The house master bot: determinised search over sampled deals, under the platform's clock."""

from arena.house.master.cache import drop_stale

drop_stale()  # before any kernel loads: numba does not see changes to the modules they call

from arena.house.master.strategy import MasterBot  # noqa: E402

__all__ = ["MasterBot"]
