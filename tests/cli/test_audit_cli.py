"""``arena audit``: a table per bot and per pair with FLAG, the decision lines and their
evidence first, the judging of queued matches, the too-little-data message, and one-line
errors (a platform stored by the real referee and store in tmp_path)."""

from __future__ import annotations

from pathlib import Path

from arena.store import BlobStore, Database, upgrade
from tests.analysis_runs.site import played_match
from tests.audits.site import store_made_up
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
    flat = " ".join(out.split())
    assert "Pair advantage (two bots of one account, or two of no account: house bots" in flat
    assert "then (x/y apart): the matches each of the two played without the other" in flat
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


def played_home(home: Path) -> tuple[Database, int]:
    """A platform with one finished match of two non-house bots (its hindsight queued)."""
    url = f"sqlite:///{home / 'arena.db'}"
    upgrade(url)
    db = Database(url)
    return db, played_match(db, BlobStore(home / "blobs")).match_id


def test_the_decision_lines_come_first_with_their_evidence(arena, home) -> None:
    db, match_id = played_home(home)
    try:
        waiting = ok(arena("audit", "--no-judge"))
        assert "Decisions judged in 0 finished matches, 1 waiting" in waiting
        store_made_up(db, match_id)
    finally:
        db.dispose()
    out = ok(arena("audit", "--no-judge"))
    flat = " ".join(out.split())
    assert "Decisions judged in 1 finished matches, 0 waiting" in flat
    assert "later games first games difference p matches" in flat
    assert "partner's hand others' hands difference p matches" in flat
    first = next(line for line in out.splitlines() if line.startswith("alice-bot@1 "))
    assert first.split()[1:3] == ["2/2", "0/1"]  # the decision table's row comes first
    assert f"alice-bot@1: M{match_id} 2.1.12 #112, M{match_id} 2.1.13 #113" in out
    assert "x/n = followed the truth x times out of n" in flat
    assert flat.index("Follows the truth") < flat.index("Rotation advantage")
    # two house bots: no account, so both the operator's, and said so
    assert "Pair advantage (two bots of one account, or two of no account: house bots" in flat
    assert "house-random + house-heuristic – 1 (0/0 apart) too few" in flat
    assert "Rotation advantage: later rotations minus the first bot advantage" in flat
    assert "Points tables: advantage in points per deal" in flat


def test_the_audit_judges_the_queued_matches_here(arena, home) -> None:
    db, _ = played_home(home)
    db.dispose()
    out = ok(arena("audit", "1"))
    assert "Decisions judged in 1 finished matches, 0 waiting" in " ".join(out.split())
