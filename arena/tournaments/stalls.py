"""Matches that do not move, for ``arena tournament list``: running under a lease that ran out
(their worker was lost; claimable again, until some sender sends their job again), and
matches sent to the workers long ago and never claimed since, by queue (stuck only when no
worker takes that queue: a deep queue also keeps matches waiting)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from arena.store import BotVersion, Match
from arena.tournaments.dispatch import queue_for


@dataclass(frozen=True)
class Stalls:
    """A tournament's matches that do not move: ``expired``, running under a lease that ran
    out; ``waiting``, by queue, pending though sent ``waiting_after`` ago or more."""

    expired: int = 0
    waiting: dict[str, int] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.expired or self.waiting)


def stalled_matches(s: Session, now: datetime, waiting_after_s: float) -> dict[int, Stalls]:
    """Every tournament with matches that do not move, by id."""
    expired = dict(
        s.execute(
            select(Match.tournament_id, func.count())
            .where(Match.status == "running", Match.lease_expires_at < now)
            .group_by(Match.tournament_id)
        ).all()
    )
    sent_before = now - timedelta(seconds=waiting_after_s)
    waiting_rows = s.execute(
        select(Match.tournament_id, Match.seats).where(
            Match.status == "pending", Match.queued_at < sent_before
        )
    ).all()
    needed = {v for _, seats in waiting_rows for v in seats}
    manifests: dict[int, dict] = dict(
        s.execute(select(BotVersion.id, BotVersion.manifest).where(BotVersion.id.in_(needed))).all()
    )
    waiting: dict[int, Counter[str]] = {}
    for tournament_id, seats in waiting_rows:
        queue = queue_for([manifests[v] for v in seats])
        waiting.setdefault(tournament_id, Counter())[queue] += 1
    return {
        t: Stalls(expired.get(t, 0), dict(sorted(waiting.get(t, Counter()).items())))
        for t in sorted({*expired, *waiting})
    }
