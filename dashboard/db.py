"""One read-only session per request, closed when the request ends; the few views that
write (accounts, uploads, organiser actions) open their own short write session.

While the database cannot be reached, requests fail fast (``GIVE_UP_S``) and are answered
503 (``dashboard.errors``); the log says so once when it starts and once when it ends
(``Outage``), never a traceback per request. It resumes by itself: the pool pings each
connection it hands out and replaces the ones the outage broke.
"""

from __future__ import annotations

import logging
import threading
import time
from contextlib import ExitStack
from typing import Any

from flask import Flask, current_app, g
from sqlalchemy import Engine, event
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from arena.config import Settings
from arena.store import Database
from arena.store.db import database_down, outage_text

GIVE_UP_S = 3  # to connect, or for the server to acknowledge a query: then it is away
log = logging.getLogger(__name__)


class Outage:
    """This app's view of the database: down from the first request that could not reach it
    until a connection reaches it again (the pool hands one out, pinged); one log line each."""

    def __init__(self, engine: Engine) -> None:
        self._lock = threading.Lock()
        self.since: float | None = None  # monotonic start of the outage being lived through
        event.listen(engine, "checkout", self._reached)

    def failed(self, exc: BaseException) -> None:
        with self._lock:
            if self.since is not None:
                return
            self.since = time.monotonic()
        log.warning("database outage: %s; requests get 503 until it is back", outage_text(exc))

    def _reached(self, *_connection: Any) -> None:
        if self.since is None:  # the usual case, without the lock
            return
        with self._lock:
            if self.since is None:
                return
            lasted, self.since = time.monotonic() - self.since, None
        log.warning("database outage over after %.1f s", lasted)


def init_app(app: Flask, database: Database | None) -> None:
    database = database or Database.from_settings(Settings.from_env(), give_up_s=GIVE_UP_S)
    app.extensions["arena_db"] = database
    app.extensions["arena_outage"] = Outage(database.engine)
    app.teardown_appcontext(_end_session)


def database() -> Database:
    """The app's database, for a view's own ``database().session()`` that writes."""
    return current_app.extensions["arena_db"]


def session() -> Session:
    """The request's read-only session."""
    if "arena_session" not in g:
        g.arena_exit = ExitStack()
        database: Database = current_app.extensions["arena_db"]
        g.arena_session = g.arena_exit.enter_context(database.session(read_only=True))
    return g.arena_session


def unreachable(exc: BaseException) -> bool:
    """Whether ``exc`` says the database is away: then the outage is counted and the
    request's session given up (rolled back, nothing sent), and the caller answers 503."""
    if not database_down(exc):
        return False
    current_app.extensions["arena_outage"].failed(exc)
    _end_session(exc)
    return True


def _end_session(exc: BaseException | None) -> None:
    """Close the request's session: committed (it only read) unless the request failed. The
    database going away by then costs the page nothing, as it is made: the outage is
    counted, not raised."""
    stack: ExitStack | None = g.pop("arena_exit", None)
    g.pop("arena_session", None)
    if stack is None:
        return
    try:
        if exc is None:
            stack.close()
        else:
            stack.__exit__(type(exc), exc, exc.__traceback__)
    except DBAPIError as lost:
        if not database_down(lost):
            raise
        current_app.extensions["arena_outage"].failed(lost)
