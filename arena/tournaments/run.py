"""Running one stored match: the job the embedded executor and the Celery workers share.

``run_match`` claims the match under a lease, keeps the lease alive while the referee plays,
and records the result with the lease's token, so whichever backend runs it, a lost worker
costs one re-run and a late or duplicated result is never counted. A database that goes
away meanwhile is waited out: a played match records its result once it answers again, and
a match cut short by the outage is given back without counting the attempt.
"""

from __future__ import annotations

import logging
import shutil
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

from sqlalchemy.exc import SQLAlchemyError

from arena.referee import MatchResult, MatchSpec
from arena.referee.match import Referee
from arena.registry import player_for
from arena.registry.players import captured_logs
from arena.runtime import Runtime
from arena.store import (
    BotVersion,
    Database,
    Lease,
    claim_match,
    get_match,
    get_tournament,
    record_result,
    release_match,
    save_live_record,
)
from arena.store.db import database_down, outage_text
from arena.store.leases import kept, repeating
from arena.store.matches import MATCHES
from arena.tournaments.background import run_under_way
from arena.tournaments.spec import TournamentSpec
from arena.tournaments.standings import snapshot_if_due
from arena.tournaments.stopping import Stopped, checkpoint, shielded, stop_soon, stoppable

OUTAGE_WAIT_S = 120.0  # how long a match waits for an unreachable database to record or give back
STOP_POLL_S = 1.0  # how often a match asks whether its run was stopped from the dashboard
logger = logging.getLogger(__name__)


def match_spec(db: Database, match_id: int) -> tuple[MatchSpec, list[BotVersion]]:
    """The referee's view of a stored match and the versions in entrant order."""
    with db.session(read_only=True) as s:
        match = get_match(s, match_id)
        tournament = get_tournament(s, match.tournament_id)
        versions = [s.get_one(BotVersion, v) for v in match.seats]
        settings = TournamentSpec.from_row(tournament)
    spec = MatchSpec(
        f"t{tournament.id}-m{match_id}",
        settings.rules,
        match.seed,
        settings.games_per_match,
        settings.clock,
        settings.max_strikes,
    )
    return spec, versions


def play_until_stopped(db: Database, runtime: Runtime, match_id: int, worker: str) -> str:
    """``run_match`` for a worker: ``stopped`` (the match given back, to be played again)
    when a stop comes meanwhile, from a signal or from the dashboard."""
    try:
        with stoppable():
            return run_match(db, runtime, match_id, worker)
    except Stopped:
        return "stopped"


def run_match(db: Database, runtime: Runtime, match_id: int, worker: str) -> str:
    """Claim, play and record one match. Returns ``done``; ``skipped`` (done, failed or
    leased to another worker); ``retry`` or ``failed`` after a platform error (not a bot's:
    those are faults inside the result), by whether attempts are left; ``late`` when the
    lease was lost and another attempt took over.
    """
    settings = runtime.settings
    lease, log_dir = None, None
    try:
        # A stop comes after the claim, inside this try (which gives it back), or not at all.
        with shielded(), db.session() as s:
            lease = claim_match(s, match_id, worker, settings.lease_s, settings.max_attempts)
        if lease is None:
            return "skipped"
        log_dir = runtime.log_dir(match_id, lease.token)
        with keep_lease(db, lease, settings.lease_s), watch_for_stop(db, match_id):
            status = _play_and_record(db, runtime, lease, log_dir)
    except Exception as exc:
        if lease is None:
            raise  # the claim itself failed (the database away, say): nothing to give back
        released = give_back(db, lease, exc, settings.max_attempts)
        return {"pending": "retry", "failed": "failed"}.get(released or "", "late")
    except BaseException:  # Ctrl-C or a stop request: give the match back at once
        if lease is not None:
            with shielded(), db.session() as s:
                release_match(s, lease, "interrupted", settings.max_attempts, interrupted=True)
        raise
    finally:
        if log_dir is not None:
            shutil.rmtree(log_dir, ignore_errors=True)
    if status == "done":
        rate_as_results_arrive(db, match_id)
    return status


def give_back(db: Database, lease: Lease, exc: Exception, max_attempts: int) -> str | None:
    """Give the match back after a platform error: the attempt counts, unless the error was
    the database being away (``database_down``), which is waited out to give it back (for
    ``OUTAGE_WAIT_S``; after that the error is raised and the lease runs out)."""
    outage = database_down(exc)
    reason = (
        f"database unreachable: {outage_text(exc)}" if outage else f"{type(exc).__name__}: {exc}"
    )

    def release() -> str | None:
        with shielded(), db.session() as s:
            return release_match(s, lease, reason, max_attempts, outage=outage)

    return db.patiently(release, OUTAGE_WAIT_S, f"giving match {lease.match_id} back")


def _play_and_record(db: Database, runtime: Runtime, lease: Lease, log_dir: Path) -> str:
    started = time.perf_counter()
    result, versions = play_stored_match(db, runtime, lease.match_id, log_dir, lease)
    logs = captured_logs(log_dir, versions)
    wall_s = time.perf_counter() - started

    def record() -> bool:
        with shielded(), db.session() as s:
            return record_result(s, lease, result, wall_s, logs)

    # A played match is worth waiting for: its lease is renewed again once the database
    # answers, and only a worker that took it over meanwhile makes this result late.
    stored = db.patiently(record, OUTAGE_WAIT_S, f"the result of match {lease.match_id}")
    return "done" if stored else "late"


def rate_as_results_arrive(db: Database, match_id: int) -> None:
    """A rating snapshot when this result crosses a step of its tournament. The result is
    stored already: a failure here is logged and never turns the match into a retry."""
    try:
        with db.session(read_only=True) as s:
            tournament_id = get_match(s, match_id).tournament_id
        snapshot_if_due(db, tournament_id)
    except Exception:
        logger.exception("match %s: rating snapshot failed", match_id)


def play_stored_match(
    db: Database, runtime: Runtime, match_id: int, log_dir: Path, lease: Lease | None = None
) -> tuple[MatchResult, list[BotVersion]]:
    """Play a stored match with its bots (fetched from the database on first use); under
    ``lease``, what has been played is stored after every deal for the match's page."""
    spec, versions = match_spec(db, match_id)
    players = [player_for(db, runtime, v, spec.seed + i, log_dir) for i, v in enumerate(versions)]
    referee = Referee(spec, players, None)
    referee.before_decision = checkpoint
    if lease is not None:
        referee.on_deal = lambda *_: store_progress(db, lease, referee.record_so_far())
    return referee.run(), versions


def store_progress(db: Database, lease: Lease, record: dict) -> None:
    """Best effort: a failed write costs the page one update, never the match."""
    try:
        with shielded(), db.session() as s:
            save_live_record(s, lease, record)
    except SQLAlchemyError as exc:
        logger.warning("match %s: progress not stored: %s", lease.match_id, exc)


def keep_lease(db: Database, lease: Lease, lease_s: float) -> AbstractContextManager[None]:
    """Renew the lease every third of its length while the block runs."""
    return kept(db, MATCHES, lease.match_id, lease.token, lease_s)


@contextmanager
def watch_for_stop(db: Database, match_id: int) -> Iterator[None]:
    """While the block plays the match: if the organiser stops the dashboard's run it
    belongs to, stop the match at its next decision (``stopping.checkpoint``)."""
    if not run_under_way(db, match_id):  # no run a stop could come from
        yield
        return

    def watch() -> bool:
        if run_under_way(db, match_id):
            return False
        stop_soon()
        return True

    with repeating(watch, STOP_POLL_S, f"stop-{match_id}"):
        yield
