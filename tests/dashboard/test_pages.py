"""Every page: content, escaping, what a running match hides, errors."""

from __future__ import annotations

import pytest

from arena.ladders.entrants import ensure_ladder
from arena.tournaments.create import new_tournament
from arena.tournaments.spec import TournamentSpec
from tests.dashboard.conftest import XSS

ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;"


def pages(site) -> list[str]:
    return [
        "/",
        "/leaderboard",
        "/leaderboard?tournament=all",
        f"/leaderboard?tournament={site.tournament}",
        "/tournaments/",
        f"/tournaments/{site.tournament}",
        f"/tournaments/{site.tournament}/board",
        "/bots/",
        f"/bots/{site.bots[XSS]}",
        "/matches/",
        f"/matches/?bot={site.bots[XSS]}",
        f"/matches/{site.done[0]}",
        f"/matches/{site.faulty}",
        f"/matches/{site.running}",
    ]


def test_every_page_renders_a_hostile_bot_name_as_text(client, site):
    for url in pages(site):
        reply = client.get(url)
        assert reply.status_code == 200, url
        body = reply.get_data(as_text=True)
        assert XSS not in body, url
        assert "<i>" not in body, url  # the tournament is named "cup <i>"
        if url not in (
            "/",
            "/bots/",
            "/tournaments/",
        ):  # the ladder: tests/dashboard/test_ladder_pages.py
            assert ESCAPED in body or "\\u003cscript\\u003e" in body, url


def test_leaderboard_shows_rank_interval_bar_and_separation(client, site):
    body = client.get("/leaderboard").get_data(as_text=True)
    assert f'<h2 id="board-title">#{site.tournament} cup &lt;i&gt;</h2>' in body
    for name in ("alpha", "beta", "gamma"):
        assert f">{name}</a>" in body
    assert body.count('class="bar') == 4 and body.count('class="dot"') == 4
    assert "not separated" in body  # the legend, and a marked row in a tournament this small
    assert 'class="tied"' in body


def test_tournament_page_shows_progress_history_and_head_to_head(client, site):
    body = client.get(f"/tournaments/{site.tournament}").get_data(as_text=True)
    assert "3 / 5" in body  # three of five matches done
    assert "<polyline" in body  # the rating snapshot
    assert (
        body.count('<td class="pos"')
        + body.count('<td class="neg"')
        + body.count('<td class="even"')
        == 12
    )  # 4 bots: every off-diagonal cell


def test_a_made_name_counts_tournaments_and_the_heading_shows_the_id(client, db, site):
    """The ladder's row takes an id, not a number: the second tournament is Tournament 2
    whatever its id, and its page says both."""
    ensure_ladder(db)
    spec = TournamentSpec(bots=("alpha", "beta"), seed=4)
    tid = new_tournament(db, site.runtime, spec).id
    assert tid == site.tournament + 2  # the ladder's row came between
    body = client.get(f"/tournaments/{tid}").get_data(as_text=True)
    assert "<h1>Tournament 2 (2 bots, pagat, seed 4) <small title=" in body
    assert f">#{tid}</small></h1>" in body
    board = client.get(f"/leaderboard?tournament={tid}").get_data(as_text=True)
    assert f'id="board-title">#{tid} Tournament 2 (2 bots, pagat, seed 4)</h2>' in board


def test_bot_page_lists_versions_faults_and_opponents(client, site):
    beta = client.get(f"/bots/{site.bots['beta']}").get_data(as_text=True)
    assert "malformed" in beta  # the garbage answers of the faulty match
    assert ">alpha</a>" in beta and ESCAPED in beta
    assert "valid" in beta


def test_match_list_filters_and_pages(client, site):
    def ids(query: str) -> set[int]:
        data = client.get(f"/api/v1/matches?{query}").get_json()
        return {m["id"] for m in data["matches"]}

    assert ids("") == {*site.done, site.faulty, site.running, site.pending}
    assert ids("status=done") == {*site.done, site.faulty}
    assert ids("faults=yes") == {site.faulty}
    assert ids("faults=no&status=done") == set(site.done)
    assert ids(f"tournament={site.tournament}&status=running") == {site.running}
    assert ids(f"bot={site.bots['alpha']}") == {*site.done, site.faulty}
    assert ids("tournament=999") == set()
    html = client.get("/matches/?status=done&faults=yes").get_data(as_text=True)
    assert (
        f'href="/matches/{site.faulty}"' in html and f'href="/matches/{site.done[0]}"' not in html
    )


@pytest.mark.parametrize("few", [0, 2000], ids=["index-walk", "all-ids"])
def test_paging(client, site, monkeypatch, few):
    monkeypatch.setattr("arena.readmodels.matches.PER_PAGE", 2)
    monkeypatch.setattr("arena.readmodels.matches.FEW", few)  # both ways of cutting a page
    pages = [client.get(f"/api/v1/matches?page={n}").get_json() for n in (1, 2, 3, 4)]
    assert [len(p["matches"]) for p in pages] == [2, 2, 1, 0]
    assert {p["total"] for p in pages} == {5} and {p["pages"] for p in pages} == {3}
    seen = [m["id"] for p in pages for m in p["matches"]]
    assert seen == sorted(seen, reverse=True) and len(set(seen)) == 5
    html = client.get("/matches/?page=2&faults=no").get_data(as_text=True)
    assert "page 2 of 2" in html
    assert 'rel="prev" href="/matches/?page=1&amp;faults=no"' in html
    assert 'rel="next"' not in html


def test_a_running_match_shows_no_card_before_its_first_deal_ends(client, site):
    body = client.get(f"/matches/{site.running}").get_data(as_text=True)
    assert '<script type="application/json" id="record">null</script>' in body
    assert "being played" in body and "match-live.js" in body  # it will poll
    assert "No deal has finished yet" in body
    assert client.get(f"/api/v1/matches/{site.running}").get_json()["live"] is None
    for url in (
        f"/api/v1/matches/{site.running}/replay",
        f"/matches/{site.running}/replay.json",
        f"/api/v1/matches/{site.running}/games/1/decisions/1",
    ):
        reply = client.get(url)
        assert reply.status_code == 409, url
        assert "hands" not in reply.get_data(as_text=True)


def test_a_finished_match_has_its_record_and_downloads(client, site):
    body = client.get(f"/matches/{site.faulty}").get_data(as_text=True)
    assert 'id="record"' in body and "malformed" in body
    replay = client.get(f"/matches/{site.faulty}/replay.json")
    assert replay.headers["Content-Disposition"].startswith("attachment")
    assert replay.get_json()["format"] == "callbreak-match"
    fault = client.get(f"/api/v1/matches/{site.faulty}").get_json()["faults"][0]
    game, at = fault["game"] + 1, fault["decision"]  # the fault's game is an index
    url = f"/matches/{site.faulty}/games/{game}/decisions/{at}.json"
    decision = client.get(url)
    assert decision.status_code == 200
    assert decision.get_json()["played"]["fault"] == "malformed"
    named = f'filename="match-{site.faulty}-game-{game}-decision-{at}.json"'
    assert named in decision.headers["Content-Disposition"]
    api = f"/api/v1/matches/{site.faulty}/games/{game}/decisions/{at}"
    assert client.get(api).get_json() == decision.get_json()
    # the former links counted games from 0: sent on to the same decision
    former = f"/matches/{site.faulty}/decisions/{game - 1}/{at}.json"
    for old, new in ((former, url), (f"/api/v1{former.removesuffix('.json')}", api)):
        moved = client.get(old)
        assert moved.status_code == 308 and moved.headers["Location"] == new
    assert client.get(f"/matches/{site.faulty}/games/0/decisions/{at}.json").status_code == 404
    assert client.get(f"/api/v1/matches/999/decisions/0/{at}").status_code == 404


@pytest.mark.parametrize(
    ("url", "status"),
    [
        ("/tournaments/999", 404),
        ("/bots/999", 404),
        ("/matches/999", 404),
        ("/leaderboard?tournament=999", 404),
        ("/leaderboard?tournament=x", 400),
        ("/matches/?status=won", 400),
        ("/matches/?page=0", 400),
        ("/api/v1/matches?faults=maybe", 400),
        ("/api/v1/tournaments/999", 404),
        ("/nowhere", 404),
    ],
)
def test_errors_are_clear(client, site, url, status):
    reply = client.get(url)
    assert reply.status_code == status
    if url.startswith("/api/"):
        assert reply.get_json()["error"]
