"""Store fixtures: every ``db`` test runs on SQLite and on Postgres, both migrated by Alembic.

Postgres: ``ARENA_TEST_POSTGRES_URL`` (default: the local ``test`` database). Each test run
gets its own schema (dropped at the end) and every test starts from empty tables. When the
server is unreachable the Postgres half is skipped locally and fails under ``CI=true``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.engine import URL

from arena.referee.result import Fault, GameResult, MatchResult
from arena.store import (
    Base,
    BlobStore,
    BotVersion,
    Database,
    add_bot_version,
    create_tournament,
    engine_for,
    normalise_url,
    upgrade,
)
from arena.store.models import Tournament
from tests.support import need

PG_URL = os.environ.get(
    "ARENA_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
RULES = {"name": "pagat", "deals_per_game": 5}
CLOCK = {"decision_ms": 1000, "bank_ms": 10_000, "startup_ms": 15_000}
SETTINGS = {"name": "cup", "deals_per_game": 5, "games_per_match": 4, "seed": 7}


def _pg_error(url: URL) -> str | None:
    try:
        engine = engine_for(url)
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
        engine.dispose()
    except Exception as exc:  # any failure means "no usable server"
        where = url.render_as_string(hide_password=True)
        return f"Postgres at {where} unreachable: {str(exc).splitlines()[0]}"
    return None


@contextlib.contextmanager
def pg_schema(prefix: str) -> Iterator[URL]:
    """A private, empty schema on the test Postgres (dropped afterwards), as a URL."""
    base = normalise_url(PG_URL)
    error = _pg_error(base)
    need(error is None, error or "")
    schema = f"{prefix}_{uuid.uuid4().hex[:10]}"
    admin = engine_for(base)
    with admin.begin() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    try:
        yield base.update_query_dict({"options": f"-csearch_path={schema}"})
    finally:
        with admin.begin() as conn:
            conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
        admin.dispose()


@pytest.fixture(scope="session")
def pg_url() -> Iterator[URL]:
    """A migrated private schema in the test database, for the whole run."""
    with pg_schema("arena_test") as url:
        upgrade(url)
        yield url


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One migrated SQLite file, copied for each test (faster than migrating each time)."""
    path = tmp_path_factory.mktemp("template") / "arena.db"
    upgrade(f"sqlite:///{path}")
    return path


def _empty_tables(url: URL) -> None:
    engine = engine_for(url)
    names = ", ".join(t.name for t in Base.metadata.sorted_tables)
    with engine.begin() as conn:
        conn.execute(text(f"TRUNCATE {names} RESTART IDENTITY CASCADE"))
    engine.dispose()


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> URL:
    """A freshly migrated, empty database on each backend."""
    if request.param == "sqlite":
        path = tmp_path / "arena.db"
        shutil.copy(request.getfixturevalue("sqlite_template"), path)
        return normalise_url(f"sqlite:///{path}")
    url = request.getfixturevalue("pg_url")
    _empty_tables(url)
    return url


@pytest.fixture
def db(db_url: URL) -> Iterator[Database]:
    database = Database(db_url)
    yield database
    database.dispose()


@pytest.fixture
def blobs(tmp_path: Path) -> BlobStore:
    return BlobStore(tmp_path / "blobs")


def manifest(name: str, version: str = "1.0") -> dict:
    return {"name": name, "version": version, "command": ["python3", "bot.py"]}


def add_versions(
    db: Database, blobs: BlobStore, count: int, status: str = "valid"
) -> list[BotVersion]:
    """``count`` bots named bot0, bot1, ... with one version each."""
    with db.session() as s:
        return [
            add_bot_version(s, blobs, f"archive {i}".encode(), manifest(f"bot{i}"), status)
            for i in range(count)
        ]


def make_tournament(
    db: Database,
    versions: Sequence[BotVersion],
    tables: Sequence[tuple[int, tuple[int, int, int, int], int]] | None = None,
) -> Tournament:
    """A tournament of ``versions``; default: one table of the first four entrants."""
    with db.session() as s:
        return create_tournament(
            s,
            {**SETTINGS, "ruleset": RULES, "clock": CLOCK},
            entries=list(versions),
            tables=[(0, (0, 1, 2, 3), 11)] if tables is None else tables,
        )


def make_result(
    match_id: str = "m",
    games: int = 4,
    points: Sequence[int] = (120, 35, -40, 80),
    faults: Sequence[Fault] = (),
    record_size: int = 0,
) -> MatchResult:
    """A finished duplicate set: entrant ``e`` sits in seat ``(e + g) % 4`` in game ``g`` and
    scores ``points[e] + g`` tenths with ``e + 1`` calls made over 5 deals."""
    results = [
        GameResult(
            index=g,
            seats=tuple((s - g) % 4 for s in range(4)),
            points=tuple(p + g for p in points),
            calls_made=(1, 2, 3, 4),
            deals=5,
        )
        for g in range(games)
    ]
    record = {"format": "callbreak-match", "match_id": match_id, "pad": "x" * record_size}
    return MatchResult(match_id, ["a", "b", "c", "d"], results, list(faults), record=record)
