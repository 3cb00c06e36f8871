"""Restarting validations that were lost: a web process killed mid-validation, or a broker
job that vanished, leaves its version ``pending`` with nobody judging it. A sweep finds the
versions pending since before a cutoff and starts their validation again.

Each is claimed first, by one conditional UPDATE moving its ``validation_started_at`` to now
(only while it is still pending and still older than the cutoff): two sweeps at once, in
any processes, restart each version once.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from datetime import datetime, timedelta

from sqlalchemy import func, select, update

from arena.store import BotVersion, Database
from arena.store.db import database_down, outage_text, rowcount
from arena.store.models import utcnow
from arena.submissions.validation import Validator, validation_pool

log = logging.getLogger(__name__)


def _lost(cutoff: datetime):
    """Still pending, its latest validation started before ``cutoff``."""
    started = func.coalesce(BotVersion.validation_started_at, BotVersion.created_at)
    return (BotVersion.status == "pending") & (started < cutoff)


def requeue_stale(
    db: Database,
    validate: Validator,
    older_than: timedelta,
    clock: Callable[[], datetime] = utcnow,
) -> list[int]:
    """Start again the validation of every version pending since before ``older_than`` ago;
    returns the ids this call claimed (and passed to ``validate``)."""
    now = clock()
    cutoff = now - older_than
    with db.session(read_only=True) as s:
        stale = s.scalars(select(BotVersion.id).where(_lost(cutoff)).order_by(BotVersion.id)).all()
    restarted = []
    for version_id in stale:
        manifest = _claim(db, version_id, cutoff, now)
        if manifest is None:
            continue  # judged meanwhile, or another sweep took it
        try:
            validate(version_id, manifest)
        except Exception:  # one lost restart must not stop the others: the next sweep retries
            log.exception("could not restart the validation of bot version %s", version_id)
            continue
        log.info("restarted the lost validation of bot version %s", version_id)
        restarted.append(version_id)
    return restarted


def _claim(db: Database, version_id: int, cutoff: datetime, now: datetime) -> dict | None:
    """The version's manifest if this call moved its start to ``now``, else None."""
    with db.session() as s:
        claimed = rowcount(
            s.execute(
                update(BotVersion)
                .where(BotVersion.id == version_id, _lost(cutoff))
                .values(validation_started_at=now)
                .execution_options(synchronize_session=False)
            )
        )
        if claimed != 1:
            return None
        return s.scalar(select(BotVersion.manifest).where(BotVersion.id == version_id))


# this process's sweep: (pid, [what it sweeps]); one timer thread per process
_periodic: tuple[int, list] | None = None
_lock = threading.Lock()


def sweep_periodically(db: Database, validate: Validator, older_than: timedelta) -> None:
    """Sweep now, then every half ``older_than``, on this process's validation thread (so a
    sweep never runs beside the validations it might restart). One timer per process: a
    later call changes what it sweeps instead of starting another."""
    global _periodic
    target = [db, validate, older_than]
    with _lock:
        if _periodic is None or _periodic[0] != os.getpid():
            _periodic = (os.getpid(), target)
            threading.Thread(target=_every, args=(target,), name="arena-sweep", daemon=True).start()
        else:
            _periodic[1][:] = target
    _sweep_soon(target)


def _every(target: list) -> None:
    while True:
        time.sleep(max(1.0, target[2].total_seconds() / 2))
        _sweep_soon(target)


def _sweep_soon(target: list) -> None:
    validation_pool().submit("sweep", _sweep_logged, *target)


def _sweep_logged(db: Database, validate: Validator, older_than: timedelta) -> None:
    try:
        requeue_stale(db, validate, older_than)
    except Exception as exc:  # the next sweep tries again
        if database_down(exc):  # one line, not a traceback per sweep while it is away
            log.warning(
                "the sweep of lost bot validations waits for the database: %s", outage_text(exc)
            )
        else:
            log.exception("the sweep of lost bot validations failed")
