"""House-bot names are read in one place: tournaments, the scheduler's fillers and
``arena play`` agree on what a name means."""

from __future__ import annotations

import pytest

from arena.bots.house.names import HouseName, parse_house
from arena.bots.package import PackageError


@pytest.mark.parametrize(
    ("name", "bare", "expected"),
    [
        ("house:heuristic", False, HouseName("heuristic")),
        ("house:heuristic#2", False, HouseName("heuristic", 2)),
        ("house:random", False, HouseName("random")),
        ("heuristic", False, None),  # in a tournament: a stored bot may be called that
        ("heuristic", True, HouseName("heuristic")),
        ("sample_bots/random", True, None),
    ],
)
def test_names(name: str, bare: bool, expected: HouseName | None) -> None:
    assert parse_house(name, bare=bare) == expected


def test_stored_names() -> None:
    assert [HouseName("heuristic", n).stored_name for n in (1, 2)] == [
        "house-heuristic",
        "house-heuristic-2",
    ]


@pytest.mark.parametrize("name", ["house:nobody", "house:heuristic#0", "house:Random"])
def test_unknown_house_bots_are_refused(name: str) -> None:
    with pytest.raises(PackageError, match="unknown house bot"):
        parse_house(name)
