"""One read-only session per request, closed when the request ends; the few views that
write (accounts, uploads, organiser actions) open their own short write session."""

from __future__ import annotations

from contextlib import ExitStack

from flask import Flask, current_app, g
from sqlalchemy.orm import Session

from arena.config import Settings
from arena.store import Database


def init_app(app: Flask, database: Database | None) -> None:
    app.extensions["arena_db"] = database or Database.from_settings(Settings.from_env())
    app.teardown_appcontext(_close)


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


def _close(_exc: BaseException | None) -> None:
    stack = g.pop("arena_exit", None)
    g.pop("arena_session", None)
    if stack is not None:
        stack.close()
