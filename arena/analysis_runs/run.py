"""Working out one analysis: the job a Celery worker, a dashboard's background process and
``arena analyse`` share.

``run`` claims the analysis under a lease, keeps the lease alive while the master judges
the decisions (``arena.analysis.analyse``), writes the progress at most every
``PROGRESS_EVERY_S``, and stores the result with the lease's token: a worker that lost its
lease (killed, cut off, overtaken) stores nothing, so a result is stored once. An error of
the analysis itself ends it failed with the reason (another attempt would repeat it); a
stop (Ctrl-C) or a database outage gives it back without counting the attempt.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from arena.analysis import Analysis, analyse
from arena.config import DEFAULT_LEASE_S, DEFAULT_MAX_ATTEMPTS, Settings
from arena.house.master import cache as master_cache
from arena.store import Database, load_replay
from arena.store.analyses import (
    ANALYSES,
    AnalysisLease,
    claim_analysis,
    fail_analysis,
    get_analysis,
    release_analysis,
    save_progress,
    store_analysis,
)
from arena.store.db import database_down
from arena.store.leases import kept

PROGRESS_EVERY_S = 1.0
OUTAGE_WAIT_S = 120.0  # how long a finished analysis waits for the database to store it
WAIT_POLL_S = 1.0  # how often ``work_out`` looks at an analysis another worker holds
Progress = Callable[[int, int], None]  # (decisions judged, decisions in all)
log = logging.getLogger(__name__)


class LeaseLost(Exception):
    """Another attempt took the analysis over: this one's work would not be stored."""


def run(
    db: Database,
    analysis_id: int,
    worker: str,
    settings: Settings | None = None,
    on_progress: Progress | None = None,
) -> str:
    """Claim, work out and store one analysis (under the lease and attempts of
    ``settings``). Returns ``done``; ``skipped`` (done, failed or leased to another
    worker); ``failed`` (the analysis raised: the reason is stored); ``late`` (the lease
    was lost meanwhile: the attempt that took over stores it)."""
    lease_s = DEFAULT_LEASE_S if settings is None else settings.lease_s
    max_attempts = DEFAULT_MAX_ATTEMPTS if settings is None else settings.max_attempts
    master_cache.ensure_built()  # before the claim: a cold build takes longer than a lease
    with db.session() as s:
        lease = claim_analysis(s, analysis_id, worker, lease_s, max_attempts)
        if lease is None:
            return "skipped"
        row = get_analysis(s, analysis_id)
        match_id, entrant, samples, seed = row.match_id, row.entrant, row.samples, row.seed
    try:
        with kept(db, ANALYSES, analysis_id, lease.token, lease_s):
            with db.session(read_only=True) as s:
                record = load_replay(s, match_id)
            report = Reporter(db, lease, on_progress)
            analysis = analyse(record, entrant, samples, seed, progress=report)
    except LeaseLost:
        return "late"
    except Exception as exc:
        return _give_up(db, lease, exc)
    except BaseException:  # Ctrl-C: give it back at once, uncounted
        with db.session() as s:
            release_analysis(s, lease)
        raise
    return "done" if _store(db, lease, analysis) else "late"


def _give_up(db: Database, lease: AnalysisLease, exc: Exception) -> str:
    """After an error: a database outage gives the analysis back (raised again once the
    database answers, for the caller to try again); any other error fails it."""
    outage = database_down(exc)

    def end() -> bool:
        with db.session() as s:
            if outage:
                return release_analysis(s, lease)
            return fail_analysis(s, lease, f"the analysis failed: {type(exc).__name__}: {exc}")

    ended = db.patiently(end, OUTAGE_WAIT_S, f"ending analysis {lease.analysis_id}")
    if outage:
        raise exc
    log.warning("analysis %s failed", lease.analysis_id, exc_info=exc)
    return "failed" if ended else "late"


def _store(db: Database, lease: AnalysisLease, analysis: Analysis) -> bool:
    """Store the result once the database answers; False when the lease was lost."""
    result, summary = analysis.to_dict(), summary_columns(analysis)

    def store() -> bool:
        with db.session() as s:
            return store_analysis(s, lease, result, summary)

    return db.patiently(store, OUTAGE_WAIT_S, f"the result of analysis {lease.analysis_id}")


def summary_columns(analysis: Analysis) -> dict[str, Any]:
    """The analysis's summary as the columns the bot page reads (points per decision)."""
    summary = analysis.summary()
    labels = summary["labels"]
    return {
        "decisions": summary["overall"]["count"],
        "mean_loss": summary["overall"]["mean"],
        "mean_loss_se": summary["overall"]["se"],
        "call_loss": summary["calls"]["mean"],
        "card_loss": summary["cards"]["mean"],
        "inaccuracies": labels["inaccuracy"],
        "mistakes": labels["mistake"],
        "blunders": labels["blunder"],
    }


class Reporter:
    """The ``progress`` callback of ``analyse``: hands every step to ``also`` and writes
    the progress at most every ``PROGRESS_EVERY_S`` (the first step at once); raises
    ``LeaseLost`` once the lease is gone, so a lost attempt stops working."""

    def __init__(self, db: Database, lease: AnalysisLease, also: Progress | None) -> None:
        self.db, self.lease, self.also = db, lease, also
        self.written = -float("inf")

    def __call__(self, done: int, total: int) -> None:
        if self.also is not None:
            self.also(done, total)
        if time.monotonic() - self.written < PROGRESS_EVERY_S:
            return
        self.written = time.monotonic()
        try:
            with self.db.session() as s:
                held = save_progress(s, self.lease, done, total)
        except SQLAlchemyError as exc:  # best effort: a missed write costs a page update
            log.warning("analysis %s: progress not stored: %s", self.lease.analysis_id, exc)
            return
        if not held:
            raise LeaseLost(f"analysis {self.lease.analysis_id}: lease lost")


def work_out(
    db: Database,
    analysis_id: int,
    worker: str,
    settings: Settings | None = None,
    on_progress: Progress | None = None,
) -> str:
    """``run`` until the analysis is done or failed: while another worker holds it, follow
    its progress, and take it over if that worker is lost. Its final status."""
    while True:
        status = run(db, analysis_id, worker, settings, on_progress)
        with db.session(read_only=True) as s:
            row = get_analysis(s, analysis_id)
        if row.status in ("done", "failed"):
            return row.status
        if status == "skipped" and on_progress is not None and row.progress_total:
            on_progress(row.progress_done, row.progress_total)
        time.sleep(WAIT_POLL_S)
