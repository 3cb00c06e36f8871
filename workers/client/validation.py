"""Validating uploaded bots on Celery workers: the version id goes to the queue whose workers
have the bot's runtime (its build queue when it has a build step); a broker that cannot take
the job falls back to the embedded thread, so an upload is never left without a validation."""

from __future__ import annotations

import logging

from kombu.exceptions import OperationalError

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
            log.warning("broker unreachable (%s): validating version %s here", exc, version_id)
            return self.fallback(version_id, manifest)
