"""Helpers shared by the test folders; the shared fixtures are in ``tests/conftest.py``.

The rule for real services and tools (Postgres, Redis, bwrap, cgroups, a browser): a test
that needs one that is missing is skipped locally with the reason, and fails under
``CI=true``, where everything must run.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.engine import URL

from arena.sandbox import SandboxPolicy

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_BOTS = ROOT / "sample_bots"
HOSTILE_BOTS = ROOT / "tests" / "hostile_bots"

PG_URL = os.environ.get(
    "ARENA_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
BACKENDS = ("sqlite", "postgres")
#: The sandbox of the platform's tests: bwrap, and a short grace before a stopped bot is killed.
POLICY = SandboxPolicy(mode="bwrap", stop_grace_seconds=0.5)


def hostile_program(name: str) -> Path:
    """A hostile program that the sandbox tests run alone (not a bot package), by its file
    name: ``tests/hostile_bots/<stem>/<name>`` (beside the bot package of the same attack,
    if there is one, whose bot.py imports it)."""
    return HOSTILE_BOTS / Path(name).stem / name


LITERAL = "'" * 3  # opens and closes a TOML literal string


def bot_with_build(folder: Path, script: str, *, runtime: str = "") -> Path:
    """The random sample bot in ``folder``, its manifest's ``build`` the shell ``script``."""
    folder.mkdir(parents=True)
    shutil.copy(SAMPLE_BOTS / "random" / "bot.py", folder / "bot.py")
    lines = ['name = "builder"', 'version = "1.0.0"', 'command = ["python3", "bot.py"]']
    lines.append(f"build = ['sh', '-c', {LITERAL}{script}{LITERAL}]")  # TOML literal: no escapes
    if runtime:
        lines.append(f'runtime = "{runtime}"')
    (folder / "bot.toml").write_text("\n".join(lines) + "\n")
    return folder


def bot_built_from_source(folder: Path) -> Path:
    """A bot whose upload has no bot.py: its build makes it, so only a built folder plays."""
    bot = bot_with_build(folder, "echo generating; cp source.py bot.py")
    (bot / "bot.py").rename(bot / "source.py")
    return bot


def arena_command() -> list[str]:
    """The ``arena`` command of this Python (its script, or ``python -m arena``)."""
    script = Path(sys.executable).with_name("arena")
    return [str(script)] if script.exists() else [sys.executable, "-m", "arena"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def need(ok: bool, reason: str) -> None:
    """Skip when a real service or tool is missing locally; fail instead under CI=true."""
    if ok:
        return
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"required in CI: {reason}")
    pytest.skip(reason)


def need_sandbox(policy) -> None:
    """Skip (fail under CI=true) when the bwrap sandbox cannot run bots here."""
    from arena.sandbox import SandboxUnavailable, resolve_mode

    try:
        resolve_mode(policy)
    except SandboxUnavailable as exc:
        need(False, f"bwrap sandbox unusable here: {exc}")


def need_cgroups(policy) -> None:
    """Skip (fail under CI=true) when bots get no memory and pids cgroup of their own here."""
    from arena.sandbox.cgroups import hierarchies

    found = os.geteuid() == 0 and hierarchies(policy) is not None
    need(found, "per-bot cgroups need root and a cgroup v1 or v2 fs with memory and pids")


# --------------------------------------------------------------------------- databases


#: Marks a test above the store whose subject is the database's behaviour (concurrent
#: writers, locking, a dialect's SQL): its ``db`` is made on SQLite and on Postgres. Every
#: other test above the store runs on SQLite only; every database test of tests/store on both.
both_databases = pytest.mark.databases(*BACKENDS)

#: The same for a test about Postgres alone (its ``db`` is a Postgres database).
on_postgres = pytest.mark.databases("postgres")


def _postgres_problem(url: URL) -> str | None:
    from arena.store import engine_for

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
    from arena.store import engine_for, normalise_url

    base = normalise_url(PG_URL)
    error = _postgres_problem(base)
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


class Emptier:
    """Empties every table of a migrated Postgres schema and restarts its id sequences, as a
    fresh migration would leave it: one round trip on a kept connection pool (DELETE is much
    cheaper than TRUNCATE on tables this small)."""

    def __init__(self, url: URL) -> None:
        from arena.store import Base, engine_for

        self.engine = engine_for(url)
        with self.engine.connect() as conn:
            sequences = conn.scalars(
                text("SELECT sequencename FROM pg_sequences WHERE schemaname = current_schema()")
            ).all()
        deletes = [f"DELETE FROM {t.name}" for t in reversed(Base.metadata.sorted_tables)]
        restarts = [f"ALTER SEQUENCE {name} RESTART" for name in sequences]
        self.statement = text("; ".join(deletes + restarts))

    def __call__(self) -> None:
        with self.engine.begin() as conn:
            conn.execute(self.statement)

    def dispose(self) -> None:
        self.engine.dispose()


def fresh_database(request: pytest.FixtureRequest, backend: str, folder: Path) -> URL:
    """A migrated, empty database on ``backend`` for one test: a copy of the session's
    migrated SQLite file in ``folder``, or the session's migrated Postgres schema emptied."""
    from arena.store import normalise_url

    if backend == "sqlite":
        path = folder / "arena.db"
        shutil.copy(request.getfixturevalue("sqlite_template"), path)
        return normalise_url(f"sqlite:///{path}")
    if backend != "postgres":
        raise ValueError(f"unknown database backend {backend!r}")
    request.getfixturevalue("pg_emptier")()
    return request.getfixturevalue("pg_url")
