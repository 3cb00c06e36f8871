"""The readiness checks: the database answers, its schema is the code's newest migration, the
broker answers and takes us. Each gives one short line; all run at once and the whole answer
comes within ``DEADLINE_S`` whatever the peers do (``deadline``).

The database is asked on a connection of its own (``DatabaseProbe``: no pool, a 2-s connect
timeout and statement timeout), never on the service's pool, whose connections wait 10 s
for a server (``arena.store.db``) and whose threads must not queue behind a probe.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, create_engine, text
from sqlalchemy.engine import URL
from sqlalchemy.pool import NullPool

from arena.ops.broker import CHECK_TIMEOUT_S, one_line, ping
from arena.ops.deadline import all_within
from arena.store.db import normalise_url
from arena.store.migrate import alembic_config

DEADLINE_S = 2.5  # the most a readiness answer takes, the checks running at once
UPGRADE = "run `arena db upgrade`"


@dataclass(frozen=True)
class Check:
    """One thing a service needs, whether it has it, and why not in one line."""

    name: str
    ok: bool
    detail: str


@dataclass(frozen=True)
class Readiness:
    """The checks of one readiness question, in the order asked."""

    checks: tuple[Check, ...]

    @property
    def ok(self) -> bool:
        return all(check.ok for check in self.checks)

    def failures(self) -> list[str]:
        return [f"{check.name}: {check.detail}" for check in self.checks if not check.ok]

    def to_dict(self) -> dict[str, Any]:
        """The JSON of ``/readyz``: the status, then each check's verdict and line."""
        return {
            "status": "ok" if self.ok else "unavailable",
            "checks": {c.name: {"ok": c.ok, "detail": c.detail} for c in self.checks},
            **({} if self.ok else {"failed": self.failures()}),
        }


class DatabaseProbe:
    """Short connections of its own to the database at ``url``, for checks and the numbers
    of ``/metrics``: no pool (nothing held between probes, nothing crosses a fork), and each
    connection gives up after ``timeout_s`` connecting and after ``timeout_s`` per
    statement (Postgres)."""

    def __init__(self, url: str | URL, timeout_s: float = CHECK_TIMEOUT_S) -> None:
        self.url = normalise_url(url) if isinstance(url, str) else url
        self.timeout_s = timeout_s
        self.postgres = self.url.get_backend_name() == "postgresql"
        # libpq counts whole seconds, and takes less than 2 as 2
        connect_args: dict[str, Any] = (
            {"connect_timeout": max(2, math.ceil(timeout_s))}
            if self.postgres
            else {"timeout": timeout_s}
        )
        self.engine = create_engine(self.url, poolclass=NullPool, connect_args=connect_args)

    def where(self) -> str:
        return self.url.render_as_string(hide_password=True)

    @contextmanager
    def connection(self) -> Iterator[Connection]:
        """A connection whose statements time out (a SQLite file that does not exist is
        refused here rather than created empty by the probe)."""
        database = self.url.database or ""
        a_file = not self.postgres and database not in ("", ":memory:")
        if a_file and not database.startswith("file:") and not Path(database).exists():
            raise FileNotFoundError(f"no database file at {database}")
        with self.engine.connect() as conn:
            if self.postgres:
                conn.execute(text(f"SET statement_timeout = {round(self.timeout_s * 1000)}"))
            yield conn

    def dispose(self) -> None:
        self.engine.dispose()


@functools.cache
def head_revision() -> str | None:
    """The newest migration of this code (its files do not change while a process runs)."""
    return _scripts().get_current_head()


@functools.cache
def _known_revisions() -> frozenset[str]:
    return frozenset(script.revision for script in _scripts().walk_revisions())


def _scripts() -> ScriptDirectory:
    # the URL only fills the config; the scripts are the package's own
    return ScriptDirectory.from_config(alembic_config("sqlite://"))


def database_checks(probe: DatabaseProbe) -> list[Check]:
    """``database``: it answers a query; ``migrations``: its schema is at this code's
    newest revision. One connection for both."""
    try:
        with probe.connection() as conn:
            conn.execute(text("SELECT 1"))
            found = MigrationContext.configure(conn).get_current_revision()
    except Exception as exc:  # refused, timed out, a bad password, no file: the same verdict
        why = one_line(getattr(exc, "orig", None) or exc).removeprefix("connection failed: ")
        return [
            Check("database", False, why),
            Check("migrations", False, "not checked: the database does not answer"),
        ]
    return [Check("database", True, "answers"), migrations_check(found)]


def migrations_check(found: str | None) -> Check:
    """Whether a database at revision ``found`` is at this code's newest."""
    head = head_revision()
    if found == head:
        return Check("migrations", True, f"at {head}")
    if found is None:
        why = f"the database has no schema (this code's newest is {head}): {UPGRADE}"
        return Check("migrations", False, why)
    if found not in _known_revisions():
        return Check(
            "migrations",
            False,
            f"the database is at {found}, newer than this code ({head}): update this service",
        )
    why = f"the database is at {found}, this code at {head}: {UPGRADE}"
    return Check("migrations", False, why)


def broker_check(url: str, timeout_s: float = CHECK_TIMEOUT_S) -> list[Check]:
    """``broker``: it answers a ping and takes our credentials."""
    answer = ping(url, timeout_s)
    if answer.ok:
        return [Check("broker", True, "answers")]
    return [Check("broker", False, f"{answer.kind}: {answer.detail}")]


Question = tuple[Sequence[str], Callable[[], list[Check]]]


def ask(questions: Sequence[Question], deadline_s: float = DEADLINE_S) -> Readiness:
    """Every question at once, each naming the checks it answers (so an unanswered one
    still says which checks it stood for); all answered within ``deadline_s``."""
    works = [_safe(names, work) for names, work in questions]
    answers = all_within(deadline_s, works)
    checks: list[Check] = []
    for (names, _), answer in zip(questions, answers, strict=True):
        if answer is None:
            checks += [Check(name, False, f"no answer within {deadline_s:g} s") for name in names]
        else:
            checks += answer
    return Readiness(tuple(checks))


def _safe(names: Sequence[str], work: Callable[[], list[Check]]) -> Callable[[], list[Check]]:
    """``work`` whose unexpected failure is its checks' verdict, not a lost thread."""

    def run() -> list[Check]:
        try:
            return work()
        except Exception as exc:
            return [Check(name, False, one_line(exc)) for name in names]

    return run


def service_readiness(
    probe: DatabaseProbe, broker_url: str | None, migrations: bool = True
) -> Readiness:
    """The readiness of a service on ``probe``'s database and, when it has one, the broker
    at ``broker_url``: the dashboard's (``migrations``: the schema is checked too)."""
    names = ("database", "migrations") if migrations else ("database",)

    def database() -> list[Check]:
        return [c for c in database_checks(probe) if c.name in names]

    questions: list[Question] = [(names, database)]
    if broker_url is not None:
        questions.append((("broker",), lambda: broker_check(broker_url)))
    return ask(questions)
