"""Choosing extra matches: where intervals overlap, spread over a batch, seats balanced."""

from __future__ import annotations

import pytest

from arena.tournaments.adaptive import Ranked, extra_tables, overlaps, separated_top


def ranked(*rows: tuple[str, float, float]) -> list[Ranked]:
    """(name, elo, half width) with 40 games each."""
    return [Ranked(name, elo, elo - half, elo + half, 40) for name, elo, half in rows]


NO_SEATS: dict[str, list[int]] = {}

# a and b are far apart from the rest; f, g, h, i overlap heavily at the bottom.
SPREAD = ranked(
    ("a", 1900, 20),
    ("b", 1800, 20),
    ("c", 1700, 20),
    ("d", 1600, 20),
    ("e", 1500, 20),
    ("f", 1420, 60),
    ("g", 1400, 60),
    ("h", 1390, 60),
    ("i", 1380, 60),
)


def test_overlaps_and_separation() -> None:
    rows = ranked(("a", 1600, 30), ("b", 1500, 30), ("c", 1480, 30))
    assert overlaps(rows) == [-40, 40]
    assert separated_top(rows, 2) and not separated_top(rows, 3)


def test_the_most_overlapping_neighbours_get_the_table() -> None:
    (table,) = extra_tables(SPREAD, 1, NO_SEATS, 4)
    assert sorted(table) == ["f", "g", "h", "i"]


def test_input_order_does_not_matter() -> None:
    assert extra_tables(SPREAD, 5, NO_SEATS, 4) == extra_tables(SPREAD[::-1], 5, NO_SEATS, 4)


def test_top_restricts_the_tables_to_the_unsure_top() -> None:
    rows = ranked(
        ("a", 1600, 50),
        ("b", 1580, 50),
        ("c", 1560, 50),
        *[(f"x{i}", 1400 - 5 * i, 80) for i in range(5)],
    )
    everywhere = extra_tables(rows, 1, NO_SEATS, 4)[0]
    assert "a" not in everywhere  # the bottom overlaps more
    for table in extra_tables(rows, 6, NO_SEATS, 4, top=3):
        assert {"a", "b", "c"} <= set(table)


def test_a_batch_moves_on_as_the_projected_intervals_narrow() -> None:
    """Two equally unsure places: a batch alternates between them instead of piling up."""
    rows = ranked(
        *[(f"t{i}", 1800 - 10 * i, 30) for i in range(4)],
        ("m", 1500, 10),
        *[(f"u{i}", 1200 - 10 * i, 30) for i in range(4)],
    )
    tables = extra_tables(rows, 8, NO_SEATS, 4)
    at_top = [sum(name.startswith("t") for name in t) >= 3 for t in tables]
    at_bottom = [sum(name.startswith("u") for name in t) >= 3 for t in tables]
    assert sum(at_top) == sum(at_bottom) == 4


def test_the_fourth_seat_rotates_over_the_rest() -> None:
    """With top=3 the three leaders play every table; the fourth seat (the widest interval
    outside them) goes round the others, which ties the leaders to the mean."""
    rows = ranked(
        ("a", 1600, 30), ("b", 1590, 30), ("c", 1580, 30), *[(f"x{i}", 1400, 40) for i in range(5)]
    )
    tables = extra_tables(rows, 5, NO_SEATS, 4, top=3)
    anchors = [next(name for name in t if name.startswith("x")) for t in tables]
    assert all({"a", "b", "c"} <= set(t) for t in tables)
    assert sorted(anchors) == [f"x{i}" for i in range(5)]


def test_starting_seats_stay_balanced() -> None:
    seats = {"a": [5, 0, 0, 0], "b": [0, 5, 0, 0], "c": [5, 0, 0, 0], "d": [0, 0, 0, 5]}
    rows = ranked(("a", 1510, 50), ("b", 1500, 50), ("c", 1490, 50), ("d", 1480, 50))
    tables = extra_tables(rows, 8, seats, 4)
    counts = {name: [0] * 4 for name in "abcd"}
    for table in tables:
        assert sorted(table) == list("abcd")
        for i, name in enumerate(table):
            counts[name][i] += 1
    assert counts["a"][0] == counts["c"][0] == counts["b"][1] == counts["d"][3] == 0
    for name, start in seats.items():
        total = [x + y for x, y in zip(start, counts[name], strict=True)]
        assert max(total) - min(total) <= 3, (name, total)  # 13 starts: 5 in one seat


def test_bad_requests_are_refused() -> None:
    three = ranked(("a", 1, 1), ("b", 1, 1), ("c", 1, 1))
    with pytest.raises(ValueError, match="at least 4 entrants"):
        extra_tables(three, 1, NO_SEATS, 4)
    with pytest.raises(ValueError, match="at least 1"):
        extra_tables(SPREAD, 0, NO_SEATS, 4)
    with pytest.raises(ValueError, match="top"):
        extra_tables(SPREAD, 1, NO_SEATS, 4, top=1)
