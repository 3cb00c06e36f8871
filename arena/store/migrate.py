"""Schema migrations run from code, so an installed package needs no alembic.ini.

The Alembic config is built here with ``script_location`` inside the package and the URL in
``config.attributes`` (not the ini's ``sqlalchemy.url``, whose ``%`` interpolation would mangle
URL-encoded passwords).
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import URL

from arena.store.db import engine_for, normalise_url

MIGRATIONS = Path(__file__).resolve().parent / "migrations"


def alembic_config(url: str | URL) -> Config:
    """An Alembic Config for ``url``; also usable for ``command.revision`` in development."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["url"] = normalise_url(url) if isinstance(url, str) else url
    return config


def upgrade(url: str | URL, revision: str = "head") -> None:
    """Bring the database at ``url`` to ``revision`` (``alembic upgrade head``)."""
    command.upgrade(alembic_config(url), revision)


def downgrade(url: str | URL, revision: str) -> None:
    command.downgrade(alembic_config(url), revision)


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
