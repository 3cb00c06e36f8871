"""The audit's statistics on games made up with known truth: what cancels, what is
measured, and the threshold."""

from __future__ import annotations

from itertools import combinations

import pytest

from arena.ratings.audit import (
    FAMILY_ALPHA,
    Seating,
    audit,
    luck_share,
    rotation_contrasts,
    rotation_differences,
    t_upper_tail,
)


@pytest.mark.parametrize(
    ("t", "df", "tail"),
    [
        (2.228139, 10, 0.025),  # the textbook two-sided 5% point
        (1.0, 1, 0.25),  # Cauchy: arctan
        (0.0, 7, 0.5),
        (-2.228139, 10, 0.975),
        (3.29053, 1e7, 0.0005),  # normal limit
        (6.964557, 2, 0.01),
    ],
)
def test_student_tail(t: float, df: float, tail: float) -> None:
    assert t_upper_tail(t, df) == pytest.approx(tail, rel=1e-4)


def match(number: int, bots: tuple, points) -> list[Seating]:
    """A 4-game duplicate set: entrant e sits in seat (e + g) % 4 in game g and scores
    ``points(bot, game, seat)`` per deal over 5 deals."""
    return [
        Seating(number, g, bot, (e + g) % 4, 5 * points(bot, g, (e + g) % 4), 5)
        for g in range(4)
        for e, bot in enumerate(bots)
    ]


LUCK = (4.0, -3.0, 1.5, -2.5)  # what each seat's hands are worth
SKILL = {"a": 1.0, "b": 0.0, "c": -0.5, "d": 2.0}


def test_card_luck_and_skill_cancel_exactly() -> None:
    """Where the hands decide the points, the duplicate comparison takes them out whole."""
    rows = []
    for n in range(10):
        luck = [LUCK[(s + n) % 4] * (1 + n % 3) for s in range(4)]
        rows += match(n, tuple("abcd"), lambda bot, g, seat, luck=luck: luck[seat] + SKILL[bot])
    contrasts = rotation_contrasts(rows)
    assert luck_share(contrasts) == pytest.approx(1.0)
    assert {b: pytest.approx([0.0] * 10, abs=1e-9) for b in "abcd"} == rotation_differences(rows)
    assert any(abs(own) > 1 for own, _ in contrasts["a"])  # there was luck to take out


def test_the_luck_share_is_the_slope_of_own_on_same_hands() -> None:
    same = [1.0, -1.0, 2.0, -2.0, 3.0, -3.0, 0.5, -0.5]
    other = [1.0, 1.0, -1.0, -1.0, 1.0, 1.0, -1.0, -1.0]  # uncorrelated with ``same``
    assert sum(x * y for x, y in zip(same, other, strict=True)) == sum(other) == 0
    own = [0.25 * x + y for x, y in zip(same, other, strict=True)]
    assert luck_share({"a": list(zip(own, same, strict=True))}) == pytest.approx(0.25)
    assert luck_share({"a": [(1.0, 2.0)] * 3}) == 1.0  # too few to fit: plain duplicate


def test_a_bot_better_in_later_rotations_shows_it_and_a_ninth_spills_to_its_opponents() -> None:
    def points(bot: str, g: int, seat: int) -> float:
        return LUCK[seat] + SKILL[bot] + (3.0 if bot == "a" and g > 0 else 0.0)

    found = {
        b: own - par for b, [(own, par)] in rotation_contrasts(match(1, "abcd", points)).items()
    }
    assert found["a"] == pytest.approx(3.0)
    # by the duplicate comparison, its opponents' first game is held against a's later gain
    assert [found[b] for b in "bcd"] == [pytest.approx(3.0 / 9)] * 3


def round_robin(rounds: int, points) -> list[Seating]:
    """Every 4 of 6 bots, ``rounds`` times, seats turned a place per match."""
    rows = []
    for n, table in enumerate(t for _ in range(rounds) for t in combinations(range(6), 4)):
        rows += match(n, table[n % 4 :] + table[: n % 4], points)
    return rows


STRENGTH = (3.0, 3.0, 0.0, -1.0, -1.0, -4.0)  # the pair (0, 1) is the strongest


def jitter(bot: int, g: int, seat: int) -> float:
    return ((7 * bot + 3 * g + 5 * seat) % 11 - 5) / 10  # a little deterministic noise


def test_an_honest_strong_pair_shows_no_pair_advantage() -> None:
    """Raw margins would: two strong bots take points from each other when together."""
    rows = round_robin(2, lambda bot, g, seat: LUCK[seat] + STRENGTH[bot] + jitter(bot, g, seat))
    [pair] = audit(rows, [(0, 1)]).pairs
    assert pair.estimate == pytest.approx(0.0, abs=0.15)
    assert not pair.flagged


def test_a_pair_that_gains_together_is_measured_and_flagged() -> None:
    tables = [t for _ in range(2) for t in combinations(range(6), 4)]

    def points(number: int):
        together = {0, 1} <= set(tables[number])
        return lambda bot, g, seat: (
            LUCK[seat] + STRENGTH[bot] + jitter(bot, g, seat) + (1.0 if together and bot < 2 else 0)
        )

    rows = [r for n, t in enumerate(tables) for r in match(n, t, points(n))]
    found = audit(rows, [(0, 1), (2, 3)])
    pair, other = found.pairs
    # margins against the table: each gains 1 a deal, half of which lifts the table's mean
    assert pair.estimate == pytest.approx(1.0, abs=0.2)
    assert pair.flagged and not other.flagged
    assert (pair.matches, pair.apart) == (12, (8, 8))


def test_threshold_is_one_percent_over_the_tests_with_enough_data() -> None:
    rows = round_robin(1, lambda bot, g, seat: LUCK[seat] + jitter(bot, g, seat))
    found = audit(rows, [(0, 1), (2, 5)])
    # 15 matches: each bot sat at 10 (rotation tested); a pair shares 6, each apart 4: untested
    assert [f.matches for f in found.rotation] == [10] * 6
    assert all(f.p is None and not f.flagged for f in found.pairs)
    assert found.tests == 6
    assert found.threshold == pytest.approx(FAMILY_ALPHA / 6)


def test_too_few_matches_give_no_p_value() -> None:
    rows = [r for n in range(3) for r in match(n, tuple("abcd"), lambda b, g, s: LUCK[s] + g)]
    found = audit(rows, [])
    assert all(f.p is None and f.matches == 3 and not f.flagged for f in found.rotation)
    assert found.tests == 0
