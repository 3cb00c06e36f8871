"""The decision-level tests (arena.ratings.telling) and how the audit counts them."""

from __future__ import annotations

import math
import random
from itertools import product

import pytest

from arena.ratings.audit import FAMILY_ALPHA, Finding, audit, counted_tests
from arena.ratings.telling import Trial, memory_table, pair_table
from tests.ratings.test_audit import LUCK
from tests.ratings.test_audit import match as points_match


def exact_upper(hits: int, n: int, base_hits: int, base_n: int) -> float:
    """Fisher's one-sided p by enumerating every way to place the truth-followed trials."""
    k, total = hits + base_hits, n + base_n
    ways = [math.comb(n, i) * math.comb(base_n, k - i) for i in range(k + 1)]
    return sum(ways[hits:]) / math.comb(total, k)


def trials(bot, later: tuple[int, int], first: tuple[int, int], match=0) -> list[Trial]:
    """``later`` = (truth followed, trials) in later games, ``first`` likewise."""
    out = []
    for is_first, (hits, n) in ((False, later), (True, first)):
        out += [Trial(match, bot, is_first, None, i < hits) for i in range(n)]
    return out


@pytest.mark.parametrize("cells", [(9, 10, 3, 8), (3, 10, 3, 10), (0, 4, 4, 4), (12, 12, 0, 3)])
def test_memory_p_value_is_fishers_exact_one_sided(cells):
    hits, n, base_hits, base_n = cells
    table = memory_table(trials("b", (hits, n), (base_hits, base_n)), "b")
    assert (table.hits, table.trials, table.base_hits, table.base_trials) == cells
    assert table.p == pytest.approx(exact_upper(*cells), rel=1e-9)
    # the least p these margins allow: every truth-followed trial in the later games
    k = hits + base_hits
    assert table.least_p == pytest.approx(exact_upper(min(n, k), n, k - min(n, k), base_n))
    assert table.least_p <= table.p


def test_memory_ignores_other_bots_and_hand_tests_and_needs_both_groups():
    rows = trials("b", (5, 5), (0, 5)) + trials("c", (0, 5), (5, 5))
    rows.append(Trial(0, "b", True, "c", True))  # a pair test's trial: not this one's
    table = memory_table(rows, "b")
    assert (table.hits, table.trials, table.base_hits, table.base_trials) == (5, 5, 0, 5)
    assert table.estimate == 1.0
    assert memory_table(trials("b", (3, 3), (0, 0)), "b").p is None


def test_a_bot_following_the_truth_later_is_flagged_and_an_honest_one_is_not():
    rng = random.Random(1)
    rows = []
    for match in range(4):  # the cheat: 0.4 of its trials in game 1, 0.95 later
        rows += trials("cheat", (sum(rng.random() < 0.95 for _ in range(7)), 7), (1, 3), match)
        rows += trials("honest", (sum(rng.random() < 0.4 for _ in range(7)), 7), (1, 3), match)
    found = audit([], [], rows)
    flags = {f.bots[0]: f.flagged for f in found.decisions}
    assert flags == {"cheat": True, "honest": False}
    assert found.tests == 2 and found.threshold == FAMILY_ALPHA / 2


def pair_trials(a_partner: tuple[int, int], a_other: tuple[int, int]) -> list[Trial]:
    out = []
    for seen, (hits, n) in (("b", a_partner), ("c", a_other)):
        out += [Trial(0, "a", False, seen, i < hits) for i in range(n)]
    return out


def test_pair_compares_the_partners_hand_with_the_others():
    rows = pair_trials((18, 20), (8, 20)) + [
        Trial(0, "b", False, s, t) for s, t in product(("a", "d"), (True, False))
    ]
    table = pair_table(rows, "a", "b")
    # a: 18/20 given b's hand, 8/20 given c's; b: 1/2 given a's, 1/2 given d's
    assert (table.hits, table.trials, table.base_hits, table.base_trials) == (19, 22, 9, 22)
    assert table.p < 0.005
    swapped = pair_table(pair_trials((8, 20), (18, 20)), "a", "b")
    assert swapped.p > 0.99
    assert pair_table(pair_trials((3, 3), (0, 0)), "a", "b").p is None


def finding(p: float | None, least: float) -> Finding:
    return Finding("decisions", ("x",), 1, (), 0.0, 0.0, p, least_p=least)


def test_tarone_counts_only_tests_that_could_reach_the_threshold():
    alpha = FAMILY_ALPHA
    assert counted_tests([]) == 0
    strong = [finding(0.5, 1e-9) for _ in range(3)]
    weak = [finding(0.9, 0.2) for _ in range(50)]  # could never flag
    assert counted_tests(strong + weak) == 3
    assert counted_tests(strong + weak + [finding(None, 1.0)]) == 3
    points = [finding(0.5, 0.0) for _ in range(4)]  # continuous tests always count
    assert counted_tests(points + weak) == 4
    # a test whose least p is alpha/5 counts when m stays at 5 or less
    assert counted_tests([finding(0.5, alpha / 5) for _ in range(5)]) == 5
    assert counted_tests([finding(0.5, alpha / 5) for _ in range(6)]) == 6


def test_a_points_rotation_flag_stands_only_where_the_decisions_do_not_lean_against_it():
    """Bot "a" scores 3 a deal more after its first game (memory, or a slow first game);
    its decisions tell which: following the truth more later (memory) or not (a cold start,
    not flagged by the points); a bot without judged decisions keeps its points flag."""

    def points(n: int):
        def scored(bot: str, g: int, seat: int) -> float:
            noise = ((7 * n + 3 * g + 5 * seat) % 11 - 5) / 10
            return LUCK[seat] + noise + (3.0 if bot == "a" and g else 0.0)

        return scored

    rows = [r for n in range(10) for r in points_match(n, tuple("abcd"), points(n))]
    leaning = {
        "memory": trials("a", (9, 10), (1, 5)),
        "cold start": trials("a", (3, 10), (3, 5)),
        "not judged": [],
    }
    flagged = {}
    for name, told in leaning.items():
        found = audit(rows, [], told)
        [rotation] = [f for f in found.rotation if f.bots == ("a",)]
        assert rotation.p is not None and rotation.p <= found.threshold
        flagged[name] = rotation.flagged
    assert flagged == {"memory": True, "cold start": False, "not judged": True}
