"""``arena bot submit`` against a live dashboard (waitress) validating in its own background
thread with real sandboxed bots: the verdict is waited for and printed, a rejection exits 1
with the reason and the end of the bot's log, and every way to fail says what to do in one
line."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arena.cli.api_client import token_file
from arena.store import BotVersion
from tests.services.conftest import BAD_BOTS, sample_copy
from tests.submissions.conftest import stored_counts, submissions
from tests.submissions.live import live_dashboard, submit_cli
from tests.support import SAMPLE_BOTS, free_port


@pytest.fixture
def server(db, runtime, tmp_path: Path):
    """A live dashboard on the test's database (``runtime``: bwrap must work here)."""
    with live_dashboard(db, tmp_path) as url:
        yield url


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


def error_line(result) -> str:
    lines = [line for line in result.stderr.splitlines() if line.startswith("Error: ")]
    assert result.returncode == 1 and len(lines) == 1, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    return lines[0]


def test_a_sample_bot_is_submitted_and_judged_valid(db, server, home, alice):
    result = submit_cli(SAMPLE_BOTS / "random", server, home, token=alice.token)
    assert result.returncode == 0, (result.stdout, result.stderr)
    lines = result.stdout.splitlines()
    assert lines[0].startswith("random@1.0.0 uploaded (id ") and lines[0].endswith("): pending")
    version_id = int(lines[0].split("(id ")[1].split(")")[0])
    assert lines[-2] == f"random@1.0.0 (id {version_id}) is valid"
    # the dashboard opened the pagat ladder: the reply says the bot enters it
    assert lines[-1].startswith("it enters the pagat ladder: 8 placement matches, the first ")
    with db.session(read_only=True) as s:
        row = s.get(BotVersion, version_id)
        assert (row.status, row.bot.owner_id) == ("valid", alice.id)


def test_a_broken_bot_is_rejected_with_the_reason_and_its_log(db, server, home, alice):
    result = submit_cli(BAD_BOTS / "crash_at_start", server, home, token=alice.token)
    line = error_line(result)
    assert line.startswith(
        "Error: services-crash-at-start@1.0 rejected: validation match: start_failed"
    ), line
    assert "the end of its validation log:" in result.stderr
    assert "  crash-at-start: no model file here" in result.stderr


def test_the_token_file_is_used_and_no_wait_returns_at_once(server, home, alice):
    path = token_file({"XDG_CONFIG_HOME": str(home)})
    path.parent.mkdir(parents=True)
    path.write_text(alice.token + "\n")
    result = submit_cli(SAMPLE_BOTS / "random", server, home, "--no-wait")
    assert result.returncode == 0, result.stderr
    first, seat, verdict = result.stdout.splitlines()
    assert first.endswith("): pending")
    assert seat.startswith("once valid it takes the ladder seat")  # the policy: "now"
    assert verdict.startswith(f"its verdict: {server}/api/v1/versions/")


def test_a_bad_token_is_one_clear_line(server, home):
    line = error_line(submit_cli(SAMPLE_BOTS / "random", server, home, token="wrong"))
    assert line == (
        "Error: the server refused: this API token is not valid (unknown or revoked); "
        "check ARENA_TOKEN (or the token file)"
    )


def test_no_token_at_all_says_where_to_put_one(server, home):
    line = error_line(submit_cli(SAMPLE_BOTS / "random", server, home))
    assert line.startswith("Error: no API token: create one on your account page")
    assert str(home / "arena" / "token") in line


def test_someone_elses_bot_is_refused_in_one_line(server, home, alice, bob):
    first = submit_cli(SAMPLE_BOTS / "random", server, home, "--no-wait", token=alice.token)
    assert first.returncode == 0, first.stderr
    line = error_line(submit_cli(SAMPLE_BOTS / "random", server, home, token=bob.token))
    assert line == (
        "Error: the server refused: the bot name 'random' belongs to another user; "
        "pick another name in bot.toml"
    )


def test_a_server_that_is_down_is_one_clear_line(home, alice, tmp_path):
    url = f"http://127.0.0.1:{free_port()}"
    line = error_line(submit_cli(SAMPLE_BOTS / "random", url, home, token=alice.token))
    assert line.startswith(f"Error: cannot reach the server at {url} (")
    assert line.endswith("is it running?")


def test_a_bad_bot_folder_is_refused_before_uploading(home, alice, tmp_path):
    folder = tmp_path / "nobot"
    folder.mkdir()
    (folder / "bot.py").write_text("pass\n")
    url = f"http://127.0.0.1:{free_port()}"  # never reached
    line = error_line(submit_cli(folder, url, home, token=alice.token))
    assert line == f"Error: {folder}: no bot.toml (it must name the bot and its start command)"


@pytest.mark.parametrize("token", ["alice", "wrong"])
def test_an_upload_over_the_servers_limit_gets_the_servers_reason(
    db, runtime, home, alice, tmp_path, token
):
    """The server refuses by the length (then reads and drops the body): the command
    shows the server's own answer, and nothing is stored."""
    folder = sample_copy(tmp_path / "big", "big")
    (folder / "weights.bin").write_bytes(os.urandom(8 << 20))  # incompressible
    with live_dashboard(db, tmp_path, ARENA_MAX_UPLOAD="100000") as url:
        result = submit_cli(folder, url, home, token=alice.token if token == "alice" else token)
    line = error_line(result)
    if token == "alice":
        assert line == (
            "Error: the server refused: big.zip: larger than the upload limit (100000 bytes); "
            "leave build outputs and data out"
        )
    else:
        assert line.startswith("Error: the server refused: this API token is not valid")
        assert line.endswith("check ARENA_TOKEN (or the token file)")
    assert stored_counts(db)["bot_versions"] == 0 and submissions(db) == []
