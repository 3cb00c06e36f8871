"""benchmarks/ladder.py's simulation runs the real matchmaker on the engine pool: its
structure is checked here, small and wide (its figures are printed, never asserted)."""

from __future__ import annotations

from arena.ladders.matchmaking import Knobs, next_tables, settled
from benchmarks.ladder import CAP, from_scratch, placement, synthetic_state

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
