"""The ``arena`` command as a user meets it: exit status, one-line errors without tracebacks,
and the tables it prints. Commands run in-process (click's CliRunner) against a SQLite file
and data dir in tmp_path, with process bots in the bwrap sandbox; ``arena db upgrade`` also
on a fresh Postgres schema."""

from __future__ import annotations

import json
import re
import shutil
import sys
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from sqlalchemy import inspect, text
from sqlalchemy.engine import URL

from arena.cli import main
from arena.store import Database, engine_for
from arena.store.migrate import is_up_to_date
from arena.tournaments.standings import separated
from arena.tournaments.standings import standings as fitted_standings
from tests.services.conftest import (
    BAD_BOTS,
    MANIFEST,
    SAMPLE_BOTS,
    good_entries,
    make_zip,
    write_zip_bomb,
)
from tests.support import pg_schema

HOUSE_FILLERS = ("house-heuristic", "house-random", "house-heuristic-2")


def ok(result: Result) -> str:
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    return result.stdout


def one_line_error(result: Result, *fragments: str, code: int = 1) -> str:
    """A clean non-zero exit whose only stderr line is click's ``Error: ...``."""
    assert result.exit_code == code, result.output
    assert isinstance(result.exception, SystemExit), result.exception  # not a crash
    assert "Traceback" not in result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


def table_rows(output: str, names: tuple[str, ...]) -> dict[str, str]:
    """The line of each name in a printed table (names must each appear on one line)."""
    rows = {}
    for name in names:
        pattern = re.compile(rf"\s{re.escape(name)}\s")
        [rows[name]] = [line for line in output.splitlines() if pattern.search(line)]
    return rows


def bot_count(home: Path) -> int:
    db = Database(f"sqlite:///{home / 'arena.db'}")
    try:
        with db.session(read_only=True) as s:
            return s.scalar(text("SELECT count(*) FROM bot_versions"))
    finally:
        db.dispose()


# --------------------------------------------------------------------------- arena bot


def test_bot_add_validates_and_bot_list_shows_every_version(arena, sandbox, tmp_path):
    out = ok(arena("bot", "add", SAMPLE_BOTS / "random"))
    assert "random@1.0.0 (id 1) is valid" in out
    assert "random@1.0.0 (id 1) is valid" in ok(arena("bot", "add", SAMPLE_BOTS / "random"))

    error = one_line_error(arena("bot", "add", BAD_BOTS / "crash_at_start"))
    assert error.startswith("Error: services-crash-at-start@1.0 rejected: validation match: ")
    assert "start_failed" in error and "exit status 3" in error

    newer = shutil.copytree(SAMPLE_BOTS / "random", tmp_path / "random-1.0.1")
    toml = newer / "bot.toml"
    toml.write_text(toml.read_text().replace('"1.0.0"', '"1.0.1"'))
    ok(arena("bot", "add", "--no-validate", newer))  # bot 1's version 6

    listing = ok(arena("bot", "list"))
    table = [cells for line in listing.splitlines() if len(cells := re.split("[│┃]", line)) > 2]
    header, *rows = [[cell.strip() for cell in cells[1:-1]] for cells in table]
    assert header == [
        "bot id", "bot", "version", "version id", "owner", "status", "language", "reason"
    ]  # fmt: skip
    # the bot's id (its page's and the API's) beside each version's; the house bots of the
    # first validation match (stored versions, as every match's seats are) come next
    assert [row[:7] for row in rows] == [
        ["2", "house-heuristic", "builtin", "2", "house", "valid", ""],
        ["4", "house-heuristic-2", "builtin", "4", "house", "valid", ""],
        ["3", "house-random", "builtin", "3", "house", "valid", ""],
        ["1", "random", "1.0.0", "1", "operator", "valid", "python"],
        ["1", "random", "1.0.1", "6", "operator", "valid", "python"],
        ["5", "services-crash-at-start", "1.0", "5", "operator", "rejected", "python"],
    ]
    assert rows[5][7].startswith("validation match: start_failed")
    assert "bot id: the bot's, as its page takes it (/bots/ID" in " ".join(listing.split())


def test_bot_add_no_validate_trusts_the_bot(arena):
    out = ok(arena("bot", "add", "--no-validate", BAD_BOTS / "crash_at_start"))
    assert "services-crash-at-start@1.0 (id 1) is valid" in out


def _folder(tmp: Path, manifest: str) -> Path:
    root = tmp / "bot"
    root.mkdir()
    (root / "bot.toml").write_text(manifest)
    return root


BAD_INPUTS = {
    "unknown path": (lambda tmp: tmp / "missing", "no such bot directory or archive"),
    "bad manifest": (
        lambda tmp: _folder(tmp, MANIFEST.format(name="x", version="1") + "colour = 1\n"),
        "unknown keys colour",
    ),
    "no command": (lambda tmp: _folder(tmp, 'name = "x"\n'), "command must be a list"),
    "escaping archive": (
        lambda tmp: make_zip(tmp / "b.zip", {**good_entries(), "../../evil.py": b"x"}),
        "entry '../../evil.py' escapes the bot's folder",
    ),
    "symlink archive": (
        lambda tmp: make_zip(tmp / "b.zip", good_entries(), {"passwd": "/etc/passwd"}),
        "entry 'passwd' is a symbolic link (not allowed)",
    ),
    "archive over the cap": (
        lambda tmp: write_zip_bomb(tmp / "bomb.zip"),
        "unpacks to more than the size limit (67108864 bytes)",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
def test_bot_add_refuses_bad_input_in_one_line(arena, home, tmp_path, case):
    build, message = BAD_INPUTS[case]
    source = tmp_path / "in"
    source.mkdir()
    one_line_error(arena("bot", "add", build(source)), message)
    assert bot_count(home) == 0


def test_bot_add_refuses_a_folder_over_the_size_cap(arena, home, tmp_path, monkeypatch):
    monkeypatch.setattr("arena.store.blobs.MAX_UNPACKED_BYTES", 4096)  # the cap for folders
    root = _folder(tmp_path, MANIFEST.format(name="big", version="1"))
    (root / "bot.py").write_bytes(b"#" * 5000)
    one_line_error(arena("bot", "add", root), "more than 4096 bytes or")
    assert bot_count(home) == 0


# --------------------------------------------------------------------------- tournaments


def test_tournament_create_needs_bots(arena):
    one_line_error(arena("tournament", "create"), "needs at least one entrant (--bots)")
    one_line_error(arena("tournament", "create", "--bots", " , "), "needs at least one entrant")


def test_tournament_create_refuses_an_unknown_bot(arena):
    one_line_error(
        arena("tournament", "create", "--bots", "house:heuristic,nope"),
        "no bot named 'nope'",
    )
    unknown_house = arena("tournament", "create", "--bots", "house:nope")
    one_line_error(unknown_house, "unknown house bot 'house:nope' (house bots: house:random")
    one_line_error(arena("standings", "7"), "no tournament with id 7")
    one_line_error(arena("tournament", "run", "7"), "no tournament with id 7")


def test_tournament_run_and_standings_print_every_bot(arena, home, sandbox):
    ok(arena("bot", "add", "--no-validate", SAMPLE_BOTS / "random"))
    created = ok(
        arena(
            "tournament", "create", "--bots", "random, house:heuristic", "--deals", "1",
            "--games-per-match", "2", "--seed", "3", "--decision-ms", "2000",
        )
    )  # fmt: skip
    assert created.strip() == "tournament 1: Tournament 1 (2 bots, pagat, seed 3)"
    assert "has no finished games yet" in ok(arena("standings", "1"))

    ran = ok(arena("tournament", "run", "1", "--workers", "1"))
    assert "tournament 1: 4 done" in ran
    standings = ok(arena("standings", "1"))
    db = Database(f"sqlite:///{home / 'arena.db'}")
    try:  # the ranks the data do not separate, by the pages' rule
        fitted = fitted_standings(db, 1)
    finally:
        db.dispose()
    aboves = [None, *fitted[:-1]]
    tied = {st.ref for st, above in zip(fitted, aboves, strict=True) if not separated(st, above)}
    assert tied  # 8 games each: two house heuristics are never told apart
    for out in (ran, standings):
        assert "Standings of tournament 1" in out
        rows = table_rows(out, ("random@1.0.0", *HOUSE_FILLERS))
        for ref, row in rows.items():
            # rank (≈: not separated from the one above), bot, Elo, its interval, games
            # (every bot plays each of 4 tables, 2 games)
            found = re.match(r"\s*[1-4](≈?)\s+\S+\s+-?\d+\s+\S+…\S+\s+8\s", row)
            assert found and (found[1] == "≈") == (ref in tied), row
        assert "≈ marks a rank whose Elo interval overlaps the one above" in " ".join(out.split())
    again = ok(arena("tournament", "run", "1"))  # finished: nothing left to play
    assert "tournament 1: 4 done" in again and "Standings of tournament 1" in again
    logs = ok(arena("replay", "logs", "1"))  # kept in the database, readable anywhere
    assert logs.startswith("== random@1.0.0 ==\n")
    one_line_error(arena("replay", "logs", "99"), "no match with id 99")


# --------------------------------------------------------------------------- arena db


def test_db_upgrade_on_a_fresh_sqlite_file(tmp_path, monkeypatch):
    path = tmp_path / "deep" / "new.db"
    monkeypatch.setenv("ARENA_DATABASE_URL", f"sqlite:///{path}")
    result = CliRunner().invoke(main, ["db", "upgrade"])
    assert f"database sqlite:///{path} is up to date" in ok(result)
    assert path.is_file() and is_up_to_date(f"sqlite:///{path}")
    assert ok(CliRunner().invoke(main, ["db", "upgrade"]))  # again: nothing to do


@pytest.mark.parametrize(
    ("url", "fragments"),
    [
        ("not a url", ["database URL 'not a url'"]),
        ("mysql://u@host/db", ["scheme 'mysql' is not supported"]),
        (
            "postgresql://postgres@127.0.0.1:5432/arena_no_such_db",
            ['"arena_no_such_db" does not exist', "createdb arena_no_such_db"],
        ),
        ("postgresql://postgres@127.0.0.1:1/x", ["Connection refused", "server is running"]),
    ],
)
@pytest.mark.parametrize("command", [["db", "upgrade"], ["tournament", "list"]])
def test_a_bad_database_url_is_one_line(monkeypatch, url, fragments, command):
    monkeypatch.setenv("ARENA_DATABASE_URL", url)
    one_line_error(CliRunner().invoke(main, command), *fragments)


def test_tournament_list_and_retry_failed(arena, home, sandbox):
    assert "no tournaments yet" in ok(arena("tournament", "list"))
    ok(arena("bot", "add", "--no-validate", SAMPLE_BOTS / "random"))
    for seed in ("1", "2"):
        ok(arena("tournament", "create", "--bots", "random,house:heuristic", "--deals", "1",
                 "--games-per-match", "1", "--seed", seed))  # fmt: skip
    db = Database(f"sqlite:///{home / 'arena.db'}")
    with db.session() as s:
        s.execute(text("UPDATE matches SET status = 'failed', reason = 'x' WHERE id = 1"))
    db.dispose()
    assert "3 done, 1 failed" in ok(arena("tournament", "run", "1", "--workers", "1"))
    rows = {line.split()[0]: line for line in ok(arena("tournament", "list")).splitlines()}
    assert re.match(
        r"2\s+Tournament 2 \(2 bots, pagat, seed 2\)\s+draft\s+0/4\s+20\d\d-", rows["2"]
    )
    assert re.match(r"1\s+.*\s+running\s+3/4, 1 failed\s", rows["1"]), rows
    put_back = ok(arena("tournament", "retry-failed", "1"))
    assert put_back.strip() == "tournament 1: 1 failed match put back to play"
    assert "tournament 1: 4 done" in ok(arena("tournament", "run", "1", "--workers", "1"))
    one_line_error(arena("tournament", "retry-failed", "9"), "no tournament with id 9")


def test_tournaments_are_numbered_among_tournaments_not_the_ladders_rows(arena):
    """A ladder's matches live in a tournament row (ids are shared): the first tournament
    created after it has id 2, and is named Tournament 1."""
    ok(arena("db", "upgrade"))  # opens the pagat ladder: row 1
    for seed, made in (("5", "tournament 2: Tournament 1"), ("6", "tournament 3: Tournament 2")):
        created = ok(arena("tournament", "create", "--bots", "house:master", "--seed", seed))
        assert created.strip() == f"{made} (1 bot, pagat, seed {seed})"
    named = ok(arena("tournament", "create", "--bots", "house:master", "--name", "cup"))
    assert named.strip() == "tournament 4: cup"  # a given name is kept
    listed = ok(arena("tournament", "list"))
    assert "Tournament 2 (1 bot, pagat, seed 6)" in listed and "Ladder" not in listed


@pytest.fixture
def fresh_pg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[URL]:
    """An empty schema of its own on the test Postgres, as ARENA_DATABASE_URL (with a
    password, which trust authentication ignores, to see that it is never printed)."""
    with pg_schema("arena_cli") as schema_url:
        url = schema_url.set(password="hunter2")
        monkeypatch.setenv("ARENA_DATABASE_URL", url.render_as_string(hide_password=False))
        monkeypatch.setenv("ARENA_DATA_DIR", str(tmp_path / "data"))
        yield url


def test_db_upgrade_on_postgres(fresh_pg):
    stale = CliRunner().invoke(main, ["bot", "list"])
    line = one_line_error(stale, "is not up to date: run `arena db upgrade`")
    assert "hunter2" not in stale.output and "***" in line

    upgraded = CliRunner().invoke(main, ["db", "upgrade"])
    assert "is up to date" in ok(upgraded) and "hunter2" not in upgraded.output
    assert is_up_to_date(fresh_pg)
    engine = engine_for(fresh_pg)
    try:
        tables = set(inspect(engine).get_table_names())
    finally:
        engine.dispose()
    assert {"bots", "bot_versions", "tournaments", "matches", "game_results"} <= tables
    assert "Bots" in ok(CliRunner().invoke(main, ["bot", "list"]))


# --------------------------------------------------------------------------- play and replay


def test_play_with_house_bots_prints_deals_and_standings(arena, tmp_path):
    replay = tmp_path / "match.json"
    bots = ("house:random", "heuristic", "house:random", "house:heuristic")
    options = ("--deals", "2", "--games", "2", "--seed", "9", "--replay", replay)
    out = ok(arena("play", *bots, *options))
    assert re.search(r"Match play-[0-9a-f]{8}: rules pagat, 2 games × 2 deals, seed 9", out)
    for game, deal in ((1, 1), (1, 2), (2, 1), (2, 2)):
        assert f"Game {game}, deal {deal}" in out
    standings = out.split("Match standings", 1)[1]
    names = ("house-random", "house-random-2", "house-heuristic", "house-heuristic-2")
    ranks = [int(row.split()[1]) for row in table_rows(standings, names).values()]  # "│ 1 │"
    assert sorted(ranks) == [1, 2, 3, 4]
    assert f"Replay written to {replay}" in out
    assert "Bot logs" not in out  # no process bot played
    record = json.loads(replay.read_text())
    tricks = [line.split()[2:] for line in out.splitlines() if line.startswith("  trick ")]
    winners = [t["winner"] for g in record["games"] for d in g["deals"] for t in d["tricks"]]
    assert len(tricks) == len(winners) == 4 * 13
    for cells, winner in zip(tricks, winners, strict=True):  # piped: no bold, the * says it
        assert [cell.endswith("*") for cell in cells] == [s == winner for s in range(4)], cells
    assert record["format"] == "callbreak-match"


def test_play_with_a_process_bot_keeps_its_log(arena, tmp_path, sandbox):
    logs = tmp_path / "logs"
    bots = (SAMPLE_BOTS / "random", "random", "heuristic", "random")
    out = ok(arena("play", *bots, "--deals", "1", "--games", "1", "--quiet", "--log-dir", logs))
    assert "Game 1" not in out and "Match standings" in out
    [row] = table_rows(out, ("random",)).values()
    cells = [cell.strip() for cell in row.split("│")[1:-1]]  # #, bot, points, calls, faults, ...
    assert cells[1] == "random" and cells[4:] == ["0", ""]  # played it all, no fault
    assert f"Bot logs: {logs}" in out.replace("\n", "")
    assert (logs / "1-random.log").is_file()


def test_play_refuses_an_unknown_bot_in_one_line(arena):
    one_line_error(
        arena("play", "house:random", "nope", "random", "random"),
        "nope: no such bot directory or archive, and not a house bot (random, heuristic, master)",
    )
    one_line_error(arena("play", "house:nope", "random", "random", "random"), "house:nope")


@pytest.fixture
def good_record(arena, tmp_path) -> Path:
    path = tmp_path / "good.json"
    bots = ("random", "heuristic", "random", "heuristic")
    options = ("--deals", "2", "--games", "2", "--seed", "4", "--quiet", "--replay", path)
    ok(arena("play", *bots, *options))
    return path


def test_replay_check_accepts_a_recorded_match(arena, good_record):
    assert f"{good_record}: consistent with the rules" in ok(arena("replay", "check", good_record))


def tampered(good: Path, name: str, change: Callable[[dict], None]) -> Path:
    record = json.loads(good.read_text())
    change(record)
    path = good.with_name(name)
    path.write_text(json.dumps(record))
    return path


def _move_a_trick(record: dict) -> None:
    won = record["games"][1]["deals"][0]["won"]
    won[0], won[1] = won[0] + 1, won[1] - 1


def _other_card(record: dict) -> None:
    trick = record["games"][0]["deals"][1]["tricks"][5]
    trick["cards"][2] = trick["cards"][1]  # a card already played in the trick


def _wrong_score(record: dict) -> None:
    record["games"][0]["scores"][3] += 1


@pytest.mark.parametrize(
    ("change", "where"),
    [
        (_move_a_trick, "game 2: deal 1: tricks won: record says"),
        (_other_card, "game 1: deal 2: trick 6, card 3: "),
        (_wrong_score, "game 1: final scores: record says"),
    ],
)
def test_replay_check_locates_a_tampered_record(arena, good_record, change, where):
    path = tampered(good_record, "bad.json", change)
    one_line_error(arena("replay", "check", path), f"{path}: {where}")


def test_replay_check_refuses_what_is_not_a_record(arena, tmp_path):
    path = tmp_path / "notes.json"
    path.write_text("not json {")
    one_line_error(arena("replay", "check", path), f"{path}: not a JSON record")
    path.write_text(json.dumps({"format": "something else"}))
    one_line_error(arena("replay", "check", path), "not a callbreak-game v1/v2 record")


# --------------------------------------------------------------------------- arena demo


def test_demo_runs_the_sample_bots_against_the_house_bots(tmp_path, monkeypatch, sandbox):
    for name in ("ARENA_DATABASE_URL", "ARENA_DATA_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ARENA_SANDBOX_MODE", "bwrap")
    monkeypatch.setenv("COLUMNS", "200")
    js = SAMPLE_BOTS / "js_lowcard"
    with_js = shutil.which("node") is not None and (js / "node_modules").is_dir()
    if not with_js:  # no npm install from a test: the demo gets the Python samples only
        samples = tmp_path / "samples"
        for name in ("random", "heuristic"):
            shutil.copytree(SAMPLE_BOTS / name, samples / name)
        # by module: the name arena.cli.demo is the click command on the package
        monkeypatch.setattr(sys.modules["arena.cli.demo"], "SAMPLES", samples)
    workdir = tmp_path / "cwd"
    workdir.mkdir()
    monkeypatch.chdir(workdir)

    out = ok(CliRunner().invoke(main, ["demo", "--deals", "1", "--workers", "2"]))
    assert (workdir / "arena.db").is_file() and (workdir / "arena-data").is_dir()
    entrants = ["random@1.0.0", "heuristic@1.0.0", "house-heuristic", "house-random"]
    for ref in entrants[:2] + (["js-lowcard@1.0.0"] if with_js else []):
        assert f"bot {ref}: valid" in out
    if with_js:
        entrants.append("js-lowcard@1.0.0")
    tables = 5 if with_js else 1  # every 4 of the 5 or 4 entrants
    tournament = len(entrants) - 2 + 1  # after a validation tournament for each sample
    assert f"tournament {tournament}: {tables} done" in out
    assert f"Standings of tournament {tournament}" in out
    assert f"arena dashboard and open http://127.0.0.1:8000/tournaments/{tournament}" in out
    rows = table_rows(out, tuple(entrants))
    ranks = [int(row.split()[0].rstrip("≈")) for row in rows.values()]  # ≈: not separated
    assert sorted(ranks) == list(range(1, len(entrants) + 1))
    blobs = [p for p in (workdir / "arena-data" / "blobs").rglob("*") if p.is_file()]
    # house bots are stored versions too, the third of the validation matches' among them
    assert len(blobs) == len(entrants) + 1
    assert sum(zipfile.is_zipfile(p) for p in blobs) == len(entrants) - 2  # the samples


# --------------------------------------------------------------------------- no silent downgrade


@pytest.fixture
def no_bwrap(monkeypatch):
    """A machine whose bubblewrap is missing, as the platform sees it."""
    from arena.sandbox import _reset_detection_cache

    monkeypatch.setenv("ARENA_BWRAP", "/nonexistent/bwrap")
    monkeypatch.delenv("ARENA_SANDBOX_MODE", raising=False)
    _reset_detection_cache()
    yield
    _reset_detection_cache()


def test_without_bwrap_play_and_bot_add_refuse_in_one_line(arena, no_bwrap, tmp_path):
    bots = (str(SAMPLE_BOTS / "random"), "random", "random", "random")
    for args in (("play", *bots, "--games", "1"), ("bot", "add", str(SAMPLE_BOTS / "random"))):
        one_line_error(
            arena(*args),
            "the bwrap sandbox is unusable (/nonexistent/bwrap not found)",
            "arena setup",
            "--unsafe-no-sandbox",
        )
    assert "random" not in ok(arena("bot", "list")).split("reason", 1)[1]  # nothing stored


def test_the_unsafe_flag_runs_and_marks_the_result(arena, no_bwrap, tmp_path):
    """The JavaScript sample: under rlimits a bot runs as a dedicated uid, which cannot run a
    Python installed in root's home (as this machine's is); /usr/bin/node it can."""
    replay = tmp_path / "match.json"
    bots = (str(SAMPLE_BOTS / "js_lowcard"), "random", "random", "random")
    options = ("--games", "1", "--deals", "1", "--quiet", "--replay", replay)
    out = ok(arena("play", *bots, *options, "--unsafe-no-sandbox"))
    assert "UNSANDBOXED" in out
    assert json.loads(replay.read_text())["sandbox"] == ["rlimits"] + ["in-process"] * 3


def test_without_bwrap_tournament_runs_and_workers_refuse(arena, no_bwrap):
    ok(arena("bot", "add", "--no-validate", SAMPLE_BOTS / "random"))
    ok(arena("tournament", "create", "--bots", "random", "--deals", "1"))
    run = arena("tournament", "run", "1", "--workers", "1")
    one_line_error(run, "the bwrap sandbox is unusable", "--unsafe-no-sandbox")
    one_line_error(arena("worker"), "is a SQLite file")  # a worker needs the shared database
    assert "running" not in ok(arena("tournament", "list"))  # nothing was claimed


def test_an_unsandboxed_tournament_is_marked_in_its_standings(arena, no_bwrap):
    ok(arena("bot", "add", "--no-validate", SAMPLE_BOTS / "random"))
    ok(arena("tournament", "create", "--bots", "random", "--deals", "1", "--games-per-match", "1"))
    out = ok(arena("tournament", "run", "1", "--workers", "1", "--unsafe-no-sandbox"))
    assert re.search(r"UNSANDBOXED: 4 match\(es\) ran bots without bwrap", out.replace("\n", " "))


@pytest.mark.parametrize(
    ("broker", "fragment"),
    [
        ("redis://127.0.0.1:1/0", "cannot reach the broker at redis://"),
        ("nosuchtransport://x", "ARENA_BROKER_URL is not a usable broker URL"),
    ],
)
def test_celery_backend_refuses_a_bad_broker_in_one_line(arena, monkeypatch, broker, fragment):
    ok(arena("bot", "add", "--no-validate", SAMPLE_BOTS / "random"))
    ok(arena("tournament", "create", "--bots", "random,house:heuristic", "--seed", "1"))
    monkeypatch.setattr("workers.app.app.conf.broker_url", broker)
    one_line_error(arena("tournament", "run", "1", "--backend", "celery"), fragment)
