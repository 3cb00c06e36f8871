"""The life of a match row: pending → running (claimed by a worker) → done or failed.

State changes are single ``UPDATE ... WHERE status = ...`` statements: the database decides
which of two racing workers wins, and the loser sees ``rowcount == 0``. A claim or reset
takes effect when the caller's session commits.
"""

from __future__ import annotations

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from arena.store.errors import StoreError
from arena.store.models import MATCH_STATUSES, Match, utcnow

MAX_REASON = 2000


def get_match(s: Session, match_id: int) -> Match:
    match = s.get(Match, match_id)
    if match is None:
        raise StoreError(f"no match with id {match_id}")
    return match


def pending_matches(s: Session, tournament_id: int) -> list[Match]:
    """Matches still to play, by table index."""
    query = (
        select(Match)
        .where(Match.tournament_id == tournament_id, Match.status == "pending")
        .order_by(Match.table_index)
    )
    return list(s.scalars(query))


def claim_match(s: Session, match_id: int, worker: str) -> bool:
    """Move a pending match to running for ``worker``; False if someone else has it."""
    claimed = s.execute(
        update(Match)
        .where(Match.id == match_id, Match.status == "pending")
        .values(
            status="running",
            attempts=Match.attempts + 1,
            worker=worker[:128],
            started_at=utcnow(),
            reason=None,
        )
    )
    return claimed.rowcount == 1


def reset_running(s: Session, tournament_id: int) -> int:
    """Put running matches back to pending (after a crash); returns how many."""
    reset = s.execute(
        update(Match)
        .where(Match.tournament_id == tournament_id, Match.status == "running")
        .values(status="pending", worker=None)
    )
    return reset.rowcount


def mark_failed(s: Session, match_id: int, reason: str) -> bool:
    """Give up on a match (``reason`` is kept); never overwrites a finished one."""
    failed = s.execute(
        update(Match)
        .where(Match.id == match_id, Match.status != "done")
        .values(status="failed", reason=reason[:MAX_REASON], finished_at=utcnow())
    )
    if failed.rowcount == 0:
        get_match(s, match_id)  # raises for an unknown id
    return failed.rowcount == 1


def retry_failed(s: Session, tournament_id: int) -> int:
    """Put failed matches back to pending, to try them again; returns how many."""
    retried = s.execute(
        update(Match)
        .where(Match.tournament_id == tournament_id, Match.status == "failed")
        .values(status="pending", worker=None)
    )
    return retried.rowcount


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
