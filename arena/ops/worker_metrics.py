"""A worker's own numbers, counted in whichever of its processes did the work.

Celery's prefork pool runs the jobs in child processes forked from the worker's main
process, and ``/metrics`` is answered by the main process: counters kept in a child's memory
would never reach it. So a worker that serves metrics runs prometheus_client in its
multiprocess mode: the main process makes a fresh private folder and names it in
``PROMETHEUS_MULTIPROC_DIR`` before the pool forks (``enable_multiprocess``); each process
then keeps its numbers in files of its own there (one per pid), and a scrape adds them all up
(``exposition``). A child replaced after a crash leaves its files, so what it counted stays
counted; the folder is removed when the main process exits.

The main process counts nothing through these files after its threads start (a fork while
one of them held prometheus_client's file lock would hand the child a lock held forever):
what it knows itself, its broker checks, it reports by a collector of its own (``watch``).

What is counted is read from what the job did and stored: its status, the start-up faults
recorded with its result, the platform error its match was given back with, the upload time
of a validated version.
"""

from __future__ import annotations

import atexit
import logging
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from pathlib import Path

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    values,
)
from prometheus_client.core import Metric
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector
from sqlalchemy import func, select
from sqlalchemy.exc import SQLAlchemyError

from arena.ops.stats import MATCH_BUCKETS, START_FAILED
from arena.store import BotVersion, Database, Match, MatchFault, Submission
from arena.store.models import as_utc, utcnow

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
FOLDER_PREFIX = "arena-worker-metrics-"  # then the worker's pid: a dead one's is swept
# Upload to verdict: a quick validation match, up to a long build and its match.
VALIDATION_BUCKETS = (5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1200.0, 1800.0, 3600.0)
MATCH_STATUSES = ("done", "failed", "retry", "late", "skipped", "stopped")
log = logging.getLogger(__name__)
_ERROR_CLASS = re.compile(r"^([A-Za-z_]\w*): ")


class WorkerMetrics:
    """The counters and histograms of one worker process (``metrics()`` makes them once)."""

    def __init__(self, registry: CollectorRegistry = REGISTRY) -> None:
        self.matches = Counter(
            "arena_worker_matches",
            "Match jobs this worker ended, by how (done: played and recorded; failed: given "
            "up after its attempts; retry: given back after a platform error; late, skipped, "
            "stopped)",
            ["status"],
            registry=registry,
        )
        self.match_seconds = Histogram(
            "arena_worker_match_duration_seconds",
            "Wall time of each match this worker played, from its claim to its recorded result",
            buckets=MATCH_BUCKETS,
            registry=registry,
        )
        self.validations = Counter(
            "arena_worker_validations",
            "Bot versions this worker validated, by verdict (pending: the platform failed and "
            "it waits for another try)",
            ["status"],
            registry=registry,
        )
        self.validation_seconds = Histogram(
            "arena_worker_validation_seconds",
            "From a version's upload to the verdict this worker gave it",
            buckets=VALIDATION_BUCKETS,
            registry=registry,
        )
        self.start_failures = Counter(
            "arena_worker_bot_start_failures",
            "start_failed faults in the results this worker recorded (a bot that did not "
            "start, in the sandbox or before it)",
            registry=registry,
        )
        self.platform_errors = Counter(
            "arena_worker_platform_errors",
            "Matches this worker gave back after a platform error, by the error's class "
            "(SandboxUnavailable: the sandbox could not start bots here; database: an outage)",
            ["error"],
            registry=registry,
        )
        for status in ("done", "failed", "retry"):
            self.matches.labels(status)
        for verdict in ("valid", "rejected"):
            self.validations.labels(verdict)


_metrics: WorkerMetrics | None = None


def metrics() -> WorkerMetrics:
    """This process's metrics, made on first use (in a pool process: after the fork, in the
    multiprocess folder its parent named)."""
    global _metrics
    if _metrics is None:
        _metrics = WorkerMetrics()
    return _metrics


def enable_multiprocess() -> Path:
    """A fresh private folder for this worker's processes' numbers, named in the environment
    its pool inherits; call it before the pool forks, while this process is one thread. The
    folders of workers that died without removing theirs (killed) are removed first."""
    sweep_folders()
    folder = Path(tempfile.mkdtemp(prefix=f"{FOLDER_PREFIX}{os.getpid()}-"))
    os.environ[MULTIPROC_ENV] = str(folder)
    # prometheus_client picks its value class when first imported: if that was before the
    # folder was named, the numbers would stay in each process's memory. Picked again now.
    values.ValueClass = values.get_value_class()
    owner = os.getpid()

    def remove() -> None:
        if os.getpid() == owner:  # not in a forked child that runs exit handlers
            shutil.rmtree(folder, ignore_errors=True)

    atexit.register(remove)
    metrics()  # the zeros of the usual series, before any thread or fork
    return folder


def sweep_folders(parent: Path | None = None) -> list[Path]:
    """Remove the metrics folders whose worker (the pid in the name) is gone; those removed."""
    removed = []
    for folder in Path(parent or tempfile.gettempdir()).glob(f"{FOLDER_PREFIX}*-*"):
        pid = folder.name.removeprefix(FOLDER_PREFIX).split("-", 1)[0]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's live process
        return True
    return True


def multiprocess_dir() -> Path | None:
    folder = os.environ.get(MULTIPROC_ENV)
    return Path(folder) if folder else None


class _ThisProcess(Collector):
    """This process's own registry (no multiprocess folder: a test, a worker serving none)."""

    def describe(self) -> list[Metric]:
        return []

    def collect(self) -> Iterator[Metric]:
        yield from REGISTRY.collect()


def exposition(extra: Iterable[Collector] = ()) -> tuple[bytes, str]:
    """What a scrape of this worker gets: every process's numbers, and ``extra``'s."""
    registry = CollectorRegistry(auto_describe=False)
    folder = multiprocess_dir()
    if folder is not None:
        MultiProcessCollector(registry, path=str(folder))
    else:
        registry.register(_ThisProcess())
    for collector in extra:
        registry.register(collector)
    return generate_latest(registry), CONTENT_TYPE_LATEST


def match_ended(db: Database, match_id: int, status: str, played_s: float) -> None:
    """Count the end of a match job (``tournaments.run``'s status): a played match's time and
    the start-up faults recorded with it; a match given back, its error's class. A failed read
    costs a number, never the job."""
    found = metrics()
    found.matches.labels(status if status in MATCH_STATUSES else "other").inc()
    try:
        if status == "done":
            found.match_seconds.observe(played_s)
            if failures := _start_failures(db, match_id):
                found.start_failures.inc(failures)
        elif status in ("retry", "failed"):
            found.platform_errors.labels(_error_class(db, match_id)).inc()
    except SQLAlchemyError as exc:
        log.info("match %s: its numbers not counted (%s)", match_id, exc)


def _start_failures(db: Database, match_id: int) -> int:
    with db.session(read_only=True) as s:
        query = select(func.count()).where(
            MatchFault.match_id == match_id, MatchFault.kind == START_FAILED
        )
        return int(s.scalar(query) or 0)


def _error_class(db: Database, match_id: int) -> str:
    """The class of the platform error a match was given back with (``run.give_back``
    stores ``Class: message``, or ``database unreachable: ...`` for an outage)."""
    with db.session(read_only=True) as s:
        reason = s.scalar(select(Match.reason).where(Match.id == match_id)) or ""
    if reason.startswith("database unreachable"):
        return "database"
    found = _ERROR_CLASS.match(reason)
    return found.group(1) if found else "other"


def judged(db: Database, version_id: int, judge: Callable[[], BotVersion]) -> BotVersion:
    """``judge()`` (a validation), counted when it judged a version that was pending: its
    verdict, and the time from its upload to now."""
    with db.session(read_only=True) as s:
        row = s.get(BotVersion, version_id)
        was_pending = row is not None and row.status == "pending"
    version = judge()
    if was_pending:
        try:
            _count_verdict(db, version)
        except SQLAlchemyError as exc:
            log.info("version %s: its validation not counted (%s)", version_id, exc)
    return version


def _count_verdict(db: Database, version: BotVersion) -> None:
    found = metrics()
    found.validations.labels(version.status).inc()
    if version.status == "pending":  # no verdict yet: its time is counted when it gets one
        return
    uploaded = _uploaded_at(db, version)
    if uploaded is not None:
        found.validation_seconds.observe(max(0.0, (utcnow() - as_utc(uploaded)).total_seconds()))


def _uploaded_at(db: Database, version: BotVersion) -> datetime | None:
    """When the files being judged were uploaded: the version's latest upload (a rejected
    version's number may be given new files), else when its validation started (a version
    registered from the command line has no upload)."""
    with db.session(read_only=True) as s:
        latest = s.scalar(
            select(func.max(Submission.created_at)).where(Submission.bot_version_id == version.id)
        )
    if isinstance(latest, str):  # SQLite hands an aggregate's time back as text
        latest = datetime.fromisoformat(latest)
    return latest or version.validation_started_at or version.created_at
