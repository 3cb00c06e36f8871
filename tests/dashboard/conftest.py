"""Dashboard fixtures: a small real tournament (``site``) on SQLite.

House bots play in-process through the real match job (no sandbox needed), one match is
played with a bot that answers garbage (faults), one is left running and one pending, so
every page has something of each kind to show. One bot is named like an XSS attack.

The matches are played once per session; each test of the site gets its own copy of that
database file and data dir (``db`` is the copy), on which the running match is claimed
afresh, so a test may change what it likes.
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeVar

import pytest
from sqlalchemy import select
from sqlalchemy.engine import URL

from arena.config import Settings
from arena.game import PAGAT
from arena.referee import Clock, play_match
from arena.registry import player_for
from arena.runtime import Runtime
from arena.store import (
    Database,
    Lease,
    Match,
    add_bot_version,
    claim_match,
    create_tournament,
    normalise_url,
    record_result,
)
from arena.tournaments.cache import CACHE
from arena.tournaments.run import match_spec, play_stored_match, run_match
from arena.tournaments.spec import TournamentSpec
from arena.tournaments.standings import snapshot
from dashboard import create_app
from tests.support import fresh_database
from tests.views.players import Delegating, PauseAfter, first_player_paused

T = TypeVar("T")
XSS = "<script>alert(1)</script>"
BOTS = (("alpha", "heuristic"), ("beta", "random"), (XSS, "random"), ("gamma", "heuristic"))
RULES = PAGAT.with_(deals_per_game=2)
CLOCK = {"decision_ms": 1000, "bank_ms": 5000, "startup_ms": 5000}


class Garbage(Delegating):
    """A house bot that answers its 3rd and 7th decisions with nonsense (two faults)."""

    count = 0

    def decide(self, request, timeout_s):
        self.count += 1
        return "??" if self.count in (3, 7) else self.inner.decide(request, timeout_s)


def house(name: str, kind: str) -> dict:
    return {"name": name, "version": "1", "house": kind}


@dataclass(frozen=True)
class Site:
    tournament: int
    done: list[int]  # matches played normally
    faulty: int  # a finished match with faults
    running: int
    running_lease: Lease | None  # to play it on (``playing``); None until claimed
    pending: int
    bots: dict[str, int]  # name -> bot id
    runtime: Runtime


def fill(db: Database, runtime: Runtime) -> Site:
    return claim_running(db, played(db, runtime))


def played(db: Database, runtime: Runtime) -> Site:
    """The site with its matches played, the one to be left running not claimed yet."""
    with db.session() as s:
        versions = [
            add_bot_version(
                s,
                runtime.blobs,
                name.encode(),
                {"name": name, "version": "1", "house": kind},
                "valid",
            )
            for name, kind in BOTS
        ]
        tables = [(i, (0, 1, 2, 3), 100 + i) for i in range(5)]
        spec = TournamentSpec(name="cup <i>", rules=RULES, games_per_match=2, seed=7)
        spec = replace(spec, clock=Clock(**CLOCK))
        t = create_tournament(s, spec.columns(), versions, tables)
        query = select(Match.id).where(Match.tournament_id == t.id).order_by(Match.id)
        matches = list(s.scalars(query))
        bots = {v.bot.name: v.bot_id for v in versions}
    for match_id in matches[:2]:
        assert run_match(db, runtime, match_id, "test") == "done"
    _play_with_faults(db, runtime, matches[2])
    snapshot(db, t.id)
    return Site(t.id, matches[:2], matches[2], matches[3], None, matches[4], bots, runtime)


def claim_running(db: Database, site: Site) -> Site:
    """The running match claimed (a lease of the full length from now)."""
    with db.session() as s:
        lease = claim_match(s, site.running, "test")
    return replace(site, running_lease=lease)


def _play_with_faults(db: Database, runtime: Runtime, match_id: int) -> None:
    with db.session() as s:
        lease = claim_match(s, match_id, "test")
    spec, versions = match_spec(db, match_id)
    players = [player_for(db, runtime, v, i, runtime.log_dir()) for i, v in enumerate(versions)]
    players[1] = Garbage(players[1])
    result = play_match(spec, players)
    with db.session() as s:
        record_result(s, lease, result, 0.5)


@contextmanager
def playing(db: Database, site: Site, pause: PauseAfter) -> Iterator[PauseAfter]:
    """The running match plays on in a thread as the match job plays it (progress stored
    after every deal, then the result), its entrant 0 held by ``pause``; at the end of the
    block it is released and the match finishes."""
    lease = site.running_lease

    def play() -> None:
        log_dir = site.runtime.log_dir()
        result, _ = play_stored_match(db, site.runtime, lease.match_id, log_dir, lease)
        with db.session() as s:
            record_result(s, lease, result, 1.0)

    thread = threading.Thread(target=play)
    with first_player_paused(pause):
        thread.start()
        try:
            yield pause
        finally:
            pause.release()
            thread.join(60)


def played_once(folder: Path, template: Path, fill: Callable[[Database, Runtime], T]) -> T:
    """``fill`` run on a copy of the migrated ``template`` in ``folder`` (its data dir
    ``folder/d``): what it returns."""
    shutil.copy(template, folder / "arena.db")
    db = Database(normalise_url(f"sqlite:///{folder / 'arena.db'}"))
    try:
        return fill(db, Runtime(Settings(db.url.render_as_string(), folder / "d", "")))
    finally:
        db.dispose()
        CACHE.clear()


def copy_of(folder: Path, tmp_path: Path) -> URL:
    """A test's own copy of a database ``played_once`` in ``folder``, and its data dir."""
    shutil.copy(folder / "arena.db", tmp_path / "arena.db")
    shutil.copytree(folder / "d", tmp_path / "d")
    return normalise_url(f"sqlite:///{tmp_path / 'arena.db'}")


@pytest.fixture(scope="session")
def played_site(
    tmp_path_factory: pytest.TempPathFactory, sqlite_template: Path
) -> tuple[Path, Site]:
    """A folder holding the site's database file and data dir, its matches played; and the
    site's ids."""
    folder = tmp_path_factory.mktemp("site")
    return folder, played_once(folder, sqlite_template, played)


@pytest.fixture
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> URL:
    """A fresh database; for a test of the site, a copy of the played site's (SQLite)."""
    backend = getattr(request, "param", "sqlite")
    if "site" not in request.fixturenames:
        return fresh_database(request, backend, tmp_path)
    if backend != "sqlite":
        raise pytest.UsageError("the dashboard's site is played on SQLite only")
    folder, _ = request.getfixturevalue("played_site")
    return copy_of(folder, tmp_path)


@pytest.fixture
def site(db: Database, tmp_path: Path, played_site: tuple[Path, Site]) -> Site:
    """This test's copy of the site (``db``, a data dir in tmp_path), its match claimed."""
    CACHE.clear()
    runtime = Runtime(Settings(db.url.render_as_string(hide_password=False), tmp_path / "d", ""))
    return claim_running(db, replace(played_site[1], runtime=runtime))


@pytest.fixture
def client(db: Database, site: Site):
    return create_app(db, site.runtime, TESTING=True).test_client()
