"""The platform's numbers as the database holds them, for the dashboard's ``/metrics``: what
every worker recorded, whichever process asks (a worker's own ``/metrics`` counts what it did
itself, ``worker_metrics``).

A handful of aggregate queries (matches by status, the durations of the played ones in
buckets, versions by verdict, the oldest pending validation, start-up faults), read at most
every few seconds by the caller (``metrics.Cached``). The match numbers are those of the
matches workers are sent: not validation matches (a rejected upload is no start failure of
the platform's).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Connection, case, func, select

from arena.store.models import (
    BOT_STATUSES,
    MATCH_STATUSES,
    BotVersion,
    Match,
    MatchFault,
    as_utc,
    utcnow,
)
from arena.store.validations import listed

START_FAILED = "start_failed"  # the referee's fault for a bot that did not start
# Seconds a whole match takes: a short validation-sized one to the default clock's longest.
MATCH_BUCKETS = (1.0, 5.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1200.0, 1800.0, 3600.0)


@dataclass(frozen=True)
class Durations:
    """A histogram read from stored durations: cumulative counts at each upper bound."""

    buckets: tuple[tuple[float, int], ...]
    count: int
    total: float


@dataclass(frozen=True)
class PlatformStats:
    """``matches``: matches by status (``done``: played, ``failed``: given up after their
    attempts); ``match_seconds``: how long the played ones took (the worker's wall time,
    ``Match.wall_seconds``); ``versions``: bot versions by verdict (``pending``: awaiting
    validation); ``oldest_pending_s``: how long the oldest pending version has waited since
    its validation started (0 when none waits); ``start_failures``: start-up faults
    recorded (bots that did not start, in the sandbox or before it)."""

    matches: dict[str, int]
    match_seconds: Durations
    versions: dict[str, int]
    oldest_pending_s: float
    start_failures: int


def read_stats(
    conn: Connection, now: datetime | None = None, buckets: Sequence[float] = MATCH_BUCKETS
) -> PlatformStats:
    """The numbers, from ``conn`` (a probe's connection: each query under its timeout)."""
    now = now or utcnow()
    counted = select(Match.status, func.count()).where(listed()).group_by(Match.status)
    by_status = dict(conn.execute(counted).all())
    played = Match.status == "done", Match.wall_seconds.is_not(None), listed()
    within = [
        func.coalesce(func.sum(case((Match.wall_seconds <= b, 1), else_=0)), 0) for b in buckets
    ]
    total_s = func.coalesce(func.sum(Match.wall_seconds), 0.0)
    row = conn.execute(select(func.count(), total_s, *within).where(*played)).one()
    count, total, *cumulative = row
    versions = dict(
        conn.execute(select(BotVersion.status, func.count()).group_by(BotVersion.status)).all()
    )
    started = func.coalesce(BotVersion.validation_started_at, BotVersion.created_at)
    oldest = conn.scalar(select(func.min(started)).where(BotVersion.status == "pending"))
    failures = conn.scalar(
        select(func.count())
        .select_from(MatchFault)
        .join(Match, Match.id == MatchFault.match_id)
        .where(MatchFault.kind == START_FAILED, listed())
    )
    return PlatformStats(
        matches={status: int(by_status.get(status, 0)) for status in MATCH_STATUSES},
        match_seconds=Durations(
            tuple((b, int(c)) for b, c in zip(buckets, cumulative, strict=True)),
            int(count),
            float(total),
        ),
        versions={status: int(versions.get(status, 0)) for status in BOT_STATUSES},
        oldest_pending_s=_age(oldest, now),
        start_failures=int(failures or 0),
    )


def _age(moment: datetime | str | None, now: datetime) -> float:
    """Seconds since ``moment`` (SQLite hands an aggregate's time back as text)."""
    if moment is None:
        return 0.0
    if isinstance(moment, str):
        moment = datetime.fromisoformat(moment)
    return max(0.0, (now - as_utc(moment)).total_seconds())
