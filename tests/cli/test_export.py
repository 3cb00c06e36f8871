"""``arena export`` on a platform that played for real: the random sample bot (sandboxed,
so it leaves a log) in an organised tournament and on the pagat ladder, and a tournament of
house bots alone. Rows are the public records without seeds, filters take names, decision
rows hold the bot's own decisions, logs only when asked, bad input is one line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.store import Database, bot_logs
from tests.cli.conftest import Arena
from tests.cli.test_cli import SAMPLE_BOTS, ok, one_line_error

BOT = "random@1.0.0"


@pytest.fixture(scope="module")
def platform(tmp_path_factory: pytest.TempPathFactory, sandbox: None) -> Path:
    """Match 1: random's validation match (exported never); tournament 2: random and house
    bots (4 matches of 2 games of 1 deal); the pagat ladder: one placement match of
    random's; tournament 4: house bots only (1 match)."""
    folder = tmp_path_factory.mktemp("export")
    with pytest.MonkeyPatch.context() as env:
        _platform_env(env, folder)
        runner = CliRunner()
        for command in (
            ("bot", "add", SAMPLE_BOTS / "random"),
            ("tournament", "create", "--bots", "random,house:heuristic", "--deals", "1"),
            ("tournament", "run", "2", "--workers", "1"),
            ("ladder", "run", "--matches", "1", "--workers", "1"),
            ("tournament", "create", "--deals", "1", "--games-per-match", "1", "--bots"),
            ("tournament", "run", "4", "--workers", "1"),
        ):
            if command[-1] == "--bots":
                command += ("house:heuristic,house:random,house:heuristic#2,house:random#2",)
            ok(runner.invoke(main, [str(part) for part in command]))
    return folder


def _platform_env(env: pytest.MonkeyPatch, folder: Path) -> None:
    env.setenv("ARENA_DATABASE_URL", f"sqlite:///{folder / 'arena.db'}")
    env.setenv("ARENA_DATA_DIR", str(folder / "data"))
    env.setenv("ARENA_SANDBOX_MODE", "bwrap")


@pytest.fixture
def home(platform: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The played platform (the tests only read it)."""
    _platform_env(monkeypatch, platform)
    return platform


def exported(arena: Arena, *options: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in ok(arena("export", *options, "--out", "-")).splitlines()]


def without_seeds(record: dict[str, Any]) -> dict[str, Any]:
    """A match record with its seeds (match, games, deals) taken out, as export rows hold it."""
    record.pop("seed", None)
    for game in record["games"]:
        game.pop("seed", None)
        for deal in game["deals"]:
            deal.pop("seed", None)
    return record


def keys(value: Any) -> Iterator[str]:
    """Every key of every object inside ``value``."""
    if isinstance(value, dict):
        for key, inner in value.items():
            yield key
            yield from keys(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from keys(inner)


def test_every_finished_match_is_a_line_holding_its_public_record_without_seeds(
    arena: Arena, home: Path, tmp_path: Path
) -> None:
    out = tmp_path / "all.jsonl"
    result = arena("export", "--out", out)
    assert result.exit_code == 0, result.output
    assert result.stderr.strip() == f"6 matches written to {out}"
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [row["match"] for row in rows] == [2, 3, 4, 5, 6, 7]  # oldest first, validation not
    assert out.read_text().splitlines() == ok(arena("export", "--out", "-")).splitlines()
    assert [row["ladder"] for row in rows] == [None] * 4 + ["pagat", None]
    assert {row["tournament"] for row in rows if row["ladder"] is None} == {2, 4}
    for row in rows:
        assert row["format"] == "callbreak-export-match" and row["finished_at"]
        assert "seed" not in set(keys(row)) and "logs" not in row
        record = json.loads(ok(arena("replay", "export", str(row["match"]), "-o", "-")))
        assert row["games"] == without_seeds(record)["games"]
        assert row["faults"] == record["faults"] and row["totals"] == record["totals"]
        for entrant, total in enumerate(row["totals"]):  # per-game points by seat add up
            seats = [game["seats"].index(entrant) for game in row["games"]]
            assert sum(g["scores"][s] for g, s in zip(row["games"], seats, strict=True)) == total
    assert all(BOT in row["seats"] for row in rows[:5]) and BOT not in rows[5]["seats"]
    assert "house-random-2" in rows[5]["seats"]


def test_filters_take_names_and_combine(arena: Arena, home: Path) -> None:
    def matches(*options: str) -> list[int]:
        return [row["match"] for row in exported(arena, *options)]

    assert matches("--bot", "random") == matches("--bot", BOT) == [2, 3, 4, 5, 6]
    everything = [2, 3, 4, 5, 6, 7]
    assert matches("--bot", "house:random") == matches("--bot", "house-random") == everything
    assert matches("--bot", "house-random-2") == [7]
    assert matches("--ladder", "pagat") == matches("--ladder", "pagat", "--bot", "random") == [6]
    assert matches("--tournament", "2") == [2, 3, 4, 5]
    assert matches("--tournament", "1") == []  # random's validation: its owner's, not exported
    assert matches("--tournament", "4", "--bot", "random") == []
    assert matches("--tournament", "4", "--ladder", "pagat") == []
    assert matches("--since", "2999-01-01") == []
    assert matches("--since", "2000-01-01T00:00+05:45") == everything
    finished = {row["match"]: row["finished_at"] for row in exported(arena)}
    latest = max(finished.values())  # to the second: a match of that second is not before it
    after = [m for m, at in finished.items() if at >= latest]
    assert matches("--since", latest) == after and after


def test_decision_rows_are_the_named_bots_own_with_the_action_among_the_legal_moves(
    arena: Arena, home: Path, tmp_path: Path
) -> None:
    out = tmp_path / "decisions.jsonl"
    result = arena("export", "--bot", BOT, "--ladder", "pagat", "--decisions", "--out", out)
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    [match] = exported(arena, "--ladder", "pagat")
    entrant = match["seats"].index(BOT)
    asked = {}  # (game, decision id) -> (deal, seat): the record's entries of the bot's seat
    for g, game in enumerate(match["games"]):
        seat = game["seats"].index(entrant)
        for deal in game["deals"]:
            for entry in deal["decisions"]:
                if entry["seat"] == seat and not entry.get("auto"):
                    asked[g, entry["id"]] = (deal, seat)
    assert result.stderr.strip() == f"{len(rows)} decisions of 1 match written to {out}"
    assert [(row["game"], row["decision"]) for row in rows] == list(asked)
    games, deals = len(match["games"]), len(match["games"][0]["deals"])
    assert len(rows) == games * deals * 14  # a call and 13 cards a deal
    for row in rows:
        deal, seat = asked[row["game"], row["decision"]]
        assert row["match"] == match["match"] and row["bot"] == BOT and row["seat"] == seat
        assert row["deal"] == deal["index"] and row["points"] == deal["points"][seat]
        assert row["action"] in row["legal"]
        if row["kind"] == "call":
            assert row["action"] == deal["calls"][seat]
            assert all(type(call) is int for call in row["legal"])
        else:
            assert row["kind"] == "card" and row["action"] in row["observation"]["hand"]
            assert set(row["legal"]) <= set(row["observation"]["hand"])
    calls = [row for row in rows if row["kind"] == "call"]
    assert [len(row["observation"]["hand"]) for row in calls] == [13] * games * deals


def test_logs_are_added_only_when_asked(arena: Arena, home: Path) -> None:
    db = Database(f"sqlite:///{home / 'arena.db'}")
    try:
        with db.session(read_only=True) as s:
            stored = {match: bot_logs(s, match) for match in range(2, 8)}
    finally:
        db.dispose()
    rows = exported(arena, "--logs")
    assert [row["match"] for row in rows if "logs" in row] == [2, 3, 4, 5, 6]
    for row in rows[:5]:
        [text] = stored[row["match"]].values()  # the only process bot of the match
        assert row["logs"] == {BOT: text} and text
    assert all("logs" not in row for row in exported(arena, "--bot", "random"))


@pytest.mark.parametrize(
    "options, message",
    [
        (("--bot", "nope"), "no bot named 'nope'"),
        (("--bot", "random@9"), "bot 'random' has no version '9'"),
        (("--bot", "house:nope"), "unknown house bot 'house:nope'"),
        (("--ladder", "nope"), "no ladder named 'nope' (ladders: pagat)"),
        (("--tournament", "99"), "no tournament with id 99"),
    ],
)
def test_an_unknown_name_is_one_line(arena: Arena, home: Path, options, message) -> None:
    one_line_error(arena("export", *options, "--out", "-"), message)


@pytest.mark.parametrize(
    "options, message",
    [
        (("--since", "yesterday"), "Invalid value for '--since': a date (YYYY-MM-DD)"),
        (("--since", "2025-02-30"), "Invalid value for '--since'"),
        (("--decisions",), "--decisions exports one bot's decisions: name it with --bot"),
        ((), "Missing option '--out'"),
    ],
)
def test_bad_options_are_a_usage_error(arena: Arena, home: Path, options, message) -> None:
    out = ("--out", "-") if options else ()
    result = arena("export", *options, *out)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.stdout == "" and message in result.stderr
