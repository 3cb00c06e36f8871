"""Both rating models: finite intervals in the corner cases, the margin model's own
properties (order independence, game effects, the Elo scale) and the model registry."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.ratings import ELO_CENTER, MODELS, NO_DATA_HALF_WIDTH, Rating, fit
from tests.ratings.synthetic import (
    fitted_elo,
    kendall_tau,
    points_games,
    population_elo,
    random_tables,
)

BOTH = sorted(MODELS)


def _finite(r: Rating) -> bool:
    return all(math.isfinite(x) for x in (r.elo, r.ci_low, r.ci_high))


def _match_groups(n_games: int, size: int = 4) -> list[int]:
    return [g // size for g in range(n_games)]


@pytest.mark.parametrize("model", BOTH)
def test_a_lone_bot_is_exactly_1500(model: str) -> None:
    assert fit([{"solo": 3.0}, {"solo": -2.0}], model=model) == {
        "solo": Rating(1500.0, 1500.0, 1500.0, 2)
    }


@pytest.mark.parametrize("model", BOTH)
def test_a_bot_that_wins_or_loses_every_comparison_gets_finite_bounds(model: str) -> None:
    rng = np.random.default_rng(3)
    games = []
    for _ in range(24):
        a, b = rng.normal(size=2).round(1)
        games.append({"ace": 50.0 + rng.random(), "a": a, "b": b, "dud": -50.0 - rng.random()})
    ratings = fit(games, _match_groups(len(games)), model=model)
    assert all(_finite(r) for r in ratings.values()), ratings
    ace, dud, mid = ratings["ace"], ratings["dud"], ratings["a"]
    assert ace.ci_low < ace.elo < ace.ci_high and dud.ci_low < dud.elo < dud.ci_high
    assert dud.elo < min(ratings["a"].elo, ratings["b"].elo) < ace.elo
    assert dud.ci_high < mid.ci_low and mid.ci_high < ace.ci_low  # separated from the middle
    assert np.mean([r.elo for r in ratings.values()]) == pytest.approx(ELO_CENTER)


def test_an_all_losses_interval_reaches_the_rule_of_three_bound() -> None:
    """Bradley-Terry: 0 wins in 36 comparisons against bots rated 1500 bounds the win
    chance by about 3/36; the interval's upper end must reach that far (the sandwich alone
    would be far too narrow out in the logistic tail)."""
    games = [{"x": 1.0, "y": 1.0, "z": 1.0, "dud": 0.0} for _ in range(12)]
    dud = fit(games, _match_groups(12), model="bradley-terry")["dud"]
    # the three others share the rest: their mean is (6000 - dud.elo) / 3
    others = (4 * ELO_CENTER - dud.elo) / 3
    bound = others + 400 * math.log10((3 / 36) / (1 - 3 / 36))
    assert _finite(dud) and dud.ci_high > bound > dud.elo


@pytest.mark.parametrize("model", BOTH)
def test_a_disconnected_graph_and_a_bot_without_comparisons_stay_finite(model: str) -> None:
    games = [{"A": 1, "B": 0}, {"A": 0, "B": 1}, {"A": 1, "B": 0}]
    games += [{"C": 1, "D": 0}, {"C": 0, "D": 1}, {"C": 0, "D": 1}, {"E": 7.0}]
    ratings = fit(games, model=model)
    assert all(_finite(r) for r in ratings.values()), ratings
    assert np.mean([r.elo for r in ratings.values()]) == pytest.approx(ELO_CENTER)
    assert ratings["A"].elo > ratings["B"].elo and ratings["D"].elo > ratings["C"].elo
    assert ratings["A"].elo - ratings["B"].elo == pytest.approx(
        ratings["D"].elo - ratings["C"].elo, abs=1e-6
    )
    e = ratings["E"]  # never compared: the prior's interval
    assert e.games == 1
    assert (e.ci_high - e.elo, e.elo - e.ci_low) == pytest.approx((NO_DATA_HALF_WIDTH,) * 2)
    assert ratings["A"].ci_high - ratings["A"].ci_low < 2 * NO_DATA_HALF_WIDTH


@pytest.mark.parametrize("model", BOTH)
def test_one_group_gives_the_prior_interval(model: str) -> None:
    ratings = fit([{"A": 1, "B": 0}, {"A": 0, "B": 3}], groups=["m1", "m1"], model=model)
    for r in ratings.values():
        assert r.ci_high - r.elo == pytest.approx(NO_DATA_HALF_WIDTH)
        assert r.elo - r.ci_low == pytest.approx(NO_DATA_HALF_WIDTH)


def test_with_two_bots_the_margin_model_is_bradley_terry() -> None:
    """Two bots: the scale k is fitted so that σ(k·Δs) matches the comparisons, with the
    same prior, which is the Bradley-Terry likelihood of the one difference."""
    games = [{"A": 5, "B": 1}] * 3 + [{"A": 0.5, "B": 4.1}, {"A": 2, "B": 2}]
    margin = fit(games, model="margin", intervals="none")
    bt = fit(games, model="bradley-terry", intervals="none")
    assert margin["A"].elo == pytest.approx(bt["A"].elo, abs=1e-6)
    assert margin["A"].elo > ELO_CENTER


def test_game_effects_do_not_move_the_margin_ratings() -> None:
    """A game that hands every bot 40 more points (rich deals) says nothing about them."""
    rng = np.random.default_rng(7)
    tables = random_tables(rng, 6, 80)
    games = points_games(rng, np.linspace(-0.5, 0.5, 6), tables)
    shifted = [{b: p + 40.0 * (i % 3) for b, p in g.items()} for i, g in enumerate(games)]
    groups = _match_groups(len(games))
    plain, rich = fit(games, groups, model="margin"), fit(shifted, groups, model="margin")
    for bot, r in plain.items():
        other = rich[bot]
        assert (r.elo, r.ci_low, r.ci_high) == pytest.approx(
            (other.elo, other.ci_low, other.ci_high), abs=1e-6
        )
    bt_shifted = fit(shifted, groups, model="bradley-terry")
    assert bt_shifted == fit(games, groups, model="bradley-terry")  # order is unchanged too


def test_the_margin_elo_is_on_the_pairwise_odds_scale() -> None:
    """With many games both models estimate the same thing, the log-odds of winning a
    comparison; normal noise is close to logistic, so they agree to a few Elo."""
    rng = np.random.default_rng(11)
    mean_per_deal = 0.5 * np.arange(8)
    games = points_games(rng, mean_per_deal, random_tables(rng, 8, 20_000))
    margin = fitted_elo(fit(games, model="margin", intervals="none"), 8)
    bt = fitted_elo(fit(games, model="bradley-terry", intervals="none"), 8)
    truth = population_elo(mean_per_deal)
    assert np.max(np.abs(bt - truth)) < 10
    assert np.max(np.abs(margin - truth)) < 10
    assert truth.max() - truth.min() > 300  # a spread where a wrong scale would show


def test_margins_order_bots_better_than_the_order_of_totals() -> None:
    """Same games, 40 small tournaments of 8 close bots: the margin model's mean τ beats
    Bradley-Terry's (it keeps how much a bot won by)."""
    taus = {m: [] for m in BOTH}
    for seed in range(40):
        rng = np.random.default_rng(seed)
        games = points_games(rng, 0.1 * np.arange(8), random_tables(rng, 8, 400))
        for m in BOTH:
            fitted = fitted_elo(fit(games, model=m, intervals="none"), 8)
            taus[m].append(kendall_tau(fitted, np.arange(8)))
    assert np.mean(taus["margin"]) > np.mean(taus["bradley-terry"]) + 0.01


@pytest.mark.parametrize("model", BOTH)
def test_intervals_contain_the_estimate_and_shrink_with_games(model: str) -> None:
    widths = []
    for n_games in (200, 3200):
        rng = np.random.default_rng(n_games)
        games = points_games(rng, 0.3 * np.arange(8), random_tables(rng, 8, n_games))
        ratings = fit(games, _match_groups(n_games), model=model)
        assert all(r.ci_low < r.elo < r.ci_high and _finite(r) for r in ratings.values())
        widths.append(np.mean([r.ci_high - r.ci_low for r in ratings.values()]))
    assert widths[1] < 0.35 * widths[0]  # 16x the games, about 1/4 the width


_game = st.dictionaries(
    st.sampled_from("abcdef"), st.sampled_from([0.0, 1.0, 2.5, 4.1, -3.0]), min_size=1, max_size=4
)


@settings(max_examples=60, deadline=None)
@given(
    data=st.lists(st.tuples(_game, st.integers(0, 4)), min_size=1, max_size=25),
    use_groups=st.booleans(),
    permutation=st.randoms(use_true_random=False),
)
def test_the_margin_model_ignores_the_order_of_games(data, use_groups, permutation) -> None:
    shuffled = list(data)
    permutation.shuffle(shuffled)
    shuffled = [(dict(reversed(list(game.items()))), group) for game, group in shuffled]

    def run(rows):
        groups = [group for _, group in rows] if use_groups else None
        return fit([game for game, _ in rows], groups, model="margin")

    original, permuted = run(data), run(shuffled)
    assert original == permuted  # bit for bit: the games are put in canonical order
    assert all(_finite(r) for r in original.values())


def test_unknown_models_and_options_are_refused() -> None:
    games = [{"A": 1, "B": 0}, {"A": 0, "B": 2}]
    with pytest.raises(ValueError, match="unknown rating model"):
        fit(games, model="elo-by-vibes")
    with pytest.raises(ValueError, match="margin model"):
        fit(games, model="margin", intervals="bootstrap")
    with pytest.raises(ValueError):
        fit(games, groups=["only one"], model="margin")
    with pytest.raises(ValueError):
        fit([{"A": math.nan, "B": 0}], model="margin")
    assert fit([], model="margin") == {} and fit([{}], model="margin") == {}
