"""The sequential test behind comparisons: it decides where the pairs say so, not before
``MIN_PAIRS``, never on identical pairs, and at the cap at the latest."""

from __future__ import annotations

import random

from arena.ratings.sprt import MIN_PAIRS, Bounds, summarise


def noisy(mean: float, n: int, seed: int = 1, spread: float = 2.0) -> list[float]:
    rng = random.Random(seed)
    return [rng.gauss(mean, spread) for _ in range(n)]


def first_verdict(diffs: list[float], bounds: Bounds) -> tuple[int, str | None]:
    for n in range(1, len(diffs) + 1):
        verdict = summarise(diffs[:n], bounds).verdict
        if verdict is not None:
            return n, verdict
    return len(diffs), None


def test_a_clearly_better_candidate_is_better_and_a_worse_one_worse() -> None:
    bounds = Bounds(delta=0.5, cap=200)
    n, verdict = first_verdict(noisy(1.5, 200), bounds)
    assert verdict == "better" and MIN_PAIRS <= n < 200
    n, verdict = first_verdict(noisy(-1.5, 200), bounds)
    assert verdict == "worse" and n < 200


def test_equal_versions_are_not_separated_and_the_interval_covers_zero() -> None:
    bounds = Bounds(delta=0.5, cap=400)
    n, verdict = first_verdict(noisy(0.0, 400, seed=3), bounds)
    assert verdict == "not separated"
    summary = summarise(noisy(0.0, 400, seed=3)[:n], bounds)
    assert summary.half_width is not None
    assert abs(summary.delta) < summary.half_width + 0.5


def test_no_verdict_before_min_pairs_even_on_a_huge_difference() -> None:
    bounds = Bounds()
    assert summarise([9.0] * (MIN_PAIRS - 1), bounds).verdict is None
    assert summarise([9.0] * MIN_PAIRS, bounds).verdict == "better"


def test_a_tiny_steady_difference_is_not_a_verdict_and_the_cap_ends_it() -> None:
    bounds = Bounds(cap=6)
    # a variance floor, not zero: 0.01 points a deal every time is no reason to say "better"
    assert summarise([0.01] * 5, bounds).verdict == "not separated"
    swings = [3.0, -3.0, 3.5, -2.5, 3.0]
    assert summarise(swings, bounds).verdict is None
    assert summarise([*swings, -3.0], bounds).verdict == "not separated"  # the interval holds 0
    noisy_but_ahead = [9.0, 1.0, 8.0, 0.5, 7.0, 2.0]
    assert summarise(noisy_but_ahead[:5], bounds).verdict is None
    assert summarise(noisy_but_ahead, bounds).verdict == "better"  # at the cap, above 0


def test_error_rates_hold_roughly_at_the_bounds() -> None:
    """Over many simulated runs with no true difference, "better" or "worse" comes out in
    about α of each (well under 2α), and a true difference of δ is found most times."""
    bounds = Bounds(delta=0.5, cap=2000)
    runs = 300
    wrong = sum(
        first_verdict(noisy(0.0, 2000, seed=s), bounds)[1] != "not separated" for s in range(runs)
    )
    found = sum(first_verdict(noisy(0.5, 2000, seed=s), bounds)[1] == "better" for s in range(runs))
    assert wrong / runs <= 2 * 2 * bounds.alpha  # two tests, each at α
    assert found / runs >= 1 - 2 * bounds.beta


def test_the_pair_elo_follows_the_share_of_pairs_won() -> None:
    summary = summarise([1.0, 1.0, 1.0, -1.0], Bounds())
    assert summary.elo is not None and summary.elo > 0
    assert summarise([0.0, 0.0], Bounds()).elo == 0.0
