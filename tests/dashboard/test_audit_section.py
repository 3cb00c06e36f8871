"""The fair-play audit on a bot's page: organisers see it, with its flags; visitors and
contestants (the cheat's owner included) do not (real Flask app, SQLite store filled by the
real referee)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select

from arena.config import Settings
from arena.runtime import Runtime
from arena.store import Bot, Database
from arena.tournaments.cache import CACHE
from dashboard import create_app
from tests.dashboard.users import log_in, make_user
from tests.tournaments.audit_site import PASSWORD, copy_played

HEADING = "Fair-play audit"


@pytest.fixture(scope="module")
def platform(
    tmp_path_factory: pytest.TempPathFactory, audit_played: tuple[Path, int]
) -> tuple[Database, Path]:
    path = tmp_path_factory.mktemp("audit-site")
    db = Database(f"sqlite:///{copy_played(audit_played[0], path)}")
    make_user(db, "root", admin=True)
    return db, path


def client(platform):
    db, path = platform
    CACHE.clear()
    runtime = Runtime(Settings(db.url.render_as_string(hide_password=False), path / "d", ""))
    return create_app(db, runtime, TESTING=True).test_client()


def bot_id(db: Database, name: str) -> int:
    with db.session(read_only=True) as s:
        return s.scalar(select(Bot.id).where(Bot.name == name))


def page(c, db: Database, name: str) -> str:
    response = c.get(f"/bots/{bot_id(db, name)}")
    assert response.status_code == 200
    return response.get_data(as_text=True)


def test_organisers_see_the_audit_and_its_flags(platform) -> None:
    db, _ = platform
    c = client(platform)
    log_in(c, "root")
    cheat = page(c, db, "cheat")
    assert HEADING in cheat and '<tr class="flagged">' in cheat and "FLAG" in cheat
    assert "1% over the audit's 8 tests" in cheat
    honest = page(c, db, "honest")
    assert HEADING in honest and "FLAG" not in honest
    pal = page(c, db, "pal-b")
    assert "pal-a + pal-b" in pal and "12 together, 8 / 8 apart" in pal and "FLAG" in pal


@pytest.mark.parametrize("who", [None, "alice", "bob"])
def test_nobody_else_sees_it(platform, who: str | None) -> None:
    """Not a visitor, not a contestant, not even the flagged bot's owner (alice)."""
    db, _ = platform
    c = client(platform)
    if who is not None:
        log_in(c, who, PASSWORD)
    for name in ("cheat", "pal-a"):
        html = page(c, db, name)
        assert HEADING not in html and "FLAG" not in html
