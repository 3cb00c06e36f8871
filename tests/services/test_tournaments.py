"""Creating tournaments: entrant references, house fillers, refusals (nothing written), and
the stored schedule being exactly the scheduler's."""

from __future__ import annotations

import re
from dataclasses import asdict

import pytest
from sqlalchemy import select

from arena.game import PAGAT
from arena.referee import Clock
from arena.registry import house_version
from arena.runtime import Runtime
from arena.store import (
    Bot,
    BotVersion,
    Database,
    Match,
    StoreError,
    Tournament,
    TournamentEntry,
    set_bot_status,
)
from arena.tournaments.create import new_tournament
from arena.tournaments.schedule import DEFAULT_HOUSE_BOTS, schedule
from arena.tournaments.spec import TournamentSpec
from tests.services.conftest import counts, fake_bot

RULES = PAGAT.with_(deals_per_game=2)
SEED = 11
ALL_TABLES = (Bot, BotVersion, Tournament, TournamentEntry, Match)


@pytest.fixture
def bots(db: Database, store_runtime: Runtime) -> dict[str, BotVersion]:
    """alpha (1.0 and 2.0), beta, gamma, delta: valid; sleepy: pending; broken: rejected."""
    made = {
        "alpha@1.0": fake_bot(db, store_runtime, "alpha", "1.0"),
        "alpha@2.0": fake_bot(db, store_runtime, "alpha", "2.0"),
        "sleepy": fake_bot(db, store_runtime, "sleepy", status="pending"),
    }
    for name in ("beta", "gamma", "delta"):
        made[name] = fake_bot(db, store_runtime, name)
    broken = fake_bot(db, store_runtime, "broken", status="pending")
    with db.session() as s:
        reason = "validation match: start_failed: boom"
        made["broken"] = set_bot_status(s, broken.id, "rejected", reason)
    return made


def create(db: Database, runtime: Runtime, refs, **options) -> Tournament:
    options = {"rules": RULES, "games_per_match": 2, "seed": SEED, **options}
    return new_tournament(db, runtime, TournamentSpec(refs, **options))


def entries_of(db: Database, tournament_id: int) -> list[int]:
    query = (
        select(TournamentEntry.bot_version_id)
        .where(TournamentEntry.tournament_id == tournament_id)
        .order_by(TournamentEntry.entrant_index)
    )
    with db.session(read_only=True) as s:
        return list(s.scalars(query))


def matches_of(db: Database, tournament_id: int) -> list[Match]:
    query = select(Match).where(Match.tournament_id == tournament_id).order_by(Match.table_index)
    with db.session(read_only=True) as s:
        return list(s.scalars(query))


def tables_of(db: Database, tournament_id: int) -> list[tuple[int, tuple[int, ...]]]:
    matches = matches_of(db, tournament_id)
    assert all((m.status, m.attempts, m.worker) == ("pending", 0, None) for m in matches)
    return [(m.table_index, tuple(m.seats)) for m in matches]


def expected_tables(db, runtime, entrant_ids, house_bots=DEFAULT_HOUSE_BOTS, **options):
    """The scheduler's plan with its names (ids, or house filler names) as version ids."""
    plan = schedule([str(i) for i in entrant_ids], SEED, house_bots=house_bots, **options)
    ids = {str(i): i for i in entrant_ids}
    for name in house_bots:
        ids[name] = house_version(db, runtime, name).id  # existing ones: idempotent
    return [(t.index, tuple(ids[n] for n in t.seats)) for t in plan]


# --------------------------------------------------------------------------- entrants


def test_entrants_by_name_version_id_and_house_bot(db, store_runtime, bots):
    gamma = bots["gamma"]
    refs = ["alpha", "beta@1.0", str(gamma.id), "house:heuristic", "delta"]
    t = create(db, store_runtime, refs)

    house = house_version(db, store_runtime, "house:heuristic")
    ids = [bots["alpha@2.0"].id, bots["beta"].id, gamma.id, house.id, bots["delta"].id]
    assert entries_of(db, t.id) == ids  # "alpha" is its newest valid version
    made = f"Tournament 1 (5 bots, {RULES.name}, seed {SEED})"  # the first of kind tournament
    assert (t.name, t.status, t.seed) == (made, "draft", SEED)
    assert (t.deals_per_game, t.games_per_match) == (2, 2)
    assert t.ruleset == RULES.to_dict()
    assert (t.clock, t.max_strikes) == (asdict(Clock()), 3)
    # 5 entrants: every 4 of them once, exactly as the scheduler planned it.
    assert tables_of(db, t.id) == expected_tables(db, store_runtime, ids)
    assert len(tables_of(db, t.id)) == 5


def test_deal_seeds_are_secret_not_derived_from_the_public_seed(db, store_runtime, bots):
    """The tournament seed is public (in its name, on the dashboard): two tournaments with
    the same seed and entrants get the same seating but unrelated deal seeds."""
    refs = ["alpha", "beta", "gamma", "delta", "house:heuristic"]
    first, second = (create(db, store_runtime, refs) for _ in range(2))
    assert tables_of(db, first.id) == tables_of(db, second.id)
    seeds = [m.seed for t in (first, second) for m in matches_of(db, t.id)]
    assert len(set(seeds)) == len(seeds) == 10
    assert all(0 <= seed < 2**63 for seed in seeds)
    assert SEED not in seeds


def test_the_options_are_stored(db, store_runtime, bots):
    clock = Clock(decision_ms=300, bank_ms=2000, startup_ms=9000)
    refs = ["alpha", "beta", "gamma", "delta"]
    t = create(db, store_runtime, refs, clock=clock, max_strikes=5, tables=3, name="cup")
    assert (t.name, t.clock, t.max_strikes) == ("cup", asdict(clock), 5)
    ids = entries_of(db, t.id)
    assert tables_of(db, t.id) == expected_tables(db, store_runtime, ids, tables=3)


@pytest.mark.parametrize(
    ("refs", "fills"),
    [
        (["alpha"], ["house:heuristic", "house:heuristic#2", "house:random"]),
        (["alpha", "beta"], ["house:heuristic", "house:random"]),
        (["alpha", "beta", "gamma"], ["house:heuristic"]),
        (["alpha", "house:heuristic"], ["house:heuristic#2", "house:random"]),
        (["alpha", "beta", "house:random"], ["house:heuristic"]),
        # a house bot entered by its stored name is not used again as a filler
        (["alpha", "beta", "house-heuristic"], ["house:random"]),
        (["alpha", "house-heuristic-2@builtin"], ["house:heuristic", "house:random"]),
    ],
)
def test_fewer_than_four_entrants_are_filled_with_distinct_house_bots(
    db, store_runtime, bots, refs, fills
):
    for name in DEFAULT_HOUSE_BOTS:  # so that house bots can also be named like any bot
        house_version(db, store_runtime, name)
    t = create(db, store_runtime, refs)

    entries = entries_of(db, t.id)
    entrants = entries[: len(refs)]
    assert entries[len(refs) :] == [house_version(db, store_runtime, f).id for f in fills]
    tables = tables_of(db, t.id)
    assert len(tables) == 4
    for _, seats in tables:
        assert len(set(seats)) == 4 and set(seats) == set(entries)
    for entrant in entrants:  # rotated: each entrant has each seat once
        assert sorted(seats.index(entrant) for _, seats in tables) == [0, 1, 2, 3]
    spare = [f for f in DEFAULT_HOUSE_BOTS if f in fills]
    assert tables == expected_tables(db, store_runtime, entrants, house_bots=spare)


# --------------------------------------------------------------------------- refusals


def refused(db: Database, runtime: Runtime, refs, message: str, **options) -> str:
    before = counts(db, ALL_TABLES)
    with pytest.raises(StoreError, match=re.escape(message)) as err:
        create(db, runtime, refs, **options)
    assert "\n" not in str(err.value)
    assert counts(db, ALL_TABLES) == before
    assert counts(db, (Tournament, TournamentEntry, Match)) == {
        "tournaments": 0,
        "tournament_entries": 0,
        "matches": 0,
    }
    return str(err.value)


@pytest.mark.parametrize(
    ("refs", "message"),
    [
        (["alpha", "nope"], "no bot named 'nope'"),
        (["alpha", "beta", "gamma", "delta", "nope"], "no bot named 'nope'"),
        (["alpha@9.9"], "bot 'alpha' has no version '9.9'"),
        (["alpha", "99999"], "no bot version with id 99999"),
        (["alpha", "sleepy@1.0"], "sleepy@1.0 is pending, not valid"),
        (["alpha", "sleepy"], "no valid version yet: its latest, sleepy@1.0, is pending"),
        (["broken@1.0", "alpha"], "broken@1.0 is rejected, not valid: validation match: start"),
        (["broken", "alpha"], "its latest, broken@1.0, is rejected (validation match: start"),
        (["alpha@1.0", "alpha@1.0"], "alpha@1.0 and alpha@1.0 are the same bot version"),
        (["alpha", "alpha@2.0", "beta"], "alpha@2.0 and alpha are the same bot version"),
        ([], "needs at least one entrant"),
    ],
)
def test_bad_entrants_are_refused_in_one_line_and_nothing_is_written(
    db, store_runtime, bots, refs, message
):
    refused(db, store_runtime, refs, message)


def test_an_id_and_a_name_for_one_version_are_the_same_bot(db, store_runtime, bots):
    ref = str(bots["beta"].id)
    refused(db, store_runtime, ["beta", "gamma", ref], f"{ref} and beta are the same bot version")


def test_a_house_bot_twice_is_refused(db, store_runtime, bots):
    house_version(db, store_runtime, "house:random")
    refused(
        db,
        store_runtime,
        ["house:random", "alpha", "house-random"],
        "house-random and house:random are the same bot version",
    )


def test_a_refused_setting_writes_no_tournament(db, store_runtime, bots):
    for name in DEFAULT_HOUSE_BOTS:  # the fillers exist already: nothing else may appear
        house_version(db, store_runtime, name)
    refused(db, store_runtime, ["alpha"], "name must be 1-128 characters", name="x" * 129)
    refused(db, store_runtime, ["alpha", "beta"], "games_per_match", games_per_match=0)
    refused(db, store_runtime, ["alpha", "beta", "gamma", "delta"], "seed", seed=2**63)
