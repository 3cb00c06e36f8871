"""Every job carries the identity of the database it was sent for; a worker on another
database refuses it.

A worker pointed at the wrong database (a local Postgres, a staging copy, a SQLite file)
would take jobs whose match ids name other matches there, or none, and swallow them. So the
sender stamps each job's headers with its database's identity (``arena.store.identity``,
drawn once when the schema was created): ``sending_for(db)`` around the sends of a follower,
the dashboard and a validation; inside a job, what the job sends carries the identity its
worker checked. The app's task class, ``DatabaseBoundTask``, compares the stamp with its
worker's own database before running anything:

- equal (or no stamp: a job from an earlier version, or from a sender that could not read
  its database): the job runs;
- different: the job does not run. The worker logs an error naming both databases and what
  to fix, pauses (``REFUSED_WAIT_S``) and sends the job back to its queue for a worker on the
  right database. After ``MAX_REFUSALS`` refusals (some ten minutes of no right worker
  taking it) the job is dropped, logged again: its match is untouched, still claimable in
  its own database, whose recovery sends it again.

The worker reads its own identity once (``arena worker`` does, before its pool forks) and
again, fresh, before refusing: a database created again since keeps working.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

from celery import Task
from celery.signals import before_task_publish
from sqlalchemy.exc import DBAPIError

from arena.store import Database
from arena.store.identity import database_identity

HEADER = "arena_database"  # the identity of the database a job was sent for
REFUSALS = "arena_refusals"  # how many workers on other databases sent it back
REFUSED_WAIT_S = 10.0
MAX_REFUSALS = 60

log = logging.getLogger(__name__)
_stamp: ContextVar[str | None] = ContextVar("arena_database_stamp", default=None)
_own: str | None = None  # this worker's database identity, once read


def identity_of(db: Database) -> str:
    """The identity of ``db`` (one small read)."""
    with db.session() as s:
        return database_identity(s)


@contextlib.contextmanager
def stamping(identity: str | None) -> Iterator[None]:
    """Jobs sent inside carry ``identity`` (nothing when None)."""
    token = _stamp.set(identity)
    try:
        yield
    finally:
        _stamp.reset(token)


@contextlib.contextmanager
def sending_for(db: Database) -> Iterator[None]:
    """Jobs sent inside carry ``db``'s identity, read now (a database away: none, and the
    workers run them unchecked rather than not at all)."""
    try:
        identity: str | None = identity_of(db)
    except DBAPIError as exc:
        log.warning("cannot read the database's identity (%s): jobs sent unstamped", exc.orig)
        identity = None
    with stamping(identity):
        yield


@before_task_publish.connect
def _stamp_job(headers: dict[str, Any] | None = None, **_kwargs: Any) -> None:
    """A job sent again (a retry, a refusal) keeps the stamp it had."""
    identity = _stamp.get()
    if headers is not None and identity is not None:
        headers.setdefault(HEADER, identity)


def serve(identity: str | None) -> None:
    """This worker's database identity, read before its pool forks (None: read it again)."""
    global _own
    _own = identity


def own_identity(fresh: bool = False) -> str:
    """This worker's database identity (read once; again when ``fresh``)."""
    global _own
    if fresh or _own is None:
        from workers.tasks import context  # the worker's database: tasks imports this module

        db, _ = context()
        _own = identity_of(db)
    return _own


def _where() -> str:
    from workers.tasks import context

    db, _ = context()
    return db.url.render_as_string(hide_password=True)


class DatabaseBoundTask(Task):
    """The app's task class: a job stamped for another database is refused (see above);
    what a job sends carries the identity it was checked against."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.request.called_directly:  # a plain function call (tests), not a job
            return super().__call__(*args, **kwargs)
        headers = dict(self.request.headers or {})
        sent_for = headers.get(HEADER)
        try:
            mine: str | None = own_identity()
            if sent_for is not None and sent_for != mine:
                mine = own_identity(fresh=True)  # the database may have been made anew
        except DBAPIError as exc:
            if sent_for is not None:  # cannot tell now: the job goes back, unrefused
                log.warning(
                    "job %s (%s): cannot read this worker's database identity (%s); "
                    "trying again in %.0f s",
                    self.request.id,
                    self.name,
                    exc.orig,
                    REFUSED_WAIT_S,
                )
                raise self.retry(countdown=REFUSED_WAIT_S) from None
            mine = None  # an unstamped job runs as it would have
        if sent_for is not None and sent_for != mine:
            return self._refuse(headers, sent_for, mine)
        with stamping(mine):
            return super().__call__(*args, **kwargs)

    def _refuse(self, headers: dict[str, Any], sent_for: str, mine: str | None) -> str:
        refusals = int(headers.get(REFUSALS, 0)) + 1
        job = f"job {self.request.id} ({self.name} {list(self.request.args or ())})"
        if refusals > MAX_REFUSALS:
            log.error(
                "DROPPED %s: sent for database %s, refused %d times by workers on other "
                "databases; its match is untouched there and is sent again by that cluster's "
                "recovery",
                job,
                sent_for,
                refusals - 1,
            )
            return "dropped: sent for another database"
        log.error(
            "REFUSED %s: it was sent for database %s, but this worker is on database %s (%s). "
            "Set ARENA_DATABASE_URL to the database the platform uses (the dashboard's and "
            "the other workers'). The job goes back to its queue for a worker on its "
            "database (refusal %d of at most %d).",
            job,
            sent_for,
            mine,
            _where(),
            refusals,
            MAX_REFUSALS,
        )
        resent: dict[str, Any] = {**headers, REFUSALS: refusals}
        # The pause here, then back to the end of the queue due at once: a countdown kept the
        # job in this worker (Celery holds a job not yet due in the worker that took it, and
        # raises its prefetch for it), so a worker on the wrong database hoarded the jobs and
        # the right workers waited minutes for them.
        time.sleep(REFUSED_WAIT_S)
        raise self.retry(countdown=0, headers=resent)
