"""Queues whose jobs no worker takes: a tournament with a Node bot and no worker started with
``--queues arena.node`` waits forever, silently, unless someone says so.

How many jobs wait in a queue is one cheap read of the broker; which queues the workers
consume is asked of the workers themselves (Celery's ``inspect active_queues``: every live
worker answers within ``ASK_TIMEOUT_S``; Redis keeps no count of consumers). Only queues with
jobs waiting are worth the question, so an idle cluster is never asked.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from arena.tournaments.dispatch import RUNTIME_QUEUES
from workers.app import app, waiting

ASK_TIMEOUT_S = 1.0  # how long live workers have to say which queues they take
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Unserved:
    """A queue with ``waiting`` jobs and no worker consuming it."""

    queue: str
    waiting: int

    def advice(self) -> str:
        """One line for an operator: what waits, and what to start."""
        runtime = next((r for r, q in RUNTIME_QUEUES.items() if q == self.queue and r), None)
        where = f" on a machine with the {runtime} runtime" if runtime else ""
        jobs = "1 job waits" if self.waiting == 1 else f"{self.waiting} jobs wait"
        return (
            f"{jobs} in queue {self.queue} and no worker takes it: start "
            f"`arena worker --queues {self.queue}`{where}"
        )


def waiting_jobs(queues: Iterable[str]) -> dict[str, int] | None:
    """Jobs waiting in each queue (not those a worker holds); None when the broker is away."""
    try:
        with app.connection_for_read() as conn:
            channel = conn.default_channel
            return {queue: waiting(channel, queue) for queue in sorted(set(queues))}
    except Exception as exc:  # the broker away, restarting, refusing: it cannot say
        log.info("cannot count the jobs waiting in the broker (%s)", exc)
        return None


def queue_depths(url: str, queues: Iterable[str], timeout_s: float = 2.0) -> dict[str, int]:
    """Jobs waiting in each of ``queues`` at the broker at ``url``, asked once with short
    timeouts and no retry (for a page or a scrape, which must not wait out kombu's retries
    while the broker is away); raises what the broker raises."""
    options = {"max_retries": 0, "socket_connect_timeout": timeout_s, "socket_timeout": timeout_s}
    with app.connection_for_read(url, connect_timeout=timeout_s, transport_options=options) as conn:
        channel = conn.default_channel
        return {queue: waiting(channel, queue) for queue in sorted(set(queues))}


def consumed_queues(timeout: float = ASK_TIMEOUT_S) -> set[str] | None:
    """The queues live workers consume now; None when the broker cannot be asked."""
    try:
        replies = app.control.inspect(timeout=timeout).active_queues() or {}
    except Exception as exc:  # the broker away (kombu's error, or the client's own)
        log.info("cannot ask the workers which queues they take (%s)", exc)
        return None
    return {q["name"] for queues in replies.values() for q in queues or () if "name" in q}


def unserved_queues(
    queues: Iterable[str] = (), timeout: float = ASK_TIMEOUT_S
) -> list[Unserved] | None:
    """The queues among ``queues`` (and the runtimes' queues) with jobs waiting and no worker
    consuming them, by name; None when the broker cannot say."""
    waiting = waiting_jobs({*RUNTIME_QUEUES.values(), *queues})
    if waiting is None:
        return None
    loaded = {queue: count for queue, count in waiting.items() if count}
    if not loaded:
        return []  # nothing waits: the workers need not be asked
    served = consumed_queues(timeout)
    if served is None:
        return None
    return [Unserved(queue, count) for queue, count in loaded.items() if queue not in served]


class QueueWatch:
    """Asks ``unserved_queues`` at most every ``every_s`` and tells ``say`` what changed: a
    queue left unserved (its advice, once), then served again."""

    def __init__(self, say: Callable[[str, bool], None], every_s: float = 15.0) -> None:
        self.say, self.every_s = say, every_s
        self.unserved: set[str] = set()
        self._due = 0.0

    def check(self) -> None:
        if time.monotonic() < self._due:
            return
        found = unserved_queues()
        self._due = time.monotonic() + self.every_s
        if found is None:  # the broker cannot say: keep what was said
            return
        for unserved in found:
            if unserved.queue not in self.unserved:
                self.say(unserved.advice(), True)
        now = {unserved.queue for unserved in found}
        for queue in sorted(self.unserved - now):
            self.say(f"queue {queue} is served now (or empty)", False)
        self.unserved = now
