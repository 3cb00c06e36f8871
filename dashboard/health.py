"""Operators' endpoints and the organiser's status page (the logic is ``arena.ops``'s):

- ``/healthz``: 200 while the process answers; it touches nothing else (no database, no
  session), so a liveness probe never restarts the dashboard for a database outage.
- ``/readyz``: 200 while the database answers, its schema is this code's newest migration
  and, with a broker configured, the broker takes us; else 503 naming each failed check
  and why, in a line. Answered within the checks' deadline whatever the peers do.
- ``/metrics``: Prometheus text: this app's requests by route (the URL rule, not the path)
  and status class, and the platform's numbers from the database and the broker.
- ``/organiser/status`` (organisers): queues, workers, the database and the broker.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from flask import Blueprint, Flask, Response, current_app, g, jsonify, render_template, request
from flask.blueprints import BlueprintSetupState
from flask.signals import request_finished, request_started

from arena.config import Settings
from arena.ops.broker import HEARTBEAT_S, HEARTBEAT_TTL_S
from arena.ops.checks import DatabaseProbe, service_readiness
from arena.ops.metrics import DashboardMetrics
from arena.ops.status import DepthReader, known_queues, status
from dashboard.auth import admin_required

health = Blueprint("health", __name__)
_KEY = "arena_ops"


@dataclass(frozen=True)
class _Ops:
    """One app's probe of its database, its broker (None: none configured) and metrics."""

    probe: DatabaseProbe
    broker_url: str | None
    depths: DepthReader | None
    metrics: DashboardMetrics


@health.record_once
def _install(state: BlueprintSetupState) -> None:
    """Made once per app, as it registers this blueprint (its database is known by then); its
    requests are timed from the first thing Flask does with them to their response."""
    app = state.app
    settings: Settings = app.extensions["arena_runtime"].settings
    broker_url = settings.broker_url if settings.broker_configured else None
    depths = None if broker_url is None else _celery_depths(broker_url)
    probe = DatabaseProbe(app.extensions["arena_db"].url)
    scrape = None if depths is None else _all_queues(depths)
    app.extensions[_KEY] = _Ops(probe, broker_url, depths, DashboardMetrics(probe, scrape))
    request_started.connect(_started, app)
    request_finished.connect(_finished, app)


def _celery_depths(broker_url: str) -> DepthReader:
    def read(queues: list[str]) -> dict[str, int] | None:
        from workers.client.consumers import queue_depths  # Celery only with a broker

        return queue_depths(broker_url, queues)

    return read


def _all_queues(depths: DepthReader) -> Callable[[], dict[str, int] | None]:
    return lambda: depths(known_queues())


def _ops() -> _Ops:
    return current_app.extensions[_KEY]


def _started(sender: Flask, **_extra: object) -> None:
    g.arena_started = time.perf_counter()


def _finished(sender: Flask, response: Response, **_extra: object) -> None:
    started = g.pop("arena_started", None)
    if started is None:
        return
    rule = request.url_rule
    route = rule.rule if rule is not None else "unmatched"  # a 404: no rule, no raw path
    seconds = time.perf_counter() - started
    sender.extensions[_KEY].metrics.observe(request.method, route, response.status_code, seconds)


@health.get("/healthz")
def healthz():
    return _uncached(jsonify(status="ok"))


@health.get("/readyz")
def readyz():
    ops = _ops()
    found = service_readiness(ops.probe, ops.broker_url)
    return _uncached(jsonify(found.to_dict())), 200 if found.ok else 503


@health.get("/metrics")
def metrics():
    body, content_type = _ops().metrics.exposition()
    return _uncached(Response(body, content_type=content_type))


@health.get("/organiser/status")
@admin_required
def organiser_status():
    ops = _ops()
    found = status(ops.probe, ops.broker_url, ops.depths, ops.metrics.stats.get)
    every = {"heartbeat_s": HEARTBEAT_S, "heartbeat_ttl_s": HEARTBEAT_TTL_S}
    return render_template("status.html", status=found, **every)


def _uncached(response: Response) -> Response:
    response.headers["Cache-Control"] = "no-store"
    return response
