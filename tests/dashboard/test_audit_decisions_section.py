"""The decision lines of the audit on a bot's page: an organiser sees them with their counts
and links to the replay steps of the evidence, and how many matches are judged; the bot's
owner and visitors see no audit (real Flask app, SQLite store, a made-up judging)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select

from arena.config import Settings
from arena.runtime import Runtime
from arena.store import BlobStore, Bot, Database
from arena.tournaments.cache import CACHE
from dashboard import create_app
from tests.analysis_runs.site import PASSWORD, played_match
from tests.audits.site import store_made_up
from tests.dashboard.users import log_in


def page(db: Database, tmp_path: Path, who: str | None) -> str:
    CACHE.clear()
    runtime = Runtime(Settings(db.url.render_as_string(hide_password=False), tmp_path / "d", ""))
    client = create_app(db, runtime, TESTING=True).test_client()
    if who is not None:
        log_in(client, who, PASSWORD)
    with db.session(read_only=True) as s:
        bot_id = s.scalar(select(Bot.id).where(Bot.name == "alice-bot"))
    response = client.get(f"/bots/{bot_id}")
    assert response.status_code == 200
    return response.get_data(as_text=True)


@pytest.fixture
def judged(db: Database, tmp_path: Path) -> int:
    played = played_match(db, BlobStore(tmp_path / "blobs"))
    return played.match_id


def test_an_organiser_sees_the_decision_lines_and_their_replay_steps(
    db: Database, tmp_path: Path, judged: int
) -> None:
    waiting = page(db, tmp_path, "carol")
    assert "Judged: 0 finished matches, 1 waiting" in waiting
    assert "No judged decisions of this bot yet" in waiting
    store_made_up(db, judged)
    html = page(db, tmp_path, "carol")  # the cache keys on the judged count: no stale page
    assert "Judged: 1 finished matches, 0 waiting" in html
    assert "<td>memory</td>" in html and "alice-bot@1 + bob-bot@1" in html
    assert '<td class="num">2/2</td><td class="num">0/1</td>' in html
    assert f'href="/matches/{judged}#g2-d1-s12"' in html
    assert f'href="/matches/{judged}#g2-d1-s14"' in html


@pytest.mark.parametrize("who", [None, "alice", "bob"])
def test_the_owner_and_visitors_do_not(
    db: Database, tmp_path: Path, judged: int, who: str | None
) -> None:
    store_made_up(db, judged)
    html = page(db, tmp_path, who)
    assert "Fair-play audit" not in html and "<td>memory</td>" not in html
    assert "#g2-d1-s12" not in html
