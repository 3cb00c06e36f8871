"""A worker's health and metrics over HTTP: ``/healthz``, ``/readyz`` and ``/metrics``, as the
dashboard serves them, on a port of the worker's main process (``arena worker
--metrics-port``).

A small threaded server from the standard library on daemon threads: a scrape or a probe
never holds the worker, and each request is answered within the checks' deadline. The
listening socket is closed in every process forked from this one (Celery's pool), which
must not keep the port open after the worker is gone.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import weakref
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from arena.ops.checks import Readiness

log = logging.getLogger(__name__)
Exposition = Callable[[], tuple[bytes, str]]


class HealthServer(ThreadingHTTPServer):
    """Serves ``readiness()`` and ``exposition()`` at ``host:port`` (0: a free port)."""

    daemon_threads = True

    def __init__(
        self, host: str, port: int, readiness: Callable[[], Readiness], exposition: Exposition
    ) -> None:
        self.readiness, self.exposition = readiness, exposition
        super().__init__((host, port), _Handler)
        closer = weakref.WeakMethod(self._close_in_child)  # a server gone is left alone
        os.register_at_fork(after_in_child=lambda: (close := closer()) and close())
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    def start(self) -> None:
        self._thread = threading.Thread(target=self.serve_forever, name="arena-health", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self.shutdown()
        self.server_close()

    def _close_in_child(self) -> None:
        self.socket.close()  # the child has no serving thread: only the descriptor


class _Handler(BaseHTTPRequestHandler):
    server: HealthServer

    def do_GET(self) -> None:  # the standard library's name
        try:
            self._answer(self.path.split("?", 1)[0])
        except Exception as exc:  # one request's failure, logged once, never the server's
            log.exception("the health endpoint failed on %s", self.path)
            self._json(500, {"error": f"{type(exc).__name__}: {exc}"})

    def _answer(self, path: str) -> None:
        if path == "/healthz":
            self._json(200, {"status": "ok"})
        elif path == "/readyz":
            found = self.server.readiness()
            self._json(200 if found.ok else 503, found.to_dict())
        elif path == "/metrics":
            body, content_type = self.server.exposition()
            self._send(200, body, content_type)
        else:
            self._json(404, {"error": "not found: /healthz, /readyz and /metrics are served"})

    def _json(self, status: int, data: dict[str, Any]) -> None:
        self._send(status, json.dumps(data).encode(), "application/json")

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        """Probes every few seconds would drown the worker's log: nothing is logged."""
