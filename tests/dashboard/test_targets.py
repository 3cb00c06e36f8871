"""Where a request may send the browser next, and ids beyond the database's range: the
helper on tricky targets, and every route taking an id (read from the app's URL map, so a
new route is covered by itself) on both backends."""

from __future__ import annotations

import re

import pytest

from arena.config import Settings
from arena.runtime import Runtime
from arena.store import issue_token
from dashboard import create_app
from dashboard.targets import MAX_ID, local_path
from tests.dashboard.users import PASSWORD, csrf_of, log_in, make_user
from tests.support import both_databases

SAME_SITE = ["/", "/bots/", "/bots/3?tab=logs", "/matches/?page=2&bot=4", "/a/b.json", "/a?x=//y"]
ELSEWHERE = [
    "",
    "bots/",  # relative to the current page
    "//evil.example/",
    "/\t/evil.example/",  # what /login?next=/%09/evil.example/ decodes to
    "/\n/evil.example/",
    "/\r/evil.example/",
    "/ /evil.example/",
    "\t//evil.example/",
    " /evil.example",
    "/\\evil.example",
    "\\\\evil.example",
    "/\\/evil.example",
    "/\x00/evil.example",
    "/\x7f/evil.example",
    "/\u3000/evil.example",  # ideographic space
    "/\u2028/evil.example",  # line separator
    "/\u200b/evil.example",  # zero-width space (a format character)
    "https://evil.example/",
    "javascript:alert(1)",
    "/javascript:alert(1)//",  # a path, but one with an empty segment
    "data:text/html,hi",
    "///evil.example",
    "/a//evil.example",
    "/./evil.example",
    "/../evil.example",
    "/%2e%2e/evil.example",
    "/.%2E/x",
]


@pytest.mark.parametrize("target", SAME_SITE)
def test_paths_on_this_site_are_kept(target):
    assert local_path(target) == target


@pytest.mark.parametrize("target", ELSEWHERE)
def test_anything_a_browser_could_read_as_elsewhere_is_refused(target):
    assert local_path(target) is None


def test_logging_in_with_a_tab_smuggled_target_goes_to_the_account_page(client, db):
    make_user(db, "eve")
    csrf = csrf_of(client, "/login?next=/%09/evil.example/")
    form = {"name": "eve", "password": PASSWORD, "next": "/\t/evil.example/", "csrf_token": csrf}
    reply = client.post("/login", data=form)
    assert reply.status_code == 302 and reply.headers["Location"] == "/account"


BIG = ["0", str(MAX_ID), str(MAX_ID + 1), "9" * 20]


def _urls(app, number: str) -> list[tuple[str, str]]:
    """(method, url) of every route with an id, each id replaced by ``number``."""
    found = []
    for rule in app.url_map.iter_rules():
        if not re.search(r"<int[:(]", rule.rule):
            continue
        url = re.sub(r"<int(\([^)]*\))?:\w+>", number, rule.rule)
        url = re.sub(r"<(\w+:)?\w+>", "1", url)
        method = sorted(rule.methods - {"HEAD", "OPTIONS"})[0]
        found.append((method, url))
    return found


@both_databases
@pytest.mark.parametrize("number", BIG, ids=["zero", "max", "max+1", "20-digits"])
def test_every_route_with_an_id_answers_404_for_ids_out_of_range(db, tmp_path, number):
    runtime = Runtime(Settings(db.url.render_as_string(hide_password=False), tmp_path / "d", ""))
    app = create_app(db, runtime, TESTING=True)
    client = app.test_client()
    org = make_user(db, "org", admin=True)
    with db.session() as s:
        token = issue_token(s, s.merge(org))
    log_in(client, "org")  # pages by cookie, the API by token: no guard answers first
    page = {"X-CSRF-Token": csrf_of(client, "/account")}
    api = {"Authorization": f"Bearer {token}"}
    urls = _urls(app, number)
    assert len(urls) >= 20  # the dashboard's and the API's
    answers = {
        (m, u): client.open(u, method=m, headers=api if "/api/" in u else page).status_code
        for m, u in urls
    }
    assert set(answers.values()) == {404}, answers
