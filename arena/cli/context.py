"""What the data commands share: the configured database, the bot runtime, error handling."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import click
from sqlalchemy.exc import InterfaceError, OperationalError

from arena.bots.package import PackageError
from arena.config import Settings
from arena.ladders.entrants import ensure_ladder
from arena.runtime import Runtime
from arena.sandbox import SandboxError
from arena.store import Database, StoreError, normalise_url, upgrade
from arena.store.db import connection_problem
from arena.store.migrate import is_up_to_date

USER_ERRORS = (StoreError, PackageError, SandboxError, ValueError)


UNSANDBOXED = "arena.unsafe_no_sandbox"


def _allow_unsandboxed(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value:
        ctx.meta[UNSANDBOXED] = True  # read by settings(), for this command only


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


def settings() -> Settings:
    """This command's settings: the environment's, and ``--unsafe-no-sandbox`` when given.
    Processes it starts get them through ``Runtime`` (pickled) or ``Settings.environment``."""
    configured = Settings.from_env()
    context = click.get_current_context(silent=True)
    if context is not None and context.meta.get(UNSANDBOXED):
        return configured.without_sandbox()
    return configured


def runtime_and_db() -> tuple[Runtime, Database]:
    configured = settings()
    return Runtime(configured), open_database(configured)


def with_ladder(db: Database) -> Database:
    """``db`` with the default ladder opened: the commands that show or play ladders (and
    ``arena db upgrade``) open it on first use, so a fresh machine's first tournament is
    still tournament 1."""
    ensure_ladder(db)
    return db


@contextlib.contextmanager
def user_errors() -> Iterator[None]:
    """Turn the errors a user can cause into a one-line message and exit status 1."""
    try:
        yield
    except USER_ERRORS as exc:
        raise click.ClickException(str(exc)) from None
    except (OperationalError, InterfaceError) as exc:  # unreachable or missing database
        url = normalise_url(settings().database_url)
        raise click.ClickException(str(connection_problem(exc, url))) from None
