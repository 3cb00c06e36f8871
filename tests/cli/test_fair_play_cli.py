"""Fair play through the commands an operator runs, written as the attacks: real
hostile bot packages (tests/hostile_bots/) in the real bwrap sandbox.

- ``arena bot add``'s validation match and ``arena play`` without --seed: the seed-guessing
  bot, which recomputes deals with the platform's own code from every number it is given,
  predicts no hidden hand (its own report in its log); with ``--seed 7`` it predicts them all.
- A bot flooding 60 KiB replies, and one sending 4 MiB messages, through ``python3 -m arena
  play`` in a subprocess: the platform's peak RSS stays under 200 MB and the flood becomes
  faults (stale replies, then a forfeit; an oversized message), while the match completes.
- Terminal escapes, C1 controls and rich markup in a bot's last log line reach the
  operator only as plain, literal text.
- Two seats with the same bot keep one log each.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
import unicodedata
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from arena.cli import main
from arena.game import PAGAT
from arena.store import Database, validation_log
from tests.referee.conftest import HOSTILE_BOTS, POLICY, copy_bot_dir
from tests.support import need_sandbox

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
RSS_LIMIT = 200 * 1024 * 1024
MARKUP = "[bold red]pwned[/]"


@pytest.fixture(scope="module")
def sandbox() -> None:
    need_sandbox(POLICY)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sandbox) -> Path:
    """A fresh embedded platform (database file and data dir under tmp_path), bots in bwrap,
    and a console wide enough that no line of interest is wrapped."""
    monkeypatch.setenv("ARENA_DATABASE_URL", f"sqlite:///{tmp_path / 'arena.db'}")
    monkeypatch.setenv("ARENA_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("ARENA_SANDBOX_MODE", "bwrap")
    monkeypatch.setenv("COLUMNS", "1000")
    return tmp_path


def arena(*args: str | Path) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args])


def bot(name: str, tmp_path: Path) -> Path:
    """A world-readable copy of a hostile bot under a path unique to the test."""
    return copy_bot_dir(HOSTILE_BOTS / name, tmp_path / "bots")


def predictions(log: str) -> dict[int, tuple[int, int]]:
    """The seed-guessing bot's own report: game -> (hidden hands predicted, hands tried)."""
    found = re.findall(r"^PREDICTED (\d+)/(\d+) hidden hands in game (\d+)$", log, re.M)
    return {int(g): (int(n), int(m)) for n, m, g in found}


def match_ids(log: str) -> list[str]:
    return re.findall(r"^HELLO match_id=(\S+)", log, re.M)


def controls(text: str) -> list[str]:
    """Control, format and other C* characters in ``text``, but line breaks."""
    return sorted({repr(ch) for ch in text if ch != "\n" and unicodedata.category(ch)[0] == "C"})


def printed_seed(output: str) -> int:
    found = re.search(r"^Match \S+: rules \w+, .*, seed (\d+)$", output, re.M)
    assert found, output
    return int(found[1])


# --------------------------------------------------------------------------- the seed


def test_validation_match_of_bot_add_deals_from_an_unguessable_seed(home: Path) -> None:
    result = arena("bot", "add", bot("seed_guess", home))
    assert result.exit_code == 0, result.output
    assert "hostile-seed-guess@1.0.0 (id 1) is valid" in result.output
    db = Database(f"sqlite:///{home / 'arena.db'}")
    with db.session(read_only=True) as s:
        log = validation_log(s, 1)  # what the bot wrote, under a header
    db.dispose()
    assert log.startswith("== hostile-seed-guess ==\n"), log  # a match among house bots
    assert re.search(r"^CANDIDATES \d+ seeds", log, re.M), log  # it really tried
    hidden = 3 * PAGAT.deals_per_game  # the others' hands of every deal of a game
    games = range(4)  # the validation match's, each a fresh process
    assert predictions(log) == dict.fromkeys(games, (0, hidden)), log  # seed 1 or any: nothing
    assert len(set(match_ids(log))) == len(games)


def test_play_without_seed_deals_from_an_unguessable_seed(home: Path) -> None:
    logs = home / "logs"
    guesser = bot("seed_guess", home)
    options = ("--games", "4", "--deals", "2", "--quiet", "--log-dir", logs)
    result = arena("play", guesser, "random", "heuristic", "random", *options)
    assert result.exit_code == 0, result.output
    seed = printed_seed(result.output)
    log = (logs / "1-hostile-seed-guess.log").read_text(errors="replace")
    assert predictions(log) == {g: (0, 6) for g in range(4)}, log
    ids = match_ids(log)
    assert len(set(ids)) == 4 and not any(str(seed) in i or f"{seed:x}" in i for i in ids)


def test_control_play_with_a_known_seed_lets_the_bot_predict_every_hand(home: Path) -> None:
    logs = home / "logs"
    guesser = bot("seed_guess", home)
    options = ("--seed", "7", "--games", "1", "--deals", "2", "--quiet", "--log-dir", logs)
    result = arena("play", guesser, "random", "heuristic", "random", *options)
    assert result.exit_code == 0, result.output
    log = (logs / "1-hostile-seed-guess.log").read_text(errors="replace")
    assert predictions(log) == {0: (6, 6)}, log


def test_tournament_deals_from_secret_seeds_not_its_public_seed(home: Path) -> None:
    """A tournament with the public seed 3: the bot knows how tables used to derive their
    deals from it (and tries tournaments 0..32, tables 0..15), and predicts nothing."""
    assert arena("bot", "add", "--no-validate", bot("seed_guess", home)).exit_code == 0
    created = arena(
        "tournament", "create", "--bots", "hostile-seed-guess, house:heuristic", "--deals", "2",
        "--games-per-match", "2", "--seed", "3", "--tables", "2", "--decision-ms", "2000",
    )  # fmt: skip
    assert created.exit_code == 0, created.output
    assert "seed 3" in created.output  # public
    ran = arena("tournament", "run", "1", "--workers", "1")
    assert ran.exit_code == 0, ran.output
    for match_id in (1, 2):  # the bot's log of each table, as its owner reads it
        shown = arena("replay", "logs", str(match_id))
        assert shown.exit_code == 0, shown.output
        log = shown.output.split("== hostile-seed-guess@", 1)[1]
        assert re.search(r"^CANDIDATES \d+ seeds", log, re.M), log
        assert predictions(log) == {0: (0, 6), 1: (0, 6)}, log


# --------------------------------------------------------------------------- floods


def play_in_subprocess(bot_dir: Path, tmp_path: Path) -> tuple[subprocess.CompletedProcess, int]:
    """``python3 -m arena play BOT random random random`` (2 games of 2 deals), and the
    peak resident memory of that platform process (VmHWM, polled while it runs)."""
    env = {
        **os.environ,
        "ARENA_SANDBOX_MODE": "bwrap",
        "COLUMNS": "1000",
        "PYTHONPATH": str(ROOT),
    }
    command = [sys.executable, "-m", "arena", "play", bot_dir, "random", "random", "random"]
    command += ["--quiet", "--games", "2", "--deals", "2"]
    command += ["--log-dir", tmp_path / "logs", "--replay", tmp_path / "match.json"]
    proc = subprocess.Popen(
        [str(c) for c in command],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    peak = 0
    output: list[str] = []
    reader = threading.Thread(target=lambda: output.append(proc.stdout.read()), daemon=True)
    reader.start()
    deadline = time.monotonic() + 240
    while proc.poll() is None:
        try:
            status = Path(f"/proc/{proc.pid}/status").read_text()
        except OSError:
            break
        for key in ("VmHWM", "VmRSS"):
            found = re.search(rf"^{key}:\s+(\d+) kB", status, re.M)
            if found:
                peak = max(peak, int(found[1]) * 1024)
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"arena play did not finish in time; peak RSS {peak >> 20} MiB")
        time.sleep(0.02)
    proc.wait()
    reader.join(10)
    done = subprocess.CompletedProcess(proc.args, proc.returncode, "".join(output), "")
    return done, peak


def entrant_faults(tmp_path: Path) -> list[dict]:
    record = json.loads((tmp_path / "match.json").read_text())
    assert len(record["games"]) == 2 and record["forfeited"][1:] == [False] * 3
    assert all(f["entrant"] == 0 for f in record["faults"]), record["faults"]
    return record["faults"]


def test_a_flood_of_unasked_replies_is_struck_and_never_buffered(tmp_path: Path, sandbox) -> None:
    tmp_path.chmod(0o755)
    done, peak = play_in_subprocess(bot("flood_replies", tmp_path), tmp_path)
    assert done.returncode == 0, done.stdout
    assert peak < RSS_LIMIT, f"peak RSS {peak / 2**20:.0f} MiB"
    faults = entrant_faults(tmp_path)
    assert [f["kind"] for f in faults] == ["stale_id"] * 3 + ["forfeit"], faults
    assert faults[-1]["reason"] == "3 strikes (limit 3)"
    assert "fault hostile-flood-replies stale_id (game 1, deal 1)" in done.stdout, done.stdout
    assert "fault hostile-flood-replies forfeit" in done.stdout
    log = (tmp_path / "logs" / "1-hostile-flood-replies.log").read_text(errors="replace")
    assert re.search(r"^FLOODED \d+ messages", log, re.M), log  # the flood really went out


def test_a_4_mib_message_is_oversized_and_never_buffered(tmp_path: Path, sandbox) -> None:
    tmp_path.chmod(0o755)
    done, peak = play_in_subprocess(bot("huge_message", tmp_path), tmp_path)
    assert done.returncode == 0, done.stdout
    assert peak < RSS_LIMIT, f"peak RSS {peak / 2**20:.0f} MiB"
    faults = entrant_faults(tmp_path)
    assert [f["kind"] for f in faults] == ["oversized", "forfeit"], faults
    assert "65536 byte limit" in faults[0]["reason"]
    log = (tmp_path / "logs" / "1-hostile-huge-message.log").read_text(errors="replace")
    assert "SENDING 4 MiB messages" in log


# --------------------------------------------------------------------------- the terminal


def assert_shown_literally(output: str) -> None:
    assert "\x1b" not in output and "\x07" not in output
    assert controls(output) == [], controls(output)
    assert "fatal:" in output and "click me" in output  # the line with the escapes is shown
    assert MARKUP in output, output  # rich did not eat it as markup
    assert "[link=https://evil.example]here[/link]" in output


def test_escapes_and_markup_in_the_last_log_line_reach_bot_add_literally(home: Path) -> None:
    result = arena("bot", "add", bot("terminal_injection", home))
    assert result.exit_code == 1, result.output
    assert "rejected: validation match: start_failed" in result.output
    assert_shown_literally(result.output)
    listing = arena("bot", "list")
    assert listing.exit_code == 0, listing.output
    assert controls(listing.output) == [] and "\x1b" not in listing.output


def test_escapes_and_markup_in_the_last_log_line_reach_play_literally(home: Path) -> None:
    injector = bot("terminal_injection", home)
    options = ("--games", "1", "--deals", "1", "--quiet", "--log-dir", home / "logs")
    result = arena("play", injector, "random", "random", "random", *options)
    assert result.exit_code == 1, result.output  # it never started: play says so
    assert "start_failed" in result.output and "did not start" in result.output
    assert_shown_literally(result.output)


# --------------------------------------------------------------------------- logs


def test_two_seats_with_the_same_bot_keep_a_log_each(home: Path) -> None:
    logs = home / "logs"
    guesser = bot("seed_guess", home)
    options = ("--games", "2", "--deals", "1", "--quiet", "--log-dir", logs)
    result = arena("play", guesser, guesser, "random", "random", *options)
    assert result.exit_code == 0, result.output
    files = sorted(p.name for p in logs.iterdir())
    assert files == ["1-hostile-seed-guess.log", "2-hostile-seed-guess.log"], files
    seen = []
    for name in files:
        log = (logs / name).read_text(errors="replace")
        ids = match_ids(log)
        assert len(ids) == 2, log  # this seat's process of each game, and only those
        assert predictions(log) == {0: (0, 3), 1: (0, 3)}, log
        seen.append(set(ids))
    assert not seen[0] & seen[1]  # no output of one seat in the other's file
