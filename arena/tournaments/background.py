"""Starting and stopping a tournament from the dashboard, outside the web request.

With a broker configured (``ARENA_BROKER_URL`` set), a start sends the matches to the
Celery workers, as ``arena tournament run --backend celery --detach`` does; a stop marks
the run stopped, so that workers skip the jobs still queued, and clears the sent marks so
that the next start sends them again. A worker playing a match of the run sees the stop
within a second (``run_under_way``) and gives the match back, to be played again.

Without one, a start launches ``arena tournament run ID`` as a process of its own session
(it outlives the request and the web worker); a stop sends it SIGINT, its Ctrl-C: matches
being played are given back at once and the run can be started again. The process is
recorded (host, pid) in ``tournament_runs``, so any web worker on that host can stop it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Protocol

from sqlalchemy import select, update

from arena.runtime import Runtime
from arena.store import Database, Match, StoreError, get_tournament, set_tournament_status
from arena.store.models import TournamentRun, utcnow


class MatchQueue(Protocol):
    """Where a start sends the matches when workers play them
    (``workers.client.matches.CeleryMatches``). The caller passes it, so that this layer
    never imports the workers."""

    def problem(self) -> str | None:
        """Why the queue cannot take jobs now, in one line; None when it can."""

    def send(self, db: Database, tournament_id: int) -> object:
        """Send the jobs of the matches not yet sent."""


def start_run(
    db: Database, runtime: Runtime, tournament_id: int, queue: MatchQueue | None = None
) -> TournamentRun:
    """Start playing the tournament in the background: its matches sent to ``queue``, or
    without one in a process of its own; refused while a run is active or once it is done."""
    with db.session() as s:
        tournament = get_tournament(s, tournament_id)
        if tournament.status == "done":
            raise StoreError(f"tournament {tournament_id} is done already")
        run = s.get(TournamentRun, tournament_id)
        if run is not None and is_active(run):
            raise StoreError(f"tournament {tournament_id} is running already")
    if queue is not None:
        return _start_queued(db, tournament_id, queue)
    return _start_process(db, runtime, tournament_id)


def _start_queued(db: Database, tournament_id: int, queue: MatchQueue) -> TournamentRun:
    if problem := queue.problem():
        raise StoreError(problem)
    _record(db, tournament_id, "celery", None)
    queue.send(db, tournament_id)
    with db.session(read_only=True) as s:
        return s.get_one(TournamentRun, tournament_id)


def _start_process(db: Database, runtime: Runtime, tournament_id: int) -> TournamentRun:
    args = ["tournament", "run", str(tournament_id)]
    pid = start_command(db, runtime, args, f"tournament-{tournament_id}.log")
    return _record(db, tournament_id, "embedded", pid)


def start_command(db: Database, runtime: Runtime, args: list[str], log_name: str) -> int:
    """``arena ARGS`` on ``db`` as a process of its own session, which outlives the request
    and the web worker (its output goes to the runs log ``log_name``); its pid."""
    settings = runtime.settings
    env = {**os.environ, **settings.environment()}
    env["ARENA_DATABASE_URL"] = db.url.render_as_string(hide_password=False)
    log = runtime.log_dir("runs", log_name)
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("ab") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "arena", *args],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,  # its own process group: SIGINT reaches it and its pool
        )
    # Reap it when it ends, so its pid never lingers as a zombie that looks alive.
    threading.Thread(target=proc.wait, name=f"reap-{proc.pid}", daemon=True).start()
    return proc.pid


def _record(db: Database, tournament_id: int, backend: str, pid: int | None) -> TournamentRun:
    with db.session() as s:
        run = s.get(TournamentRun, tournament_id)
        if run is None:
            run = TournamentRun(tournament_id=tournament_id)
            s.add(run)
        run.backend, run.host, run.pid = backend, socket.gethostname()[:128], pid
        run.started_at, run.stopped_at = utcnow(), None
        s.flush()
        return run


def stop_run(db: Database, tournament_id: int) -> TournamentRun:
    """Stop the dashboard's run of the tournament (see the module's docstring)."""
    with db.session() as s:
        get_tournament(s, tournament_id)
        run = s.get(TournamentRun, tournament_id)
        if run is None or not is_active(run):
            raise StoreError(f"tournament {tournament_id} is not running from the dashboard")
        if run.backend == "embedded":
            if run.host != socket.gethostname()[:128]:
                raise StoreError(f"tournament {tournament_id} runs on {run.host}: stop it there")
            assert run.pid is not None  # an embedded run records its process group
            with contextlib.suppress(ProcessLookupError):  # it ended meanwhile
                os.killpg(run.pid, signal.SIGINT)
        else:
            s.execute(
                update(Match)
                .where(Match.tournament_id == tournament_id, Match.status == "pending")
                .values(queued_at=None)
            )
        run.stopped_at = utcnow()
        tournament = get_tournament(s, tournament_id)
        if tournament.status == "running":
            set_tournament_status(s, tournament_id, "draft")
        return run


def is_active(run: TournamentRun) -> bool:
    """Not stopped and, for a process on this host, still alive (a process on another host
    is taken to be)."""
    if run.stopped_at is not None:
        return False
    if run.backend != "embedded" or run.host != socket.gethostname()[:128]:
        return True
    return _runs_tournament(run.pid, run.tournament_id)


def _runs_tournament(pid: int | None, tournament_id: int) -> bool:
    """The pid is alive and is ``arena tournament run ID`` (not a recycled pid)."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z" and b"tournament" in argv and str(tournament_id).encode() in argv


def run_under_way(db: Database, match_id: int) -> bool:
    """The dashboard's run of the match's tournament is started and not stopped: a match
    claimed meanwhile watches this, and stops when it turns false."""
    query = (
        select(TournamentRun.stopped_at)
        .join(Match, Match.tournament_id == TournamentRun.tournament_id)
        .where(Match.id == match_id)
    )
    with db.session(read_only=True) as s:
        row = s.execute(query).first()
    return row is not None and row.stopped_at is None


def job_withdrawn(db: Database, match_id: int) -> bool:
    """A queued job whose match an organiser's stop took back (its sent mark is cleared;
    sending it again sets it): the worker skips it."""
    with db.session(read_only=True) as s:
        match = s.get(Match, match_id)
        if match is None or match.queued_at is not None:
            return False
        run = s.get(TournamentRun, match.tournament_id)
        return run is not None and run.stopped_at is not None
