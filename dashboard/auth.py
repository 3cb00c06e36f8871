"""Who is asking: browser sessions, API tokens, CSRF, and the decorators that guard views.

- A browser carries Flask's signed session cookie (HttpOnly, SameSite=Lax, Secure over
  HTTPS or with ``ARENA_SECURE_COOKIES=1``) holding a session token whose sha256 is a row of
  ``user_sessions``: logging out deletes the row, and every copy of the cookie dies with it.
- An API client sends ``Authorization: Bearer TOKEN``; such a request is authenticated by
  the token alone (the cookie is ignored). The API's writes (under ``/api/``) accept nothing
  else, so they need no CSRF token: a cross-site page can make a browser send cookies,
  never that header.
- Every other state-changing request must carry the session's CSRF token (form field
  ``csrf_token`` or header ``X-CSRF-Token``), or it is refused with 400.
"""

from __future__ import annotations

import functools
import hmac
import secrets
from collections.abc import Callable
from datetime import timedelta

from flask import Flask, abort, g, redirect, request, session, url_for
from flask.sessions import SecureCookieSessionInterface

from arena.accounts.secret import secret_key
from arena.accounts.sessions import SESSION_DAYS, close_session, open_session, session_user
from arena.config import Settings
from arena.store import User, user_for_token, users
from dashboard.db import database
from dashboard.db import session as db_session
from dashboard.submitting import cap_request
from dashboard.tokens import bearer_token

API = "/api/"  # its writes authenticate by token only, never by the cookie
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
CSRF_FAILED = "the form's security token is missing or out of date: reload the page and try again"


class _Sessions(SecureCookieSessionInterface):
    """Secure cookies when configured or when the request came over HTTPS."""

    def get_cookie_secure(self, app: Flask) -> bool:
        return bool(app.config["SESSION_COOKIE_SECURE"]) or request.is_secure


def init_auth(app: Flask, settings: Settings) -> None:
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = secret_key(settings.data_dir, settings.secret_key)
    app.config.update(
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_SECURE=settings.secure_cookies,
        PERMANENT_SESSION_LIFETIME=timedelta(days=SESSION_DAYS),  # as long as the row lives
    )
    app.session_interface = _Sessions()
    app.before_request(_check_csrf)
    app.context_processor(lambda: {"current_user": current_user(), "csrf_token": csrf_token})


def current_user() -> User | None:
    """The user of this request (by its API token if it sends one, else its cookie)."""
    if "arena_user" not in g:
        token = bearer_token()
        if token is not None:
            g.arena_user = user_for_token(db_session(), token)
        elif sid := session.get("sid"):
            g.arena_user = session_user(db_session(), sid)
        else:
            g.arena_user = None
    return g.arena_user


def as_visitor() -> None:
    """Show this request's page as to a visitor: who is asking is in the database, which
    cannot be asked now."""
    g.arena_user = None


def csrf_token() -> str:
    if "csrf" not in session:
        session["csrf"] = secrets.token_urlsafe(32)
    return session["csrf"]


def _check_csrf() -> None:
    if request.method not in UNSAFE_METHODS or request.path.startswith(API):
        return
    cap_request("the upload")  # before the form (and any file in it) is parsed
    sent = request.form.get("csrf_token") or request.headers.get("X-CSRF-Token") or ""
    expected = session.get("csrf", "")
    if not expected or not hmac.compare_digest(sent.encode(), expected.encode()):
        abort(400, CSRF_FAILED)


def log_in(user: User) -> None:
    """A fresh session (and CSRF token) for ``user``: nothing from before the log-in lives on."""
    with database().session() as s:
        token = open_session(s, user)
    session.clear()
    session.permanent = True
    session["sid"] = token
    g.arena_user = user


def log_out() -> None:
    if sid := session.get("sid"):
        with database().session() as s:
            close_session(s, sid)
    session.clear()
    g.arena_user = None


def signed_in_user() -> User:
    """``current_user`` in a view behind ``login_required``, which lets only users in."""
    user = current_user()
    if user is None:
        raise RuntimeError("signed_in_user() in a view without login_required")
    return user


def login_required(view: Callable) -> Callable:
    """Pages send a visitor to the log-in page; the API answers 401."""

    @functools.wraps(view)
    def guarded(*args, **kwargs):
        if current_user() is None:
            if request.path.startswith("/api/"):
                abort(401, "send a valid API token: Authorization: Bearer TOKEN")
            return redirect(url_for("accounts.login", next=request.full_path.rstrip("?")))
        return view(*args, **kwargs)

    return guarded


def admin_required(view: Callable) -> Callable:
    """Organisers only: others are refused with 403 (visitors go to the log-in page)."""

    @functools.wraps(view)
    @login_required
    def guarded(*args, **kwargs):
        if not signed_in_user().admin:
            abort(403, "only organisers may do this")
        return view(*args, **kwargs)

    return guarded


def may_see_logs(owner_id: int | None) -> bool:
    """The owner of a bot and organisers read its logs; nobody else."""
    return users.may_see_logs(current_user(), owner_id)
