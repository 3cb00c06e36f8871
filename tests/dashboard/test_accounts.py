"""Accounts on the dashboard: sign-up, log-in and log-out, session
cookies, CSRF, API tokens, log-in limits, and passwords that never reach the database or
the logs in clear."""

from __future__ import annotations

import dataclasses
import logging
import os
import re
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from http.cookiejar import CookieJar
from urllib.error import URLError
from urllib.parse import urlencode
from urllib.request import HTTPCookieProcessor, HTTPErrorProcessor, build_opener

import pytest
from click.testing import CliRunner
from flask import Flask
from sqlalchemy import select, text

from arena.cli import main
from arena.runtime import Runtime
from arena.store import ApiToken, Base, Bot, User, create_user
from arena.store.models import RateEvent
from dashboard import create_app
from tests.dashboard.users import PASSWORD, csrf_of, log_in, make_user, post_form

pytestmark = pytest.mark.usefixtures("site")


def test_sign_up_logs_in_and_log_out_kills_every_copy_of_the_cookie(client, db):
    page = post_form(
        client, "/signup", {"name": "ann", "password": PASSWORD, "password2": PASSWORD}
    )
    assert page.status_code == 302
    assert 'data-user="ann"' in client.get("/account").get_data(as_text=True)
    stolen = client.get_cookie("session").value  # a copy of the cookie, kept by an attacker

    assert post_form(client, "/logout", page="/account").status_code == 302
    assert client.get("/account").status_code == 302  # to the log-in page

    thief = client.application.test_client()
    thief.set_cookie("session", stolen)
    answer = thief.get("/account")
    assert answer.status_code == 302 and "/login" in answer.headers["Location"]
    with db.session() as s:
        assert s.scalar(select(User.admin).where(User.name == "ann")) is False


def test_sign_up_refuses_bad_input_with_a_reason(client, db):
    make_user(db, "taken")
    cases = [
        ({"name": "taken", "password": PASSWORD, "password2": PASSWORD}, "already exists"),
        ({"name": "newbie", "password": "short", "password2": "short"}, "at least 8"),
        ({"name": "newbie", "password": PASSWORD, "password2": PASSWORD + "x"}, "differ"),
    ]
    for data, reason in cases:
        answer = post_form(client, "/signup", data)
        assert answer.status_code == 400 and reason in answer.get_data(as_text=True)
    with db.session() as s:
        assert s.scalar(select(User.id).where(User.name == "newbie")) is None


def test_log_in_with_a_wrong_password_fails_and_next_stays_on_this_site(client, db):
    make_user(db, "bea")
    assert log_in(client, "bea", "wrong password").status_code == 401
    assert log_in(client, "nobody").status_code == 401
    answer = post_form(
        client, "/login", {"name": "bea", "password": PASSWORD, "next": "//evil.example/x"}
    )
    assert answer.status_code == 302 and answer.headers["Location"] == "/account"
    post_form(client, "/logout", page="/account")
    answer = post_form(client, "/login", {"name": "bea", "password": PASSWORD, "next": "/bots/"})
    assert answer.headers["Location"] == "/bots/"


def test_session_cookie_is_httponly_lax_and_secure_over_https(client, db):
    make_user(db, "cid")
    cookie = log_in(client, "cid").headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Secure" not in cookie
    https = client.application.test_client()
    csrf = csrf_of(https, "https://localhost/login")
    answer = https.post(
        "https://localhost/login", data={"name": "cid", "password": PASSWORD, "csrf_token": csrf}
    )
    assert "Secure" in answer.headers["Set-Cookie"]


def _account_state(db) -> tuple:
    with db.session(read_only=True) as s:
        users = tuple(s.scalars(select(User.name).order_by(User.name)))
        tokens = tuple(s.execute(select(ApiToken.id, ApiToken.revoked).order_by(ApiToken.id)))
    return users, tokens


def test_posts_without_or_with_a_wrong_csrf_token_are_refused(client, db, site):
    make_user(db, "dee", admin=True)
    log_in(client, "dee")
    client.post("/account/tokens", data={"csrf_token": csrf_of(client, "/account")})
    before = _account_state(db)
    other = client.application.test_client()
    foreign = csrf_of(other)  # a valid token, of another session
    posts = [
        ("/signup", {"name": "eve", "password": PASSWORD, "password2": PASSWORD}),
        ("/login", {"name": "dee", "password": PASSWORD}),
        ("/logout", {}),
        ("/account/tokens", {"label": "x"}),
        ("/account/tokens/1/revoke", {}),
        ("/tournaments/new", {"bots": ["house:random"], "games_per_match": "1"}),
        (f"/tournaments/{site.tournament}/start", {}),
        (f"/tournaments/{site.tournament}/stop", {}),
    ]
    for url, data in posts:
        for extra in ({}, {"csrf_token": foreign}, {"csrf_token": ""}):
            answer = client.post(url, data={**data, **extra})
            assert answer.status_code == 400, url
            assert "security token" in answer.get_data(as_text=True)
    assert _account_state(db) == before
    assert client.get("/account").status_code == 200  # still logged in: logout was refused too


def _new_token(client, label: str = "laptop") -> str:
    page = post_form(client, "/account/tokens", {"label": label}, page="/account")
    assert page.status_code == 201 and page.headers["Cache-Control"] == "no-store"
    return re.search(r'<code id="new-token">([^<]+)</code>', page.get_data(as_text=True)).group(1)


def _bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def test_a_revoked_token_no_longer_works_and_only_its_owner_revokes_it(client, db):
    make_user(db, "fay")
    make_user(db, "gus")
    log_in(client, "fay")
    token = _new_token(client)
    assert client.get("/account").get_data(as_text=True).count(token) == 0  # shown once
    api = client.application.test_client()  # no cookie: the token alone
    assert api.get("/api/v1/me", headers=_bearer(token)).get_json()["name"] == "fay"

    with db.session(read_only=True) as s:
        row = s.scalar(select(ApiToken))
        assert token not in (row.token_hash, row.label)  # only its sha256 is kept
    gus = client.application.test_client()
    log_in(gus, "gus")
    answer = post_form(gus, f"/account/tokens/{row.id}/revoke", page="/account")
    assert answer.status_code == 404
    assert api.get("/api/v1/me", headers=_bearer(token)).status_code == 200

    post_form(client, f"/account/tokens/{row.id}/revoke", page="/account")
    answer = api.get("/api/v1/me", headers=_bearer(token))
    assert answer.status_code == 401 and "token" in answer.get_json()["error"]


def test_a_bearer_request_is_not_authenticated_by_the_cookie(client, db):
    """With an Authorization header, the token alone counts (so CSRF cannot ride on it)."""
    make_user(db, "hal")
    log_in(client, "hal")
    assert client.get("/api/v1/me").get_json()["name"] == "hal"
    assert client.get("/api/v1/me", headers=_bearer("not-a-token")).status_code == 401
    # a Bearer header does not exempt a page's form from CSRF
    answer = client.post("/account/tokens", headers=_bearer("not-a-token"))
    assert answer.status_code == 400
    # the API's writes take a token only: the browser's cookie alone is not enough
    answer = client.post("/api/v1/bots/hal-bot/versions", data=b"PK\x05\x06" + bytes(18))
    assert answer.status_code == 401
    assert _account_state(db)[1] == ()
    with db.session(read_only=True) as s:
        assert s.scalar(select(Bot.id).where(Bot.name == "hal-bot")) is None


def limited(db, site, **limits) -> Flask:
    """An app whose settings hold these limits (read once, when it starts)."""
    settings = dataclasses.replace(site.runtime.settings, **limits)
    return create_app(db, Runtime(settings), TESTING=True)


def test_log_in_limits_per_account_and_per_address_hold_across_app_instances(db, site):
    for name in ("ida", "jon", "kim"):
        make_user(db, name)
    # Two instances on the same database stand for two dashboard processes.
    client = limited(db, site, login_limit=(3, 5, 900)).test_client()
    second = limited(db, site, login_limit=(3, 5, 900))
    a = {"environ_base": {"REMOTE_ADDR": "10.0.0.1"}}
    b = {"environ_base": {"REMOTE_ADDR": "10.0.0.2"}}
    web1, web2 = client, second.test_client()
    for web in (web1, web2, web1):
        assert log_in(web, "ida", "guess", **a).status_code == 401
    # ida is now blocked, from any address and on either instance, even with her password
    for web, where in ((web1, a), (web2, b)):
        answer = log_in(web, "ida", **where)
        assert answer.status_code == 429 and "too many" in answer.get_data(as_text=True)
    # address 10.0.0.1 has 3 failures (+2 refused, not counted); two more on jon use it up
    for _ in range(2):
        assert log_in(web2, "jon", "guess", **a).status_code == 401
    assert log_in(web1, "kim", **a).status_code == 429
    assert log_in(web2, "kim", **b).status_code == 302  # another address is not blocked


def test_parallel_guesses_get_no_more_checks_than_the_limit(db, site):
    """Guesses sent at once must not all pass the limit before the first failure is
    written (they did: 12 of 12 were checked): each counts as a failure before its password
    is checked."""
    make_user(db, "ida")
    guessers = 12
    clients = [limited(db, site, login_limit=(3, 100, 900)).test_client() for _ in range(guessers)]
    forms = [csrf_of(web) for web in clients]
    start = threading.Barrier(guessers)

    def guess(i: int) -> int:
        form = {"name": "ida", "password": f"guess-{i}", "csrf_token": forms[i]}
        start.wait()
        return clients[i].post("/login", data=form).status_code

    with ThreadPoolExecutor(guessers) as pool:
        answers = list(pool.map(guess, range(guessers)))
    assert set(answers) <= {401, 429}, answers
    # The checked ones: never more than the limit (a burst may even be refused whole, when
    # every reservation is in before any count is read).
    assert answers.count(401) <= 3, answers
    with db.session(read_only=True) as s:  # every checked guess is a failure; no refusal is
        keys = list(s.scalars(select(RateEvent.key).where(RateEvent.key == "user:ida")))
    assert len(keys) == answers.count(401)


def test_passwords_never_reach_the_database_or_the_logs_in_clear(client, db, caplog):
    caplog.set_level(logging.DEBUG)
    secret = "Unique-Pa55word-4711"
    post_form(client, "/signup", {"name": "lea", "password": secret, "password2": secret})
    post_form(client, "/logout", page="/account")
    log_in(client, "lea", secret + "-wrong")
    log_in(client, "lea", secret)
    assert 'data-user="lea"' in client.get("/account").get_data(as_text=True)
    assert secret not in caplog.text
    with db.session(read_only=True) as s:
        for table in Base.metadata.sorted_tables:
            for row in s.execute(text(f"SELECT * FROM {table.name}")):
                assert secret not in repr(tuple(row)), table.name


def test_user_add_makes_the_first_organiser(client, db, site, tmp_path):
    url = db.url.render_as_string(hide_password=False)
    env = {"ARENA_DATABASE_URL": url, "ARENA_DATA_DIR": str(tmp_path), "ARENA_PASSWORD": PASSWORD}
    result = CliRunner().invoke(main, ["user", "add", "org", "--admin"], env=env)
    assert result.exit_code == 0, result.output
    assert "organiser 'org' created" in result.output and PASSWORD not in result.output
    again = CliRunner().invoke(main, ["user", "add", "org"], env=env)
    assert again.exit_code == 1 and "already exists" in again.output
    prompted = CliRunner().invoke(
        main, ["user", "add", "pat"], env={**env, "ARENA_PASSWORD": ""}, input="short\nshort\n"
    )
    assert prompted.exit_code == 1 and "at least 8" in prompted.output
    log_in(client, "org")
    assert client.get("/tournaments/new").status_code == 200


def test_the_production_server_logs_no_password(db, tmp_path):
    """`arena dashboard` (its access log on) sees a sign-up and two log-ins: its whole
    output holds the requests and not the password."""
    from tests.support import arena_command, free_port

    secret = "Gunicorn-Pa55word-0815"
    port = free_port()
    env = {
        **os.environ,
        "ARENA_DATABASE_URL": db.url.render_as_string(hide_password=False),
        "ARENA_DATA_DIR": str(tmp_path / "data"),
    }
    command = [*arena_command(), "dashboard", "--port", str(port), "--workers", "1"]
    log = tmp_path / "server.log"
    with log.open("wb") as out:
        server = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        base = f"http://127.0.0.1:{port}"
        web = _wait_for(base)
        for url, data in (
            ("/signup", {"name": "max", "password": secret, "password2": secret}),
            ("/login", {"name": "max", "password": secret + "-wrong"}),
            ("/login", {"name": "max", "password": secret}),
        ):
            web.open(base + url, urlencode({**data, "csrf_token": _csrf(web, base + url)}).encode())
    finally:
        server.terminate()
        server.wait(30)
    output = log.read_text()
    assert "POST /signup" in output and output.count("POST /login") == 2, output
    assert secret not in output


def _wait_for(base: str):
    web = build_opener(HTTPCookieProcessor(CookieJar()), _NoErrors())
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            web.open(base + "/login", timeout=2)
            return web
        except URLError:
            time.sleep(0.2)
    pytest.fail(f"the dashboard did not answer at {base}")


def _csrf(web, url: str) -> str:
    html = web.open(url).read().decode()
    return re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)


class _NoErrors(HTTPErrorProcessor):
    """Refusals (401) are answers to read, not exceptions."""

    def http_response(self, request, response):
        return response


def test_sign_ups_per_address_are_limited(db, site):
    app = limited(db, site, signups_per_hour=2)
    here, there = {"REMOTE_ADDR": "10.0.0.7"}, {"REMOTE_ADDR": "10.0.0.8"}
    for i, where in enumerate((here, here, here, there)):
        web = app.test_client()
        data = {"name": f"user{i}", "password": PASSWORD, "password2": PASSWORD}
        answer = post_form(web, "/signup", data, environ_base=where)
        if i == 2:
            assert answer.status_code == 429
            assert "too many sign-ups" in answer.get_data(as_text=True)
        else:
            assert answer.status_code == 302, i
    with db.session(read_only=True) as s:
        names = set(s.scalars(select(User.name)))
    assert {"user0", "user1", "user3"} <= names and "user2" not in names


def test_refused_sign_ups_count_too_so_names_cannot_be_listed(db, site):
    """A sign-up says when a name is taken; counted or not, failures would let anyone test
    names without end. Two refused attempts use the address's hour: the third is refused
    before the name is even looked at, whether the name exists or not."""
    with db.session() as s:
        create_user(s, "taken", PASSWORD)
    where = {"REMOTE_ADDR": "10.0.0.9"}
    web = limited(db, site, signups_per_hour=2).test_client()
    data = {"name": "taken", "password": PASSWORD, "password2": PASSWORD}
    for _ in range(2):
        answer = post_form(web, "/signup", data, environ_base=where)
        assert answer.status_code == 400 and "already exists" in answer.get_data(as_text=True)
    for name in ("taken", "fresh"):  # no answer about either any more
        data = {"name": name, "password": PASSWORD, "password2": PASSWORD}
        answer = post_form(web, "/signup", data, environ_base=where)
        assert answer.status_code == 429, name
        assert "already exists" not in answer.get_data(as_text=True)
    with db.session(read_only=True) as s:
        assert "fresh" not in set(s.scalars(select(User.name)))
