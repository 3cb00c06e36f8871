"""What a newcomer reads: full command descriptions, a clear exit status when a bot never
started, errors before any progress bar, one numbering (from 1) and one naming of house bots
in every output. Process bots run for real in the sandbox."""

from __future__ import annotations

import json
import os
import pty
import shutil
import subprocess
import sys
from pathlib import Path

import click

from arena.cli import main
from tests.cli.test_cli import MANIFEST, SAMPLE_BOTS, ok, one_line_error
from tests.referee.conftest import HOSTILE_BOTS


def _commands(group: click.Group, prefix: tuple[str, ...] = ()):
    for name, command in group.commands.items():
        yield (*prefix, name), command
        if isinstance(command, click.Group):
            yield from _commands(command, (*prefix, name))


def test_help_lists_every_command_with_its_whole_description(arena):
    groups = [(), *(path for path, c in _commands(main) if isinstance(c, click.Group))]
    for path in groups:
        out = ok(arena(*path, "--help")).replace("[ARGS]...", "")
        assert "..." not in out, f"arena {' '.join(path)} --help truncates:\n{out}"
    listing = "".join(ok(arena("--help")).split())  # no spaces: wrapping may split words
    for name, command in main.commands.items():  # each one's whole first paragraph
        first = "".join((command.help or "").split("\n\n")[0].split())
        if command.hidden:  # internal (a process the dashboard starts): not offered
            assert name not in listing, name
            continue
        assert name + first in listing, name


def test_play_fails_when_a_seat_never_started(arena, sandbox, tmp_path):
    bots = (HOSTILE_BOTS / "crashes_at_start", "random", "heuristic", "random")
    result = arena("play", *bots, "--deals", "1", "--games", "1", "--log-dir", tmp_path)
    assert result.exit_code == 1, result.output
    assert "Match standings" in result.stdout  # the others' match was still played
    error = one_line_error(result, "hostile-crashes-at-start did not start")
    assert "forfeited" in error


def test_play_succeeds_when_every_seat_started(arena, sandbox, tmp_path):
    bots = (Path("sample_bots/random").resolve(), "random", "heuristic", "random")
    ok(arena("play", *bots, "--deals", "1", "--games", "1", "--quiet"))


def test_an_unknown_tournament_is_refused_before_any_progress_bar(home):
    """On a terminal (a pty, where rich draws its live bar) the one line is all there is."""
    leader, follower = pty.openpty()
    env = {**os.environ, "COLUMNS": "100", "TERM": "xterm"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena", "tournament", "run", "999"],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        env=env,
        cwd=home,
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 4096)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    assert proc.wait(timeout=60) == 1
    text = b"".join(chunks).decode()
    assert text.strip() == "Error: no tournament with id 999", repr(text)
    assert "tournament 999" not in text and "\x1b[?25l" not in text  # no bar, no hidden cursor


def test_one_numbering_in_play_and_replay_check(arena, tmp_path):
    record = tmp_path / "m.json"
    out = ok(
        arena(
            "play",
            "random",
            "heuristic",
            "random",
            "heuristic",
            "--games",
            "2",
            "--deals",
            "1",
            "--seed",
            "3",
            "--replay",
            record,
        )
    )
    assert "Game 1, deal 1" in out and "Game 2, deal 1" in out and "Game 0" not in out
    assert "trick 1 " in out and "trick 13" in out and "trick 0 " not in out

    data = json.loads(record.read_text())
    data["games"][0]["deals"][0]["tricks"][0]["winner"] += 1
    data["games"][0]["deals"][0]["tricks"][0]["winner"] %= 4
    record.write_text(json.dumps(data))
    one_line_error(arena("replay", "check", record), "game 1: deal 1: trick 1 winner")


def test_one_name_for_house_bots_in_play_and_standings(arena, sandbox):
    out = ok(
        arena(
            "play",
            "random",
            "random",
            "heuristic",
            "house-heuristic-2",
            "--games",
            "1",
            "--deals",
            "1",
        )
    )
    for name in ("house-random", "house-random-2", "house-heuristic", "house-heuristic-2"):
        assert f" {name} " in out
    assert "house:" not in out and "random#" not in out
    ok(arena("bot", "add", Path("sample_bots/random").resolve()))
    out = ok(
        arena("tournament", "create", "--bots", "random", "--deals", "1", "--games-per-match", "1")
    )
    assert "1 bot, pagat" in out  # not "1 bots"
    standings = ok(arena("tournament", "run", "1", "--workers", "1"))
    for name in ("house-heuristic", "house-random", "house-heuristic-2"):
        assert f"{name} " in standings
    assert "@builtin" not in standings and "house:" not in standings


def test_bot_add_after_a_rejection_takes_the_fixed_bot_under_the_same_version(
    arena, sandbox, tmp_path
):
    folder = tmp_path / "fixme"
    shutil.copytree(SAMPLE_BOTS / "random", folder, ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "bot.toml").write_text(MANIFEST.format(name="fixme", version="1.0"))
    good = (folder / "bot.py").read_text()
    (folder / "bot.py").write_text("raise SystemExit(2)\n")
    one_line_error(arena("bot", "add", folder), "fixme@1.0 rejected: validation match")
    (folder / "bot.py").write_text(good)
    assert "fixme@1.0 (id 1) is valid" in ok(arena("bot", "add", folder))
    listing = " ".join(ok(arena("bot", "list")).split())
    assert "replaces 1 rejected upload" in listing
    zipped = shutil.make_archive(str(tmp_path / "again"), "zip", tmp_path, "fixme")
    assert "fixme@1.0 (id 1) is valid" in ok(arena("bot", "add", zipped))  # same files
