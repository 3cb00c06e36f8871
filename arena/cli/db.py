"""``arena db``: database schema management."""

from __future__ import annotations

import click

from arena.cli.context import user_errors
from arena.config import Settings
from arena.store import normalise_url, upgrade


@click.group()
def db() -> None:
    """Manage the database (ARENA_DATABASE_URL; default: arena.db here)."""


@db.command("upgrade")
def upgrade_command() -> None:
    """Apply every migration not yet applied."""
    with user_errors():
        url = normalise_url(Settings.from_env().database_url)
        upgrade(url)
    click.echo(f"database {url.render_as_string()} is up to date")
