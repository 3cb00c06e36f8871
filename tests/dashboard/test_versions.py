"""An owner steers which version plays, from the bot page and the API: rollback, the
promotion policy and comparisons asked for; nobody else may, and bad requests get clear
refusals."""

from __future__ import annotations

import pytest
from sqlalchemy import select, update

from arena.ladders.entrants import ensure_ladder
from arena.store import Bot, issue_token
from arena.store.ladders import seated_versions
from arena.store.models import Comparison, User
from tests.dashboard.users import log_in, make_user, post_form
from tests.services.conftest import fake_bot


@pytest.fixture
def alpha(db, site):
    """alice owns alpha, which has two more valid versions, 2.0 and 3.0 (current: the
    newest); the site's own first one stands in for a house bot, which no ladder seats."""
    alice = make_user(db, "alice")
    make_user(db, "bob")
    ensure_ladder(db)
    bot_id = site.bots["alpha"]
    with db.session() as s:
        s.execute(update(Bot).where(Bot.id == bot_id).values(owner_id=alice.id))
    fake_bot(db, site.runtime, "alpha", "2.0")
    fake_bot(db, site.runtime, "alpha", "3.0")
    return bot_id, "2.0"


def token_of(db, name: str) -> dict[str, str]:
    with db.session() as s:
        user = s.scalar(select(User).where(User.name == name))
        return {"Authorization": f"Bearer {issue_token(s, user)}"}


def seated_alpha(db) -> str:
    with db.session(read_only=True) as s:
        return next(v.version for v in seated_versions(s) if v.bot.name == "alpha")


def test_the_owner_rolls_back_from_the_page_and_a_stranger_cannot(client, db, alpha) -> None:
    bot_id, first = alpha
    page = f"/bots/{bot_id}"
    assert seated_alpha(db) == "3.0"
    log_in(client, "bob")
    refused = post_form(client, f"{page}/current", {"version": first}, page=page)
    assert refused.status_code == 403 and seated_alpha(db) == "3.0"
    client.post("/logout", data={})
    log_in(client, "alice")
    html = client.get(page).get_data(as_text=True)
    assert 'id="current-form"' in html and "The ladders seat <b>3.0</b>" in html
    done = post_form(client, f"{page}/current", {"version": first}, page=page)
    assert done.status_code == 303 and seated_alpha(db) == first
    assert f"The ladders seat <b>{first}</b>" in client.get(page).get_data(as_text=True)
    saved = post_form(client, f"{page}/promotion", {"promotion": "if-not-worse"}, page=page)
    assert saved.status_code == 303
    with db.session(read_only=True) as s:
        assert s.get_one(Bot, bot_id).promotion == "if-not-worse"
    bad = post_form(client, f"{page}/promotion", {"promotion": "maybe"}, page=page)
    assert bad.status_code == 400 and "now, if-not-worse, keep" in bad.get_data(as_text=True)


def test_comparisons_through_the_api(client, db, alpha) -> None:
    _, first = alpha
    url = "/api/v1/bots/alpha/comparisons"
    body = {"candidate": "3.0", "baseline": first, "pairs": 3}
    assert client.post(url, json=body).status_code == 401
    assert client.post(url, json=body, headers=token_of(db, "bob")).status_code == 403
    mine = token_of(db, "alice")
    bad = client.post(url, json=body | {"pairs": 0}, headers=mine)
    assert bad.status_code == 400 and "pairs" in bad.get_json()["error"]
    same = client.post(url, json=body | {"candidate": first}, headers=mine)
    assert same.status_code == 400 and "two versions" in same.get_json()["error"]
    started = client.post(url, json=body, headers=mine)
    assert started.status_code == 202, started.get_json()
    shown = started.get_json()
    assert (shown["candidate"], shown["status"], shown["pairs_cap"]) == ("alpha@3.0", "running", 3)
    assert client.post(url, json=body, headers=mine).status_code == 429  # one at a time
    listed = client.get(url).get_json()
    assert [c["id"] for c in listed["comparisons"]] == [shown["id"]]
    assert listed["current"] == "3.0" and listed["promotion"] == "now"
    with db.session(read_only=True) as s:
        comparison = s.get_one(Comparison, shown["id"])
        assert not comparison.gate and comparison.requested_by is not None
    rolled = client.post(
        "/api/v1/bots/alpha/current", json={"version": first}, headers=mine
    ).get_json()
    assert rolled["current"] == first and "now current" in rolled["message"]
    policy = client.post("/api/v1/bots/alpha/promotion", json={"promotion": "keep"}, headers=mine)
    assert policy.get_json()["promotion"] == "keep"
    assert client.get("/api/v1/bots/nobody/comparisons").status_code == 404


def test_the_bot_page_shows_a_finished_comparison(client, db, alpha) -> None:
    bot_id, first = alpha
    log_in(client, "alice")
    page = f"/bots/{bot_id}"
    form = {"candidate": "3.0", "baseline": first, "pairs": "2"}
    assert post_form(client, f"{page}/comparisons", form, page=page).status_code == 303
    with db.session() as s:
        comparison = s.scalar(select(Comparison))
        comparison.status, comparison.verdict = "done", "worse"
        comparison.summary = {
            "pairs": 2,
            "delta": -1.25,
            "half_width": 0.5,
            "llr_better": -3.0,
            "llr_worse": 3.1,
            "elo": -150.0,
            "elo_half_width": 90.0,
            "verdict": "worse",
            "faults": {},
        }
    html = client.get(page).get_data(as_text=True)
    assert "-1.25 ± 0.50" in html and 'class="verdict worse"' in html
    assert "asked for" in html
