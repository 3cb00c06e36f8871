"""``arena db upgrade`` run three times at once, as migration jobs on several hosts would: each
waits for the lock the first holds (a Postgres advisory lock, or an flock beside a SQLite
file), so exactly one migrates and the others find nothing to do; no traceback anywhere."""

from __future__ import annotations

import os
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.engine import URL

from arena.store import engine_for, normalise_url
from arena.store.migrate import alembic_config, migration_lock
from tests.services.test_executor import arena_command
from tests.support import PG_URL, _postgres_problem, need

ROOT = Path(__file__).resolve().parents[2]
RUNS = 3
TIMEOUT_S = 600  # a loaded 2-core machine: generous, never a measure


def head() -> str | None:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config("sqlite://")).get_current_head()


@pytest.fixture
def fresh_postgres() -> Iterator[URL]:
    """A database of its own on the test server (not a schema: the lock is per database),
    dropped afterwards."""
    base = normalise_url(PG_URL)
    error = _postgres_problem(base)
    need(error is None, error or "")
    name = f"arena_upgrade_{uuid.uuid4().hex[:12]}"
    admin = engine_for(base).execution_options(isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f"CREATE DATABASE {name}"))
    try:
        yield base.set(database=name)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
        admin.engine.dispose()


def upgrade_at_once(url: str, cwd: Path) -> list[subprocess.CompletedProcess[str]]:
    env = {**os.environ, "ARENA_DATABASE_URL": url, "PYTHONPATH": str(ROOT), "COLUMNS": "200"}
    procs = [
        subprocess.Popen(
            [*arena_command(), "db", "upgrade"],
            env=env,
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(RUNS)
    ]
    done = []
    for proc in procs:
        out, err = proc.communicate(timeout=TIMEOUT_S)
        done.append(subprocess.CompletedProcess(proc.args, proc.returncode, out, err))
    return done


def check_one_migrated(runs: list[subprocess.CompletedProcess[str]]) -> None:
    for run in runs:
        assert run.returncode == 0, (run.stdout, run.stderr)
        assert "Traceback" not in run.stdout + run.stderr, run.stderr
        assert f"is up to date ({head()};" in run.stdout, run.stdout
    outputs = [run.stdout for run in runs]
    assert sum("upgraded from empty" in out for out in outputs) == 1, outputs
    assert sum("nothing to do" in out for out in outputs) == RUNS - 1, outputs


def test_three_upgrades_at_once_on_a_fresh_postgres_database(fresh_postgres, tmp_path):
    runs = upgrade_at_once(fresh_postgres.render_as_string(hide_password=False), tmp_path)
    check_one_migrated(runs)
    engine = engine_for(fresh_postgres)
    try:
        with engine.connect() as conn:
            versions = conn.scalars(text("SELECT version_num FROM alembic_version")).all()
            identities = conn.scalars(text("SELECT identity FROM installation")).all()
            locks = conn.scalar(text("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'"))
    finally:
        engine.dispose()
    assert versions == [head()]
    assert len(identities) == 1 and len(identities[0]) == 32  # drawn once
    assert locks == 0  # every run let go of the lock


def test_three_upgrades_at_once_on_a_fresh_sqlite_file(tmp_path):
    path = tmp_path / "data" / "arena.db"
    check_one_migrated(upgrade_at_once(f"sqlite:///{path}", tmp_path))


def test_the_sqlite_lock_is_held_until_released(tmp_path):
    """A second holder waits (it is told, then blocks) while the first keeps the lock."""
    import threading

    url = normalise_url(f"sqlite:///{tmp_path / 'arena.db'}")
    told, entered, release = threading.Event(), threading.Event(), threading.Event()

    def second() -> None:
        with migration_lock(url, on_wait=told.set):
            entered.set()

    with migration_lock(url):
        thread = threading.Thread(target=second)
        thread.start()
        assert told.wait(TIMEOUT_S)
        assert not entered.is_set()
        release.set()
    thread.join(TIMEOUT_S)
    assert entered.is_set()
