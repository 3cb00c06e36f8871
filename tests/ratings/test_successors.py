"""The predecessor's prior (``arena.ratings.successors``): a new version starts at its
predecessor's rating, widened, and its own games take over."""

import math

import numpy as np
import pytest

from arena.ratings import ELO_SCALE, MODELS, Rating, fit
from arena.ratings.games import Z95
from arena.ratings.successors import SUCCESSOR_SD, links, starting_rating

BOTH = sorted(MODELS)


def _field(seed: int, new_matches: int) -> tuple[list[dict[str, float]], list[int]]:
    """Four field bots and "old" (strong: +300 Elo) in 80 random matches; then "new", as
    strong as the field's average, in ``new_matches`` matches."""
    rng = np.random.default_rng(seed)
    strength = {"a": -50.0, "b": 0.0, "c": 50.0, "d": 0.0, "old": 300.0, "new": 0.0}
    others = ["a", "b", "c", "d", "old"]
    games: list[dict[str, float]] = []
    groups: list[int] = []
    tables = [list(rng.choice(others, 4, replace=False)) for _ in range(80)]
    tables += [["new", *rng.choice(["a", "b", "c", "d"], 3, replace=False)]] * new_matches
    for match, table in enumerate(tables):
        for _ in range(4):
            games.append({b: strength[b] / ELO_SCALE + rng.gumbel() for b in table})
            groups.append(match)
    return games, groups


@pytest.mark.parametrize("model", BOTH)
def test_a_new_version_is_pulled_towards_its_predecessor_while_its_games_are_few(
    model: str,
) -> None:
    games, groups = _field(1, new_matches=1)
    alone = fit(games, groups, model=model)
    told = fit(games, groups, model=model, successors={"new": "old"})
    old, new = told["old"], told["new"]
    assert alone["new"].elo < new.elo < old.elo  # between its own games and "old"
    assert new.elo - alone["new"].elo > 10
    assert new.ci_high - new.ci_low > old.ci_high - old.ci_low  # widened, not copied
    assert all(math.isfinite(x) for x in (new.ci_low, new.ci_high))
    # the others keep their distances (all of them shift a little: the mean stays 1500)
    for bot in "abcd":
        gap, was = told[bot].elo - told["old"].elo, alone[bot].elo - alone["old"].elo
        assert gap == pytest.approx(was, abs=5)


def test_with_many_games_a_new_version_is_its_own() -> None:
    games, groups = _field(2, new_matches=100)
    alone = fit(games, groups)["new"]
    told = fit(games, groups, successors={"new": "old"})["new"]
    assert told.elo == pytest.approx(alone.elo, abs=8)
    assert told.ci_high - told.ci_low == pytest.approx(alone.ci_high - alone.ci_low, rel=0.1)


def test_successions_of_versions_not_fitted_are_left_out() -> None:
    bots = ["a", "b", "c"]
    pairs = links(bots, {"c": "a", "b": "b", "z": "a", "a": "gone"})
    assert pairs.tolist() == [[2, 0]]  # c after a; a self-succession and absentees dropped
    assert links(bots, None).shape == (0, 2)
    games, groups = _field(3, new_matches=2)
    assert fit(games, groups, successors={"ghost": "old"}) == fit(games, groups)


def test_a_version_without_games_starts_at_its_predecessors_elo_widened() -> None:
    start = starting_rating(Rating(1620.0, 1580.0, 1660.0, 200))
    assert start.elo == 1620.0 and start.games == 0
    half = math.hypot(40.0, Z95 * SUCCESSOR_SD)
    assert (start.ci_low, start.ci_high) == pytest.approx((1620.0 - half, 1620.0 + half))
