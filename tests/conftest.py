"""Fixtures shared by the whole suite (helpers that are not fixtures are in tests/support.py).

Databases: ``db`` is a freshly migrated, empty database. Above the store it is a SQLite file
(a copy of one migrated once per session), unless the test is marked
``support.both_databases`` (its subject is the database's behaviour: it then runs on SQLite
and on Postgres) or ``support.on_postgres``. ``tests/store`` overrides ``db_url`` so that
every database test there runs on both backends.

Postgres: ``ARENA_TEST_POSTGRES_URL`` (default: the local ``test`` database). A run gets one
private schema, migrated once and dropped at the end; each test starts from emptied tables.
When the server is unreachable Postgres tests are skipped locally and fail under ``CI=true``.

Bots: ``runtime`` is a platform whose data dir is the test's own; process bots run in the
bwrap sandbox (skipped locally without it, failed under ``CI=true``).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.engine import URL

from arena.config import Settings
from arena.runtime import Runtime
from arena.sandbox import SandboxPolicy
from arena.store import BlobStore, Database, upgrade
from tests.support import POLICY, Emptier, fresh_database, need_sandbox, pg_schema

# The Celery backend's services (redis-server, a cluster database, worker processes).
pytest_plugins = ("tests.cluster",)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """``@pytest.mark.databases(*backends)``: the test's ``db`` on each of these backends."""
    marker = metafunc.definition.get_closest_marker("databases")
    if marker is not None and "db_url" in metafunc.fixturenames:
        metafunc.parametrize("db_url", marker.args, indirect=True)


@pytest.fixture(scope="session")
def pg_url() -> Iterator[URL]:
    """A migrated private schema in the test database, for the whole run."""
    with pg_schema("arena_test") as url:
        upgrade(url)
        yield url


@pytest.fixture(scope="session")
def pg_emptier(pg_url: URL) -> Iterator[Emptier]:
    """Empties the session's Postgres schema for the next test."""
    emptier = Emptier(pg_url)
    yield emptier
    emptier.dispose()


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One migrated SQLite file, copied for each test (faster than migrating each time)."""
    path = tmp_path_factory.mktemp("template") / "arena.db"
    upgrade(f"sqlite:///{path}")
    return path


@pytest.fixture
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> URL:
    """A freshly migrated, empty database: SQLite unless the test is marked otherwise."""
    return fresh_database(request, getattr(request, "param", "sqlite"), tmp_path)


@pytest.fixture
def db(db_url: URL) -> Iterator[Database]:
    database = Database(db_url)
    yield database
    database.dispose()


@pytest.fixture(scope="session")
def audit_played(
    tmp_path_factory: pytest.TempPathFactory, sqlite_template: Path
) -> tuple[Path, int]:
    """The audit's tournament (``tests/tournaments/audit_site.py``) with every match played,
    once per session: the folder holding its ``arena.db`` and ``blobs`` (a test works on a
    copy, ``audit_site.copy_played``), and the tournament's id."""
    from tests.tournaments.audit_site import fill

    folder = tmp_path_factory.mktemp("audit-played")
    shutil.copy(sqlite_template, folder / "arena.db")
    db = Database(f"sqlite:///{folder / 'arena.db'}")
    try:
        return folder, fill(db, BlobStore(folder / "blobs"))
    finally:
        db.dispose()


@pytest.fixture(scope="session")
def sandbox_policy() -> SandboxPolicy:
    """The bwrap policy of the platform's tests (skipped or failed without bwrap)."""
    need_sandbox(POLICY)
    return POLICY


@pytest.fixture
def store_runtime(tmp_path: Path, db: Database) -> Runtime:
    """Bots of this test live in tmp_path/data; for tests that start no bot process."""
    url = db.url.render_as_string(hide_password=False)
    return Runtime(Settings(url, tmp_path / "data"), policy=POLICY)


@pytest.fixture
def runtime(store_runtime: Runtime, sandbox_policy: SandboxPolicy) -> Runtime:
    """The same, for tests that run process bots (in bwrap: skipped or failed without it)."""
    return store_runtime
