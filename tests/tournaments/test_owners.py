"""Fair seating: two bots of one owner never share a table (round robin, balanced design,
extra matches), what balance is kept, the organiser's override and the refusal."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.tournaments.adaptive import extra_tables
from arena.tournaments.balance import legal_subsets, subset_count
from arena.tournaments.owners import group_ids, seating_problem
from arena.tournaments.schedule import planned_tables, schedule
from tests.tournaments.test_adaptive import NO_SEATS, SPREAD, ranked
from tests.tournaments.test_schedule import Stats, bots


def owned(names: list[str], sizes: list[int]) -> dict[str, str]:
    """The first names split among owners of these sizes; the rest own nothing."""
    owners, rest = {}, iter(names)
    for k, size in enumerate(sizes):
        for _ in range(size):
            owners[next(rest)] = f"user u{k}"
    return owners


def assert_apart(tables, owners: dict[str, str]) -> None:
    for t in tables:
        labels = [owners[b] for b in t.seats if b in owners]
        assert len(labels) == len(set(labels)), t


def allowed_pairs(stats: Stats, names: list[str], owners: dict[str, str]) -> np.ndarray:
    """Pair counts of the pairs that may meet (the others are asserted 0)."""
    groups = np.array(group_ids(names, owners))
    upper = np.triu_indices(len(names), 1)
    same = groups[upper[0]] == groups[upper[1]]
    assert not stats.pairs[same].any()
    return stats.pairs[~same]


# --- the round robin: every legal 4-subset once ---------------------------------------


@pytest.mark.parametrize(("n", "sizes"), [(5, [2]), (7, [2, 2]), (9, [3, 2]), (12, [4, 3, 2])])
def test_the_round_robin_plays_every_legal_subset_once(n: int, sizes: list[int]) -> None:
    names = bots(n)
    owners = owned(names, sizes)
    tables = schedule(names, seed=n, owners=owners)
    legal = [c for c in combinations(names, 4) if len({owners.get(b, b) for b in c}) == 4]
    assert 0 < len(legal) < len(list(combinations(names, 4)))
    assert Counter(frozenset(t.seats) for t in tables) == Counter(frozenset(c) for c in legal)
    assert len(tables) == planned_tables(n, groups=group_ids(names, owners))
    assert Stats(tables, names).seat_spread <= 1


@pytest.mark.parametrize("n", [4, 6, 9, 12])
def test_legal_subsets_are_counted_without_listing_them(n: int) -> None:
    groups = [0, 0, 1, 2, 2, 2, 3, 4, 5, 6, 6, 7][:n]
    assert subset_count(n, groups) == len(legal_subsets(n, groups))
    assert subset_count(n) == len(legal_subsets(n))


# --- the balanced design: kept apart, balanced as far as it can be ------------------------


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(8, 32),
    owner_sizes=st.lists(st.integers(2, 8), min_size=1, max_size=5),
    per_bot=st.integers(1, 10),
    seed=st.integers(0, 2**40),
)
def test_a_balanced_design_never_seats_one_owner_twice(
    n: int, owner_sizes: list[int], per_bot: int, seed: int
) -> None:
    """Owners of at most a quarter of the field: tables per bot and seats within 1; pair
    counts (of the pairs that may meet) within 3 from 12 bots (below, few owners can leave
    no choice: 8 bots as 2+2+2+1+1 at equal tables per bot seat one of each pair at every
    table, so the two single bots never meet)."""
    sizes = [min(size, n // 4) for size in owner_sizes]
    names = bots(n)
    owners = owned(names, [s for k, s in enumerate(sizes) if sum(sizes[: k + 1]) <= n])
    count = max(1, n * per_bot // 4)
    if count >= subset_count(n, group_ids(names, owners)):
        count = n  # a balanced design, not copies of the round robin
    tables = schedule(names, seed, tables=count, owners=owners)
    assert len(tables) == count
    assert_apart(tables, owners)
    stats = Stats(tables, names)
    assert stats.play_spread <= 1 and stats.seat_spread <= 1
    assert n < 12 or np.ptp(allowed_pairs(stats, names, owners)) <= 3


@pytest.mark.parametrize("n", [13, 20, 40])
def test_the_default_design_of_a_large_field_keeps_owners_apart(n: int) -> None:
    names = bots(n)
    owners = owned(names, [3, 2, 2])
    tables = schedule(names, seed=n, owners=owners)
    assert_apart(tables, owners)
    stats = Stats(tables, names)
    pairs = allowed_pairs(stats, names, owners)
    assert stats.play_spread <= 1 and stats.seat_spread <= 1 and np.ptp(pairs) <= 3
    assert pairs.min() >= 2  # nearly DEFAULT_PAIR_MEETINGS, which holds for every pair


def test_an_owner_of_over_a_quarter_of_the_field_plays_less_but_never_twice() -> None:
    """8 bots, 3 of one owner, 24 tables: only one of its bots fits at each table."""
    names = bots(8)
    owners = owned(names, [3])
    tables = schedule(names, seed=4, tables=24, owners=owners)
    assert_apart(tables, owners)
    plays = Stats(tables, names).plays
    assert plays[:3].sum() <= 24 < plays[3:].min() * 3


def test_the_design_depends_on_the_owners_sizes_not_on_the_seed() -> None:
    names = bots(16)
    owners = owned(names, [4, 3, 2])
    shapes = {
        tuple(sorted(Stats(schedule(names, seed, tables=30, owners=owners), names).pairs))
        for seed in range(3)
    }
    assert len(shapes) == 1


def test_the_same_owners_in_any_order_give_the_same_schedule() -> None:
    names = bots(14)
    owners = owned(names, [3, 3])
    again = dict(reversed(list(owners.items())))
    assert schedule(names, 7, owners=owners) == schedule(names[::-1], 7, owners=again)


# --- the organiser's override ----------------------------------------------------------


def test_without_owners_same_owner_tables_come_back() -> None:
    """Allowing it (no owners given) is exactly the unconstrained schedule, which does seat
    two bots of one owner together."""
    names = bots(9)
    owners = owned(names, [3, 2])
    kept, allowed = schedule(names, 5, owners=owners), schedule(names, 5)
    assert allowed == schedule(names, 5, owners={})
    together = [t for t in allowed if len({owners.get(b, b) for b in t.seats}) < 4]
    assert together and len(kept) == len(allowed) - len(together)


# --- refusals --------------------------------------------------------------------------


def test_too_few_owners_for_a_table_is_one_line_naming_the_owner_and_bots() -> None:
    names = ["a1", "a2", "a3", "b1", "c1"]
    owners = {"a1": "user ann", "a2": "user ann", "a3": "user ann", "b1": "user bob"}
    shown = {"a1": "ann-x@1", "a2": "ann-y@1", "a3": "ann-y@2"}
    message = seating_problem(names, owners, shown)
    assert message is not None and "\n" not in message
    assert "user ann entered ann-x@1, ann-y@1, ann-y@2" in message
    assert "--allow-same-owner" in message
    with pytest.raises(ValueError, match="user ann entered a1, a2, a3"):
        schedule(names, 1, owners=owners)
    assert seating_problem([*names, "d1"], owners, shown) is None  # a fourth owner


def test_entrants_filled_with_house_bots_must_all_be_apart() -> None:
    owners = {"a1": "user ann", "a2": "user ann"}
    with pytest.raises(ValueError, match="user ann entered a1, a2"):
        schedule(["a1", "a2", "b1"], 1, owners=owners)
    assert len(schedule(["a1", "b1", "c1"], 1, owners=owners)) == 4


# --- extra matches -----------------------------------------------------------------------


def test_extra_matches_never_seat_one_owner_twice() -> None:
    """SPREAD's unsure bottom (f, g, h, i) is one owner's but for f: the windows take the
    nearest bots of other owners instead."""
    owners = {"g": "user gil", "h": "user gil", "i": "user gil", "a": "user ann", "b": "user ann"}
    tables = extra_tables(SPREAD, 30, NO_SEATS, 4, owners=owners)
    for table in tables:
        labels = [owners[b] for b in table if b in owners]
        assert len(labels) == len(set(labels)), table
    seated = Counter(b for t in tables for b in t)
    assert seated["f"] and seated["g"] + seated["h"] + seated["i"] >= 30  # still the unsure
    assert extra_tables(SPREAD, 5, NO_SEATS, 4) == extra_tables(SPREAD, 5, NO_SEATS, 4, owners={})


def test_extra_matches_need_four_owners() -> None:
    rows = ranked(("a", 1600, 50), ("b", 1500, 50), ("c", 1450, 50), ("d", 1400, 50))
    with pytest.raises(ValueError, match="no table of four owners"):
        extra_tables(rows, 1, NO_SEATS, 4, owners={"a": "user x", "d": "user x"})
