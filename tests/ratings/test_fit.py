"""Tests for the Bradley–Terry Elo fit (what both models share: tests/ratings/test_models.py)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.ratings import ELO_CENTER, Rating
from arena.ratings import bradley_terry as fit
from tests.ratings.synthetic import (
    elo_from_strength,
    fitted_elo,
    gumbel_games,
    kendall_tau,
    random_tables,
)


def _games(seed: int, n_bots: int, n_games: int) -> tuple[list[dict[int, float]], np.ndarray]:
    rng = np.random.default_rng(seed)
    strength = rng.normal(scale=0.7, size=n_bots)
    return gumbel_games(rng, strength, random_tables(rng, n_bots, n_games)), strength


def test_empty_input_gives_empty_dict() -> None:
    assert fit([]) == {}
    assert fit([{}, {}]) == {}


def test_single_bot_is_1500() -> None:
    assert fit([{"solo": 3.0}, {"solo": -2.0}]) == {"solo": Rating(1500.0, 1500.0, 1500.0, 2)}


def test_stronger_bot_is_highest_and_mean_is_1500() -> None:
    rng = np.random.default_rng(1)
    games = []
    for _ in range(60):
        points = rng.normal(size=3).round(1)
        games.append({"ace": 99.0, "b": points[0], "c": points[1], "d": points[2]})
    ratings = fit(games)
    assert max(ratings, key=lambda bot: ratings[bot].elo) == "ace"
    assert np.mean([r.elo for r in ratings.values()]) == pytest.approx(ELO_CENTER, abs=1e-9)
    assert all(r.games == 60 for r in ratings.values())


def test_two_bots_three_wins_in_four() -> None:
    ratings = fit([{"A": 5, "B": 1}] * 3 + [{"A": 0.5, "B": 4.1}])
    diff = ratings["A"].elo - ratings["B"].elo
    # the prior (one drawn comparison per bot) shrinks 191 to about 165 on 4 games
    assert 150 < diff < 400 * math.log10(3)


def test_ties_count_half() -> None:
    with_ties = [{"A": 2, "B": 1}] * 2 + [{"A": 1, "B": 1}] * 2 + [{"A": 0, "B": 1}]
    as_wins = [{"A": 2, "B": 1}] * 3 + [{"A": 0, "B": 1}] * 2  # 3 of 5 comparisons each way
    tied, won = fit(with_ties, intervals="none"), fit(as_wins, intervals="none")
    assert tied["A"].elo == pytest.approx(won["A"].elo, abs=1e-9)
    all_tied = fit([{"A": 3, "B": 3, "C": 3}] * 4)
    assert all(r.elo == pytest.approx(ELO_CENTER) for r in all_tied.values())


_game = st.dictionaries(
    st.sampled_from("abcdef"), st.sampled_from([0.0, 1.0, 2.5, 4.1, -3.0]), min_size=2, max_size=4
)


@settings(max_examples=60, deadline=None)
@given(
    data=st.lists(st.tuples(_game, st.integers(0, 4)), min_size=2, max_size=25),
    use_groups=st.booleans(),
    method=st.sampled_from(["sandwich", "bootstrap"]),
    permutation=st.randoms(use_true_random=False),
)
def test_permutation_invariance(data, use_groups, method, permutation) -> None:
    shuffled = list(data)
    permutation.shuffle(shuffled)
    shuffled = [(dict(reversed(list(game.items()))), group) for game, group in shuffled]

    def run(rows):
        groups = [group for _, group in rows] if use_groups else None
        return fit([game for game, _ in rows], groups, intervals=method, n_boot=30)

    original, permuted = run(data), run(shuffled)
    assert list(original) == list(permuted)
    for bot, rating in original.items():
        other = permuted[bot]
        assert other.games == rating.games
        for a, b in zip(
            (rating.elo, rating.ci_low, rating.ci_high),
            (other.elo, other.ci_low, other.ci_high),
            strict=True,
        ):
            assert a == b or abs(a - b) <= 1e-9


@pytest.mark.parametrize("method", ["sandwich", "bootstrap"])
def test_intervals_contain_estimate_and_shrink(method: str) -> None:
    small, _ = _games(3, 8, 200)
    large, _ = _games(4, 8, 3200)
    widths = []
    for games in (small, large):
        ratings = fit(games, intervals=method)
        for r in ratings.values():
            assert r.ci_low < r.elo < r.ci_high
            assert math.isfinite(r.ci_low) and math.isfinite(r.ci_high)
        widths.append(np.mean([r.ci_high - r.ci_low for r in ratings.values()]))
    assert widths[1] < 0.35 * widths[0]  # 16x the games, about 1/4 the width


def test_recovers_synthetic_truth() -> None:
    games, strength = _games(5, 20, 3000)
    fitted = fitted_elo(fit(games), 20)
    assert kendall_tau(fitted, strength) >= 0.9
    assert np.max(np.abs(fitted - elo_from_strength(strength))) < 60


def test_no_intervals_and_bad_arguments() -> None:
    games = [{"A": 1, "B": 0}, {"A": 0, "B": 2}]
    assert all(math.isnan(r.ci_low) for r in fit(games, intervals="none").values())
    with pytest.raises(ValueError):
        fit(games, groups=["only one"])
    with pytest.raises(ValueError):
        fit(games, intervals="jackknife")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        fit([{"A": math.nan, "B": 0}])
