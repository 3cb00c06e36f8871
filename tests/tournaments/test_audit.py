"""The audit on stored records: matches played by the real referee, recorded by the real
store (SQLite), read back through ``audit_report`` and its cached view."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.readmodels.audit import audit_for, bot_audit
from arena.store import BlobStore, Database, upgrade
from arena.tournaments.audit import audit_report
from arena.tournaments.cache import CACHE
from tests.tournaments.audit_site import copy_played, fill


def database(path: Path) -> Database:
    url = f"sqlite:///{path / 'arena.db'}"
    upgrade(url)
    return Database(url)


@pytest.fixture(scope="module")
def played(
    tmp_path_factory: pytest.TempPathFactory, audit_played: tuple[Path, int]
) -> tuple[Database, int]:
    """A copy of the played audit tournament, for this module's tests (they only read)."""
    folder, tournament = audit_played
    path = copy_played(folder, tmp_path_factory.mktemp("audit"))
    return Database(f"sqlite:///{path}"), tournament


def flags(lines) -> dict[str, bool]:
    return {" + ".join(line.refs): line.finding.flagged for line in lines}


def test_the_cheat_and_the_pair_are_flagged_the_honest_are_not(played) -> None:
    db, tournament = played
    with db.session(read_only=True) as s:
        report = audit_report(s, tournament)
    assert flags(report.rotation) == {
        "cheat": True,
        "honest": False,
        "pal-a": False,
        "pal-b": False,
        "plain": False,
        "dice": False,
    }
    assert flags(report.pairs) == {"pal-a + pal-b": True, "plain + dice": False}
    cheat = report.rotation[0]
    assert cheat.refs == ("cheat",) and cheat.finding.matches == 20
    assert cheat.finding.ci[0] > 2  # random first, heuristic later: points a deal
    assert report.tests == 8  # 6 bots, 2 same-owner pairs
    assert [line.refs for line in report.flagged] == [("cheat",), ("pal-a", "pal-b")]


def test_every_pair_on_request_and_the_platform_scope(played) -> None:
    db, tournament = played
    with db.session(read_only=True) as s:
        every = audit_report(s, tournament, all_pairs=True)
        platform = audit_report(s, None)
        one = audit_report(s, tournament)
    assert len(every.pairs) == 15 and every.tests == 21
    assert flags(every.pairs)["pal-a + pal-b"]
    assert platform.tournament_id is None  # one tournament on the platform: the same audit
    assert platform.rotation == one.rotation and platform.pairs == one.pairs


def test_a_bot_page_gets_its_own_lines_from_one_cached_audit(played) -> None:
    db, _ = played
    CACHE.clear()
    with db.session(read_only=True) as s:
        first = audit_for(s, None)
        pal_a = next(line.bot_ids[0] for line in first.rotation if line.refs == ("pal-a",))
        page = bot_audit(s, pal_a)
    with db.session(read_only=True) as s:
        assert audit_for(s, None) is first  # same results version: not refitted
    assert [line.refs for line in page.rotation] == [("pal-a",)]
    assert [line.refs for line in page.pairs] == [("pal-a", "pal-b")]
    assert page.tested and page.tests == 8


def test_too_few_matches_test_nothing(tmp_path: Path) -> None:
    db = database(tmp_path)
    tournament = fill(db, BlobStore(tmp_path / "blobs"), matches=4)
    with db.session(read_only=True) as s:
        report = audit_report(s, tournament)
    assert report.tests == 0 and not report.flagged
    assert all(line.finding.p is None for line in report.rotation + report.pairs)
