"""The life of a match analysis row: queued → running (under a lease) → done or failed.

An analysis is leased as a match is (``arena.store.leases``): a worker claims it, renews
its lease while the master works, and stores the result with the lease's token in one
conditional ``UPDATE``, so a worker that lost its lease (killed, cut off) and carries on
never stores a second result over the first. One row per (match, entrant, samples, seed):
a second request for the same finds the first.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from arena.config import DEFAULT_LEASE_S, DEFAULT_MAX_ATTEMPTS
from arena.store import leases
from arena.store.db import rowcount
from arena.store.leases import MAX_REASON, Leased
from arena.store.models import MatchAnalysis, User, utcnow

ANALYSES = Leased(MatchAnalysis, "queued", "analysis")
# Taken by a worker since its job was last sent, and its lease ran out: that worker (and the
# job with it) was lost, so no job of it waits in the queue.
TAKEN_AND_LOST = and_(
    MatchAnalysis.status == "running", MatchAnalysis.queued_at < MatchAnalysis.lease_expires_at
)


@dataclass(frozen=True)
class AnalysisLease:
    """The right to work out one attempt of an analysis and to store its result."""

    analysis_id: int
    token: str
    worker: str
    attempt: int


def get_analysis(s: Session, analysis_id: int) -> MatchAnalysis:
    analysis: MatchAnalysis = ANALYSES.get(s, analysis_id)
    return analysis


def find_analysis(
    s: Session, match_id: int, entrant: int, samples: int, seed: int
) -> MatchAnalysis | None:
    return s.scalar(
        select(MatchAnalysis).where(
            MatchAnalysis.match_id == match_id,
            MatchAnalysis.entrant == entrant,
            MatchAnalysis.samples == samples,
            MatchAnalysis.seed == seed,
        )
    )


def add_analysis(
    s: Session,
    match_id: int,
    entrant: int,
    bot_version_id: int,
    samples: int,
    seed: int,
    user_id: int | None,
) -> MatchAnalysis:
    """A queued analysis, or the one of the same (match, entrant, samples, seed) there is
    (a request at the same moment may win the race on the unique key)."""
    if (existing := find_analysis(s, match_id, entrant, samples, seed)) is not None:
        return existing
    row = MatchAnalysis(
        match_id=match_id,
        entrant=entrant,
        bot_version_id=bot_version_id,
        samples=samples,
        seed=seed,
        requested_by=user_id,
        requested_at=utcnow(),
    )
    try:
        with s.begin_nested():
            s.add(row)
    except IntegrityError:
        if (existing := find_analysis(s, match_id, entrant, samples, seed)) is not None:
            return existing
        raise
    return row


def requeue(s: Session, analysis_id: int, user_id: int | None) -> bool:
    """A failed analysis queued again with fresh attempts, as asked by ``user_id`` now."""
    queued = s.execute(
        update(MatchAnalysis)
        .where(MatchAnalysis.id == analysis_id, MatchAnalysis.status == "failed")
        .values(
            status="queued",
            attempts=0,
            reason=None,
            queued_at=None,
            finished_at=None,
            progress_done=0,
            requested_by=user_id,
            requested_at=utcnow(),
        )
    )
    return rowcount(queued) == 1


def requests_since(s: Session, user_id: int, since: datetime) -> list[datetime]:
    """When ``user_id`` asked for the analyses asked since ``since``, oldest first. The
    user's row is locked until the transaction ends (``SELECT ... FOR UPDATE`` on Postgres;
    SQLite serialises writers), so two requests at once cannot both take the last one of a
    quota."""
    s.scalar(select(User.id).where(User.id == user_id).with_for_update())
    query = (
        select(MatchAnalysis.requested_at)
        .where(MatchAnalysis.requested_by == user_id, MatchAnalysis.requested_at > since)
        .order_by(MatchAnalysis.requested_at)
    )
    return list(s.scalars(query))


def analyses_of(s: Session, match_id: int) -> list[MatchAnalysis]:
    """The match's analyses (without their results), by entrant, then newest first."""
    query = (
        select(MatchAnalysis)
        .where(MatchAnalysis.match_id == match_id)
        .order_by(MatchAnalysis.entrant, MatchAnalysis.id.desc())
    )
    return list(s.scalars(query))


def claim_analysis(
    s: Session,
    analysis_id: int,
    worker: str,
    lease_s: float = DEFAULT_LEASE_S,
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
) -> AnalysisLease | None:
    """Take the analysis for ``worker``; None if it is done, failed or leased to someone
    else (one whose workers keep vanishing ends failed after ``max_attempts`` claims)."""
    now = utcnow()
    taken = leases.claim(s, ANALYSES, analysis_id, worker, now, lease_s, max_attempts)
    if taken is not None:
        return AnalysisLease(analysis_id, taken[0], worker[:128], taken[1])
    leases.give_up_if_exhausted(s, ANALYSES, analysis_id, now, max_attempts)
    return None


def _held(lease: AnalysisLease):
    return ANALYSES.held(lease.analysis_id, lease.token)


def save_progress(s: Session, lease: AnalysisLease, done: int, total: int) -> bool:
    """Decisions judged so far; False (nothing written) once the lease is lost."""
    saved = s.execute(
        update(MatchAnalysis).where(_held(lease)).values(progress_done=done, progress_total=total)
    )
    return rowcount(saved) == 1


def store_analysis(
    s: Session, lease: AnalysisLease, result: dict[str, Any], summary: dict[str, Any]
) -> bool:
    """Store the finished analysis (``result``, the ``Analysis`` document, and ``summary``,
    its columns) in one conditional UPDATE; False, storing nothing, unless ``lease`` is the
    current attempt: a result is stored once."""
    decisions = len(result["verdicts"])
    stored = s.execute(
        update(MatchAnalysis)
        .where(_held(lease))
        .values(
            status="done",
            result=result,
            progress_done=decisions,
            progress_total=decisions,
            finished_at=utcnow(),
            reason=None,
            attempt_token=None,
            lease_expires_at=None,
            **summary,
        )
    )
    return rowcount(stored) == 1


def fail_analysis(s: Session, lease: AnalysisLease, reason: str) -> bool:
    """End the attempt's analysis failed with ``reason`` (an error of the analysis itself,
    which another attempt would repeat); False once the lease is lost."""
    failed = s.execute(
        update(MatchAnalysis)
        .where(_held(lease))
        .values(
            status="failed",
            reason=reason[:MAX_REASON],
            finished_at=utcnow(),
            attempt_token=None,
            lease_expires_at=None,
        )
    )
    return rowcount(failed) == 1


def release_analysis(s: Session, lease: AnalysisLease) -> bool:
    """Give the analysis back, queued, its attempt not counted (stopped by the operator,
    or cut short by a database outage); False once the lease is lost."""
    released = s.execute(
        update(MatchAnalysis)
        .where(_held(lease))
        .values(
            status="queued",
            attempts=MatchAnalysis.attempts - 1,
            queued_at=None,  # its job is gone: the next send must include it
            attempt_token=None,
            lease_expires_at=None,
        )
    )
    return rowcount(released) == 1


def to_send(
    s: Session, lease_s: float, idle: bool, ids: Collection[int] | None = None
) -> list[int]:
    """Ids of the analyses (among ``ids``, when given) whose job to send: claimable and never
    sent; taken by a worker since lost; or, while nothing waits in their queue (``idle``),
    sent a lease ago or more (the job was lost). Marks them sent, in one conditional UPDATE:
    two senders at once send each once."""
    now = utcnow()
    due = or_(MatchAnalysis.queued_at.is_(None), TAKEN_AND_LOST)
    if idle:
        due = or_(due, MatchAnalysis.queued_at < now - timedelta(seconds=lease_s))
    where = [ANALYSES.claimable(now), due]
    if ids is not None:
        where.append(MatchAnalysis.id.in_(list(ids)))
    marked = s.scalars(
        update(MatchAnalysis)
        .where(*where)
        .values(queued_at=now)
        .returning(MatchAnalysis.id)
        .execution_options(synchronize_session=False)
    )
    return sorted(marked)
