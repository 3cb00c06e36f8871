"""``arena tournament create --extra-matches``, ``arena tournament extend`` and what
``arena standings`` says about its numbers (house bots in the sandboxed embedded run)."""

from __future__ import annotations

import re

from tests.cli.test_cli import ok, one_line_error, table_rows

# The CLI tests' fixtures: a fresh embedded platform in tmp_path, the in-process command.

BOTS = "house:heuristic,house:random,house:heuristic#2,house:random#2,house:heuristic#3"
NAMES = ("house-heuristic", "house-random", "house-heuristic-2", "house-random-2")


def create(arena, *extra: str) -> str:
    args = ("--bots", BOTS, "--deals", "1", "--games-per-match", "4", "--tables", "5")
    return ok(arena("tournament", "create", *args, "--seed", "2", *extra))


def test_extra_matches_then_extend_then_standings_that_say_what_they_are(arena, sandbox):
    create(arena, "--extra-matches", "2", "--top", "2")
    ran = ok(arena("tournament", "run", "1", "--workers", "1"))
    assert "tournament 1: 7 done" in ran  # 5 scheduled, then a round of 2 adaptive ones

    added = ok(arena("tournament", "extend", "1", "--matches", "3"))
    assert added.strip() == (
        "tournament 1: 3 matches added; play them with `arena tournament run 1`"
    )
    assert re.search(r"\b7/10\b", ok(arena("tournament", "list")))
    ran = ok(arena("tournament", "run", "1", "--workers", "1"))
    assert "tournament 1: 10 done" in ran

    out = " ".join(ok(arena("standings", "1")).split())  # rich wraps long lines
    header = "# bot Elo Elo 95% CI games pts/deal pts/deal 95% CI calls made faults"
    assert header in out
    assert "Elo by margin model (points against the table, Elo-calibrated)" in out
    assert "relative to this tournament: the mean of its bots is 1500" in out
    assert "calls made: share of its calls (one per deal) the bot made" in out
    assert "∞" not in out
    table_rows(ok(arena("standings", "1")), NAMES)  # every entrant has its row


def test_the_model_is_chosen_at_creation_and_shown(arena, sandbox):
    create(arena, "--rating-model", "bradley-terry")
    out = " ".join(ok(arena("tournament", "run", "1", "--workers", "1")).split())
    assert "Elo by Bradley-Terry (order of game totals)" in out


def test_extend_refuses_in_one_line(arena):
    one_line_error(arena("tournament", "extend", "9", "--matches", "2"), "no tournament with id 9")
    create(arena)
    one_line_error(
        arena("tournament", "extend", "1", "--matches", "2", "--top", "9"), "--top must be"
    )
    assert arena("tournament", "extend", "1", "--matches", "0").exit_code == 2  # usage
    refused = arena("tournament", "create", "--bots", BOTS, "--rating-model", "vibes")
    assert refused.exit_code == 2 and "'vibes' is not one of" in refused.stderr
