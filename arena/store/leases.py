"""Leases on rows of work: matches (``arena.store.matches``) and match analyses
(``arena.store.analyses``) are taken by workers the same way, waiting → running (under a
lease) → done or failed.

A claim writes the worker, a fresh attempt token and a lease expiry. A row can be claimed
while it waits, or when its lease has expired (its worker was lost); a running row renews
its lease, and only the holder of the current token may finish it or give it back. After
``max_attempts`` claims a row whose worker keeps vanishing ends ``failed`` with the reason.

State changes are single ``UPDATE ... WHERE`` statements: the database decides which of two
racing workers wins, and the loser sees ``rowcount == 0``. Lease times come from the
workers' clocks (UTC), so keep them in sync (NTP) to well within a lease.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, and_, or_, select, update
from sqlalchemy.orm import Session

from arena.store.db import Database, rowcount
from arena.store.errors import StoreError
from arena.store.models import utcnow

MAX_REASON = 2000


@dataclass(frozen=True)
class Leased:
    """A table whose rows workers claim. ``model`` has the columns ``id``, ``status``,
    ``attempts``, ``worker``, ``attempt_token``, ``lease_expires_at``, ``started_at``,
    ``finished_at`` and ``reason``; ``waiting`` is a row's status before it is claimed;
    ``noun`` names a row in messages."""

    model: Any
    waiting: str
    noun: str

    def claimable(self, now: datetime) -> ColumnElement[bool]:
        """Waiting, or running under a lease that has run out."""
        m = self.model
        expired = and_(m.status == "running", m.lease_expires_at < now)
        return or_(m.status == self.waiting, expired)

    def held(self, row_id: int, token: str) -> ColumnElement[bool]:
        """``token`` is the row's current attempt."""
        m = self.model
        return and_(m.id == row_id, m.status == "running", m.attempt_token == token)

    def get(self, s: Session, row_id: int) -> Any:
        row = s.get(self.model, row_id)
        if row is None:
            raise StoreError(f"no {self.noun} with id {row_id}")
        return row


def claim(
    s: Session,
    table: Leased,
    row_id: int,
    worker: str,
    now: datetime,
    lease_s: float,
    max_attempts: int,
) -> tuple[str, int] | None:
    """Take the row for ``worker``: the attempt's token and number; None if it is done,
    failed, leased to someone else or out of attempts (see ``give_up_if_exhausted``)."""
    m = table.model
    token = secrets.token_hex(16)
    claimed = s.execute(
        update(m)
        .where(m.id == row_id, table.claimable(now), m.attempts < max_attempts)
        .execution_options(synchronize_session="fetch")  # no naive/aware compare in Python
        .values(
            status="running",
            attempts=m.attempts + 1,
            worker=worker[:128],
            attempt_token=token,
            lease_expires_at=now + timedelta(seconds=lease_s),
            started_at=now,
        )
    )
    if rowcount(claimed) != 1:
        return None
    return token, s.execute(select(m.attempts).where(m.id == row_id)).scalar_one()


def give_up_if_exhausted(
    s: Session, table: Leased, row_id: int, now: datetime, max_attempts: int
) -> bool:
    """A claimable row whose attempts are used up ends failed, with the reason; whether this
    call failed it (raises for an unknown id)."""
    m = table.model
    row = table.get(s, row_id)
    lost = f"; the last one ({row.worker}) stopped reporting" if row.status == "running" else ""
    reason = row.reason or f"gave up after {row.attempts} attempts{lost}"
    failed = s.execute(
        update(m)
        .where(m.id == row_id, table.claimable(now), m.attempts >= max_attempts)
        .execution_options(synchronize_session="fetch")
        .values(status="failed", reason=reason[:MAX_REASON], finished_at=now, attempt_token=None)
    )
    return rowcount(failed) == 1


def renew(s: Session, table: Leased, row_id: int, token: str, lease_s: float) -> bool:
    """Push the lease's expiry on; False when the attempt is no longer the current one."""
    m = table.model
    renewed = s.execute(
        update(m)
        .where(table.held(row_id, token))
        .values(lease_expires_at=utcnow() + timedelta(seconds=lease_s))
    )
    return rowcount(renewed) == 1


@contextmanager
def repeating(step: Callable[[], bool], every_s: float, name: str) -> Iterator[None]:
    """Call ``step`` every ``every_s`` seconds in a thread while the block runs, until it
    returns True (a lease kept alive, a stop watched for). A step that fails (the database
    away for a moment) is tried again."""
    done = threading.Event()

    def loop() -> None:
        while not done.wait(every_s):
            try:
                if step():
                    return
            except Exception:
                continue

    thread = threading.Thread(target=loop, name=name, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()


@contextmanager
def kept(db: Database, table: Leased, row_id: int, token: str, lease_s: float) -> Iterator[None]:
    """Renew the lease every third of its length while the block runs (until it is lost:
    whatever the attempt then stores is refused)."""

    def renewed_or_lost() -> bool:
        with db.session() as s:
            return not renew(s, table, row_id, token, lease_s)

    with repeating(renewed_or_lost, lease_s / 3, f"lease-{table.noun}-{row_id}"):
        yield
