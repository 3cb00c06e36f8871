"""Schema migrations run from code, so an installed package needs no alembic.ini.

The Alembic config is built here with ``script_location`` inside the package and the URL in
``config.attributes`` (not the ini's ``sqlalchemy.url``, whose ``%`` interpolation would mangle
URL-encoded passwords).

Migrating takes a lock first (``migration_lock``): a Postgres advisory lock, or for SQLite
an flock on a file beside the database. Runs at once (a migration job on every host, two
operators) wait for each other; the later ones then find nothing to do.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Callable, Iterator
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import URL, text

from arena.store.db import engine_for, normalise_url

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
# The advisory lock migrations take on Postgres (one per database): "arenadb\0" as a number.
LOCK_KEY = int.from_bytes(b"arenadb\0", "big")


def alembic_config(url: str | URL) -> Config:
    """An Alembic Config for ``url``; also usable for ``command.revision`` in development."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["url"] = normalise_url(url) if isinstance(url, str) else url
    return config


def upgrade(
    url: str | URL, revision: str = "head", on_wait: Callable[[], None] | None = None
) -> tuple[str | None, str | None]:
    """Bring the database at ``url`` to ``revision`` (``alembic upgrade head``) under the
    migration lock (``on_wait`` is called once if another run holds it). Returns the
    revisions before and after: equal when there was nothing to do."""
    config = alembic_config(url)
    with migration_lock(config.attributes["url"], on_wait):
        before = current_revision(config.attributes["url"])
        command.upgrade(config, revision)
        return before, current_revision(config.attributes["url"])


def downgrade(url: str | URL, revision: str) -> None:
    config = alembic_config(url)
    with migration_lock(config.attributes["url"]):
        command.downgrade(config, revision)


@contextlib.contextmanager
def migration_lock(url: URL, on_wait: Callable[[], None] | None = None) -> Iterator[None]:
    """Hold the database's migration lock: Postgres's advisory lock ``LOCK_KEY`` on a
    connection of its own (released with it, also when the process dies), or an flock on
    ``<file>-migrations.lock`` beside a SQLite file (an in-memory database needs none).
    Waits as long as another holder keeps it, calling ``on_wait`` first."""
    if url.get_backend_name() == "sqlite":
        if not url.database or url.database == ":memory:":
            yield
            return
        lock = Path(f"{url.database}-migrations.lock")
        lock.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if on_wait is not None:
                    on_wait()
                fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # releases the flock
        return
    engine = engine_for(url)
    try:
        with engine.connect() as conn:
            key = {"key": LOCK_KEY}
            if not conn.scalar(text("SELECT pg_try_advisory_lock(:key)"), key):
                if on_wait is not None:
                    on_wait()
                conn.execute(text("SELECT pg_advisory_lock(:key)"), key)
            conn.commit()  # the lock is the session's: it outlives the transaction
            try:
                yield
            finally:
                conn.execute(text("SELECT pg_advisory_unlock(:key)"), key)
                conn.commit()
    finally:
        engine.dispose()


def current_revision(url: str | URL) -> str | None:
    """The revision the database is at; None for an empty database."""
    engine = engine_for(url)
    try:
        with engine.connect() as conn:
            return MigrationContext.configure(conn).get_current_revision()
    finally:
        engine.dispose()


def is_up_to_date(url: str | URL) -> bool:
    """Whether ``url`` is at the newest revision (services may refuse to start otherwise)."""
    head = ScriptDirectory.from_config(alembic_config(url)).get_current_head()
    return current_revision(url) == head
