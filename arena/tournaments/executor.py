"""The embedded executor: a tournament's matches in local worker processes, resumable.

Matches are claimed in the database, so a run that was stopped (Ctrl-C, a kill, a crash)
is finished by running it again: matches left ``running`` by the dead run go back to
``pending`` first, and only those not yet done are played. Results are idempotent, so a
match played twice still counts once.
"""

from __future__ import annotations

import os
import signal
import socket
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from multiprocessing import get_context
from multiprocessing.synchronize import Event

from arena.bots.sandbox import SandboxPolicy, die_with, resolve_mode, sweep_leftovers
from arena.store import Database, pending_matches, progress, reset_running, set_tournament_status
from arena.tournaments.registry import Runtime
from arena.tournaments.run import run_match
from arena.tournaments.standings import save_snapshot, standings

Progress = Callable[[str, int, int], None]  # (status of the match just ended, done, total)


@dataclass
class RunSummary:
    counts: dict[str, int] = field(default_factory=dict)  # this run: done/failed/skipped
    status: dict[str, int] = field(default_factory=dict)  # the tournament afterwards


def run_tournament(
    db: Database,
    runtime: Runtime,
    tournament_id: int,
    workers: int | None = None,
    on_match: Progress | None = None,
) -> RunSummary:
    """Play every match not yet done; ``workers=1`` plays them in this process."""
    resolve_mode(runtime.policy)  # no usable sandbox: refuse before claiming any match
    sweep_leftovers(runtime.policy or SandboxPolicy.from_env())  # bots of a killed earlier run
    with db.session() as s:
        reset_running(s, tournament_id)
        todo = [m.id for m in pending_matches(s, tournament_id)]
        set_tournament_status(s, tournament_id, "running")
    workers = max(1, workers or os.cpu_count() or 1)
    summary = RunSummary()
    report = _counter(summary, len(todo), on_match)
    if workers == 1 or len(todo) <= 1:
        for match_id in todo:
            report(run_match(db, runtime, match_id, _worker_name()))
    else:
        _in_pool(db.url, runtime, todo, min(workers, len(todo)), report)
    return _finish(db, tournament_id, summary)


def _counter(summary: RunSummary, total: int, on_match: Progress | None) -> Callable[[str], None]:
    def report(status: str) -> None:
        summary.counts[status] = summary.counts.get(status, 0) + 1
        if on_match is not None:
            on_match(status, sum(summary.counts.values()), total)

    return report


def _in_pool(url, runtime: Runtime, todo: list[int], workers: int, report) -> None:
    # spawn: workers start clean (no inherited DB connections or launcher thread).
    context = get_context("spawn")
    # Set on Ctrl-C: matches the pool has already queued to a worker (it queues a few
    # beyond those being played) return unplayed instead of starting.
    stop = context.Event()
    # str(url) would mask the password as "***": the workers need the real one.
    initargs = (url.render_as_string(hide_password=False), runtime, stop, os.getpid())
    pool = ProcessPoolExecutor(workers, context, _init_worker, initargs)
    futures: set[Future] = {pool.submit(_work, match_id) for match_id in todo}
    try:
        while futures:
            finished, futures = wait(futures, return_when=FIRST_COMPLETED)
            for future in finished:
                report(future.result())
    except KeyboardInterrupt:
        stop.set()
        for future in futures:
            future.cancel()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


_worker: tuple[Database, Runtime, Event] | None = None


def _init_worker(url: str, runtime: Runtime, stop: Event, parent: int) -> None:
    """Die with the parent (so a killed run leaves no orphans); let the parent handle Ctrl-C."""
    global _worker
    die_with(parent)()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _worker = (Database(url), runtime, stop)


def _work(match_id: int) -> str:
    assert _worker is not None
    db, runtime, stop = _worker
    if stop.is_set():
        return "stopped"  # left pending, for the next run
    return run_match(db, runtime, match_id, _worker_name())


def _worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _finish(db: Database, tournament_id: int, summary: RunSummary) -> RunSummary:
    with db.session(read_only=True) as s:
        summary.status = progress(s, tournament_id)
    if summary.status.get("done"):
        save_snapshot(db, tournament_id, standings(db, tournament_id))
    if summary.status.get("done") and not any(
        summary.status.get(k) for k in ("pending", "running", "failed")
    ):
        with db.session() as s:
            set_tournament_status(s, tournament_id, "done")
    return summary
