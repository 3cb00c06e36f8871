"""Challenges from the bot page and the API: only the owner sees and asks, a started
challenge is listed with its match, and bad requests are refused clearly."""

from __future__ import annotations

from tests.dashboard.test_versions import alpha, token_of  # noqa: F401 (a fixture)
from tests.dashboard.users import log_in, post_form


def test_the_owner_challenges_from_the_page_and_the_api(client, db, alpha) -> None:  # noqa: F811
    bot_id, _ = alpha
    page = f"/bots/{bot_id}"
    assert 'id="challenge-form"' not in client.get(page).get_data(as_text=True)  # a visitor
    log_in(client, "alice")
    html = client.get(page).get_data(as_text=True)
    assert 'id="challenge-form"' in html and "10 of 10 challenges left" in html
    form = {
        "version": "3.0",
        "opponent1": "house:heuristic",
        "opponent2": "house:master",
        "opponent3": "house:random",
    }
    done = post_form(client, f"{page}/challenges", form, page=page)
    assert done.status_code == 303
    html = client.get(page).get_data(as_text=True)
    assert "9 of 10 challenges left" in html and 'id="challenges-table"' in html

    url = "/api/v1/bots/alpha/challenges"
    body = {"version": "2.0", "opponents": ["house:heuristic", "house:random", "house:master"]}
    assert client.post(url, json=body, headers=token_of(db, "bob")).status_code == 403
    mine = token_of(db, "alice")
    bad = client.post(url, json={"version": "2.0", "opponents": "house:random"}, headers=mine)
    assert bad.status_code == 400 and "list of three" in bad.get_json()["error"]
    started = client.post(url, json=body, headers=mine)
    assert started.status_code == 202
    listed = client.get(url, headers=mine).get_json()
    assert listed["left"] == 8
    assert listed["challenges"][0]["match_id"] == started.get_json()["match_id"]
