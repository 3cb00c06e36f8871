"""The jobs: each takes ids and calls one ``arena`` function, so the embedded executor and
the workers run identical code (and the functions are tested without Celery)."""

from __future__ import annotations

import os
from datetime import timedelta

from celery import Task
from celery.signals import worker_init, worker_ready

from arena.config import Settings
from arena.registry import validate_stored
from arena.runtime import Runtime
from arena.sandbox import SandboxPolicy, sweep_leftovers
from arena.store import Database, get_match
from arena.store.models import utcnow
from arena.submissions.turns import end_turn, take_turn
from arena.tournaments.background import job_withdrawn
from arena.tournaments.dispatch import finish_if_over, matches_to_send
from arena.tournaments.executor import worker_name
from arena.tournaments.run import play_until_stopped
from workers.app import app

RETRY_S = 2.0  # pause before another attempt after a platform error
TURN_WAIT_S = 5.0  # before trying again a validation whose owner has one running
_context: tuple[int, Database, Runtime] | None = None
_settings: Settings | None = None


def use_settings(settings: Settings) -> None:
    """The settings this worker's command was given (before its pool forks); default: the
    environment's."""
    global _settings, _context
    _settings, _context = settings, None


def context() -> tuple[Database, Runtime]:
    """This process's database and runtime (engines must not cross a fork)."""
    global _context
    if _context is None or _context[0] != os.getpid():
        settings = _settings or Settings.from_env()
        _context = (os.getpid(), Database(settings.database_url), Runtime(settings))
    return _context[1], _context[2]


@worker_init.connect
def _sweep(**_kwargs) -> None:
    """Bots a killed earlier worker on this machine left behind."""
    sweep_leftovers(SandboxPolicy.from_settings(_settings or Settings.from_env()))


@worker_ready.connect
def _requeue_lost_validations(**_kwargs) -> None:
    """Validation jobs the broker lost (or web processes killed mid-validation): sent again."""
    from arena.submissions import EmbeddedValidation
    from arena.submissions.sweep import requeue_stale
    from workers.client.validation import BrokerValidation  # imports this module: not at the top

    db, runtime = context()
    timeout = timedelta(seconds=runtime.settings.pending_timeout_s)
    requeue_stale(db, BrokerValidation(EmbeddedValidation(db, runtime)), timeout)


@app.task(bind=True, name="arena.run_match", max_retries=None)
def run_match_task(self: Task, match_id: int) -> str:
    """Play one match. Retried after a platform error (the database caps the attempts);
    while another worker holds the lease, it waits for the lease and looks again; the last
    match closes its tournament (or schedules and sends its next adaptive round)."""
    db, runtime = context()
    if job_withdrawn(db, match_id):
        return "stopped"  # an organiser stopped the tournament after this job was sent
    status = play_until_stopped(db, runtime, match_id, worker_name())
    if status == "stopped":
        return status  # given back unsent: the organiser's next start sends it again
    if status == "retry":
        raise self.retry(countdown=RETRY_S)
    with db.session(read_only=True) as s:
        match = get_match(s, match_id)
        tournament_id, running = match.tournament_id, match.status == "running"
    if running:  # leased elsewhere: if that worker is lost, its lease runs out
        raise self.retry(countdown=runtime.settings.lease_s)
    finish_if_over(db, tournament_id)
    send_new_matches(db, tournament_id)
    return status


def send_new_matches(db: Database, tournament_id: int) -> None:
    """Send the matches never sent: a round of adaptive matches that the last match's
    finish scheduled (nothing, one indexed read, otherwise)."""
    for match_id, queue in matches_to_send(db, tournament_id):
        run_match_task.apply_async((match_id,), queue=queue)


@app.task(name="arena.finish_tournament")
def finish_tournament_task(tournament_id: int) -> bool:
    """Final ratings snapshot and status once no match is left (idempotent)."""
    db, _ = context()
    return finish_if_over(db, tournament_id)


@app.task(name="arena.validate_bot", bind=True, max_retries=None)
def validate_bot_task(self: Task, version_id: int) -> str:
    """Judge an uploaded bot version by its validation match, one per owner at a time: while
    another of the owner's versions is being validated, the job goes back to the queue."""
    db, runtime = context()
    with db.session() as s:
        mine = take_turn(s, version_id, utcnow(), runtime.settings.pending_timeout_s)
    if not mine:
        raise self.retry(countdown=TURN_WAIT_S)
    try:
        return validate_stored(db, runtime, version_id).status
    finally:
        with db.session() as s:
            end_turn(s, version_id)
