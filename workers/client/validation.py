"""Validating uploaded bots on Celery workers: the version id goes to the queue whose workers
have the bot's runtime (its build queue when it has a build step); a broker that cannot take
the job falls back to the embedded thread, so an upload is never left without a validation.
Where this process has no sandbox (``ARENA_VALIDATE_HERE=0``: the dashboard's container) the
version stays pending instead, marked lost, and the next sweep sends it again."""

from __future__ import annotations

import logging
from datetime import timedelta

from kombu.exceptions import OperationalError

from arena.store import BotVersion, Database
from arena.store.models import utcnow
from arena.submissions import EmbeddedValidation
from arena.tournaments.dispatch import validation_queue
from workers.identity import sending_for
from workers.tasks import validate_bot_task

log = logging.getLogger(__name__)


class BrokerValidation:
    """A ``Validator`` sending ``arena.validate_bot`` jobs (for the fallback's database);
    ``fallback`` when sending fails."""

    def __init__(self, fallback: EmbeddedValidation) -> None:
        self.fallback = fallback

    def __call__(self, version_id: int, manifest: dict) -> object:
        try:
            with sending_for(self.fallback.db):
                return validate_bot_task.apply_async(
                    (version_id,), queue=validation_queue(manifest)
                )
        except OperationalError as exc:
            settings = self.fallback.runtime.settings
            if not settings.validate_here:
                log.warning("broker unreachable (%s): version %s waits for it", exc, version_id)
                wait_for_workers(self.fallback.db, version_id, settings.validation_lost_s)
                return None
            log.warning("broker unreachable (%s): validating version %s here", exc, version_id)
            return self.fallback(version_id, manifest)


def wait_for_workers(db: Database, version_id: int, lost_after_s: float) -> None:
    """Leave the version pending, saying why, with its validation's start moved back past
    the sweeps' cutoff: the next sweep (the beat's recovery, every third of a lease, or
    this process's own) finds it lost and sends it again, once the broker answers."""
    with db.session() as s:
        row = s.get(BotVersion, version_id)
        if row is not None and row.status == "pending":
            row.reason = (
                "waiting for a worker: the broker is unreachable; sent again once it answers"
            )
            row.validation_started_at = utcnow() - timedelta(seconds=lost_after_s + 1)
