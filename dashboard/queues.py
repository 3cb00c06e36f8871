"""What an organiser must know about the workers: queues with jobs waiting and no worker
taking them (``workers.client.consumers``), shown on the tournament pages to admins when a
broker is configured. Asked at most every ``CHECK_S``, by one request at a time (the others
show what was last found), and only when jobs wait: an idle cluster is never asked."""

from __future__ import annotations

import threading
import time

from flask import current_app

from dashboard.auth import current_user
from dashboard.submitting import runtime

CHECK_S = 15.0
_KEY = "arena_queue_warnings"
_asking = threading.Lock()


def queue_warnings() -> list[str]:
    """One line per unserved queue, for an admin; nothing for anyone else or without a
    broker."""
    user = current_user()
    if user is None or not user.admin or not runtime().settings.broker_configured:
        return []
    found: tuple[float, list[str]] = current_app.extensions.get(_KEY, (-CHECK_S, []))
    if time.monotonic() - found[0] >= CHECK_S and _asking.acquire(blocking=False):
        try:
            from workers.client.consumers import unserved_queues  # Celery only with a broker

            unserved = unserved_queues()
            lines = (
                ["the broker cannot be asked which queues the workers take"]
                if unserved is None
                else [u.advice() for u in unserved]
            )
            found = (time.monotonic(), lines)
            current_app.extensions[_KEY] = found
        finally:
            _asking.release()
    return found[1]


def ask_again() -> None:
    """The next page asks the workers again (after a start, jobs may wait that did not)."""
    current_app.extensions.pop(_KEY, None)
