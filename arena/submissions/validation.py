"""Validating a stored version in the background, in this process: threads that outlive
the web request, fair between users (``fair.py``: one validation per user at a time, users
in turn). (With a broker configured, ``workers.client.validation`` sends them to Celery workers
instead.)"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future

from sqlalchemy.exc import SQLAlchemyError

from arena.registry import validate_stored
from arena.runtime import Runtime
from arena.store import BotVersion, Database
from arena.submissions.fair import FairPool

log = logging.getLogger(__name__)

# Starts the validation of (version id, its manifest) and returns at once.
Validator = Callable[[int, dict], object]

VALIDATION_THREADS = 2  # a validation runs four bot processes; more would crowd 2 cores

_pool: tuple[int, FairPool] | None = None
_lock = threading.Lock()


def validation_pool() -> FairPool:
    """This process's validation threads (made after a fork, never inherited)."""
    global _pool
    with _lock:
        if _pool is None or _pool[0] != os.getpid():
            _pool = (os.getpid(), FairPool(VALIDATION_THREADS, "arena-validate"))
        return _pool[1]


class EmbeddedValidation:
    """A ``Validator`` running ``validate_stored`` on this process's validation threads, in
    turn with other users' uploads (the key is the bot's owner)."""

    def __init__(self, db: Database, runtime: Runtime) -> None:
        self.db, self.runtime = db, runtime

    def __call__(self, version_id: int, manifest: dict | None = None) -> Future[str]:
        with self.db.session(read_only=True) as s:
            row = s.get(BotVersion, version_id)
            owner = None if row is None else row.bot.owner_id
        pool = validation_pool()
        return pool.submit(("user", owner), run_validation, self.db, self.runtime, version_id)


def run_validation(db: Database, runtime: Runtime, version_id: int) -> str:
    """Judge the version; a platform failure (not the bot's) leaves it pending with the
    reason, so it is never rejected for the platform's fault. Returns the status."""
    try:
        return validate_stored(db, runtime, version_id).status
    except Exception as exc:  # a background thread: nobody else would see it
        log.exception("validation of bot version %s could not run", version_id)
        reason = f"validation could not run ({exc}); it will be tried again"
        try:
            with db.session() as s:
                row = s.get(BotVersion, version_id)
                if row is not None and row.status == "pending":
                    row.reason = reason[:2000]
        except SQLAlchemyError:
            log.exception("could not record why bot version %s is still pending", version_id)
        return "pending"
