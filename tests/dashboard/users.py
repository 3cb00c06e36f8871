"""Helpers of the account tests: users made in the store, forms filled the way a browser
does (the CSRF token read from the page that holds the form)."""

from __future__ import annotations

import re

from arena.store import Database, User, create_user

PASSWORD = "correct horse battery"
_CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')


def make_user(db: Database, name: str, admin: bool = False, password: str = PASSWORD) -> User:
    with db.session() as s:
        return create_user(s, name, password, admin=admin)


def csrf_of(client, page: str = "/login") -> str:
    """The CSRF token in the forms of ``page`` (for this client's session)."""
    html = client.get(page).get_data(as_text=True)
    found = _CSRF.search(html)
    assert found, f"no CSRF token on {page}"
    return found.group(1)


def post_form(client, url: str, data: dict | None = None, page: str = "/login", **kwargs):
    """POST ``data`` with the session's CSRF token, as a form on ``page`` would."""
    return client.post(url, data={**(data or {}), "csrf_token": csrf_of(client, page)}, **kwargs)


def log_in(client, name: str, password: str = PASSWORD, **kwargs):
    return post_form(client, "/login", {"name": name, "password": password}, **kwargs)
