"""``arena db``: database schema management."""

from __future__ import annotations

import click

from arena.cli.context import user_errors
from arena.config import Settings
from arena.ladders.entrants import ensure_ladder
from arena.store import Database, normalise_url, upgrade


@click.group()
def db() -> None:
    """Manage the database (ARENA_DATABASE_URL; default: arena.db here)."""


@db.command("upgrade")
def upgrade_command() -> None:
    """Apply every migration not yet applied, and open the default (pagat) ladder if there
    is none. Runs at once wait for each other (a lock in the database); the later ones find
    nothing to do."""
    with user_errors():
        url = normalise_url(Settings.from_env().database_url)
        where = url.render_as_string()

        def waiting() -> None:
            click.echo(f"database {where}: another upgrade is running; waiting for it")

        before, after = upgrade(url, on_wait=waiting)
        ensure_ladder(Database(url))
    change = "nothing to do" if before == after else f"upgraded from {before or 'empty'}"
    click.echo(f"database {where} is up to date ({after}; {change})")
