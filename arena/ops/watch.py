"""A worker's watch on its broker, and its readiness.

Celery's consumer retries a broker that is away forever, and one that refuses the worker (a
wrong password, protected mode ``DENIED``) the same way, in a generic "Cannot connect" line.
The watch asks the broker itself, on a fresh connection, every ``HEARTBEAT_S`` and at each
``/readyz``, and says in the log when the answer changes: a refusal as an ERROR naming what to
fix, an outage as a warning, the broker answering again. Each answer that is not "ok" is
counted (``arena_worker_broker_errors_total``). While the broker answers, the same beat
writes the worker's heartbeat for the status page (``broker.write_heartbeat``).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from arena.ops.broker import (
    FIX_REFUSAL,
    HEARTBEAT_S,
    HEARTBEAT_TTL_S,
    BrokerAnswer,
    Heartbeat,
    forget_heartbeat,
    heartbeat,
    is_redis,
    masked,
    one_line,
    ping,
    write_heartbeat,
)
from arena.ops.checks import Check, DatabaseProbe, Readiness, ask, database_checks

log = logging.getLogger(__name__)


class BrokerWatch:
    """What the broker last told this worker; logged when it changes, counted when not ok."""

    def __init__(self, url: str) -> None:
        self.url, self.where = url, masked(url)
        self._lock = threading.Lock()
        self._last: BrokerAnswer | None = None
        self.errors: Counter[str] = Counter()

    def check(self) -> BrokerAnswer:
        """Ask the broker now (a fresh connection), and note the answer."""
        answer = ping(self.url)
        self.note(answer)
        return answer

    def note(self, answer: BrokerAnswer) -> None:
        with self._lock:
            last, self._last = self._last, answer
            if not answer.ok:
                self.errors[answer.kind] += 1
        changed = last is None or (last.kind, last.detail) != (answer.kind, answer.detail)
        if not changed:
            return
        if answer.refused:
            log.error(
                "the broker at %s refuses this worker (%s): %s",
                self.where,
                answer.detail,
                FIX_REFUSAL,
            )
        elif not answer.ok:
            log.warning(
                "the broker at %s is unreachable (%s): the worker waits for it",
                self.where,
                answer.detail,
            )
        elif last is not None:
            log.warning("the broker at %s answers this worker again", self.where)

    @property
    def last(self) -> BrokerAnswer | None:
        return self._last


class WatchCollector(Collector):
    """The watch's numbers, from the main process's memory (see ``worker_metrics``)."""

    def __init__(self, watch: BrokerWatch) -> None:
        self.watch = watch

    def describe(self) -> list[Metric]:
        return []

    def collect(self) -> Iterator[Metric]:
        errors = CounterMetricFamily(
            "arena_worker_broker_errors",
            "This worker's checks of its broker that failed, by how (refused: it answered "
            "no, e.g. a wrong password; unreachable: no answer)",
            labels=["kind"],
        )
        for kind in ("refused", "unreachable"):
            errors.add_metric([kind], self.watch.errors[kind])
        yield errors
        last = self.watch.last
        if last is not None:
            yield GaugeMetricFamily(
                "arena_worker_broker_up",
                "Whether the broker answered this worker's last check (1) or not (0)",
                value=1 if last.ok else 0,
            )


class WorkerHealth:
    """A worker's readiness (its database answers, its broker takes it and its consumer takes
    jobs from its queues), and its heartbeat thread."""

    def __init__(
        self,
        probe: DatabaseProbe,
        watch: BrokerWatch,
        name: str,
        queues: Sequence[str],
        concurrency: int,
    ) -> None:
        self.probe, self.watch = probe, watch
        self.name, self.queues, self.concurrency = name, tuple(queues), concurrency
        self.started = time.time()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._consuming: bool | None = None  # None: not started yet; False: stopping

    def consuming(self, taking: bool) -> None:
        """Whether the worker's consumer takes jobs now (told by Celery's side)."""
        self._consuming = taking

    def readiness(self) -> Readiness:
        def database() -> list[Check]:
            return [c for c in database_checks(self.probe) if c.name == "database"]

        def broker() -> list[Check]:
            answer = self.watch.check()
            detail = "answers" if answer.ok else f"{answer.kind}: {answer.detail}"
            return [Check("broker", answer.ok, detail)]

        return ask(
            [(("database",), database), (("broker",), broker), (("consumer",), self._consumer)]
        )

    def _consumer(self) -> list[Check]:
        if self._consuming:
            return [Check("consumer", True, f"takes jobs from {len(self.queues)} queues")]
        why = "starting" if self._consuming is None else "stopping"
        return [Check("consumer", False, f"takes no job: the worker is {why}")]

    def heartbeat(self) -> Heartbeat:
        return heartbeat(self.name, self.queues, self.concurrency, self.started)

    def beat(self) -> None:
        """One beat: ask the broker; while it answers, write this worker's heartbeat."""
        answer = self.watch.check()
        if answer.ok and is_redis(self.watch.url):
            try:
                write_heartbeat(self.watch.url, self.heartbeat(), HEARTBEAT_TTL_S)
            except Exception as exc:  # gone since the ping: the next beat says so
                self.watch.note(BrokerAnswer(False, False, one_line(exc)))

    def start(self) -> None:
        """Beat now, then every ``HEARTBEAT_S`` on a daemon thread."""
        self.beat()
        self._thread = threading.Thread(target=self._run, name="arena-heartbeat", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(HEARTBEAT_S):
            try:
                self.beat()
            except Exception:  # never let the watch die silently
                log.exception("the worker's broker watch failed; it goes on")

    def stop(self) -> None:
        """Stop beating and leave the status page (a clean shutdown)."""
        self._stop.set()
        if is_redis(self.watch.url):
            forget_heartbeat(self.watch.url, self.name)
