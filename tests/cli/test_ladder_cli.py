"""``arena ladder``: shown, tuned, paused and opened from the command line (no bot plays)."""

from __future__ import annotations

from pathlib import Path

from tests.cli.conftest import Arena

SAMPLES = Path(__file__).resolve().parents[2] / "sample_bots"


def test_a_fresh_platform_has_the_pagat_ladder_and_says_how_to_enter(arena: Arena) -> None:
    result = arena("ladder", "show")
    assert result.exit_code == 0, result.output
    assert "Ladder pagat (pagat rules): playing" in result.output
    assert "no bots yet" in result.output


def test_a_new_bot_is_listed_as_placing(arena: Arena) -> None:
    assert arena("bot", "add", SAMPLES / "random", "--no-validate").exit_code == 0
    result = arena("ladder", "show")
    assert result.exit_code == 0, result.output
    assert "placing: random@" in result.output and "0 of 8 matches" in result.output


def test_pause_resume_and_settings(arena: Arena) -> None:
    assert "paused True" in arena("ladder", "pause").output
    assert "paused by an organiser" in arena("ladder", "show").output
    assert arena("ladder", "resume").exit_code == 0
    assert ": playing" in arena("ladder", "show").output
    changed = arena("ladder", "set", "--depth", "3", "--matches-per-hour", "0")
    assert changed.exit_code == 0 and "depth 3" in changed.output, changed.output
    bad = arena("ladder", "set", "--depth", "0")
    assert bad.exit_code == 1
    assert "depth is matches kept scheduled ahead of the workers (at least 1), not 0" in bad.output
    assert arena("ladder", "set").exit_code == 2  # nothing to change


def test_another_ladder_opens_once_and_unknown_ones_are_named(arena: Arena) -> None:
    opened = arena("ladder", "open", "--rules", "bhoos", "--decision-ms", "500")
    assert opened.exit_code == 0, opened.output
    assert "Ladder bhoos (bhoos rules)" in arena("ladder", "show", "--rules", "bhoos").output
    assert "other ladders: bhoos" in arena("ladder", "show").output
    again = arena("ladder", "open", "--rules", "bhoos")
    assert again.exit_code == 1 and "there is a ladder named bhoos already" in again.output
    missing = arena("ladder", "show", "--rules", "nope")
    assert missing.exit_code == 1
    assert "no ladder named 'nope' (ladders: pagat, bhoos)" in missing.output


def test_a_fresh_machines_first_tournament_is_tournament_1_and_a_ladder_is_not_run_as_one(
    arena: Arena,
) -> None:
    """The ladder opens on first use of a ladder command, so the guides' `arena tournament
    run 1` still names the user's first tournament; the ladder's own row is refused."""
    created = arena("tournament", "create", "--bots", "house:master", "--deals", "1")
    assert created.exit_code == 0 and "tournament 1" in created.output, created.output
    assert "arena audit 2" in arena("ladder", "show").output  # the ladder's row came second
    for command in (("tournament", "run", "2"), ("tournament", "extend", "2", "--matches", "1")):
        refused = arena(*command)
        assert refused.exit_code == 1
        assert "holds the matches of a standing ladder" in refused.output
        assert "arena ladder run" in refused.output
