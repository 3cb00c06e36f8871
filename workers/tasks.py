"""The jobs: each takes ids and calls one ``arena`` function, so the embedded executor and
the workers run identical code (and the functions are tested without Celery).

A database that cannot be reached is trouble that passes (``database_down``), never a
reason to fail a job: the job waits for it in its process, so that the worker takes no
other job meanwhile and the queue is not drained into failures, and runs again once the
database answers; after ``OUTAGE_HOLD_S`` it goes back to the queue, to be tried again
after a countdown that grows with each return. Nothing is acknowledged and dropped."""

from __future__ import annotations

import functools
import logging
import os
import time
from collections.abc import Callable
from datetime import timedelta
from typing import TypeVar

from celery import Task
from celery.signals import worker_init, worker_ready
from kombu.exceptions import OperationalError as BrokerError
from sqlalchemy.exc import DBAPIError

from arena import analysis_runs, audits
from arena.comparisons.advance import advance, advance_all, comparison_of, running_tournaments
from arena.comparisons.gate import open_gates
from arena.config import Settings
from arena.ladders.feed import feed, feed_all
from arena.ops import worker_metrics
from arena.registry import validate_stored
from arena.runtime import Runtime
from arena.sandbox import SandboxPolicy, sweep_leftovers
from arena.store import Database, get_match
from arena.store.db import database_down, outage_text
from arena.store.ladders import ladder_of_tournament
from arena.store.models import utcnow
from arena.submissions.turns import end_turn, take_turn
from arena.tournaments.background import job_withdrawn
from arena.tournaments.dispatch import (
    AUDIT_PRIORITY,
    AUDIT_QUEUE,
    DEFAULT_QUEUE,
    Job,
    finish_if_over,
    matches_to_send,
    recover,
    recovery_every_s,
    send_freed,
)
from arena.tournaments.executor import release_dead_holders, worker_name
from arena.tournaments.run import OUTAGE_WAIT_S, play_until_stopped
from workers.app import app, queue_idle

RETRY_S = 2.0  # pause before another attempt after a platform error
TURN_WAIT_S = 5.0  # before trying again a validation whose owner has one running
OUTAGE_HOLD_S = 60.0  # a job waits this long for the database before going back to the queue
OUTAGE_BACKOFF_S = 60.0  # the longest countdown of a job sent back for an outage
# Analyses go where Python bots' matches go: every such worker built the master's compiled
# search at its start (``arena worker``), which an analysis runs in the worker's own process.
ANALYSIS_QUEUE = DEFAULT_QUEUE
log = logging.getLogger(__name__)
T = TypeVar("T")
_context: tuple[int, Database, Runtime] | None = None
_settings: Settings | None = None
_budget: audits.Budget | None = None  # this process's inline judging (``judge_or_send``)


def _configured() -> Settings:
    """The settings ``use_settings`` gave, else the environment's."""
    return _settings or Settings.from_env()


def use_settings(settings: Settings) -> None:
    """The settings this worker's command was given (before its pool forks); default: the
    environment's."""
    global _settings, _context
    _settings, _context = settings, None


def context() -> tuple[Database, Runtime]:
    """This process's database and runtime (engines must not cross a fork)."""
    global _context
    if _context is None or _context[0] != os.getpid():
        settings = _configured()
        _context = (os.getpid(), Database(settings.database_url), Runtime(settings))
    return _context[1], _context[2]


def through_outages(task: Task, body: Callable[[], T]) -> T:
    """Run a job's ``body``; while the database is down, hold the job (see the module's
    docstring) and run it again once the database answers. Bodies are safe to run again:
    claims, leases and results are decided by the database."""
    db, _ = context()
    while True:
        try:
            return body()
        except DBAPIError as exc:
            if not database_down(exc):
                raise
            log.warning(
                "database unreachable (%s): job %s waits for it", outage_text(exc), task.request.id
            )
            if not db.wait_until_up(OUTAGE_HOLD_S):
                countdown = min(OUTAGE_BACKOFF_S, RETRY_S * 2 ** min(task.request.retries, 10))
                raise task.retry(countdown=countdown) from None
            log.warning("the database answers again: job %s runs again", task.request.id)


@worker_init.connect
def _sweep(**_kwargs) -> None:
    """Bots a killed earlier worker on this machine left behind."""
    sweep_leftovers(SandboxPolicy.from_settings(_configured()))


def _validations(db: Database, runtime: Runtime):
    """Validations sent through the broker (run here when it cannot take them)."""
    from arena.submissions import EmbeddedValidation
    from workers.client.validation import BrokerValidation  # imports this module: not at the top

    return BrokerValidation(EmbeddedValidation(db, runtime))


@worker_ready.connect
def _recover_at_start(**_kwargs) -> None:
    """What a killed worker left: the matches its dead processes on this host held, freed and
    sent again at once (a restarted worker need not wait their leases out), and validation
    jobs the broker lost (or web processes killed mid-validation). The beat's recovery does
    the same periodically."""
    from arena.submissions.sweep import requeue_stale

    db, runtime = context()
    timeout = timedelta(seconds=runtime.settings.validation_lost_s)
    try:
        if freed := release_dead_holders(db):
            log.warning("matches %s of a killed worker on this host: played again now", freed)
            send_freed(db, freed, send_match)
        requeue_stale(db, _validations(db, runtime), timeout)
    except DBAPIError as exc:
        if not database_down(exc):
            raise
        log.warning("database unreachable (%s): nothing recovered at start", outage_text(exc))


@app.task(bind=True, name="arena.run_match", max_retries=None)
def run_match_task(self: Task, match_id: int) -> str:
    """Play one match. Retried after a platform error (the database caps the attempts);
    while another worker holds the lease, it waits for the lease and looks again; the last
    match closes its tournament (or schedules and sends its next adaptive round)."""
    return through_outages(self, lambda: _run_match(self, match_id))


def _run_match(task: Task, match_id: int) -> str:
    db, runtime = context()
    if job_withdrawn(db, match_id):
        return "stopped"  # an organiser stopped the tournament after this job was sent
    started = time.monotonic()
    status = play_until_stopped(db, runtime, match_id, worker_name())
    played_s = time.monotonic() - started
    worker_metrics.match_ended(db, match_id, status, played_s)
    if status == "stopped":
        return status  # given back unsent: the organiser's next start sends it again
    if status == "retry":
        raise task.retry(countdown=RETRY_S)
    with db.session(read_only=True) as s:
        match = get_match(s, match_id)
        tournament_id, running = match.tournament_id, match.status == "running"
        ladder = ladder_of_tournament(s, tournament_id)
        ladder_id = None if ladder is None else ladder.id
    if running:  # leased elsewhere: if that worker is lost, its lease runs out
        raise task.retry(countdown=runtime.settings.lease_s)
    if ladder_id is not None:
        # A playing ladder keeps every worker busy, and the beat's ticks expire unread while
        # none is free to take one: after a ladder match its worker tops the ladder up at
        # once, and does the tick's whole work (every tournament's lost matches sent again)
        # when this process has not done it for a tick's length.
        feed(db, runtime, ladder_id)
        send_new_matches(db, tournament_id)
        if _tick_due(runtime.settings.lease_s):
            log.info("after ladder match %s: %s", match_id, recovery(db, runtime))
    else:
        if (comparison_id := comparison_of(db, tournament_id)) is not None:
            advance(db, comparison_id)  # its next pair, or its verdict
        finish_if_over(db, tournament_id)
        send_new_matches(db, tournament_id)
    # Last, once the next matches are out: the decision audit's judging of this one.
    judge_or_send(db, runtime, match_id, played_s)
    return status


_last_tick = 0.0  # when this process last ran the recovery after a ladder match


def _tick_due(lease_s: float) -> bool:
    global _last_tick
    now = time.monotonic()
    if now - _last_tick < recovery_every_s(lease_s):
        return False
    _last_tick = now
    return True


def send_match(job: Job) -> bool:
    """Send one match's job; False when the broker is away (the match is marked sent: the
    recovery sends it again once the mark is a lease old)."""
    return _send(run_match_task, job.match_id, job.queue, "match", job.priority)


def _send(task: Task, job_id: int, queue: str, what: str, priority: int = 0) -> bool:
    """Send ``task``'s job for ``job_id`` (``priority``: 0, the default, first; 9 last);
    False, with a warning, when the broker is away."""
    try:
        task.apply_async((job_id,), queue=queue, priority=priority)
    except BrokerError as exc:
        log.warning("could not send %s %s (%s); it will be sent again", what, job_id, exc)
        return False
    return True


def send_new_matches(db: Database, tournament_id: int) -> None:
    """Send the matches never sent: a round of adaptive matches that the last match's
    finish scheduled (nothing, one indexed read, otherwise)."""
    for job in matches_to_send(db, tournament_id):
        send_match(job)


def idle_queues() -> Callable[[str], bool]:
    """Whether nothing waits in a queue, asking the broker once per queue."""
    known: dict[str, bool] = {}

    def idle(queue: str) -> bool:
        if queue not in known:
            known[queue] = queue_idle(app, queue)
        return known[queue]

    return idle


@app.task(name="arena.recover")
def recover_task() -> str:
    """The beat's periodic job (``recovery``); while the database is down it does nothing
    (the next tick tries again)."""
    db, runtime = context()
    try:
        return recovery(db, runtime)
    except DBAPIError as exc:
        if not database_down(exc):
            raise
        log.warning("database unreachable (%s): recovery waits for the next tick", outage_text(exc))
        return "database unreachable"


def recovery(db: Database, runtime: Runtime) -> str:
    """Top the ladders' queues up (``arena.ladders.feed``), send the new matches and again
    those whose job or worker was lost, finish the tournaments that are over
    (``arena.tournaments.dispatch.recover``), restart lost validations
    (``arena.submissions.sweep``), send again lost analyses (``arena.analysis_runs``) and
    hindsights (``arena.audits``: matches recorded without a broker are sent here first).
    Safe on many hosts at once. What it did, in a line."""
    from arena.submissions.sweep import requeue_stale

    settings = runtime.settings
    fed = feed_all(db, runtime)
    gates = open_gates(db, runtime)
    advance_all(db)
    idle = idle_queues()
    sent = recover(db, settings.lease_s, idle, send_match)
    timeout = timedelta(seconds=settings.validation_lost_s)
    restarted = requeue_stale(db, _validations(db, runtime), timeout)
    analyses = analysis_runs.recover(db, settings.lease_s, idle(ANALYSIS_QUEUE), send_analysis)
    hindsights = audits.recover(db, settings.lease_s, idle(AUDIT_QUEUE), send_hindsight)
    # "N matches sent again" leads: the recovery test reads it in the workers' logs
    return (
        f"{sum(sent.values())} matches sent again (or first: new ladder matches), "
        f"{sum(fed.values())} ladder matches scheduled, {len(gates)} comparisons started, "
        f"{len(restarted)} validations restarted, "
        f"{hindsights} hindsights and {analyses} analyses sent again"
    )


@app.task(name="arena.finish_tournament")
def finish_tournament_task(tournament_id: int) -> bool:
    """Final ratings snapshot and status once no match is left (idempotent)."""
    db, _ = context()
    return finish_if_over(db, tournament_id)


@app.task(name="arena.validate_bot", bind=True, max_retries=None)
def validate_bot_task(self: Task, version_id: int) -> str:
    """Judge an uploaded bot version by its validation match, one per owner at a time: while
    another of the owner's versions is being validated, the job goes back to the queue."""
    return through_outages(self, lambda: _validate(self, version_id))


def _validate(task: Task, version_id: int) -> str:
    db, runtime = context()
    with db.session() as s:
        mine = take_turn(s, version_id, utcnow(), runtime.settings.validation_lost_s)
    if not mine:
        raise task.retry(countdown=TURN_WAIT_S)
    try:
        judge = functools.partial(validate_stored, db, runtime, version_id)
        status = worker_metrics.judged(db, version_id, judge).status
        send_gates(db, runtime)
        return status
    finally:
        db.patiently(lambda: _end_turn(db, version_id), OUTAGE_WAIT_S, "a validation turn")


def send_gates(db: Database, runtime: Runtime) -> None:
    """The comparisons a validation made due, started and their first pairs sent at once
    (the recovery tick would, later)."""
    if open_gates(db, runtime):
        for tournament_id in running_tournaments(db):
            send_new_matches(db, tournament_id)


def _end_turn(db: Database, version_id: int) -> None:
    with db.session() as s:
        end_turn(s, version_id)


@app.task(bind=True, name="arena.analyse", max_retries=None)
def analyse_task(self: Task, analysis_id: int) -> str:
    """Work out one match analysis (``arena.analysis_runs.run``): stored once, whichever
    worker finishes it. A job whose analysis another worker holds ends ``skipped``: if that
    worker is lost, the recovery sends the analysis again once its lease has run out."""
    db, runtime = context()
    return through_outages(
        self, lambda: analysis_runs.run(db, analysis_id, worker_name(), runtime.settings)
    )


def send_analysis(analysis_id: int) -> bool:
    """Send one analysis's job; False when the broker is away (the analysis is marked sent:
    the recovery sends it again once the mark is a lease old)."""
    return _send(analyse_task, analysis_id, ANALYSIS_QUEUE, "analysis")


@app.task(bind=True, name="arena.hindsight", max_retries=None)
def hindsight_task(self: Task, hindsight_id: int) -> str:
    """Judge one finished match's decisions for the audit (``arena.audits.run``): stored
    once, whichever worker finishes it; ``skipped`` when another worker holds it (if that
    worker is lost, the recovery sends it again once its lease has run out)."""
    db, runtime = context()
    return through_outages(
        self, lambda: audits.run(db, hindsight_id, worker_name(), runtime.settings)
    )


def send_hindsight(hindsight_id: int) -> bool:
    """Send one hindsight's job to the audit queue at the lowest priority (a worker takes it
    once nothing else waits for it); False when the broker is away (the recovery sends it
    again once the mark is a lease old)."""
    return _send(hindsight_task, hindsight_id, AUDIT_QUEUE, "hindsight", AUDIT_PRIORITY)


def judge_or_send(db: Database, runtime: Runtime, match_id: int, played_s: float) -> list[str]:
    """The just-recorded match's hindsight, if it has one never sent (a second job of the
    same match finds none): judged in this process within its budget
    (``arena.audits.budget``), else sent to the audit queue."""
    global _budget
    if _budget is None or _budget.share != runtime.settings.audit_share:
        _budget = audits.Budget(runtime.settings.audit_share)
    _budget.played(played_s)
    return audits.judge_or_send(
        db, runtime.settings, _budget, match_id, worker_name(), send_hindsight
    )
