"""House bots by name: the one place that reads a house-bot name and builds its player.

``house:KIND`` names a house bot (``house:heuristic``); ``house:KIND#N`` is its N-th copy
(a second heuristic at one table). Every output calls copy N of KIND ``house-KIND`` (N = 1)
or ``house-KIND-N``: the stored bot's name, which is also accepted as input. ``arena play``
also accepts a bare ``KIND``. Bot packages may not take a ``house-`` name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from arena.house import HOUSE_BOTS
from arena.players.inprocess import InProcessPlayer
from arena.players.player import Player

HOUSE_PREFIX = "house:"
_NAME = re.compile(r"^house:([a-z]+)(?:#([1-9][0-9]*))?$")
_STORED = re.compile(r"^house-([a-z]+)(?:-([2-9]|[1-9][0-9]+))?$")


class UnknownHouseBot(ValueError):
    """A ``house:`` name that names no house bot."""


@dataclass(frozen=True)
class HouseName:
    kind: str  # a key of HOUSE_BOTS
    copy: int = 1

    @property
    def stored_name(self) -> str:
        """The name of the bot row standing for this house bot."""
        return f"house-{self.kind}" + (f"-{self.copy}" if self.copy > 1 else "")


def house_name(name: str) -> HouseName:
    """``parse_house`` of a name that must be a house bot's (UnknownHouseBot if not)."""
    house = parse_house(name)
    if house is None:
        raise UnknownHouseBot(f"{name!r} is not a house bot's name")
    return house


def parse_house(name: str, bare: bool = False) -> HouseName | None:
    """The house bot ``name`` means; None if it is no house-bot name (``bare``: a plain
    ``KIND`` counts too). An unknown kind after ``house:`` is refused."""
    if bare and name in HOUSE_BOTS:
        return HouseName(name)
    stored = _STORED.match(name)
    if stored is not None and stored.group(1) in HOUSE_BOTS:
        return HouseName(stored.group(1), int(stored.group(2) or 1))
    match = _NAME.match(name)
    if not name.startswith(HOUSE_PREFIX):
        return None
    if match is None or match.group(1) not in HOUSE_BOTS:
        known = ", ".join(HOUSE_PREFIX + k for k in HOUSE_BOTS)
        raise UnknownHouseBot(f"unknown house bot {name!r} (house bots: {known}, optionally #N)")
    return HouseName(match.group(1), int(match.group(2) or 1))


def number_copies(specs: list[str]) -> list[str]:
    """The same bots, each house bot written ``house:KIND#N`` with its own copy number: four
    ``random`` become ``house-random`` to ``house-random-4``, as a tournament names them."""
    houses = [parse_house(spec, bare=True) for spec in specs]
    taken = {(h.kind, h.copy) for h, spec in zip(houses, specs, strict=True) if h and "#" in spec}
    out = []
    for spec, house in zip(specs, houses, strict=True):
        if house is not None and "#" not in spec:
            copy = house.copy
            while (house.kind, copy) in taken:
                copy += 1
            taken.add((house.kind, copy))
            spec = f"{HOUSE_PREFIX}{house.kind}#{copy}"
        out.append(spec)
    return out


def house_player(kind: str, seed: int = 0, name: str | None = None) -> Player:
    """An in-process player of the house strategy ``kind`` (named ``house-<kind>``)."""
    return InProcessPlayer(HOUSE_BOTS[kind](seed=seed), name or HouseName(kind).stored_name)
