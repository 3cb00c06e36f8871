"""Engines and sessions: URL normalisation, SQLite settings for several writer processes.

SQLite runs in WAL mode with foreign keys on, a 30 s busy timeout and ``BEGIN IMMEDIATE``
transactions: a transaction that reads and then writes (as ``record_result`` does) would
otherwise fail with "database is locked" when another process committed in between, instead
of waiting its turn. Read-only sessions use a plain deferred ``BEGIN`` so long reads (ratings,
dashboard) do not hold the write lock. ``synchronous=NORMAL`` in WAL mode survives a crash of
the process; a power cut may lose the last commits, which only re-runs those matches.

A database that goes away (restarted, failed over, connections refused or cut) is trouble
that passes: ``database_down`` tells such an error, ``Database.wait_until_up`` and
``Database.patiently`` wait it out with growing pauses. Postgres connections give up
connecting after 10 s and notice a silent peer within about a minute (TCP keepalives); a
``Database`` made with ``give_up_s`` (the dashboard's) gives up on both after that many
seconds, so a request fails fast instead of holding a thread.

Engines are not fork-safe: create the ``Database`` in the process that uses it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar, cast

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import URL, CursorResult, Result, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, InterfaceError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

from arena.config import Settings
from arena.store.errors import StoreError

SQLITE_TIMEOUT_S = 30.0
_READ_ONLY = "arena_read_only"
# Postgres connections: give up connecting after 10 s, and notice a peer gone silent (a
# partition, a host that died) in about a minute rather than the kernel's 15 minutes.
PG_CONNECT_ARGS = {
    "connect_timeout": 10,
    "keepalives": 1,
    "keepalives_idle": 30,
    "keepalives_interval": 10,
    "keepalives_count": 3,
    "tcp_user_timeout": 60_000,
}
BACKOFF_S = (0.25, 2.0)  # first and longest pause between two tries while the database is away
log = logging.getLogger(__name__)
T = TypeVar("T")


def rowcount(result: Result[*tuple[Any, ...]]) -> int:
    """How many rows an UPDATE or DELETE matched. ``Session.execute`` is typed to return a
    plain ``Result`` whatever the statement; a DML statement's is a ``CursorResult``."""
    return cast(CursorResult[*tuple[Any, ...]], result).rowcount


def normalise_url(url: str) -> URL:
    """Parse ``url``; plain ``postgresql://`` (or ``postgres://``) gets the psycopg 3 driver."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise StoreError(
            f"database URL {url!r} is not valid "
            "(expected e.g. sqlite:///arena.db or postgresql://user@host/dbname)"
        ) from None
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    if parsed.get_backend_name() not in ("sqlite", "postgresql"):
        raise StoreError(
            f"database URL scheme {parsed.drivername!r} is not supported "
            "(use sqlite:///arena.db or postgresql://user@host/dbname)"
        )
    return parsed


def connection_problem(exc: DBAPIError, url: URL) -> StoreError:
    """A one-line reason (and what to do) for a database that cannot be reached or used."""
    first = str(exc.orig).strip().splitlines()[0] if exc.orig else str(exc)
    where = url.render_as_string(hide_password=True)
    hint = "check ARENA_DATABASE_URL and that the server is running"
    if "does not exist" in first and "database" in first:
        hint = f"create it (e.g. createdb {url.database}), then run `arena db upgrade`"
    return StoreError(f"database {where}: {first.removeprefix('connection failed: ')}; {hint}")


def engine_for(url: str | URL, give_up_s: int | None = None) -> Engine:
    """An engine for ``url`` with the platform's connection settings applied; ``give_up_s``:
    seconds a Postgres connection waits to connect, or for the server to acknowledge what it
    sent, before it fails (instead of 10 and 60). The URL's own settings win."""
    parsed = normalise_url(url) if isinstance(url, str) else url
    if parsed.get_backend_name() != "sqlite":
        connect_args: dict[str, int] = dict(PG_CONNECT_ARGS)
        if give_up_s is not None:
            connect_args.update(connect_timeout=give_up_s, tcp_user_timeout=give_up_s * 1000)
        connect_args = {k: v for k, v in connect_args.items() if k not in parsed.query}
        return create_engine(parsed, pool_pre_ping=True, connect_args=connect_args)
    _make_parent(parsed)
    engine = create_engine(
        parsed, connect_args={"timeout": SQLITE_TIMEOUT_S, "check_same_thread": False}
    )
    event.listen(engine, "connect", _sqlite_connect)
    event.listen(engine, "begin", _sqlite_begin)
    return engine


def _make_parent(url: URL) -> None:
    """Create the folder of a SQLite file, so a fresh data dir works without a setup step."""
    if url.database and url.database != ":memory:" and not url.database.startswith("file:"):
        Path(url.database).parent.mkdir(parents=True, exist_ok=True)


def _sqlite_connect(dbapi_connection: Any, _record: Any) -> None:
    """Take transaction control away from the sqlite3 module (see ``_sqlite_begin``)."""
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def _sqlite_begin(conn: Any) -> None:
    """Writers take the write lock up front, so they queue on the busy timeout."""
    read_only = conn.get_execution_options().get(_READ_ONLY, False)
    conn.exec_driver_sql("BEGIN" if read_only else "BEGIN IMMEDIATE")


def database_down(exc: BaseException) -> bool:
    """The database could not be reached or dropped the connection (refused, terminated by
    a restart or a failover, timed out; also a deadlock or a lock wait run out): trouble that
    passes. Wait it out and try again; never a reason to fail a match or to drop a job."""
    if isinstance(exc, (OperationalError, InterfaceError)):
        return True
    return isinstance(exc, DBAPIError) and exc.connection_invalidated


def outage_text(exc: BaseException) -> str:
    """The first line of the driver's message, for a warning."""
    orig = getattr(exc, "orig", None) or exc
    lines = str(orig).strip().splitlines()
    return lines[0] if lines else type(orig).__name__


def _pauses() -> Iterator[float]:
    pause, longest = BACKOFF_S
    while True:
        yield pause
        pause = min(pause * 2, longest)


class Database:
    """An engine and its session factories; one per process."""

    def __init__(self, url: str | URL, give_up_s: int | None = None) -> None:
        self.engine = engine_for(url, give_up_s)
        self.url = self.engine.url
        # expire_on_commit=False: rows returned by a service stay readable after its session.
        self._writer = sessionmaker(self.engine, expire_on_commit=False)
        reader = self.engine.execution_options(**{_READ_ONLY: True})
        self._reader = sessionmaker(reader, expire_on_commit=False)

    @classmethod
    def from_settings(
        cls, settings: Settings | None = None, give_up_s: int | None = None
    ) -> Database:
        return cls((settings or Settings.from_env()).database_url, give_up_s)

    @contextmanager
    def session(self, read_only: bool = False) -> Iterator[Session]:
        """A session that commits when the block ends and rolls back if it raises."""
        factory = self._reader if read_only else self._writer
        with factory() as s:
            try:
                yield s
                s.commit()
            except BaseException:
                s.rollback()
                raise

    def dispose(self) -> None:
        self.engine.dispose()

    def answers(self) -> bool:
        """One round trip: False while the database is down (see ``database_down``)."""
        try:
            with self.engine.connect() as conn:
                conn.execute(text("SELECT 1"))
        except DBAPIError as exc:
            if database_down(exc):
                return False
            raise
        return True

    def wait_until_up(self, timeout_s: float) -> bool:
        """Ask the database again and again (pauses from 0.25 s doubling to 2 s) until it
        answers, for at most ``timeout_s``; whether it did."""
        deadline = time.monotonic() + timeout_s
        for pause in _pauses():
            if self.answers():
                return True
            if time.monotonic() + pause > deadline:
                return False
            time.sleep(pause)
        raise AssertionError("unreachable")  # _pauses() never ends

    def patiently(self, work: Callable[[], T], timeout_s: float, what: str = "") -> T:
        """``work()``, tried again (with the pauses of ``wait_until_up``) while the database
        is down, for at most ``timeout_s``; then its error is raised. ``work`` opens its own
        sessions, so each try is a fresh transaction."""
        deadline = time.monotonic() + timeout_s
        warned = False
        for pause in _pauses():
            try:
                return work()
            except DBAPIError as exc:
                if not database_down(exc) or time.monotonic() + pause > deadline:
                    raise
                if not warned:
                    log.warning("database unreachable (%s): %s waits", outage_text(exc), what)
                    warned = True
            time.sleep(pause)
        raise AssertionError("unreachable")
