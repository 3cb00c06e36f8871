"""Backups as docs/deploy.md ("Backups and restore") takes them: a platform database of its
own on the real Postgres, a tournament of house bots played to its end, ``pg_dump -Fc`` of
the database, ``pg_restore`` into a fresh one, and the platform reads the same standings
(its own read model, fitted anew from the restored games), the same stored rating snapshot,
matches and database identity back."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

from sqlalchemy import select, text
from sqlalchemy.engine import URL

from arena.config import Settings
from arena.readmodels.tournaments import standings_table
from arena.runtime import Runtime
from arena.store import Database, Match, engine_for, latest_rating_snapshot, normalise_url, upgrade
from arena.store.models import Installation, Replay
from arena.tournaments.cache import CACHE
from arena.tournaments.executor import run_tournament
from tests.services.test_executor import house_only, tournament
from tests.support import PG_URL, POLICY, _postgres_problem, need, need_sandbox


@contextlib.contextmanager
def databases(base: URL, *names: str) -> Iterator[list[URL]]:
    """Fresh, empty databases on the test server (dropped afterwards), as URLs."""
    admin = engine_for(base).execution_options(isolation_level="AUTOCOMMIT")
    made: list[str] = []
    try:
        with admin.connect() as conn:
            for name in names:
                conn.execute(text(f'CREATE DATABASE "{name}"'))
                made.append(name)
        yield [base.set(database=name, query={}) for name in names]
    finally:
        with admin.connect() as conn:
            for name in made:
                conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def libpq(url: URL) -> str:
    """The URL as pg_dump and pg_restore take it (no SQLAlchemy driver name)."""
    return url.set(drivername="postgresql").render_as_string(hide_password=False)


def what_the_platform_shows(db: Database, tournament_id: int) -> dict:
    CACHE.clear()  # fitted from this database's games, never from another's cache entry
    with db.session(read_only=True) as s:
        table = standings_table(s, tournament_id)
        snapshot = latest_rating_snapshot(s, tournament_id)
        matches = s.scalars(select(Match).where(Match.tournament_id == tournament_id))
        records = s.execute(select(Replay.match_id, Replay.data).order_by(Replay.match_id))
        return {
            "board": table.board,
            "head_to_head": table.matrix,
            "snapshot": None if snapshot is None else snapshot.payload,
            "matches": sorted((m.id, m.status, m.seats, m.seed, m.finished_at) for m in matches),
            "records": [tuple(row) for row in records],  # each match's record, compressed
            "identity": s.scalar(select(Installation.identity)),
        }


def test_a_dump_restored_into_a_fresh_database_shows_the_same_standings(tmp_path: Path) -> None:
    need(
        shutil.which("pg_dump") is not None and shutil.which("pg_restore") is not None,
        "pg_dump and pg_restore (postgresql-client) are not installed",
    )
    base = normalise_url(PG_URL)
    problem = _postgres_problem(base)
    need(problem is None, problem or "")
    need_sandbox(POLICY)  # a tournament run checks the sandbox first (house bots use none)
    stem = f"arena_backup_{uuid.uuid4().hex[:8]}"
    with databases(base, f"{stem}_live", f"{stem}_restored") as (live_url, restored_url):
        upgrade(live_url)
        live = Database(live_url)
        runtime = Runtime(Settings(libpq(live_url), tmp_path / "data"), policy=POLICY)
        tid = tournament(live, runtime, house_only(live, runtime))
        summary = run_tournament(live, runtime, tid, workers=1)
        assert summary.status["done"] == 5 and not summary.status["pending"]
        before = what_the_platform_shows(live, tid)
        assert len(before["board"].rows) == 5 and before["snapshot"] is not None
        assert len(before["records"]) == 5
        live.dispose()

        dump = tmp_path / "arena.dump"
        subprocess.run(["pg_dump", "-Fc", "-d", libpq(live_url), "-f", str(dump)], check=True)
        restore = ["pg_restore", "--no-owner", "--exit-on-error", "-d", libpq(restored_url)]
        subprocess.run([*restore, str(dump)], check=True)

        restored = Database(restored_url)
        try:
            assert what_the_platform_shows(restored, tid) == before
        finally:
            restored.dispose()
