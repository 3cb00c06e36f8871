"""``TournamentSpec``: its defaults, its one validation (one-line refusals), its JSON and
stored columns both ways (an old clock holding max_strikes too), and the builders the
command line and the organiser's form share."""

from __future__ import annotations

import json
from dataclasses import asdict, replace
from types import SimpleNamespace

import pytest
from click.testing import CliRunner
from flask import Flask

from arena.cli import tournaments as cli_tournaments
from arena.game import BHOOS, PAGAT
from arena.ratings import DEFAULT_MODEL
from arena.referee import DEFAULT_MAX_STRIKES, Clock
from arena.store import StoreError
from arena.tournaments.schedule import DEFAULT_MAX_TABLES
from arena.tournaments.spec import DEFAULTS, STORED, TournamentSpec
from dashboard.organiser import spec_from_form

FULL = TournamentSpec(
    bots=("alpha", "beta@1.0", "7", "house:heuristic"),
    rules=BHOOS.with_(deals_per_game=2),
    games_per_match=2,
    clock=Clock(decision_ms=300, bank_ms=2000, startup_ms=9000),
    max_strikes=5,
    rating_model="bradley-terry",
    seed=11,
    name="cup",
    tables=3,
    max_tables=40,
    adaptive_matches=6,
    adaptive_top=3,
    allow_same_owner=True,
    public_deals=True,
)


def test_the_defaults_are_written_once_here():
    assert TournamentSpec() == DEFAULTS
    assert (DEFAULTS.rules, DEFAULTS.games_per_match, DEFAULTS.clock) == (PAGAT, 4, Clock())
    assert (DEFAULTS.max_strikes, DEFAULTS.rating_model) == (DEFAULT_MAX_STRIKES, DEFAULT_MODEL)
    assert (DEFAULTS.seed, DEFAULTS.name, DEFAULTS.tables) == (None, "", None)
    assert (DEFAULTS.max_tables, DEFAULTS.adaptive_matches, DEFAULTS.adaptive_top) == (
        DEFAULT_MAX_TABLES,
        0,
        None,
    )
    assert not (DEFAULTS.allow_same_owner or DEFAULTS.public_deals)
    assert TournamentSpec(bots=["a", "b"]).bots == ("a", "b")  # any sequence, kept as a tuple


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"name": " "}, "a tournament name must be 1-128 characters"),
        ({"name": "x" * 129}, "a tournament name must be 1-128 characters"),
        ({"games_per_match": 0}, "games_per_match must be at least 1, not 0"),
        (
            {"clock": Clock(decision_ms=-1)},
            "the clock takes whole numbers (>= 0) for bank_ms, decision_ms, startup_ms, got "
            "{'decision_ms': -1, 'bank_ms': 10000, 'startup_ms': 15000}",
        ),
        ({"max_strikes": -1}, "max_strikes must be a whole number (>= 0), not -1"),
        (
            {"rating_model": "vibes"},
            "unknown rating model 'vibes': the rating model must be one of bradley-terry, margin",
        ),
        ({"seed": 2**63}, f"seed must be in 0..2**63-1, not {2**63}"),
        ({"seed": -1}, "seed must be in 0..2**63-1, not -1"),
        ({"adaptive_matches": -1}, "adaptive extra matches cannot be negative, not -1"),
        ({"adaptive_top": 1}, "the places to separate must be at least 2, not 1"),
    ],
)
def test_a_bad_setting_is_refused_in_one_clear_line(change, message):
    with pytest.raises(StoreError) as refused:
        TournamentSpec(**change)
    assert str(refused.value) == message and "\n" not in message
    with pytest.raises(StoreError, match="at least 1"):
        replace(FULL, games_per_match=0)  # a changed copy is checked too


def test_the_json_round_trip_keeps_every_setting():
    data = json.loads(json.dumps(FULL.to_json()))  # JSON values only
    assert TournamentSpec.from_json(data) == FULL
    assert data["ruleset"] == FULL.rules.to_dict() and data["clock"] == asdict(FULL.clock)
    assert data["bots"] == list(FULL.bots) and data["max_strikes"] == 5
    assert TournamentSpec.from_json({}) == DEFAULTS  # a missing setting is the default


def test_the_stored_columns_read_back_as_the_spec_without_the_creation_knobs():
    columns = FULL.columns()
    assert set(columns) == {*STORED, "deals_per_game"} and columns["deals_per_game"] == 2
    assert "max_strikes" not in columns["clock"]  # a column of its own
    stored = TournamentSpec.from_row(SimpleNamespace(**columns))
    creation = {"bots": (), "tables": None, "max_tables": DEFAULT_MAX_TABLES, "public_deals": False}
    assert stored == replace(FULL, **creation)
    with pytest.raises(ValueError, match="resolve the spec"):
        TournamentSpec().columns()  # no seed or name yet


def test_an_old_clock_holding_max_strikes_still_loads():
    """Before migration 0011 the strike limit was kept in the clock's JSON."""
    old = {
        "name": "old cup",
        "ruleset": PAGAT.to_dict(),
        "clock": {"decision_ms": 300, "bank_ms": 2000, "startup_ms": 9000, "max_strikes": 5},
        "deals_per_game": 5,
        "games_per_match": 4,
        "seed": 3,
    }
    spec = TournamentSpec.from_json(old)
    assert spec.clock == Clock(300, 2000, 9000) and spec.max_strikes == 5
    assert spec.columns()["clock"] == {"decision_ms": 300, "bank_ms": 2000, "startup_ms": 9000}
    assert TournamentSpec.from_json(old | {"max_strikes": 3}).max_strikes == 5  # the clock's
    without = TournamentSpec.from_json({**old, "clock": {"decision_ms": 300}})
    assert (without.clock, without.max_strikes) == (Clock(decision_ms=300), DEFAULT_MAX_STRIKES)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"ruleset": {"name": "x", "colour": 1}}, "bad ruleset (unknown ruleset keys: colour)"),
        ({"ruleset": {"deals_per_game": 0}}, "bad ruleset (deals_per_game must be 1-100, not 0)"),
        (
            {"ruleset": PAGAT.to_dict(), "deals_per_game": 3},
            "deals_per_game 3 differs from the ruleset's 5; set it in the ruleset",
        ),
        ({"clock": {"decision_ms": "1s"}}, "the clock takes whole numbers (>= 0)"),
        ({"clock": {"decision_ms": 1, "tick_ms": 2}}, "the clock takes whole numbers (>= 0)"),
        ({"games_per_match": "4"}, "games_per_match must be at least 1, not '4'"),
        ({"colour": "blue"}, "unknown tournament settings: colour"),
    ],
)
def test_bad_json_is_refused_in_one_line(data, message):
    with pytest.raises(StoreError) as refused:
        TournamentSpec.from_json(data)
    assert str(refused.value).startswith(message) and "\n" not in str(refused.value)


def test_resolving_draws_the_seed_and_names_the_tournament():
    spec = TournamentSpec(bots=("a", "b", "c")).resolved(4)
    assert spec.seed is not None and 0 <= spec.seed < 2**31
    assert spec.name == f"Tournament 4 (3 bots, pagat, seed {spec.seed})"
    assert FULL.resolved() == FULL  # what was given is kept


def test_the_options_builder_reads_the_names_the_cli_and_the_form_share():
    assert TournamentSpec.from_options() == DEFAULTS  # nothing given: the defaults
    built = TournamentSpec.from_options(
        ["alpha", "beta"],
        rules="bhoos",
        deals=2,
        decision_ms=300,
        bank_ms=0,
        extra_matches=6,
        top=3,
        games_per_match=2,
        seed=None,
        name="cup",
    )
    assert built == TournamentSpec(
        bots=("alpha", "beta"),
        rules=BHOOS.with_(deals_per_game=2),
        clock=Clock(decision_ms=300, bank_ms=0),
        adaptive_matches=6,
        adaptive_top=3,
        games_per_match=2,
        name="cup",
    )
    with pytest.raises(StoreError, match=r"^rules must be one of bhoos, pagat$"):
        TournamentSpec.from_options(rules="calypso")


def test_the_cli_and_the_organiser_form_build_the_same_spec(monkeypatch):
    built: list[TournamentSpec] = []

    def new_tournament(db, runtime, spec):
        built.append(spec)
        return SimpleNamespace(id=1, name="cup")

    monkeypatch.setattr(cli_tournaments, "runtime_and_db", lambda: (None, None))
    monkeypatch.setattr(cli_tournaments, "new_tournament", new_tournament)
    options = ["--bots", "alpha, beta", "--rules", "bhoos", "--deals", "2", "--top", "3"]
    options += ["--extra-matches", "6", "--rating-model", "bradley-terry", "--name", "cup"]
    answer = CliRunner().invoke(cli_tournaments.create, options)
    assert answer.exit_code == 0, answer.output
    form = {"bots": ["alpha", "beta"], "rules": "bhoos", "deals": "2", "top": "3"}
    form |= {"extra_matches": "6", "rating_model": "bradley-terry", "name": " cup "}
    with Flask(__name__).test_request_context("/", method="POST", data=form):
        built.append(spec_from_form())
    assert (
        built[0]
        == built[1]
        == replace(
            DEFAULTS,
            bots=("alpha", "beta"),
            rules=BHOOS.with_(deals_per_game=2),
            adaptive_matches=6,
            adaptive_top=3,
            rating_model="bradley-terry",
            name="cup",
        )
    )

    assert CliRunner().invoke(cli_tournaments.create, ["--bots", "alpha"]).exit_code == 0
    with Flask(__name__).test_request_context("/", method="POST", data={"bots": ["alpha"]}):
        built.append(spec_from_form())
    assert built[2] == built[3] == replace(DEFAULTS, bots=("alpha",))  # the same defaults
