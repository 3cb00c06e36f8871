"""What the data commands share: the configured database, the bot runtime, error handling."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

import click
from sqlalchemy.exc import InterfaceError, OperationalError

from arena.bots.package import PackageError
from arena.config import Settings
from arena.runtime import Runtime
from arena.sandbox import SandboxError
from arena.store import Database, StoreError, normalise_url, upgrade
from arena.store.db import connection_problem
from arena.store.migrate import is_up_to_date

USER_ERRORS = (StoreError, PackageError, SandboxError, ValueError)


def _allow_unsandboxed(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value:  # through the environment, so that worker processes inherit it
        os.environ["ARENA_SANDBOX_MODE"] = "rlimits"


unsafe_no_sandbox = click.option(
    "--unsafe-no-sandbox",
    is_flag=True,
    expose_value=False,
    callback=_allow_unsandboxed,
    help="Run bots WITHOUT the bwrap sandbox (rlimits only; results are marked). "
    "Without it, a machine with no usable bwrap refuses to run bots.",
)


def open_database(settings: Settings) -> Database:
    """The configured database; the embedded SQLite file is created and migrated on demand."""
    db = Database(settings.database_url)
    if not is_up_to_date(db.url):
        if db.url.get_backend_name() != "sqlite":
            where = db.url.render_as_string()
            raise click.ClickException(
                f"the database at {where} is not up to date: run `arena db upgrade`"
            )
        upgrade(db.url)
    return db


def runtime_and_db() -> tuple[Runtime, Database]:
    settings = Settings.from_env()
    return Runtime(settings), open_database(settings)


@contextlib.contextmanager
def user_errors() -> Iterator[None]:
    """Turn the errors a user can cause into a one-line message and exit status 1."""
    try:
        yield
    except USER_ERRORS as exc:
        raise click.ClickException(str(exc)) from None
    except (OperationalError, InterfaceError) as exc:  # unreachable or missing database
        url = normalise_url(Settings.from_env().database_url)
        raise click.ClickException(str(connection_problem(exc, url))) from None
