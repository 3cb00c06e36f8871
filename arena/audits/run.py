"""Judging one match's decisions for the audit: the job a Celery worker and ``arena audit``
share.

``run`` claims the hindsight under a lease, keeps the lease alive while the master judges
the non-house entrants (``arena.analysis.hindsight.match_hindsight``), and stores the
result with the lease's token and the judging's CPU time: a worker that lost its lease
stores nothing, so a result is stored once. An error of the judging ends it failed with
the reason (another attempt would repeat it); a stop (Ctrl-C) or a database outage gives
it back without counting the attempt.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable

from arena.analysis.hindsight import Hindsight, match_hindsight
from arena.config import DEFAULT_LEASE_S, DEFAULT_MAX_ATTEMPTS, Settings
from arena.game import derive_seed
from arena.house.master import cache as master_cache
from arena.store import Database, get_match, load_replay
from arena.store.db import database_down
from arena.store.hindsights import (
    HINDSIGHTS,
    HindsightLease,
    claim_hindsight,
    fail_hindsight,
    get_hindsight,
    judged_entrants,
    release_hindsight,
    store_hindsight,
    unfinished,
)
from arena.store.leases import kept, renew

OUTAGE_WAIT_S = 120.0  # how long a finished judging waits for the database to store it
WAIT_POLL_S = 1.0  # how often ``work_out`` looks at a hindsight another worker holds
Progress = Callable[[int, int], None]  # (hindsights finished, hindsights in all)
log = logging.getLogger(__name__)


class LeaseLost(Exception):
    """Another attempt took the hindsight over: this one's work would not be stored."""


def seed_for(match_id: int) -> int:
    """The judging's seed: from the match id, so any worker judges a match alike."""
    return derive_seed("hindsight", match_id)


def run(db: Database, hindsight_id: int, worker: str, settings: Settings | None = None) -> str:
    """Claim, judge and store one hindsight (under the lease and attempts of ``settings``).
    Returns ``done``; ``skipped`` (done, failed or leased to another worker); ``failed``
    (the judging raised: the reason is stored); ``late`` (the lease was lost meanwhile)."""
    lease_s = DEFAULT_LEASE_S if settings is None else settings.lease_s
    max_attempts = DEFAULT_MAX_ATTEMPTS if settings is None else settings.max_attempts
    master_cache.ensure_built()  # before the claim: a cold build takes longer than a lease
    with db.session() as s:
        lease = claim_hindsight(s, hindsight_id, worker, lease_s, max_attempts)
        if lease is None:
            return "skipped"
        match_id = get_hindsight(s, hindsight_id).match_id
        entrants = judged_entrants(s, get_match(s, match_id).seats)
    try:
        with kept(db, HINDSIGHTS, hindsight_id, lease.token, lease_s):
            with db.session(read_only=True) as s:
                record = load_replay(s, match_id)
            started = time.process_time()
            judged = match_hindsight(
                record, entrants, seed_for(match_id), progress=_watch(db, lease, lease_s)
            )
            cpu_s = time.process_time() - started
    except LeaseLost:
        return "late"
    except Exception as exc:
        return _give_up(db, lease, exc)
    except BaseException:  # Ctrl-C: give it back at once, uncounted
        with db.session() as s:
            release_hindsight(s, lease)
        raise
    return "done" if _store(db, lease, judged, cpu_s) else "late"


def _watch(db: Database, lease: HindsightLease, lease_s: float) -> Progress:
    """After each judged entrant, renew the lease; once it is lost, stop (``LeaseLost``)."""

    def judged_one(done: int, total: int) -> None:
        with db.session() as s:
            held = renew(s, HINDSIGHTS, lease.hindsight_id, lease.token, lease_s)
        if not held:
            raise LeaseLost(f"hindsight {lease.hindsight_id}: lease lost")

    return judged_one


def _give_up(db: Database, lease: HindsightLease, exc: Exception) -> str:
    """After an error: a database outage gives the hindsight back (raised again once the
    database answers, for the caller to try again); any other error fails it."""
    outage = database_down(exc)

    def end() -> bool:
        with db.session() as s:
            if outage:
                return release_hindsight(s, lease)
            return fail_hindsight(s, lease, f"the judging failed: {type(exc).__name__}: {exc}")

    ended = db.patiently(end, OUTAGE_WAIT_S, f"ending hindsight {lease.hindsight_id}")
    if outage:
        raise exc
    log.warning("hindsight %s failed", lease.hindsight_id, exc_info=exc)
    return "failed" if ended else "late"


def _store(db: Database, lease: HindsightLease, judged: list[Hindsight], cpu_s: float) -> bool:
    """Store the result once the database answers; False when the lease was lost."""
    entrants = [h.to_dict() for h in judged]

    def store() -> bool:
        with db.session() as s:
            return store_hindsight(s, lease, entrants, cpu_s)

    return db.patiently(store, OUTAGE_WAIT_S, f"the result of hindsight {lease.hindsight_id}")


def work_out(
    db: Database,
    tournament_id: int | None,
    worker: str,
    settings: Settings | None = None,
    progress: Progress | None = None,
) -> Counter[str]:
    """Judge in this process every hindsight of the scope's matches still to judge (one
    tournament's; None: every tournament's); one another worker holds is waited for, and
    taken over if that worker is lost. How many ended in each final status (``done``,
    ``failed``)."""
    with db.session(read_only=True) as s:
        pending = unfinished(s, tournament_id)
    ended: Counter[str] = Counter()
    total = len(pending)
    if progress is not None:
        progress(0, total)
    while pending:
        held_elsewhere = []
        for hindsight_id in pending:
            run(db, hindsight_id, worker, settings)
            with db.session(read_only=True) as s:
                status = get_hindsight(s, hindsight_id).status
            if status not in ("done", "failed"):
                held_elsewhere.append(hindsight_id)
                continue
            ended[status] += 1
            if progress is not None:
                progress(sum(ended.values()), total)
        pending = held_elsewhere
        if pending:
            time.sleep(WAIT_POLL_S)
    return ended
