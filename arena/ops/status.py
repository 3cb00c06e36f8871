"""The organiser's status page as plain data: the database and broker checks (``/readyz``'s),
the jobs waiting in each queue and which workers take it, the workers seen by their
heartbeats (``broker``), and the database's numbers.

Everything remote is asked under the checks' deadline, and the queues and workers only when
the broker answered the check: a page over a broker that is away renders at once, saying so.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from arena.ops.broker import Heartbeat, heartbeats, is_redis, masked
from arena.ops.checks import DEADLINE_S, DatabaseProbe, Readiness, service_readiness
from arena.ops.deadline import within
from arena.ops.stats import PlatformStats
from arena.toolchains import TOOLCHAINS
from arena.tournaments.dispatch import AUDIT_QUEUE, RECOVERY_QUEUE, RUNTIME_QUEUES, build_queue

DepthReader = Callable[[list[str]], dict[str, int] | None]
T = TypeVar("T")


def known_queues() -> list[str]:
    """Every queue the platform sends to: the match queue of each runtime, the build queue of
    each toolchain (and of builds naming none), the beat's and the audit's."""
    builds = [build_queue(), *(build_queue(chain.name) for chain in TOOLCHAINS)]
    return list(dict.fromkeys([*RUNTIME_QUEUES.values(), *builds, RECOVERY_QUEUE, AUDIT_QUEUE]))


@dataclass(frozen=True)
class QueueLine:
    """A queue: the jobs waiting in it (None: the broker could not say) and the workers
    whose heartbeat says they take it."""

    name: str
    waiting: int | None
    takers: tuple[str, ...]

    @property
    def unserved(self) -> bool:
        return bool(self.waiting) and not self.takers


@dataclass(frozen=True)
class WorkerLine:
    """A worker seen by its heartbeat: ``seen_s`` ago, up for ``up_s``."""

    name: str
    host: str
    queues: tuple[str, ...]
    concurrency: int
    seen_s: float
    up_s: float


@dataclass(frozen=True)
class Status:
    readiness: Readiness
    database: str  # where, password masked
    broker: str | None  # None: no broker configured (validations run in the dashboard)
    queues: list[QueueLine]
    workers: list[WorkerLine] | None  # None: not known (the broker away, or not Redis)
    notes: list[str]
    stats: PlatformStats | None


def status(
    probe: DatabaseProbe,
    broker_url: str | None,
    depths: DepthReader | None,
    stats: Callable[[], PlatformStats | None] | None = None,
    now: float | None = None,
) -> Status:
    """The page's data. ``depths`` reads the jobs waiting in the queues it is given (the
    Celery side supplies it); ``stats`` gives the database's numbers (asked only when the
    database answered the checks)."""
    readiness = service_readiness(probe, broker_url)
    database_up = next(c for c in readiness.checks if c.name == "database").ok
    queues, notes = known_queues(), []
    waiting: dict[str, int] | None = None
    beats: list[Heartbeat] | None = None
    if broker_url is None:
        notes.append("no broker is configured (ARENA_BROKER_URL): no queues or workers to show")
    elif not next(c for c in readiness.checks if c.name == "broker").ok:
        notes.append("the broker does not answer: queues and workers cannot be read")
    else:
        waiting, beats = _queues_and_workers(broker_url, depths, queues, notes)
    found_at = time.time() if now is None else now
    if beats is not None:
        queues = list(dict.fromkeys([*queues, *(q for beat in beats for q in beat.queues)]))
    lines = [
        QueueLine(
            queue,
            None if waiting is None else waiting.get(queue),
            tuple(beat.name for beat in beats or () if queue in beat.queues),
        )
        for queue in queues
    ]
    return Status(
        readiness,
        probe.where(),
        None if broker_url is None else masked(broker_url),
        lines,
        None if beats is None else [_worker_line(beat, found_at) for beat in beats],
        notes,
        stats() if stats is not None and database_up else None,
    )


def _queues_and_workers(
    broker_url: str, depths: DepthReader | None, queues: list[str], notes: list[str]
) -> tuple[dict[str, int] | None, list[Heartbeat] | None]:
    """The heartbeats, then the depths of the known queues and of those the workers named
    (the broker answered the check just now: each read is one round trip)."""
    beats: list[Heartbeat] | None = None
    if not is_redis(broker_url):
        notes.append("workers are listed from their heartbeats, which need a Redis broker")
    else:
        beats = _quietly(lambda: heartbeats(broker_url))
        if beats is None:
            notes.append("the workers' heartbeats could not be read")
    asked = list(dict.fromkeys([*queues, *(q for beat in beats or () for q in beat.queues)]))
    waiting = None if depths is None else _quietly(lambda: depths(asked))
    if waiting is None:
        notes.append("the broker could not say how many jobs wait")
    return waiting, beats


def _quietly(read: Callable[[], T]) -> T | None:
    """``read()`` within the checks' deadline; None when it fails or is late (the page says
    what it could not read)."""
    try:
        return within(DEADLINE_S, read, "answer from the broker")
    except Exception:
        return None


def _worker_line(beat: Heartbeat, now: float) -> WorkerLine:
    return WorkerLine(
        beat.name,
        beat.host,
        beat.queues,
        beat.concurrency,
        max(0.0, now - beat.seen),
        max(0.0, now - beat.started),
    )
