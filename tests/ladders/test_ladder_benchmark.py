"""benchmarks/ladder.py's simulation runs the real matchmaker on the engine pool: its
structure is checked here, small and wide (its figures are printed, never asserted)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from arena.ladders.matchmaking import Knobs, next_tables, settled
from benchmarks.ladder import (
    CAP,
    CHECKPOINTS,
    KINDS,
    Trial,
    coverage,
    from_scratch,
    known_field,
    model_pool,
    placement,
    synthetic_state,
    within,
)

# Wide enough to rest within a few dozen matches of five bots.
WIDE = Knobs(placement_matches=4, settle_half_width=150.0)


def test_a_ladder_from_scratch_rests_on_a_ranking_of_the_pool() -> None:
    run = from_scratch(5, seed=0, knobs=WIDE, cap=400)
    assert sorted(run.ranking) == list(range(5))  # the pool's bots, by their true rank
    assert run.rests == 0 and "NOT settled" not in run.state
    assert 0 < run.settled_after < 400
    assert run.ladder_top is None or run.ladder_top <= run.settled_after
    assert -1.0 <= run.ladder_tau <= 1.0 and -1.0 <= run.rr_tau <= 1.0
    assert 0 < run.rr_top <= 400


def test_a_newcomer_is_placed_by_both_schedules() -> None:
    run = placement(5, newcomer=2, seed=0, knobs=WIDE, narrow_to=200.0)
    assert 0 < run.settled_after < CAP
    for entry in (run.ladder, run.round_robin):
        assert 0 < entry.its_matches <= entry.matches < CAP
    assert run.ladder.matches <= run.rests_again < CAP


def test_the_synthetic_ladder_is_one_the_matchmaker_serves() -> None:
    state = synthetic_state(40, seed=0, scale=1_000.0, in_flight=3, newcomer=True)
    assert len(state.standings) == 41 and len(state.in_flight) == 3
    assert min(state.matches.values()) >= Knobs().placement_matches
    tables = next_tables(state, 8, Knobs())
    assert len(tables) == 8 and all(len(set(t)) == 4 for t in tables)
    assert all("41" in t for t in tables)  # the newcomer's placement comes first
    assert not settled(state.standings, Knobs().settle_half_width)


def test_coverage_is_the_share_of_intervals_checked_then_that_held_the_truth() -> None:
    trials = [
        Trial("new bot", 8, 10.0, True, {4: True, 8: False}, {4: 30.0, 8: 20.0}),
        Trial("new bot", 8, 10.0, True, {4: True, 8: True}, {4: 30.0, 8: 20.0}),
        Trial("new bot", 8, 10.0, True, {4: False}, {4: 30.0}),  # 8 never reached
    ]
    assert coverage(trials, 4) == pytest.approx(2 / 3)
    assert coverage(trials, 8) == 0.5
    assert math.isnan(coverage(trials, 16))
    assert within(0.95, 0.93, 0.97) == "PASS" and within(0.98, 0.93, 0.97) == "FAIL"


def test_the_model_pool_plays_bradley_terry_at_the_given_elo() -> None:
    """Two bots 200 Elo apart: the stronger out-scores the weaker in about 76 % of games."""
    elo = np.array([1600.0, 1400.0])
    games, groups = model_pool(elo)(np.random.default_rng(0), [[0, 1]] * 5000, 7)
    assert groups[:4] == [7] * 4 and len(games) == 20_000
    won = np.mean([g[0] > g[1] for g in games])
    assert won == pytest.approx(1 / (1 + 10 ** (-200 / 400)), abs=0.01)


def test_newcomers_on_a_known_field_are_placed_and_checked() -> None:
    trials = known_field(0, 1, Knobs(), size=8)
    assert [t.kind for t in trials] == list(KINDS)
    for t in trials:
        assert 8 <= t.placed_after <= 12  # the cap, and the batch it ended in
        assert sorted(t.covered) == list(CHECKPOINTS) == sorted(t.errors)
        assert 0 <= t.error < 400 and all(0 <= e < 400 for e in t.errors.values())
