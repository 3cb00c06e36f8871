"""The life of a match row: pending → running (under a lease) → done or failed.

A claim writes the worker, a fresh attempt token and a lease expiry. A match can be claimed
when it is pending or when its lease has expired (its worker was lost); a running match
renews its lease, and only the holder of the current token may record the result or give
the match back. After ``max_attempts`` claims a match whose worker keeps vanishing ends
``failed`` with the reason, and ``retry_failed`` puts it back.

State changes are single ``UPDATE ... WHERE`` statements: the database decides which of two
racing workers wins, and the loser sees ``rowcount == 0``. Lease times come from the
workers' clocks (UTC), so keep them in sync (NTP) to well within a lease.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import and_, delete, func, or_, select, update
from sqlalchemy.orm import Session

from arena.config import DEFAULT_LEASE_S, DEFAULT_MAX_ATTEMPTS
from arena.store.db import rowcount
from arena.store.errors import StoreError
from arena.store.models import MATCH_STATUSES, LiveRecord, Match, utcnow

MAX_REASON = 2000


@dataclass(frozen=True)
class Lease:
    """The right to play one attempt of a match and to record its result."""

    match_id: int
    token: str
    worker: str
    attempt: int


def get_match(s: Session, match_id: int) -> Match:
    match = s.get(Match, match_id)
    if match is None:
        raise StoreError(f"no match with id {match_id}")
    return match


def claimable(now: datetime):
    """Pending, or running under a lease that has run out."""
    expired = and_(Match.status == "running", Match.lease_expires_at < now)
    return or_(Match.status == "pending", expired)


def claimable_matches(s: Session, tournament_id: int) -> list[int]:
    """Ids of the matches a worker could claim now, by table index."""
    query = (
        select(Match.id)
        .where(Match.tournament_id == tournament_id, claimable(utcnow()))
        .order_by(Match.table_index)
    )
    return list(s.scalars(query))


def pending_matches(s: Session, tournament_id: int) -> list[Match]:
    """Matches never claimed or given back, by table index."""
    query = (
        select(Match)
        .where(Match.tournament_id == tournament_id, Match.status == "pending")
        .order_by(Match.table_index)
    )
    return list(s.scalars(query))


def claim_match(
    s: Session,
    match_id: int,
    worker: str,
    lease_s: float = DEFAULT_LEASE_S,
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
) -> Lease | None:
    """Take the match for ``worker``; None if it is done, failed or leased to someone else.

    Taking a match over from a lost worker counts an attempt; when the attempts are used
    up the match ends ``failed`` instead of being claimed again.
    """
    now = utcnow()
    token = secrets.token_hex(16)
    claimed = s.execute(
        update(Match)
        .where(Match.id == match_id, claimable(now), Match.attempts < max_attempts)
        .execution_options(synchronize_session="fetch")  # no naive/aware compare in Python
        .values(
            status="running",
            attempts=Match.attempts + 1,
            worker=worker[:128],
            attempt_token=token,
            lease_expires_at=now + timedelta(seconds=lease_s),
            started_at=now,
        )
    )
    if rowcount(claimed) == 1:
        attempts = s.execute(select(Match.attempts).where(Match.id == match_id)).scalar_one()
        return Lease(match_id, token, worker[:128], attempts)
    _give_up_if_exhausted(s, match_id, now, max_attempts)
    return None


def _give_up_if_exhausted(s: Session, match_id: int, now: datetime, max_attempts: int) -> None:
    """A claimable match whose attempts are used up ends failed, with the reason."""
    match = get_match(s, match_id)  # raises for an unknown id
    lost = f"; the last one ({match.worker}) stopped reporting" if match.status == "running" else ""
    reason = match.reason or f"gave up after {match.attempts} attempts{lost}"
    failed = s.execute(
        update(Match)
        .where(Match.id == match_id, claimable(now), Match.attempts >= max_attempts)
        .execution_options(synchronize_session="fetch")
        .values(status="failed", reason=reason[:MAX_REASON], finished_at=now, attempt_token=None)
    )
    if rowcount(failed) == 1:
        drop_live_record(s, match_id)


def renew_lease(s: Session, lease: Lease, lease_s: float = DEFAULT_LEASE_S) -> bool:
    """Push the lease's expiry on; False when the attempt is no longer the current one."""
    renewed = s.execute(
        update(Match)
        .where(held(lease))
        .values(lease_expires_at=utcnow() + timedelta(seconds=lease_s))
    )
    return rowcount(renewed) == 1


def held(lease: Lease):
    """``lease`` is the match's current attempt."""
    return and_(
        Match.id == lease.match_id, Match.status == "running", Match.attempt_token == lease.token
    )


def release_match(
    s: Session,
    lease: Lease,
    reason: str,
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
    interrupted: bool = False,
    outage: bool = False,
) -> str | None:
    """Give the match back: ``pending`` for another attempt, or ``failed`` with ``reason``
    once the attempts are used up; None if the lease was lost meanwhile. An ``interrupted``
    attempt (stopped by the operator) is not counted, and the match counts as never sent;
    nor is one cut short by a database ``outage`` (its job is tried again)."""
    uncounted = interrupted or outage
    status = "failed" if lease.attempt >= max_attempts and not uncounted else "pending"
    released = s.execute(
        update(Match)
        .where(held(lease))
        .values(
            status=status,
            reason=None if interrupted else reason[:MAX_REASON],
            attempts=Match.attempts - 1 if uncounted else Match.attempts,
            # an interrupted job is gone from the queue: the next send must include it
            queued_at=None if interrupted else Match.queued_at,
            attempt_token=None,
            lease_expires_at=None,
            finished_at=utcnow() if status == "failed" else None,
        )
    )
    if rowcount(released) == 0:
        return None
    drop_live_record(s, lease.match_id)
    return status


def drop_live_record(s: Session, match_id: int) -> None:
    """Forget what a match had played so far: it is done, given back or failed."""
    s.execute(delete(LiveRecord).where(LiveRecord.match_id == match_id))


def count_late_result(s: Session, match_id: int) -> None:
    """A result arrived from an attempt that is no longer current: count it, store nothing."""
    s.execute(update(Match).where(Match.id == match_id).values(late_results=Match.late_results + 1))


def mark_failed(s: Session, match_id: int, reason: str) -> bool:
    """Give up on a match (``reason`` is kept); never overwrites a finished one."""
    failed = s.execute(
        update(Match)
        .where(Match.id == match_id, Match.status != "done")
        .values(
            status="failed", reason=reason[:MAX_REASON], finished_at=utcnow(), attempt_token=None
        )
    )
    if rowcount(failed) == 0:
        get_match(s, match_id)  # raises for an unknown id
        return False
    drop_live_record(s, match_id)
    return True


def retry_failed(s: Session, tournament_id: int) -> int:
    """Put failed matches back to pending with a fresh set of attempts; returns how many."""
    retried = s.execute(
        update(Match)
        .where(Match.tournament_id == tournament_id, Match.status == "failed")
        .values(status="pending", worker=None, attempts=0, finished_at=None)
    )
    return rowcount(retried)


def progress(s: Session, tournament_id: int) -> dict[str, int]:
    """Number of matches in each status (every status present, zero if none)."""
    counts = dict.fromkeys(MATCH_STATUSES, 0)
    query = (
        select(Match.status, func.count())
        .where(Match.tournament_id == tournament_id)
        .group_by(Match.status)
    )
    for status, count in s.execute(query):
        counts[status] = count
    return counts


def unsandboxed_count(s: Session, tournament_id: int) -> int:
    """Finished matches of the tournament in which a bot ran without the bwrap sandbox."""
    query = select(func.count()).where(
        Match.tournament_id == tournament_id, Match.unsandboxed.is_(True)
    )
    return s.scalar(query) or 0
