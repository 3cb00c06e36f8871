"""The provisional badge: a version whose 95 % interval is wider than the ladder's settle
width either side is marked so in the ladder's view, its JSON, ``arena ladder show`` and
the ladder page, and the mark goes once the width is reached."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.cli.ladder import print_ladder
from arena.config import Settings
from arena.ladders.entrants import change_ladder
from arena.readmodels.ladder import LadderEntry, ladder_view
from arena.runtime import Runtime
from arena.store import Database
from arena.tournaments.adaptive import half_width
from arena.tournaments.cache import CACHE
from dashboard import create_app
from tests.ladders.test_feed import _played_ladder, upload

BADGE = 'class="badge provisional" title='  # a row's badge (the legend's has no title)


@pytest.fixture
def played(db: Database, store_runtime: Runtime) -> Database:
    """Three contestants placed on a one-deal ladder whose settle width nobody reaches."""
    CACHE.clear()
    for owner, bot in (("ann", "alpha"), ("bob", "beta"), ("cat", "gamma")):
        upload(db, store_runtime, owner, bot)
    _played_ladder(db, store_runtime, settle=0.1)
    return db


def ranked(db: Database) -> list[LadderEntry]:
    """The ladder's ranked entrants, the house anchors' among them."""
    with db.session(read_only=True) as s:
        view = ladder_view(s, "pagat")
    assert not view.placing  # placed by the cap of 2 matches, provisional or not
    return view.ranked


def shown(db: Database, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> tuple[str, str]:
    """``arena ladder show``'s table and the ladder page, as printed and served now."""
    print_ladder(db, "pagat")
    cli = capsys.readouterr().out
    runtime = Runtime(Settings(db.url.render_as_string(hide_password=False), tmp_path / "d", ""))
    page = create_app(db, runtime, TESTING=True).test_client().get("/ladders/pagat")
    assert page.status_code == 200
    return cli, page.get_data(as_text=True)


def test_the_badge_shows_until_the_interval_is_within_the_settle_width(
    played: Database, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    entries = ranked(played)
    assert len(entries) == 6 and all(e.provisional for e in entries)  # 3 bots, 3 anchors
    assert all(e.as_dict()["provisional"] is True for e in entries)  # the JSON API's field
    cli, page = shown(played, capsys, tmp_path)
    assert cli.count("provisional") == 7  # each row's badge and the legend
    assert page.count(BADGE) == 6

    # exactly at the widest contestant's half-width: nobody is provisional any more
    widest = max(half_width(e) for e in entries)
    change_ladder(played, "pagat", settle_half_width=widest)
    assert not any(e.provisional for e in ranked(played))
    cli, page = shown(played, capsys, tmp_path)
    assert "provisional" not in cli and BADGE not in page

    # a hair narrower: the widest one is provisional again, alone
    change_ladder(played, "pagat", settle_half_width=widest - 0.01)
    marked = [e for e in ranked(played) if e.provisional]
    assert len(marked) == 1 and half_width(marked[0]) == pytest.approx(widest)
    assert shown(played, capsys, tmp_path)[1].count(BADGE) == 1
