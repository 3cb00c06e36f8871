"""Retiring a bot: its owner, an organiser or the operator takes it out of new tournaments;
nobody else can, house bots never are, and nothing of its history goes. Through the plain
function, the dashboard's form, the API and the CLI."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from arena.cli import main
from arena.readmodels.entrants import entrant_choices
from arena.registry import house_version
from arena.store import Bot, BotVersion, StoreError, TournamentEntry, User, add_bot_version
from arena.store.models import as_utc
from arena.submissions import SubmissionError, set_retired
from arena.tournaments.create import new_tournament
from arena.tournaments.spec import TournamentSpec
from dashboard import create_app
from dashboard.api import SPEC
from tests.dashboard.users import log_in, make_user, post_form
from tests.submissions.test_api import documented


def _bot(db, runtime, name: str, owner: str | None = None, version: str = "1.0") -> BotVersion:
    manifest = {"name": name, "version": version, "command": ["python3", "bot.py"]}
    with db.session() as s:
        user = s.scalar(select(User).where(User.name == owner)) if owner else None
        data = f"{name}@{version}".encode()
        return add_bot_version(s, runtime.blobs, data, manifest, "valid", owner=user)


def _user(db, name: str) -> User:
    with db.session(read_only=True) as s:
        return s.scalar(select(User).where(User.name == name))


def _retired_at(db, name: str):
    with db.session(read_only=True) as s:
        when = s.scalar(select(Bot.retired_at).where(Bot.name == name))
    return when and as_utc(when)


def test_the_owner_an_organiser_and_the_operator_may_retire_nobody_else(db, store_runtime):
    for name, admin in (("ann", False), ("eve", False), ("org", True)):
        make_user(db, name, admin=admin)
    _bot(db, store_runtime, "annbot", owner="ann")
    with pytest.raises(SubmissionError, match="belongs to another user") as refused:
        set_retired(db, "annbot", True, _user(db, "eve"))
    assert refused.value.status == 403 and _retired_at(db, "annbot") is None

    first = set_retired(db, "annbot", True, _user(db, "ann"))
    assert first is not None and _retired_at(db, "annbot") == first
    assert set_retired(db, "annbot", True, _user(db, "org")) == first  # twice: the first date
    assert set_retired(db, "annbot", False, _user(db, "org")) is None
    assert set_retired(db, "annbot", True) is not None  # the operator, at the command line

    _bot(db, store_runtime, "orgbot")  # registered by the organiser: no owner
    with pytest.raises(SubmissionError, match="belongs to the organiser"):
        set_retired(db, "orgbot", True, _user(db, "ann"))
    with pytest.raises(SubmissionError, match="no bot named 'ghost'") as unknown:
        set_retired(db, "ghost", True)
    assert unknown.value.status == 404
    house_version(db, store_runtime, "house:heuristic")
    with pytest.raises(SubmissionError, match="house bot"):
        set_retired(db, "house-heuristic", True)


def test_a_retired_bot_is_offered_to_and_entered_in_no_new_tournament(db, store_runtime):
    old = _bot(db, store_runtime, "oldbot")
    new = _bot(db, store_runtime, "newbot")
    tournament = new_tournament(db, store_runtime, TournamentSpec(["oldbot", "newbot"], seed=1))
    set_retired(db, "oldbot", True)

    with db.session(read_only=True) as s:
        assert "oldbot@1.0" not in entrant_choices(s) and "newbot@1.0" in entrant_choices(s)
    for ref in ("oldbot", "oldbot@1.0", str(old.id)):
        with pytest.raises(StoreError, match=r"oldbot was retired on .*arena bot restore oldbot"):
            new_tournament(db, store_runtime, TournamentSpec([ref, "newbot"], seed=1))
    with db.session(read_only=True) as s:  # the tournament it is in keeps it
        query = select(TournamentEntry.bot_version_id)
        entered = set(s.scalars(query.where(TournamentEntry.tournament_id == tournament.id)))
    assert {old.id, new.id} <= entered

    set_retired(db, "oldbot", False)
    assert new_tournament(db, store_runtime, TournamentSpec(["oldbot", "newbot"], seed=1)).id


def test_the_bot_page_retires_and_restores_for_its_owner_only(db, store_runtime):
    make_user(db, "ann"), make_user(db, "eve")
    bot_id = _bot(db, store_runtime, "annbot", owner="ann").bot_id
    page = f"/bots/{bot_id}"
    web = create_app(db, store_runtime, TESTING=True).test_client()
    anonymous = post_form(web, f"{page}/retire")
    assert anonymous.status_code == 302 and "/login" in anonymous.headers["Location"]
    assert _retired_at(db, "annbot") is None

    log_in(web, "eve")
    assert "Retire" not in web.get(page).get_data(as_text=True)
    assert post_form(web, f"{page}/retire").status_code == 403  # a token from /login
    assert web.post(f"{page}/retire").status_code == 400  # no CSRF token
    post_form(web, "/logout", page="/account")

    log_in(web, "ann")
    done = post_form(web, f"{page}/retire", page=page, follow_redirects=True)
    html = done.get_data(as_text=True)
    assert done.status_code == 200 and "annbot retired" in html and 'id="retired"' in html
    assert _retired_at(db, "annbot") is not None
    assert "retired" in web.get("/bots/").get_data(as_text=True)
    assert "annbot@1.0" not in web.get("/tournaments/new").get_data(as_text=True)
    restored = post_form(web, f"{page}/restore", page=page, follow_redirects=True)
    assert "annbot restored" in restored.get_data(as_text=True)
    assert _retired_at(db, "annbot") is None


def test_the_api_retires_with_the_owners_token(db, store_runtime):
    from tests.submissions.conftest import account

    ann, eve = account(db, "ann"), account(db, "eve")
    _bot(db, store_runtime, "annbot", owner="ann")
    web = create_app(db, store_runtime, TESTING=True).test_client()
    doc = SPEC["paths"]["/api/v1/bots/{name}/retire"]["post"]

    def retire(token: str | None, name: str = "annbot", action: str = "retire"):
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return web.post(f"/api/v1/bots/{name}/{action}", headers=headers)

    documented(retire(None), 401, doc)
    assert "another user" in documented(retire(eve.token), 403, doc)["error"]
    documented(retire(ann.token, "ghost"), 404, doc)
    body = documented(retire(ann.token), 200, doc)
    assert body["name"] == "annbot" and body["retired"].startswith(
        str(_retired_at(db, "annbot"))[:10]
    )
    listed = {b["name"]: b for b in web.get("/api/v1/bots").get_json()}
    assert listed["annbot"]["retired"] == body["retired"][:10]
    assert documented(retire(ann.token, action="restore"), 200, doc)["retired"] is None


def test_the_cli_retires_lists_and_restores(db, store_runtime, monkeypatch):
    monkeypatch.setenv("ARENA_DATABASE_URL", db.url.render_as_string(hide_password=False))
    monkeypatch.setenv("ARENA_DATA_DIR", str(store_runtime.settings.data_dir))
    _bot(db, store_runtime, "clibot")
    runner = CliRunner()
    retired = runner.invoke(main, ["bot", "retire", "clibot"])
    assert retired.exit_code == 0 and "clibot retired on" in retired.output, retired.output
    listed = runner.invoke(main, ["bot", "list"], env={"COLUMNS": "200"})
    assert "valid, retired" in listed.output, listed.output
    missing = runner.invoke(main, ["bot", "retire", "ghost"])
    assert missing.exit_code == 1 and "no bot named 'ghost'" in missing.output
    restored = runner.invoke(main, ["bot", "restore", "clibot"])
    assert restored.exit_code == 0 and _retired_at(db, "clibot") is None
