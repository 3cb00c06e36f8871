"""House bots by name: the one place that reads a house-bot name and builds its player.

``house:KIND`` names a house bot (``house:heuristic``); ``house:KIND#N`` is its N-th copy
(a second heuristic at one table). Stored as a bot version, copy N of KIND is the bot named
``house-KIND`` (N = 1) or ``house-KIND-N``. ``arena play`` also accepts a bare ``KIND``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from arena.bots.house import HOUSE_BOTS
from arena.bots.inprocess import InProcessPlayer
from arena.bots.package import PackageError
from arena.bots.player import Player

HOUSE_PREFIX = "house:"
_NAME = re.compile(r"^house:([a-z]+)(?:#([1-9][0-9]*))?$")


@dataclass(frozen=True)
class HouseName:
    kind: str  # a key of HOUSE_BOTS
    copy: int = 1

    @property
    def stored_name(self) -> str:
        """The name of the bot row standing for this house bot."""
        return f"house-{self.kind}" + (f"-{self.copy}" if self.copy > 1 else "")


def parse_house(name: str, bare: bool = False) -> HouseName | None:
    """The house bot ``name`` means; None if it is no house-bot name (``bare``: a plain
    ``KIND`` counts too). An unknown kind after ``house:`` is refused."""
    if bare and name in HOUSE_BOTS:
        return HouseName(name)
    match = _NAME.match(name)
    if not name.startswith(HOUSE_PREFIX):
        return None
    if match is None or match.group(1) not in HOUSE_BOTS:
        known = ", ".join(HOUSE_PREFIX + k for k in HOUSE_BOTS)
        raise PackageError(f"unknown house bot {name!r} (house bots: {known}, optionally #N)")
    return HouseName(match.group(1), int(match.group(2) or 1))


def house_player(kind: str, seed: int = 0, name: str | None = None) -> Player:
    """An in-process player of the house strategy ``kind`` (named ``house:<kind>``)."""
    return InProcessPlayer(HOUSE_BOTS[kind](seed=seed), name or f"house:{kind}")
