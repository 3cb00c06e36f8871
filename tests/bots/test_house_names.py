"""House-bot names are read in one place: tournaments, the scheduler's fillers and
``arena play`` agree on what a name means."""

from __future__ import annotations

import pytest

from arena.bots.package import PackageError, parse_manifest
from arena.house.names import HouseName, UnknownHouseBot, number_copies, parse_house


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
    with pytest.raises(UnknownHouseBot, match="unknown house bot"):
        parse_house(name)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("house-heuristic", HouseName("heuristic")),  # what every output prints...
        ("house-heuristic-2", HouseName("heuristic", 2)),  # ...reads back as the same bot
        ("house-random", HouseName("random")),
        ("house-party", None),  # not a house kind: an ordinary (unregistrable) name
        ("house-heuristic-1", None),  # copy 1 has no suffix
        ("house-heuristic@builtin", None),  # a version ref: the store resolves it
    ],
)
def test_the_printed_name_is_read_back(name: str, expected: HouseName | None) -> None:
    assert parse_house(name) == expected
    if expected is not None:
        assert expected.stored_name == name


@pytest.mark.parametrize(
    ("specs", "expected"),
    [
        (
            ["random", "random", "heuristic", "house:heuristic"],
            ["house:random#1", "house:random#2", "house:heuristic#1", "house:heuristic#2"],
        ),
        (  # an explicit copy keeps its number; the others take the free ones
            ["house:random#2", "random", "random", "bots/mine"],
            ["house:random#2", "house:random#1", "house:random#3", "bots/mine"],
        ),
    ],
)
def test_play_numbers_house_copies_as_tournaments_do(specs, expected) -> None:
    numbered = number_copies(specs)
    assert numbered == expected
    names = [parse_house(s).stored_name for s in numbered if s.startswith("house:")]
    assert len(set(names)) == len(names)


def test_a_bot_package_cannot_take_a_house_name() -> None:
    with pytest.raises(PackageError, match="belong to the house bots"):
        parse_manifest('name = "house-random"\ncommand = ["python3", "bot.py"]')
    assert parse_manifest('name = "housekeeper"\ncommand = ["x"]')["name"] == "housekeeper"
