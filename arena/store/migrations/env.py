"""Alembic environment: the database comes from the caller, not from an ini file.

``config.attributes["connection"]`` (an open Connection) wins, then
``config.attributes["url"]``, then ``sqlalchemy.url``, then ``ARENA_DATABASE_URL``.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection

from arena.config import Settings
from arena.store.db import engine_for
from arena.store.models import Base

config = context.config


def _configure(connection: Connection) -> None:
    sqlite = connection.dialect.name == "sqlite"
    if sqlite:
        _foreign_keys(connection, "OFF")
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        render_as_batch=sqlite,  # SQLite cannot ALTER much
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()
    if sqlite:
        _foreign_keys(connection, "ON")


def _foreign_keys(connection: Connection, state: str) -> None:
    """SQLite's batch mode rebuilds a table (copy, drop, rename): with foreign keys on, the
    drop's implicit delete would cascade to every row referring to it (a bot's versions,
    their matches and results). The pragma only changes outside a transaction, so it goes
    to the driver's connection itself (SQLAlchemy's would begin one first)."""
    driver = connection.connection.driver_connection
    assert driver is not None
    driver.execute(f"PRAGMA foreign_keys={state}")


def _url() -> str:
    return (
        config.attributes.get("url")
        or config.get_main_option("sqlalchemy.url")
        or Settings.from_env().database_url
    )


def run() -> None:
    if context.is_offline_mode():
        context.configure(url=_url(), target_metadata=Base.metadata, literal_binds=True)
        with context.begin_transaction():
            context.run_migrations()
        return
    connection = config.attributes.get("connection")
    if connection is not None:
        _configure(connection)
        return
    engine = engine_for(_url())
    try:
        with engine.connect() as conn:
            _configure(conn)
    finally:
        engine.dispose()


run()
