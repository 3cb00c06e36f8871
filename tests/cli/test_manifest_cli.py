"""``arena bot add`` on hostile manifests and archives: one line naming the file, nothing
stored; an honest zip64 archive is accepted; ``arena bot prune`` frees rejected archives."""

from __future__ import annotations

import gc
import os
import tomllib

import pytest
from sqlalchemy import func, select

from arena.bots.package import MAX_MANIFEST_BYTES
from arena.store import BotArchive, BotVersion, Database, set_bot_status
from tests.cli.test_cli import MANIFEST, SAMPLE_BOTS, ok, one_line_error
from tests.submissions.test_archives import HOSTILE, zip64_end, zip_of

TOML = MANIFEST.format(name="hostile", version="1.0")
BAD_MANIFESTS = {
    "a 16-MiB description": (
        TOML.encode() + b'description = "' + b"x" * (16 << 20) + b'"\n',
        f"bot/bot.toml: longer than {MAX_MANIFEST_BYTES} bytes",
    ),
    "3000 nested arrays": (
        TOML.encode() + b"description = " + b"[" * 3000 + b"]" * 3000 + b"\n",
        "bot/bot.toml: not valid TOML (nested too deeply)",
    ),
    "bad UTF-8": (TOML.encode() + b'description = "caf\xe9"\n', "bot/bot.toml: not UTF-8 text"),
    "a number for a string": (TOML.encode() + b"runtime = 3\n", "runtime must be a string"),
}


def database() -> Database:
    return Database(os.environ["ARENA_DATABASE_URL"])


def stored(db: Database) -> tuple[int, int]:
    with db.session(read_only=True) as s:
        count = s.scalar(select(func.count()).select_from(BotVersion))
        return count, s.scalar(select(func.count()).select_from(BotArchive))


@pytest.mark.parametrize("case", sorted(BAD_MANIFESTS))
def test_bot_add_refuses_a_bad_manifest_in_one_line(arena, home, case):
    text, fragment = BAD_MANIFESTS[case]
    folder = home / "bot"
    folder.mkdir()
    (folder / "bot.toml").write_bytes(text)
    (folder / "bot.py").write_bytes((SAMPLE_BOTS / "random" / "bot.py").read_bytes())
    # In-process, earlier tests' garbage could be collected at the parser's depth, and its
    # finalizers' RecursionError printed ("Exception ignored in ...") on this stderr.
    gc.collect()
    error = one_line_error(arena("bot", "add", "--no-validate", folder), fragment)
    assert len(error) < 500
    assert stored(database()) == (0, 0)


@pytest.mark.parametrize(
    "case",
    [
        "zip64 record hiding entries behind a small end record",
        "zip64 and end records both lying about the count",
        "manifest nested 3000 deep",
    ],
)
def test_bot_add_refuses_a_hostile_archive_in_one_line(arena, home, case):
    make, fragment = HOSTILE[case]
    path = home / "evil.zip"
    path.write_bytes(make())
    one_line_error(arena("bot", "add", "--no-validate", path), f"{path}: ", fragment)
    assert stored(database()) == (0, 0)


def test_bot_add_takes_an_honest_zip64_archive(arena, home):
    path = home / "random64.zip"
    path.write_bytes(zip64_end(zip_of(SAMPLE_BOTS / "random")))
    assert "random@1.0.0 (id 1) is valid" in ok(arena("bot", "add", "--no-validate", path))


def test_bot_prune_frees_rejected_archives_and_keeps_their_versions(arena, home):
    ok(arena("bot", "add", "--no-validate", SAMPLE_BOTS / "random"))
    ok(arena("bot", "add", "--no-validate", SAMPLE_BOTS / "heuristic"))
    db = database()
    with db.session() as s:
        set_bot_status(s, 1, "rejected", "validation match: timeout")
        size = s.get(BotArchive, s.get(BotVersion, 1).sha256).size
    assert ok(arena("bot", "prune")).strip() == (
        f"freed 1 archive of rejected versions ({size} bytes)"
    )
    assert stored(db) == (2, 1)  # both versions; the valid one's archive
    listing = ok(arena("bot", "list"))
    [row] = [line for line in listing.splitlines() if " random " in line]
    assert " 1.0.0 " in row and "validation match: timeout" in row
    assert ok(arena("bot", "prune")).strip() == "freed 0 archives of rejected versions (0 bytes)"


def test_the_manifest_cases_are_what_they_claim():
    """The nested case is the one that crashed (tomllib's RecursionError, HTTP 500); the
    long one is over the cap; the sample bots' manifests are far under it."""
    with pytest.raises(RecursionError):
        tomllib.loads(BAD_MANIFESTS["3000 nested arrays"][0].decode())
    assert len(BAD_MANIFESTS["a 16-MiB description"][0]) > 16 << 20
    assert max(p.stat().st_size for p in SAMPLE_BOTS.glob("*/bot.toml")) < MAX_MANIFEST_BYTES
