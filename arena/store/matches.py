"""The life of a match row: pending → running (under a lease) → done or failed.

Matches are leased as ``arena.store.leases`` describes (a claim, a lease renewed while the
match is played, only the current attempt's token records the result or gives the match
back). After ``max_attempts`` claims a match whose worker keeps vanishing ends ``failed``
with the reason, and ``retry_failed`` puts it back.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import ColumnElement, delete, func, select, update
from sqlalchemy.orm import Session

from arena.config import DEFAULT_LEASE_S, DEFAULT_MAX_ATTEMPTS
from arena.store import leases
from arena.store.db import rowcount
from arena.store.errors import StoreError
from arena.store.leases import MAX_REASON, Leased
from arena.store.models import MATCH_STATUSES, LiveRecord, Match, utcnow

MATCHES = Leased(Match, "pending", "match")


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


def claimable(now: datetime) -> ColumnElement[bool]:
    """Pending, or running under a lease that has run out."""
    return MATCHES.claimable(now)


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
    taken = leases.claim(s, MATCHES, match_id, worker, now, lease_s, max_attempts)
    if taken is not None:
        return Lease(match_id, taken[0], worker[:128], taken[1])
    if leases.give_up_if_exhausted(s, MATCHES, match_id, now, max_attempts):
        drop_live_record(s, match_id)
    return None


def renew_lease(s: Session, lease: Lease, lease_s: float = DEFAULT_LEASE_S) -> bool:
    """Push the lease's expiry on; False when the attempt is no longer the current one."""
    return leases.renew(s, MATCHES, lease.match_id, lease.token, lease_s)


def held(lease: Lease) -> ColumnElement[bool]:
    """``lease`` is the match's current attempt."""
    return MATCHES.held(lease.match_id, lease.token)


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


def end_leases_of(s: Session, holders: list[str]) -> list[int]:
    """Let the running matches of these lease holders (processes known to be dead) be claimed
    again now rather than once their leases run out; their ids."""
    if not holders:
        return []
    query = (
        update(Match)
        .where(Match.status == "running", Match.worker.in_(holders))
        .values(lease_expires_at=utcnow())
        .returning(Match.id)
        .execution_options(synchronize_session=False)
    )
    return list(s.scalars(query))


def lease_holders(s: Session, prefix: str) -> list[str]:
    """The holders of running matches' leases whose names start with ``prefix``."""
    query = select(Match.worker).where(Match.status == "running", Match.worker.startswith(prefix))
    return sorted({w for w in s.scalars(query) if w})


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
