"""The embedded executor: a tournament's matches in local worker processes, resumable.

Matches are claimed under leases in the database, exactly as Celery workers claim them, so
a run that was stopped (Ctrl-C, a kill, a crash) is finished by running it again: a match
whose worker was killed is claimed again once its lease expires, one given back on Ctrl-C
at once. Only the current attempt's result counts, so a match played twice counts once.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from multiprocessing import get_context
from multiprocessing.synchronize import Event

from arena.runtime import Runtime
from arena.sandbox import die_with, resolve_mode, sweep_leftovers
from arena.store import Database, claimable_matches, progress, set_tournament_status
from arena.store.matches import end_leases_of, lease_holders
from arena.store.tournaments import plain_tournament
from arena.tournaments.run import play_until_stopped, run_match
from arena.tournaments.standings import finish_tournament
from arena.tournaments.stopping import request_stop

Progress = Callable[[str, int, int], None]  # (status of the match just ended, done, total)
POLL_S = 0.5  # how often to look again while other workers hold the remaining matches


@dataclass
class RunSummary:
    counts: dict[str, int] = field(default_factory=dict)  # this run: done/failed/skipped/...
    status: dict[str, int] = field(default_factory=dict)  # the tournament afterwards


def run_tournament(
    db: Database,
    runtime: Runtime,
    tournament_id: int,
    workers: int | None = None,
    on_match: Progress | None = None,
) -> RunSummary:
    """Play every match not yet done; ``workers=1`` plays them in this process.

    Matches leased to other workers (another run, Celery workers) are waited for: they end
    done, or their lease expires and this run claims them. Rounds of adaptive matches that
    the tournament schedules when the others are done are played too.
    """
    resolve_mode(runtime.policy)  # no usable sandbox: refuse before claiming any match
    sweep_leftovers(runtime.policy)  # bots of a killed earlier run
    with db.session() as s:
        plain_tournament(s, tournament_id)
        set_tournament_status(s, tournament_id, "running")
    workers = max(1, workers or os.cpu_count() or 1)
    summary = RunSummary()
    report = _counter(summary, db, tournament_id, on_match)
    while True:
        while (todo := _next_round(db, tournament_id)) is not None:
            play_matches(db, runtime, todo, workers, report)
        summary.status = finish_tournament(db, tournament_id)
        if not summary.status["pending"]:  # else: a round of adaptive matches was added
            return summary


def play_matches(
    db: Database, runtime: Runtime, todo: list[int], workers: int, report: Callable[[str], None]
) -> None:
    """Claim and play ``todo`` (match ids) on up to ``workers`` local processes (this one
    alone for one), reporting each match's status as it ends."""
    if len(todo) <= 1 or workers == 1:
        for match_id in todo:
            report(run_match(db, runtime, match_id, worker_name()))
    else:
        _in_pool(db.url, runtime, todo, min(workers, len(todo)), report)


def _next_round(db: Database, tournament_id: int) -> list[int] | None:
    """The matches to claim now; [] while others hold the rest; None when none is left."""
    with db.session(read_only=True) as s:
        todo = claimable_matches(s, tournament_id)
        if todo:
            return todo
        if not progress(s, tournament_id)["running"]:
            return None
    time.sleep(POLL_S)
    return []


def _counter(
    summary: RunSummary, db: Database, tournament_id: int, on_match: Progress | None
) -> Callable[[str], None]:
    def report(status: str) -> None:
        summary.counts[status] = summary.counts.get(status, 0) + 1
        if on_match is not None:
            with db.session(read_only=True) as s:
                state = progress(s, tournament_id)  # the total grows with adaptive rounds
            on_match(status, state["done"] + state["failed"], sum(state.values()))

    return report


def _in_pool(url, runtime: Runtime, todo: list[int], workers: int, report) -> None:
    # spawn: workers start clean (no inherited DB connections or launcher thread).
    context = get_context("spawn")
    # Set on Ctrl-C: workers abandon their matches (giving them back) and start no other.
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
        with interrupts_ignored():
            pool.shutdown(wait=True, cancel_futures=True)
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


@contextlib.contextmanager
def interrupts_ignored() -> Iterator[None]:
    """Further Ctrl-C presses while a stop is being carried out are ignored, not raised in
    the middle of the clean-up (which once left the run hung)."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


_worker: tuple[Database, Runtime, Event] | None = None


def _init_worker(url: str, runtime: Runtime, stop: Event, parent: int) -> None:
    """Die with the parent (so a killed run leaves no orphans); the parent's Ctrl-C reaches
    a worker through ``stop``, raised as ``Stopped`` only in the middle of a match."""
    global _worker
    die_with(parent)()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGUSR1, lambda *_: request_stop())
    _worker = (Database(url), runtime, stop)

    def watch() -> None:
        stop.wait()
        os.kill(os.getpid(), signal.SIGUSR1)

    threading.Thread(target=watch, name="stop-watch", daemon=True).start()


def _work(match_id: int) -> str:
    assert _worker is not None
    db, runtime, stop = _worker
    if stop.is_set():
        return "stopped"  # left pending, for the next run
    return play_until_stopped(db, runtime, match_id, worker_name())


def worker_name() -> str:
    """Host and process: enough to find a worker that holds a lease."""
    return f"{socket.gethostname()}:{os.getpid()}"


def release_dead_holders(db: Database) -> list[int]:
    """The matches that processes of this host, now dead, held: free to be claimed again at
    once. A worker restarted where it was killed (a restart policy takes seconds) gets its
    match back without waiting a lease; a live process's matches are left alone, and a pid
    taken since by another process only leaves the lease to run out as before."""
    host = f"{socket.gethostname()}:"
    with db.session() as s:
        dead = [w for w in lease_holders(s, host) if not _alive(w.removeprefix(host))]
        return end_leases_of(s, dead)


def _alive(pid: str) -> bool:
    if not pid.isdigit():
        return True  # not a name this host gives: leave it to its lease
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
