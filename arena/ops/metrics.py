"""The dashboard's ``/metrics`` (Prometheus text): how long its requests take, by route and
status class, and the platform's numbers read from the database and the broker.

The request histogram counts what this process served (a registry per app: tests make many).
The platform's numbers are real reads, never counters kept here: the database's aggregates
(``stats``) and the broker's queue depths, each read at most every ``CACHE_S`` by one
request at a time (the others get the last reading), under a deadline, so a scrape under
load or with a peer away costs little and never hangs. A source that did not answer says so
(``arena_source_up`` 0) and its series are left out rather than guessed.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Generic, TypeVar

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector
from prometheus_client.utils import floatToGoString

from arena.ops.checks import DEADLINE_S, DatabaseProbe
from arena.ops.deadline import within
from arena.ops.stats import PlatformStats, read_stats

CACHE_S = 5.0
log = logging.getLogger(__name__)
T = TypeVar("T")


class Cached(Generic[T]):
    """``read()`` at most every ``ttl_s``, by one caller at a time: while one reads, the
    others get the last value (they wait only when there is none yet). ``read`` must not
    raise; a failed read is a value too (None), kept as long as a good one."""

    def __init__(self, read: Callable[[], T], ttl_s: float = CACHE_S) -> None:
        self.read, self.ttl_s = read, ttl_s
        self._lock = threading.Lock()
        self._value: T | None = None
        self._at: float | None = None

    def get(self) -> T | None:
        if self._fresh():
            return self._value
        if not self._lock.acquire(blocking=self._at is None):
            return self._value  # another request is reading: the last value will do
        try:
            if not self._fresh():
                self._value, self._at = self.read(), time.monotonic()
            return self._value
        finally:
            self._lock.release()

    def _fresh(self) -> bool:
        return self._at is not None and time.monotonic() - self._at < self.ttl_s


def answered(read: Callable[[], T], what: str) -> T | None:
    """``read()`` within the checks' deadline; None when it fails or is late (logged: once
    per reading, the cache keeps the scrapes between from asking again)."""
    try:
        return within(DEADLINE_S, read, f"answer with {what}")
    except Exception as exc:  # the source away or slow: the scrape says so
        log.info("metrics: %s cannot be read (%s)", what, exc)
        return None


def platform_stats(probe: DatabaseProbe) -> PlatformStats | None:
    """The database's numbers (``stats.read_stats``), None when it does not answer in time."""

    def read() -> PlatformStats:
        with probe.connection() as conn:
            return read_stats(conn)

    return answered(read, "the database's numbers")


class PlatformCollector(Collector):
    """The platform's numbers at each scrape, from the cached readings."""

    def __init__(
        self,
        stats: Cached[PlatformStats | None],
        depths: Cached[dict[str, int] | None] | None,
    ) -> None:
        self.stats, self.depths = stats, depths

    def describe(self) -> list[Metric]:
        return []  # registering must not read the database

    def collect(self) -> Iterator[Metric]:
        up = GaugeMetricFamily(
            "arena_source_up",
            "Whether the last read of a source of these numbers answered (1) or not (0)",
            labels=["source"],
        )
        stats = self.stats.get()
        up.add_metric(["database"], 0 if stats is None else 1)
        if stats is not None:
            yield from _stats_metrics(stats)
        if self.depths is not None:
            depths = self.depths.get()
            up.add_metric(["broker"], 0 if depths is None else 1)
            if depths is not None:
                yield _labelled(
                    "arena_queue_depth",
                    "Jobs waiting in each broker queue (not those a worker holds)",
                    "queue",
                    dict(sorted(depths.items())),
                )
        yield up


def _stats_metrics(stats: PlatformStats) -> Iterator[Metric]:
    yield _labelled(
        "arena_matches",
        "Matches in the database by status (done: played; failed: given up after its attempts)",
        "status",
        stats.matches,
    )
    durations = stats.match_seconds
    buckets = [(floatToGoString(bound), count) for bound, count in durations.buckets]
    yield HistogramMetricFamily(
        "arena_match_duration_seconds",
        "Wall time of each played match, as its worker recorded it",
        buckets=[*buckets, ("+Inf", durations.count)],
        sum_value=durations.total,
    )
    yield _labelled(
        "arena_bot_versions",
        "Bot versions by validation verdict (pending: not judged yet)",
        "status",
        stats.versions,
    )
    yield GaugeMetricFamily(
        "arena_validation_oldest_pending_seconds",
        "How long the oldest pending bot version has waited since its validation started "
        "(0: none waits)",
        value=stats.oldest_pending_s,
    )
    yield GaugeMetricFamily(
        "arena_bot_start_failures",
        "Start-up faults recorded in matches (start_failed: a bot that did not start, in the "
        "sandbox or before it)",
        value=stats.start_failures,
    )


def _labelled(name: str, text: str, label: str, counts: Mapping[str, float]) -> Metric:
    """A gauge with one sample per key of ``counts``."""
    gauge = GaugeMetricFamily(name, text, labels=[label])
    for key, count in counts.items():
        gauge.add_metric([key], count)
    return gauge


class DashboardMetrics:
    """One app's metrics: its request histogram and the platform's numbers (``depths``:
    reads the jobs waiting in each queue from the broker; None without one)."""

    def __init__(
        self,
        probe: DatabaseProbe,
        depths: Callable[[], dict[str, int] | None] | None = None,
        ttl_s: float = CACHE_S,
    ) -> None:
        self.registry = CollectorRegistry(auto_describe=False)
        self.requests = Histogram(
            "arena_http_request_duration_seconds",
            "Time to answer a request, by the route that served it and its status class",
            ["method", "route", "status"],
            registry=self.registry,
        )
        self.stats: Cached[PlatformStats | None] = Cached(lambda: platform_stats(probe), ttl_s)
        self.depths: Cached[dict[str, int] | None] | None = None
        if depths is not None:
            read_depths = depths
            self.depths = Cached(lambda: answered(read_depths, "the queue depths"), ttl_s)
        self.registry.register(PlatformCollector(self.stats, self.depths))

    def observe(self, method: str, route: str, status: int, seconds: float) -> None:
        self.requests.labels(method, route, f"{status // 100}xx").observe(seconds)

    def exposition(self) -> tuple[bytes, str]:
        """The text a scrape gets, and its content type."""
        return generate_latest(self.registry), CONTENT_TYPE_LATEST
