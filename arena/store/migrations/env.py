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
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        render_as_batch=connection.dialect.name == "sqlite",  # SQLite cannot ALTER much
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


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
