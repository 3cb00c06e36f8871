"""``arena audit``: a table per bot and per pair with FLAG, the too-little-data message,
and one-line errors (a platform stored by the real referee and store in tmp_path)."""

from __future__ import annotations

from pathlib import Path

from arena.store import BlobStore, Database, upgrade
from tests.cli.test_cli import ok, one_line_error
from tests.tournaments.audit_site import copy_played, fill


def stored(home: Path, matches: int) -> None:
    url = f"sqlite:///{home / 'arena.db'}"
    upgrade(url)
    db = Database(url)
    try:
        fill(db, BlobStore(home / "blobs"), matches)
    finally:
        db.dispose()


def rows(output: str, names: tuple[str, ...]) -> dict[str, str]:
    """The table line of each bot or pair (the name is its first column)."""
    found = {}
    for name in names:
        [found[name]] = [line for line in output.splitlines() if line.startswith(f"{name} ")]
    return found


def test_the_audit_flags_the_cheat_and_the_pair(arena, home, audit_played) -> None:
    copy_played(audit_played[0], home)  # all 30 matches stored
    out = ok(arena("audit", "1"))
    assert "Fair-play audit of tournament 1: 8 tests; FLAG at p <= 0.0013 (1% / 8)" in out
    header = "advantage 95% CI SE p matches"
    assert header in " ".join(out.split())
    line = rows(out, ("cheat", "honest", "pal-a + pal-b", "plain + dice"))
    assert line["cheat"].rstrip().endswith("FLAG") and "20" in line["cheat"].split()
    assert "FLAG" not in line["honest"] and "FLAG" not in line["plain + dice"]
    assert line["pal-a + pal-b"].rstrip().endswith("FLAG")
    assert "12 (8/8 apart)" in line["pal-a + pal-b"]
    assert "2 flagged. A flag is evidence to look into" in " ".join(out.split())

    every = ok(arena("audit", "--all-pairs"))  # every tournament, every pair
    assert "Fair-play audit of every tournament: 21 tests" in every
    assert "every pair that shared a table" in every
    rows(every, ("cheat + honest", "honest + dice"))


def test_too_little_data_says_what_a_test_needs(arena, home) -> None:
    stored(home, 4)
    out = ok(arena("audit"))
    assert out.startswith("too little data to audit every tournament: a rotation test needs 8")
    assert "FLAG" not in out


def test_an_unknown_tournament_is_a_one_line_error(arena, home) -> None:
    one_line_error(arena("audit", "9"), "no tournament with id 9")
