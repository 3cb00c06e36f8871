"""What a queue-based backend needs to know, kept apart from any queue library: which
matches to hand out, to which queue, and when a tournament is over.

A match is marked ``queued_at`` when its job is sent, so following a tournament again sends
only what was never sent, and a follower sends again only what has sat unclaimed for long
(its job was lost with the broker's memory, say) — duplicates are harmless anyway: a second
job finds the match done or leased.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from sqlalchemy import ColumnElement, or_, select, update

from arena.store import BotVersion, Database, Match, progress
from arena.store.matches import claimable
from arena.store.models import utcnow
from arena.tournaments.standings import finish_tournament

DEFAULT_QUEUE = "arena"
# Runtime family of a bot's manifest (``node20`` → ``node``) → the queue whose workers have it.
RUNTIME_QUEUES = {"": DEFAULT_QUEUE, "python": DEFAULT_QUEUE, "node": "arena.node"}


def queue_for(manifests: list[dict]) -> str:
    """The queue of a match: the one of the runtime its bots need beyond Python."""
    for manifest in manifests:
        family = _family(str(manifest.get("runtime", "")).lower())
        if family not in ("", "python"):
            return RUNTIME_QUEUES.get(family, f"{DEFAULT_QUEUE}.{family}")
    return DEFAULT_QUEUE


def _family(runtime: str) -> str:
    """``node20`` → ``node``: the runtime's leading letters."""
    letters = re.match(r"[a-z]*", runtime)
    return letters.group() if letters else ""


def matches_to_send(
    db: Database, tournament_id: int, resend_after_s: float | None = None
) -> list[tuple[int, str]]:
    """(match id, queue) of claimable matches never sent, or (with ``resend_after_s``) sent
    that long ago; marks them sent."""
    now = utcnow()
    due: ColumnElement[bool] = Match.queued_at.is_(None)
    if resend_after_s is not None:
        due = or_(due, Match.queued_at < now - timedelta(seconds=resend_after_s))
    with db.session() as s:
        rows = s.execute(
            select(Match.id, Match.seats)
            .where(Match.tournament_id == tournament_id, claimable(now), due)
            .order_by(Match.table_index)
        ).all()
        ids = [match_id for match_id, _ in rows]
        needed = {v for _, seats in rows for v in seats}
        query = select(BotVersion.id, BotVersion.manifest).where(BotVersion.id.in_(needed))
        manifests: dict[int, dict[str, Any]] = dict(s.execute(query).all())
        s.execute(
            update(Match)
            .where(Match.id.in_(ids))
            .values(queued_at=now)
            .execution_options(synchronize_session=False)
        )
    return [(match_id, queue_for([manifests[v] for v in seats])) for match_id, seats in rows]


def finish_if_over(db: Database, tournament_id: int) -> bool:
    """Snapshot and close the tournament once no match is pending or running."""
    with db.session(read_only=True) as s:
        state = progress(s, tournament_id)
    if state["pending"] or state["running"]:
        return False
    finish_tournament(db, tournament_id)
    return True
