"""The served dashboard while its Postgres is away: the connection between them goes through
a forwarder (``tests/dashboard/forwarder.py``) that is cut and restored, so the outage is
real at the socket level. Every page and API call that needs the database is 503 with
``Retry-After`` (a page, or JSON under /api/), the log says so once when it starts and once
when it ends, never a traceback, and the dashboard resumes by itself."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass
from http.cookiejar import CookieJar
from pathlib import Path
from urllib.parse import urlencode
from urllib.request import HTTPCookieProcessor, HTTPErrorProcessor, Request, build_opener

import pytest
from flask import Flask
from sqlalchemy import event
from sqlalchemy.engine import URL

from arena.config import Settings
from arena.runtime import Runtime
from arena.store import Database, issue_token
from dashboard import create_app
from dashboard.db import GIVE_UP_S
from dashboard.errors import RETRY_AFTER_S, UNREACHABLE
from tests.dashboard.forwarder import Forwarder
from tests.dashboard.serving import serving
from tests.dashboard.users import PASSWORD, make_user
from tests.support import on_postgres

pytestmark = on_postgres
STARTED, OVER = "database outage: ", "database outage over after "


class _Answers(HTTPErrorProcessor):
    """Error statuses are answers to read, not exceptions."""

    def http_response(self, request, response):
        return response


@dataclass
class Web:
    """One browser (its own cookies) or API client of the served dashboard."""

    base: str
    headers: dict

    def __post_init__(self) -> None:
        self.opener = build_opener(HTTPCookieProcessor(CookieJar()), _Answers())

    def get(self, path: str) -> tuple[int, dict, str]:
        return self._open(Request(self.base + path, headers=self.headers))

    def post_form(self, path: str, data: dict) -> tuple[int, dict, str]:
        """POST ``data`` with the CSRF token of the log-in page (which needs no database
        for a visitor, so it is read even during an outage)."""
        _, _, page = self.get("/login")
        token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
        body = urlencode({**data, "csrf_token": token}).encode()
        return self._open(Request(self.base + path, body, headers=self.headers))

    def _open(self, request: Request) -> tuple[int, dict, str]:
        with self.opener.open(request, timeout=60) as reply:
            return reply.status, dict(reply.headers), reply.read().decode()


def _through(forwarder: Forwarder, url: URL) -> URL:
    return url.set(host="127.0.0.1", port=forwarder.port)


@pytest.fixture
def forwarder(db_url: URL) -> Iterator[Forwarder]:
    with Forwarder((db_url.host or "127.0.0.1", db_url.port or 5432)) as forwarder:
        yield forwarder


def _app(database: Database | None, url: URL, tmp_path: Path) -> Flask:
    """The dashboard on ``database`` (None: the one it makes from ``ARENA_DATABASE_URL``)."""
    runtime = Runtime(Settings(url.render_as_string(hide_password=False), tmp_path / "data", ""))
    return create_app(database, runtime)


def _outage_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.getMessage().startswith("database outage")]


def test_while_the_database_is_away_everything_is_503_logged_once_and_it_resumes(
    db, db_url, forwarder, tmp_path, caplog
):
    user = make_user(db, "ann")
    with db.session() as s:
        token = issue_token(s, user)
    database = Database(_through(forwarder, db_url), give_up_s=GIVE_UP_S)
    with serving(_app(database, db_url, tmp_path), threads=4) as port:
        base = f"http://127.0.0.1:{port}"
        visitor, api = Web(base, {}), Web(base, {"Authorization": f"Bearer {token}"})
        ann = Web(base, {})
        assert ann.post_form("/login", {"name": "ann", "password": PASSWORD})[0] == 302
        assert 'data-user="ann"' in ann.get("/account")[2]
        assert api.get("/api/v1/me")[0] == visitor.get("/api/v1/tournaments")[0] == 200
        caplog.clear()
        caplog.set_level(logging.INFO)

        forwarder.cut()
        for _ in range(5):
            for status, headers, body in (
                visitor.get("/tournaments/"),
                ann.get("/login"),  # the database is first asked by the page's header
                ann.get("/account"),
                visitor.post_form("/login", {"name": "ann", "password": PASSWORD}),  # writes
            ):
                assert status == 503 and headers["Retry-After"] == str(RETRY_AFTER_S)
                assert "text/html" in headers["Content-Type"] and UNREACHABLE in body
                assert "Log in" in body  # shown as to a visitor: who is asking is unknown
            for status, headers, body in (
                visitor.get("/api/v1/tournaments"),
                api.get("/api/v1/me"),
                api.get("/api/v1/bots"),
            ):
                assert status == 503 and headers["Retry-After"] == str(RETRY_AFTER_S)
                assert headers["Content-Type"] == "application/json"
                assert '"error"' in body and UNREACHABLE in body
        assert visitor.get("/login")[0] == 200  # what needs no database still works
        lines = _outage_lines(caplog)
        assert len(lines) == 1 and lines[0].startswith(STARTED), lines
        assert "refused" in lines[0].lower()  # the driver's reason

        forwarder.restore()
        assert visitor.get("/tournaments/")[0] == 200
        assert 'data-user="ann"' in ann.get("/account")[2]  # the same session, still valid
        assert api.get("/api/v1/me")[0] == 200
        lines = _outage_lines(caplog)
        assert len(lines) == 2 and lines[1].startswith(OVER), lines
    tracebacks = [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert not tracebacks, [r.getMessage() for r in tracebacks]
    assert "Traceback" not in caplog.text
    database.dispose()


def test_a_database_that_does_not_answer_fails_a_request_after_a_few_seconds(
    db_url, forwarder, tmp_path, caplog, monkeypatch
):
    """A host gone silent (the connection accepted, never answered) holds a request only
    for the dashboard's connect timeout, the one it sets on the database it makes itself."""
    url = _through(forwarder, db_url)
    monkeypatch.setenv("ARENA_DATABASE_URL", url.render_as_string(hide_password=False))
    app = _app(None, db_url, tmp_path)
    database = app.extensions["arena_db"]
    asked: list[dict] = []  # what each connection attempt was given
    event.listen(database.engine, "do_connect", lambda *args: asked.append(dict(args[3])))
    caplog.set_level(logging.INFO)
    with serving(app, threads=4) as port:
        web = Web(f"http://127.0.0.1:{port}", {})
        forwarder.cut(hang=True)
        status, headers, body = web.get("/api/v1/tournaments")
        assert status == 503 and headers["Retry-After"] == str(RETRY_AFTER_S), body
        lines = _outage_lines(caplog)
        assert len(lines) == 1 and "timeout expired" in lines[0], lines
        forwarder.restore()
        assert web.get("/api/v1/tournaments")[0] == 200
    database.dispose()
    assert asked and {a["connect_timeout"] for a in asked} == {GIVE_UP_S}
