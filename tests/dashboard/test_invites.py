"""Invite codes on the dashboard: a room behind one address signs up whole with a code, where
the per-address limit would refuse it; wrong, expired and used-up codes are refused with a
clear reason, and wrong ones are counted; organisers make codes on the web or with
``arena user invite``; ``arena user import`` makes a contest's accounts from a CSV file."""

from __future__ import annotations

import dataclasses
import re

import pytest
from click.testing import CliRunner
from flask import Flask
from sqlalchemy import select

from arena.accounts.invites import create_invites
from arena.cli import main
from arena.config import Settings
from arena.runtime import Runtime
from arena.store import User
from arena.store.models import Invite
from dashboard import create_app
from tests.dashboard.users import PASSWORD, log_in, make_user, post_form

ROOM = {"REMOTE_ADDR": "10.1.1.1"}  # thirty contestants behind one NAT
_CODE = re.compile(r'<code class="invite-code">([A-Z0-9-]+)</code>')


@pytest.fixture
def settings(db, tmp_path) -> Settings:
    return Settings(db.url.render_as_string(hide_password=False), tmp_path / "data", "")


def app_with(db, settings: Settings, **changes) -> Flask:
    """The dashboard with these settings (its limits are read once, when it starts)."""
    return create_app(db, Runtime(dataclasses.replace(settings, **changes)), TESTING=True)


@pytest.fixture
def app(db, settings) -> Flask:
    return app_with(db, settings)


def sign_up(app: Flask, name: str, code: str | None = None, where: dict = ROOM):
    """One contestant's sign-up from the form (a browser of its own)."""
    data = {"name": name, "password": PASSWORD, "password2": PASSWORD}
    if code is not None:
        data["invite"] = code
    return post_form(app.test_client(), "/signup", data, page="/signup", environ_base=where)


def organiser(app: Flask, db):
    make_user(db, "org", admin=True)
    web = app.test_client()
    log_in(web, "org")
    return web


def invite_on_the_web(web, **fields) -> list[str]:
    form = {"count": "1", "uses": "30", "hours": "2", "label": "room 101"} | fields
    page = post_form(web, "/invites", form, page="/invites")
    assert page.status_code == 201 and page.headers["Cache-Control"] == "no-store"
    return _CODE.findall(page.get_data(as_text=True))


def names(db) -> set[str]:
    with db.session(read_only=True) as s:
        return set(s.scalars(select(User.name)))


def test_a_room_signs_up_whole_with_a_code_and_without_one_the_eleventh_is_refused(app, db):
    (code,) = invite_on_the_web(organiser(app, db))
    assert re.fullmatch(r"([A-Z2-9]{4}-){3}[A-Z2-9]{4}", code)
    for i in range(30):  # typed as people do: some in lower case, without the dashes
        typed = code if i % 2 else code.replace("-", "").lower()
        answer = sign_up(app, f"guest{i}", typed)
        assert answer.status_code == 302, (i, answer.get_data(as_text=True))
    for i in range(10):  # the room's sign-ups with the code took none of its hour
        assert sign_up(app, f"walkin{i}").status_code == 302, i
    refused = sign_up(app, "walkin10")
    assert refused.status_code == 429 and "too many sign-ups" in refused.get_data(as_text=True)
    late = sign_up(app, "guest30", code)
    assert late.status_code == 400
    assert "used for all its 30 sign-ups" in late.get_data(as_text=True)
    assert {f"guest{i}" for i in range(30)} | {f"walkin{i}" for i in range(10)} <= names(db)
    assert "walkin10" not in names(db) and "guest30" not in names(db)
    page = app.test_client()
    log_in(page, "org")
    listed = page.get("/invites").get_data(as_text=True)
    assert "room 101" in listed and "30 of 30" in listed and "used up" in listed
    assert code not in listed  # shown once, when made; only its sha256 is kept
    with db.session(read_only=True) as s:
        assert code.replace("-", "") not in s.scalar(select(Invite.code_hash))


def test_wrong_and_expired_codes_are_refused_clearly_and_wrong_ones_are_counted(db, settings):
    app = app_with(db, settings, signups_per_hour=2)
    web = organiser(app, db)
    with db.session() as s:
        (ended,), (live,) = create_invites(s, 1, 5, 1), create_invites(s, 1, 5, 1)
    assert post_form(web, "/invites/1/expire", page="/invites").status_code == 303
    expired = sign_up(app, "late", ended)
    assert expired.status_code == 400
    assert "this invite code expired at" in expired.get_data(as_text=True)
    wrong = sign_up(app, "guess", "AAAA-BBBB-CCCC-DDDD")
    assert wrong.status_code == 400
    assert "this invite code is not valid" in wrong.get_data(as_text=True)
    # Two wrong codes use up this address's hour for codes, and for sign-ups without one:
    # a third code is refused before it is even looked at, a right one too.
    for attempt in (sign_up(app, "next", live), sign_up(app, "plain")):
        assert attempt.status_code == 429
    assert "too many wrong invite codes" in sign_up(app, "x", live).get_data(as_text=True)
    elsewhere = sign_up(app, "other", live, {"REMOTE_ADDR": "10.2.2.2"})
    assert elsewhere.status_code == 302
    assert {"late", "guess", "next", "plain", "x"}.isdisjoint(names(db))
    assert "other" in names(db)


def test_a_valid_code_with_a_taken_name_is_refused_and_keeps_its_use(app, db):
    make_user(db, "taken")
    with db.session() as s:
        (code,) = create_invites(s, count=1, uses=1, hours=1)
    answer = sign_up(app, "taken", code)
    assert answer.status_code == 400 and "already exists" in answer.get_data(as_text=True)
    assert sign_up(app, "fresh", code).status_code == 302  # the use was given back
    assert sign_up(app, "third", code).status_code == 400


def test_invites_are_for_organisers_and_the_sign_up_link_fills_the_code_in(app, db):
    visitor = app.test_client()
    assert visitor.get("/invites").status_code == 302  # to the log-in page
    make_user(db, "ann")
    log_in(visitor, "ann")
    assert visitor.get("/invites").status_code == 403
    assert (
        post_form(visitor, "/invites", {"count": "1", "uses": "1", "hours": "1"}).status_code == 403
    )
    assert "Invite codes" not in visitor.get("/account").get_data(as_text=True)
    web = organiser(app, db)
    assert "Invite codes" in web.get("/account").get_data(as_text=True)
    refused = post_form(web, "/invites", {"count": "0", "uses": "1", "hours": "1"}, page="/invites")
    assert refused.status_code == 400 and "count must be" in refused.get_data(as_text=True)
    (code,) = invite_on_the_web(web)
    page = web.get("/invites").get_data(as_text=True)
    assert page.count("Expire now") == 1
    link = app.test_client().get(f"/signup?invite={code}").get_data(as_text=True)
    assert f'name="invite" value="{code}"' in link


def cli(settings: Settings, *args: str):
    env = {"ARENA_DATABASE_URL": settings.database_url, "ARENA_DATA_DIR": str(settings.data_dir)}
    return CliRunner().invoke(main, ["user", *args], env=env)


def test_codes_from_the_command_line_sign_a_room_up(app, db, settings):
    result = cli(settings, "invite", "--count", "2", "--uses", "3", "--expires", "1.5")
    assert result.exit_code == 0, result.output
    codes = [line for line in result.stdout.splitlines() if line]
    assert len(codes) == 2 and "each good for 3 sign-ups within 1.5 hours" in result.stderr
    for i in range(3):
        assert sign_up(app, f"cli{i}", codes[0]).status_code == 302
    assert sign_up(app, "cli3", codes[0]).status_code == 400
    assert sign_up(app, "cli3", codes[1]).status_code == 302
    bad = cli(settings, "invite", "--uses", "0")
    assert bad.exit_code == 2 and "--uses" in bad.output


def test_user_import_makes_a_contests_accounts_all_or_none(app, db, settings, tmp_path):
    listed = tmp_path / "contest.csv"
    listed.write_text(
        "Name,Email,Password,Admin\n"
        "ann,ann@example.org,ann-password,\n"
        "bob,bob@example.org,,\n"
        "cid,,,yes\n"
    )
    result = cli(settings, "import", str(listed))
    assert result.exit_code == 0, result.output
    rows = [line.split(",") for line in result.stdout.splitlines()]
    assert rows[0] == ["name", "password"] and [r[0] for r in rows[1:]] == ["bob", "cid"]
    assert "3 accounts created" in result.stderr and "columns not read: email" in result.stderr
    passwords = dict(rows[1:])
    for name, password in (("ann", "ann-password"), *passwords.items()):
        assert log_in(app.test_client(), name, password).status_code == 302, name
    with db.session(read_only=True) as s:
        admins = set(s.scalars(select(User.name).where(User.admin)))
    assert admins == {"cid"}

    again = tmp_path / "again.csv"
    again.write_text("name,password\ndee,dee-password\nann,another-one\n")
    refused = cli(settings, "import", str(again))
    assert refused.exit_code == 1
    assert "again.csv line 3: user 'ann' already exists" in refused.output
    assert "no account was created" in refused.output and "dee" not in names(db)
    headless = tmp_path / "headless.csv"
    headless.write_text("eve,eve-password\n")
    refused = cli(settings, "import", str(headless))
    assert refused.exit_code == 1 and "one of them 'name'" in refused.output
