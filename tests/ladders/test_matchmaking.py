"""The ladder's matchmaker: placements first, then unsure places, then rest."""

from __future__ import annotations

import itertools
from collections import Counter

from arena.ladders.matchmaking import (
    Knobs,
    LadderState,
    next_tables,
    provisional,
    settled,
    unplaced,
)
from arena.tournaments.adaptive import Ranked

KNOBS = Knobs(placement_matches=8, settle_half_width=50.0, games_per_match=4)


def rated(name: str, elo: float, half: float, games: int = 80) -> Ranked:
    return Ranked(name, elo, elo - half, elo + half, games)


def ladder(rows: list[Ranked], matches: dict[str, int] | None = None, **more) -> LadderState:
    played = {r.name: 10 for r in rows} | (matches or {})
    owners = more.pop("owners", {r.name: f"user {r.name}" for r in rows})
    return LadderState(rows, played, {}, owners=owners, **more)


# Nine placed bots 100 Elo apart whose neighbours overlap (±80).
PLACED = [rated(f"b{i}", 1900 - 100 * i, 80) for i in range(9)]
NEWCOMER = Ranked("new", 1500, 1100, 1900, 0)


def test_a_new_version_is_placed_first_against_the_whole_ranking() -> None:
    state = ladder([*PLACED, NEWCOMER], {"new": 0})
    tables = next_tables(state, 8, KNOBS)
    assert len(tables) == 8 and all("new" in t for t in tables)
    opponents = Counter(name for t in tables for name in t if name != "new")
    ranks = {f"b{i}": i for i in range(9)}
    met = sorted(ranks[name] for name in opponents)
    assert met[0] <= 2 and met[-1] >= 6  # the top third and the bottom third
    assert len(opponents) >= 6  # not the same three every time
    assert max(opponents.values()) <= 4


def test_a_crowd_of_newcomers_is_placed_three_a_table_with_the_ranking_in_the_fourth() -> None:
    """Six new versions: three of them a table, the fourth seat from a third of the ranking
    that turns, so the six have their eight matches in 16 tables, not 48."""
    crowd = [Ranked(f"n{i}", 1500, 1100, 1900, 0) for i in range(6)]
    state = ladder([*PLACED, *crowd], {r.name: 0 for r in crowd})
    tables = next_tables(state, 16, KNOBS)
    new = {r.name for r in crowd}
    assert all(len(new & set(t)) >= 3 for t in tables)
    assert all(n >= 8 for n in Counter(n for t in tables for n in t if n in new).values())
    fourth = sorted(int(n[1:]) for t in tables for n in t if n not in new)
    assert len(fourth) >= 15 and fourth[0] <= 2 and fourth[-1] >= 6  # top and bottom thirds
    after = ladder([*PLACED, *crowd], {r.name: 8 for r in crowd})
    assert not any(new & set(t) == new for t in next_tables(after, 4, KNOBS))  # placed


def test_placement_counts_scheduled_matches_and_then_stops() -> None:
    state = ladder([*PLACED, NEWCOMER], {"new": 6})
    tables = next_tables(state, 4, KNOBS)
    assert sum("new" in t for t in tables[:2]) == 2
    # the two left go where the ranking is unsure; "new" is wide open, so it may be seated
    # as an anchor, but the first two were its last placements
    assert len(tables) == 4


def test_anchors_are_never_placed() -> None:
    house = rated("house", 2600, 5)  # far and sure: no reason to seat it but placement
    state = ladder([*PLACED, house], {"house": 0}, anchors=frozenset({"house"}))
    assert unplaced(state, KNOBS) == []
    assert not all("house" in t for t in next_tables(state, 3, KNOBS))
    unsure = rated("house", 2600, 400)  # a contestant is placed while it is provisional
    plain = ladder([*PLACED, unsure], {"house": 0})
    assert unplaced(plain, KNOBS) == ["house"]
    assert all("house" in t for t in next_tables(plain, 3, KNOBS))
    wide_anchor = ladder([*PLACED, unsure], {"house": 0}, anchors=frozenset({"house"}))
    assert unplaced(wide_anchor, KNOBS) == []


def test_a_settled_ladder_schedules_nothing() -> None:
    separated = [rated(f"b{i}", 1900 - 100 * i, 30) for i in range(9)]
    assert settled(separated, 10.0)
    assert next_tables(ladder(separated), 8, Knobs(settle_half_width=10.0)) == []
    narrow = [rated(f"b{i}", 1500 + 10 * i, 40) for i in range(9)]  # overlapping but narrow
    assert settled(narrow, 50.0) and not settled(narrow, 30.0)
    # one wide bot far from the rest is separated from its neighbour: settled all the same;
    # one wide bot among overlapping neighbours is not
    assert settled([*narrow, rated("far", 2500, 200)], 50.0)
    assert not settled([*narrow, rated("near", 1540, 200)], 50.0)
    assert next_tables(ladder(narrow), 8, KNOBS) == []
    assert len(next_tables(ladder(narrow), 8, Knobs(settle_half_width=30.0))) == 8


def test_a_newcomer_wakes_a_settled_ladder() -> None:
    separated = [rated(f"b{i}", 1900 - 100 * i, 30) for i in range(9)]
    state = ladder([*separated, NEWCOMER], {"new": 0})
    assert len(next_tables(state, 2, KNOBS)) == 2


def test_matches_in_flight_count_towards_settling() -> None:
    """Intervals just wider than the settle width: the tables already scheduled narrow
    them enough, so a top-up adds none."""
    rows = [rated(f"b{i}", 1500 + 10 * i, 55, games=400) for i in range(8)]
    assert len(next_tables(ladder(rows), 4, KNOBS)) == 4
    flying = [[f"b{i}" for i in range(4)], [f"b{i}" for i in range(4, 8)]] * 30
    assert next_tables(ladder(rows, in_flight=flying), 4, KNOBS) == []


def test_tables_never_seat_one_owner_twice() -> None:
    owners = {r.name: f"user {int(r.name[1:]) % 3}" for r in PLACED}  # three owners only
    owners["new"] = "user x"
    state = ladder([*PLACED, NEWCOMER], {"new": 0}, owners=owners)
    tables = next_tables(state, 12, KNOBS)
    assert tables
    for table in tables:
        labels = [owners[n] for n in table]
        assert len(set(labels)) == 4


def test_not_four_owners_means_no_tables_not_an_error() -> None:
    owners = {r.name: f"user {int(r.name[1:]) % 2}" for r in PLACED}
    assert next_tables(ladder(PLACED, owners=owners), 3, KNOBS) == []


def test_no_pair_is_over_played_while_another_table_can_be_drawn() -> None:
    rows = [rated(f"b{i}", 1500 + i, 200) for i in range(8)]  # all unsure alike
    meetings = Counter({frozenset(p): 0 for p in itertools.combinations([r.name for r in rows], 2)})
    meetings[frozenset({"b7", "b6"})] = 50  # the top pair met far too often
    state = ladder(rows, meetings=meetings)
    tables = next_tables(state, 6, KNOBS)
    assert len(tables) == 6
    assert not any({"b7", "b6"} <= set(t) for t in tables)
    assert any({"b7", "b6"} <= set(t) for t in next_tables(ladder(rows), 6, KNOBS))


def test_the_same_state_gives_the_same_tables() -> None:
    state = ladder([*PLACED, NEWCOMER], {"new": 3})
    assert next_tables(state, 6, KNOBS) == next_tables(state, 6, KNOBS)


def test_equal_bots_that_never_separate_do_not_take_every_table() -> None:
    """Three copies of one program at the top, narrow but overlapping forever, and an
    unsure pair below: the tables go to the pair (found on a real ladder run, where the
    heuristic anchors took 500 matches while the two random bots stayed unsure)."""
    rows = [
        rated("h1", 1950, 44),
        rated("h2", 1948, 44),
        rated("h3", 1946, 44),
        rated("r1", 844, 68),
        rated("r2", 811, 68),
    ]
    tables = next_tables(ladder(rows), 4, KNOBS)
    assert len(tables) == 4
    assert all({"r1", "r2"} <= set(t) for t in tables)


# Twelve placed bots 100 Elo apart, narrow (±40): b0 at 2100 down to b11 at 1000.
FIELD = [rated(f"b{i}", 2100 - 100 * i, 40) for i in range(12)]


def _opponents(tables: list, name: str) -> list[str]:
    return [n for t in tables for n in t if n != name]


def test_a_version_being_placed_meets_opponents_near_its_estimate() -> None:
    """Two matches in, its interval ±150 about 1450: every opponent of its next tables is
    among the bots rated near it (its window: the six nearest when fewer are within)."""
    placing = rated("v", 1450, 150, games=8)
    tables = next_tables(ladder([*FIELD, placing], {"v": 2}), 6, KNOBS)
    assert len(tables) == 6 and all("v" in t for t in tables)
    elo = {r.name: r.elo for r in FIELD}
    met = [elo[n] for n in _opponents(tables, "v")]
    assert min(met) >= 1200 and max(met) <= 1700, sorted(met)
    assert len(set(met)) >= 4  # not the same three every time


def test_the_window_widens_with_the_versions_uncertainty() -> None:
    unsure = rated("v", 1450, 600, games=4)  # ±600: most of the ranking is plausible
    tables = next_tables(ladder([*FIELD, unsure], {"v": 1}), 6, KNOBS)
    elo = {r.name: r.elo for r in FIELD}
    met = [elo[n] for n in _opponents(tables, "v")]
    assert min(met) <= 1000 and max(met) >= 1900, sorted(met)


def test_near_opponents_of_one_owner_give_way_to_the_next_nearest() -> None:
    """The bots rated near it belong to one owner: one of them may sit with it, the other
    seats go to the nearest bots of other owners, never two of one owner at a table."""
    placing = rated("v", 1450, 150, games=8)
    owners = {r.name: f"user {r.name}" for r in FIELD} | {"v": "user v"}
    for name in ("b5", "b6", "b7", "b8"):  # 1600, 1500, 1400, 1300
        owners[name] = "user crowd"
    state = ladder([*FIELD, placing], {"v": 2}, owners=owners)
    tables = next_tables(state, 4, KNOBS)
    assert len(tables) == 4
    for table in tables:
        assert "v" in table and len({owners[n] for n in table}) == 4
    elo = {r.name: r.elo for r in FIELD}
    assert all(abs(elo[n] - 1450) <= 450 for n in _opponents(tables, "v"))


def test_placement_stops_once_a_version_is_not_provisional_or_has_played_the_cap() -> None:
    sure = rated("v", 1450, 45, games=40)  # within the settle width of ±50 after 3 matches
    state = ladder([*FIELD, sure], {"v": 3})
    assert not provisional(sure, KNOBS.settle_half_width)
    assert unplaced(state, KNOBS) == []
    capped = rated("v", 1450, 300, games=32)  # still provisional, but 8 matches played
    assert provisional(capped, KNOBS.settle_half_width)
    assert unplaced(ladder([*FIELD, capped], {"v": 8}), KNOBS) == []
    short = ladder([*FIELD, capped], {"v": 7})
    assert unplaced(short, KNOBS) == ["v"]
    assert "v" in next_tables(short, 1, KNOBS)[0]
    # no game at all is provisional whatever the settle width (a start is no measurement)
    assert provisional(rated("w", 1500, 10, games=0), 1e6)


def test_a_cohort_is_made_of_newcomers_within_each_others_window() -> None:
    """Three waiting: two unknown and one already near the top. The two unknown share
    their tables; the known one is not dragged to theirs."""
    crowd = [Ranked(f"n{i}", 1500, 100, 2900, 0) for i in range(2)]
    known = rated("k", 2050, 120, games=12)
    state = ladder([*FIELD, *crowd, known], {"n0": 0, "n1": 0, "k": 3})
    tables = next_tables(state, 6, KNOBS)
    assert any({"n0", "n1"} <= set(t) for t in tables)
    assert not any("k" in t and ({"n0", "n1"} & set(t)) for t in tables)
