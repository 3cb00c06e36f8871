"""Dashboard fixtures: a small real tournament on SQLite and on Postgres.

House bots play in-process through the real match job (no sandbox needed), one match is
played with a bot that answers garbage (faults), one is left running and one pending, so
every page has something of each kind to show. One bot is named like an XSS attack.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace

import pytest
from sqlalchemy import select

from arena.config import Settings
from arena.game import PAGAT
from arena.readmodels.cache import CACHE
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
    record_result,
)
from arena.tournaments.run import match_spec, play_stored_match, run_match
from arena.tournaments.spec import TournamentSpec
from arena.tournaments.standings import snapshot
from dashboard import create_app
from tests.store import conftest as store_fixtures
from tests.views.players import Delegating, PauseAfter, first_player_paused

pg_url = store_fixtures.pg_url
sqlite_template = store_fixtures.sqlite_template
db_url = store_fixtures.db_url
db = store_fixtures.db

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
    running_lease: Lease  # to play it on (``playing``)
    pending: int
    bots: dict[str, int]  # name -> bot id
    runtime: Runtime


def fill(db: Database, runtime: Runtime) -> Site:
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
    with db.session() as s:
        lease = claim_match(s, matches[3], "test")
    return Site(t.id, matches[:2], matches[2], matches[3], lease, matches[4], bots, runtime)


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


@pytest.fixture
def site(db: Database, tmp_path) -> Site:
    CACHE.clear()
    runtime = Runtime(Settings(db.url.render_as_string(hide_password=False), tmp_path / "d", ""))
    return fill(db, runtime)


@pytest.fixture
def client(db: Database, site: Site):
    return create_app(db, site.runtime, TESTING=True).test_client()
