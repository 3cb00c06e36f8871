"""The tournament scheduler: balance (pairs, seats, tables per bot), determinism, house fill."""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from math import comb

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.tournaments.balance import (
    Rng,
    assign_seats,
    pair_slack,
    pairs_can_balance,
    spread_order,
)
from arena.tournaments.schedule import (
    DEFAULT_HOUSE_BOTS,
    DEFAULT_MAX_TABLES,
    DEFAULT_PAIR_MEETINGS,
    Table,
    default_table_count,
    pairs_guaranteed,
    planned_tables,
    schedule,
)


def bots(n: int) -> list[str]:
    return [f"bot-{i:02d}" for i in range(n)]


class Stats:
    """Everything the guarantees talk about, counted from a schedule."""

    def __init__(self, tables: list[Table], names: list[str]) -> None:
        index = {name: i for i, name in enumerate(names)}
        self.rows = np.array([[index[b] for b in t.seats] for t in tables], dtype=np.int64)
        n = len(names)
        self.plays = np.bincount(self.rows.ravel(), minlength=n)
        self.seats = np.stack([np.bincount(self.rows[:, s], minlength=n) for s in range(4)], 1)
        met = np.zeros((n, n), dtype=np.int64)
        for a, b in combinations(range(4), 2):
            np.add.at(met, (self.rows[:, a], self.rows[:, b]), 1)
        self.pairs = (met + met.T)[np.triu_indices(n, 1)]

    @property
    def pair_spread(self) -> int:
        return int(np.ptp(self.pairs))

    @property
    def play_spread(self) -> int:
        return int(np.ptp(self.plays))

    @property
    def seat_spread(self) -> int:
        """The worst bot's max - min over its four seat counts."""
        return int((self.seats.max(1) - self.seats.min(1)).max())


def check_schedule(tables: list[Table], names: list[str], seed: int) -> Stats:
    """The invariants every schedule of 4+ entrants has; returns the counts for more checks."""
    assert [t.index for t in tables] == list(range(len(tables)))
    assert all(len(set(t.seats)) == 4 and set(t.seats) <= set(names) for t in tables)
    stats = Stats(tables, names)
    assert stats.play_spread <= 1
    assert stats.seat_spread <= 1
    n = len(names)
    assert stats.pair_spread <= (1 if pairs_guaranteed(n, len(tables)) else 2)
    return stats


# --- every 4-subset (small fields) ------------------------------------------------------


@pytest.mark.parametrize("n", range(4, 13))
def test_small_fields_play_every_4_subset_once_with_balanced_seats(n: int) -> None:
    names = bots(n)
    tables = schedule(names, seed=n)
    assert len(tables) == comb(n, 4) == planned_tables(n)
    assert Counter(frozenset(t.seats) for t in tables) == Counter(
        frozenset(c) for c in combinations(names, 4)
    )
    stats = check_schedule(tables, names, n)
    assert stats.pair_spread == 0 and stats.play_spread == 0


def test_the_full_round_robin_is_capped_by_max_tables() -> None:
    assert planned_tables(12) == 495 <= DEFAULT_MAX_TABLES < comb(13, 4)
    assert planned_tables(13) == default_table_count(13)
    assert planned_tables(12, max_tables=494) == default_table_count(12)
    assert planned_tables(40, max_tables=100) == 100
    assert planned_tables(40, tables=7, max_tables=3) == 7


def test_whole_copies_of_every_subset_are_used_for_multiples() -> None:
    names = bots(6)
    tables = schedule(names, seed=1, tables=3 * comb(6, 4))
    counts = Counter(frozenset(t.seats) for t in tables)
    assert set(counts.values()) == {3} and len(counts) == comb(6, 4)


# --- balanced designs (large fields, or a requested table count) ---------------------------


@pytest.mark.parametrize("n", [*range(13, 21), 24, 29, 33, 40])
def test_default_balanced_design_meets_every_pair_a_few_times(n: int) -> None:
    names = bots(n)
    tables = schedule(names, seed=100 + n)
    assert len(tables) == default_table_count(n) == planned_tables(n)
    stats = check_schedule(tables, names, 100 + n)
    assert stats.pair_spread <= 1
    assert stats.pairs.min() >= DEFAULT_PAIR_MEETINGS


@pytest.mark.parametrize("n", range(4, 61))
def test_the_default_table_count_is_one_with_guaranteed_pair_balance(n: int) -> None:
    count = default_table_count(n)
    assert pairs_guaranteed(n, count)
    assert 6 * count >= DEFAULT_PAIR_MEETINGS * comb(n, 2)


GRID = [
    (n, t)
    for n in range(5, 21)
    for t in sorted({n, n + 1, 2 * n + 1, 3 * n + 2, 50, 100})
    if t % comb(n, 4)
] + [(n, t) for n in (24, 31, 40) for t in (n, 100, 250, 1000)]


@pytest.mark.parametrize(("n", "count"), GRID)
def test_requested_table_counts_keep_every_balance_guarantee(n: int, count: int) -> None:
    names = bots(n)
    tables = schedule(names, seed=count, tables=count)
    assert len(tables) == count
    check_schedule(tables, names, count)


@pytest.mark.parametrize("n", [16, 20, 30, 40])
def test_the_pair_guarantee_covers_most_table_counts_of_larger_fields(n: int) -> None:
    """Outside it lie the impossible counts and the near-designs (slack below the bar)."""
    counts = range(n, 1001)
    assert sum(pairs_guaranteed(n, t) for t in counts) >= 0.5 * len(counts)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(4, 30), per_bot=st.integers(1, 12), seed=st.integers(-(2**40), 2**40))
def test_any_field_and_table_count_is_balanced(n: int, per_bot: int, seed: int) -> None:
    count = max(1, n * per_bot // 4)
    names = bots(n)
    check_schedule(schedule(names, seed, tables=count), names, seed)


@pytest.mark.parametrize(("n", "count"), [(5, 2), (5, 3), (6, 7), (35, 100), (36, 105)])
def test_where_pairs_cannot_differ_by_1_they_differ_by_2(n: int, count: int) -> None:
    """5 bots, 2 tables: the 3 bots at both tables meet twice, the 2 others never."""
    assert not pairs_can_balance(n, count) and pair_slack(n, count) < 0
    names = bots(n)
    stats = check_schedule(schedule(names, 1, tables=count), names, 1)
    assert stats.pair_spread == 2


@pytest.mark.parametrize(("n", "count"), [(7, 8), (12, 13), (23, 60)])
def test_pair_balance_depends_on_the_request_not_the_seed(n: int, count: int) -> None:
    """The seed relabels one design per (n, T), so no seed is luckier than another."""
    names = bots(n)
    spreads = {
        tuple(sorted(Stats(schedule(names, seed, tables=count), names).pairs.tolist()))
        for seed in range(3)
    }
    assert len(spreads) == 1


def test_an_exact_design_is_found_when_it_is_easy() -> None:
    """13 bots, 39 tables: every pair meets exactly 3 times (a BIBD)."""
    names = bots(13)
    stats = check_schedule(schedule(names, 5, tables=39), names, 5)
    assert set(stats.pairs.tolist()) == {3}


def test_forty_bots_and_a_thousand_tables_are_spread_evenly() -> None:
    """At this size too (its speed is measured by benchmarks, not asserted here)."""
    tables = schedule(bots(40), seed=2024, tables=1000)
    assert len(tables) == 1000
    assert Stats(tables, bots(40)).pair_spread <= 1


# --- seats and table order -------------------------------------------------------------


@settings(max_examples=50, deadline=None)
@given(
    n=st.integers(4, 12),
    picks=st.lists(st.lists(st.integers(0, 10**6), min_size=4, max_size=4), max_size=60),
    seed=st.integers(0, 2**32),
)
def test_any_tables_can_be_seated_with_seat_counts_within_1(
    n: int, picks: list[list[int]], seed: int
) -> None:
    """The seat assignment is an equitable colouring: it never depends on luck."""
    tables = [_four(n, p) for p in picks]
    seated = assign_seats(tables, n, Rng(seed))
    assert [sorted(s) for s in seated] == [sorted(t) for t in tables]
    seats = np.zeros((n, 4), dtype=np.int64)
    for row in seated:
        for s, b in enumerate(row):
            seats[b, s] += 1
    assert (seats.max(1) - seats.min(1)).max(initial=0) <= 1


def _four(n: int, picks: list[int]) -> tuple[int, ...]:
    """4 distinct bots out of n, chosen by arbitrary integers."""
    pool = list(range(n))
    return tuple(pool.pop(p % len(pool)) for p in picks)


@pytest.mark.parametrize(("n", "count"), [(13, 43), (40, 410), (40, 1000)])
def test_bots_progress_through_their_tables_evenly(n: int, count: int) -> None:
    """Stopped after any table, every bot has played its share of tables to within 2."""
    names = bots(n)
    stats = Stats(schedule(names, 9, tables=count), names)
    played = np.zeros(n)
    for k, row in enumerate(stats.rows, start=1):
        played[row] += 1
        assert np.ptp(played - stats.plays * k / count) <= 2 + 1e-9


def test_spread_order_is_a_permutation() -> None:
    tables = [(0, 1, 2, 3), (1, 2, 3, 4), (0, 2, 3, 4)]
    assert sorted(spread_order(tables, 5, Rng(1))) == [0, 1, 2]


# --- determinism ---------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 3, 4, 7, 13, 25])
def test_the_same_inputs_give_the_same_schedule(n: int) -> None:
    names = bots(n)
    assert schedule(names, 42) == schedule(list(names), 42)
    assert schedule(names, 42) == schedule(list(reversed(names)), 42)


@pytest.mark.parametrize("n", [2, 5, 8, 13, 25])
def test_a_different_seed_gives_different_seats_and_order(n: int) -> None:
    names = bots(n)
    a, b = schedule(names, 1), schedule(names, 2)
    assert [t.seats for t in a] != [t.seats for t in b]


def test_tables_are_frozen() -> None:
    table = schedule(bots(4), 1)[0]
    with pytest.raises(AttributeError):
        table.index = 3  # type: ignore[misc]


# --- fewer than four entrants: house bots fill the table --------------------------------


@pytest.mark.parametrize("n", [1, 2, 3])
def test_house_bots_fill_and_every_entrant_has_every_seat_once(n: int) -> None:
    names = bots(n)
    tables = schedule(names, seed=3)
    assert len(tables) == 4 == planned_tables(n)
    fillers = list(DEFAULT_HOUSE_BOTS[: 4 - n])
    for t in tables:
        assert sorted(t.seats) == sorted(names + fillers)
    for name in names + fillers:
        assert sorted(t.seats.index(name) for t in tables) == [0, 1, 2, 3]


def test_house_bots_can_be_chosen_and_more_tables_requested() -> None:
    names = ["solo"]
    tables = schedule(names, 1, tables=6, house_bots=["house:a", "house:b", "house:c", "x"])
    assert len(tables) == 6
    assert {b for t in tables for b in t.seats} == {"solo", "house:a", "house:b", "house:c"}
    seats = Counter(t.seats.index("solo") for t in tables)
    assert set(seats) == {0, 1, 2, 3} and max(seats.values()) - min(seats.values()) <= 1


def test_house_bots_must_be_enough_distinct_and_not_entrants() -> None:
    with pytest.raises(ValueError, match="need 3 distinct house bots"):
        schedule(["solo"], 1, house_bots=["house:a", "house:a", "house:b"])
    with pytest.raises(ValueError, match="need 2 distinct house bots"):
        schedule(["a", "b"], 1, house_bots=["house:a"])
    with pytest.raises(ValueError, match="also entrants"):
        schedule(["a", "house:random"], 1, house_bots=["house:random", "house:x"])


# --- errors --------------------------------------------------------------------------


def test_no_entrants_is_an_error() -> None:
    with pytest.raises(ValueError, match=r"^a tournament needs at least one entrant$"):
        schedule([], 1)


def test_a_duplicate_entrant_is_named() -> None:
    with pytest.raises(ValueError, match="duplicate entrant: 'bot-b'"):
        schedule(["bot-a", "bot-b", "bot-c", "bot-b"], 1)


def test_bad_sizes_are_errors() -> None:
    with pytest.raises(ValueError, match="at least one table"):
        schedule(bots(5), 1, tables=0)
    with pytest.raises(ValueError, match="max_tables"):
        schedule(bots(5), 1, max_tables=0)
    with pytest.raises(TypeError, match="single string"):
        schedule("abcd", 1)
