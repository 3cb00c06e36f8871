"""The standing ladder on the web: the front page and a page per ladder (ranking with Elo
bars and trends, the placement list, the state line), a ladder's row kept out of every
tournament list, ladder matches and bot pages that name the ladder, the notice after an
upload, the JSON API, and pause/resume for organisers only (page and API)."""

from __future__ import annotations

import io
import re
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select, update

from arena.config import Settings
from arena.readmodels.ladder import IDLE_AFTER_S, LadderView, ladder_view
from arena.runtime import Runtime
from arena.store import Database, Match, User, claim_match, create_tournament, issue_token
from arena.store.models import BotVersion, Ladder, utcnow
from arena.tournaments.cache import CACHE
from arena.tournaments.spec import TournamentSpec
from dashboard import create_app
from dashboard.api import SPEC
from dashboard.format import first_match
from tests.dashboard.conftest import XSS, copy_of, played_once
from tests.dashboard.ladder_site import NEWCOMER, PLACEMENT, LadderSite, build
from tests.dashboard.test_api import check, schema_of
from tests.dashboard.test_pages import ESCAPED
from tests.dashboard.users import csrf_of, log_in, make_user, post_form
from tests.support import fresh_database


@pytest.fixture(scope="module")
def built(
    tmp_path_factory: pytest.TempPathFactory, sqlite_template: Path
) -> tuple[Path, LadderSite]:
    """The ladder site (``ladder_site.build``) played once for the module, in a folder."""
    folder = tmp_path_factory.mktemp("ladder")
    return folder, played_once(folder, sqlite_template, build)


@pytest.fixture
def db_url(built: tuple[Path, LadderSite], tmp_path: Path):
    """Each test works on its own copy of the ladder site's database and data dir."""
    return copy_of(built[0], tmp_path)


@pytest.fixture
def ladder(built: tuple[Path, LadderSite]) -> LadderSite:
    CACHE.clear()
    return built[1]


@pytest.fixture
def client(db: Database, ladder: LadderSite, tmp_path: Path):
    runtime = Runtime(Settings(db.url.render_as_string(hide_password=False), tmp_path / "d", ""))
    return create_app(db, runtime, TESTING=True).test_client()


def view(db: Database, name: str = "pagat") -> LadderView:
    with db.session(read_only=True) as s:
        return ladder_view(s, name)


def text(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def board_order(html: str) -> list[int]:
    """The versions of the ranking's rows, top to bottom."""
    board = html.partition('<table class="board">')[2].partition("</table>")[0]
    return [int(v) for v in re.findall(r'<tr [^>]*data-bot-version="(\d+)"', board)]


def test_the_front_page_is_the_default_ladder(client, db, ladder):
    v = view(db)
    assert v.state == "playing" and v.in_flight == 1
    assert [e.bot for e in v.placing] == [NEWCOMER] and len(v.ranked) == 7  # 4 + 3 anchors
    html = client.get("/").get_data(as_text=True)
    assert html == client.get("/ladders/pagat").get_data(as_text=True)
    page = text(html)
    assert "Ladder pagat" in page and "pagat rules" in page
    state = "playing : matches are scheduled where the ranking is least sure"
    assert f"{state} · {v.done} matches played, 1 in flight" in page
    assert "a new version's first match in about 2 min" in page  # 1 in flight x 120 s
    assert board_order(html) == [e.bot_version_id for e in v.ranked]
    assert html.count('class="bar') == html.count('class="dot"') == 7  # Elo interval bars
    assert "owner0" in page and ESCAPED in html and XSS not in html
    trended = [e for e in v.ranked if e.trend is not None]
    assert trended and "Trend: Elo change since the previous rating snapshot" in page
    for e in trended:
        row = html.partition(f'data-bot-version="{e.bot_version_id}"')[2].partition("</tr>")[0]
        assert '<td class="num trend' in row and f"{e.trend:+.0f}</td>" in row
    # its one match is scheduled, not played: placing counts played matches only
    assert f"{NEWCOMER} 1 owner4 placement: 0 of {PLACEMENT} matches" in page
    assert 'href="/ladders/bhoos"' in html  # the other ladder
    assert f'href="/matches/?tournament={ladder.tournament_id}"' in html


def test_another_ladder_has_its_page_and_an_unknown_one_is_a_404(client):
    html = client.get("/ladders/bhoos").get_data(as_text=True)
    page = text(html)
    assert "Ladder bhoos" in page and 'href="/ladders/pagat"' in html
    assert "Nobody is ranked yet" in page
    assert page.count("placement: 0 of 8 matches") == 5  # every contestant, none played
    missing = client.get("/ladders/nowhere")
    assert missing.status_code == 404 and "no ladder named" in missing.get_data(as_text=True)


def test_without_a_ladder_the_front_page_says_how_to_open_one(request, tmp_path):
    (tmp_path / "empty").mkdir()
    db = Database(fresh_database(request, "sqlite", tmp_path / "empty"))
    try:
        runtime = Runtime(Settings(db.url.render_as_string(), tmp_path / "d", ""))
        reply = create_app(db, runtime, TESTING=True).test_client().get("/")
        assert reply.status_code == 200
        assert "No ladder is open" in text(reply.get_data(as_text=True))
    finally:
        db.dispose()


def test_ladders_stay_out_of_tournament_lists_and_lead_to_their_page(client, db, ladder):
    board = text(client.get("/leaderboard").get_data(as_text=True))
    assert "All games (tournaments and ladders)" in board and "Ladder (" not in board
    assert client.get("/api/v1/tournaments").get_json() == []
    with db.session() as s:
        query = select(BotVersion).where(BotVersion.bot_id.in_(ladder.bots.values()))
        versions = list(s.scalars(query))[:4]
        spec = TournamentSpec(name="spring cup", seed=3)
        cup = create_tournament(s, spec.columns(), versions, [(0, (0, 1, 2, 3), 5)]).id
    assert [t["id"] for t in client.get("/api/v1/tournaments").get_json()] == [cup]
    listing = client.get("/tournaments/").get_data(as_text=True)
    assert "spring cup" in listing and "Ladder (" not in listing
    board = client.get("/leaderboard").get_data(as_text=True)
    assert f"#{cup} spring cup" in text(board)
    assert f'value="{ladder.tournament_id}"' not in board  # not in the selector
    matches = client.get("/matches/").get_data(as_text=True)
    assert f'<option value="{ladder.tournament_id}" >ladder pagat</option>' in matches
    ladder_row = ladder.tournament_id
    for url in (f"/tournaments/{ladder_row}", f"/leaderboard?tournament={ladder_row}"):
        reply = client.get(url)
        assert reply.status_code == 302 and reply.headers["Location"] == "/ladders/pagat", url
    old = client.get("/?tournament=all")  # where the leaderboard used to be
    assert old.status_code == 301 and old.headers["Location"] == "/leaderboard?tournament=all"


def test_a_ladder_match_names_its_ladder(client, ladder):
    match_id = ladder.played[0]
    html = client.get(f"/matches/{match_id}").get_data(as_text=True)
    assert '<a href="/ladders/pagat">ladder pagat</a>' in html
    assert f"tournament {ladder.tournament_id}" not in html
    listing = client.get(f"/matches/?tournament={ladder.tournament_id}").get_data(as_text=True)
    assert f'href="/matches/{match_id}"' in listing and ">ladder pagat</a>" in listing
    assert client.get(f"/api/v1/matches/{match_id}").get_json()["match"]["ladder"] == "pagat"


def test_a_bot_page_shows_its_ladder_standing_and_names_the_ladder(client, db, ladder):
    v = view(db)
    e = next(e for e in v.ranked if not e.house and e.trend is not None)
    half = max(e.elo - e.ci_low, e.ci_high - e.elo)
    html = client.get(f"/bots/{e.bot_id}").get_data(as_text=True)
    page = text(html)
    standing = f"rank {e.rank} of 7 , Elo {e.elo:.0f} ± {half:.0f} ({e.trend:+.0f})"
    assert f"ladder pagat , version 1: {standing}" in page
    assert "ladder bhoos , version 1: placement: 0 of 8 matches" in page
    history = html.partition("<h2>Rating history</h2>")[2].partition("</table>")[0]
    assert '<a href="/ladders/pagat">ladder pagat</a>' in history
    assert "tournament" not in text(history)
    newcomer = text(client.get(f"/bots/{ladder.bots[NEWCOMER]}").get_data(as_text=True))
    assert f"ladder pagat , version 1: placement: 0 of {PLACEMENT} matches" in newcomer
    body = client.get(f"/api/v1/bots/{e.bot_id}").get_json()
    check(body, SPEC["components"]["schemas"]["Bot"])
    places = {p["ladder"]: p for p in body["ladders"]}
    assert places["pagat"]["rank"] == e.rank and places["pagat"]["ranked"] == 7
    assert places["bhoos"]["rank"] is None and places["bhoos"]["matches"] == 0
    assert {h["ladder"] for h in body["history"]} == {"pagat"}


def test_the_api_lists_and_shows_ladders(client, db, ladder):
    listed = client.get("/api/v1/ladders").get_json()
    check(listed, schema_of(SPEC["paths"]["/api/v1/ladders"]["get"], "200"))
    assert [x["name"] for x in listed] == ["pagat", "bhoos"]
    assert (listed[0]["ranked"], listed[0]["placing"], listed[0]["in_flight"]) == (7, 1, 1)
    assert listed[0]["wait_s"] == 120 and listed[0]["tournament_id"] == ladder.tournament_id
    body = client.get("/api/v1/ladders/pagat").get_json()
    check(body, schema_of(SPEC["paths"]["/api/v1/ladders/{name}"]["get"], "200"))
    assert [e["rank"] for e in body["ranked"]] == list(range(1, 8))
    elos = [e["elo"] for e in body["ranked"]]
    assert elos == sorted(elos, reverse=True)
    assert [(e["bot"], e["matches"], e["rank"]) for e in body["placing"]] == [(NEWCOMER, 0, None)]
    assert body["state"] == "playing" and body["placement_matches"] == PLACEMENT
    missing = client.get("/api/v1/ladders/nowhere")
    assert missing.status_code == 404 and "no ladder named" in missing.get_json()["error"]


def test_a_ladder_nothing_plays_says_it_waits_and_plays_again_once_a_match_is_taken(
    client, db, ladder
):
    """Matches in flight, none taken, ended or scheduled for five minutes: "waiting" (no
    worker, no ladder run), not "playing"; a match under a live lease: "playing" again."""
    long_ago = utcnow() - timedelta(seconds=IDLE_AFTER_S + 60)
    with db.session() as s:
        s.execute(update(Match).values(created_at=long_ago, finished_at=long_ago))
    CACHE.clear()
    assert client.get("/api/v1/ladders/pagat").get_json()["state"] == "waiting"
    page = client.get("/ladders/pagat").get_data(as_text=True)
    assert "nothing has played one for five minutes" in page and "arena worker" in page
    with db.session() as s:
        tid = s.scalar(select(Ladder.tournament_id).where(Ladder.name == "pagat"))
        pending = s.scalar(
            select(Match.id).where(Match.tournament_id == tid, Match.status == "pending")
        )
        assert claim_match(s, pending, "somewhere:1") is not None
    assert client.get("/api/v1/ladders/pagat").get_json()["state"] == "playing"


def _paused(db: Database) -> bool:
    with db.session(read_only=True) as s:
        return s.scalar(select(Ladder.paused).where(Ladder.name == "pagat"))


def _tokens(db: Database) -> dict[str, str]:
    make_user(db, "bob")
    make_user(db, "root", admin=True)
    with db.session() as s:
        users = {u.name: u for u in s.scalars(select(User).where(User.name.in_(["bob", "root"])))}
        return {name: issue_token(s, user) for name, user in users.items()}


def test_only_an_organisers_token_pauses_and_resumes_a_ladder(client, db, ladder):
    tokens = _tokens(db)
    bearer = {name: {"Authorization": f"Bearer {t}"} for name, t in tokens.items()}
    assert client.post("/api/v1/ladders/pagat/pause").status_code == 401
    refused = client.post("/api/v1/ladders/pagat/pause", headers=bearer["bob"])
    assert refused.status_code == 403 and "organisers" in refused.get_json()["error"]
    assert _paused(db) is False
    log_in(client, "root")  # the API's writes take a token, never the cookie
    assert client.post("/api/v1/ladders/pagat/pause").status_code == 401
    assert _paused(db) is False
    done = client.post("/api/v1/ladders/pagat/pause", headers=bearer["root"])
    assert done.status_code == 200 and done.get_json() == {"name": "pagat", "paused": True}
    assert _paused(db) is True and view(db).state == "paused"
    assert client.get("/api/v1/ladders/pagat").get_json()["state"] == "paused"
    resumed = client.post("/api/v1/ladders/pagat/resume", headers=bearer["root"])
    assert resumed.get_json() == {"name": "pagat", "paused": False} and _paused(db) is False
    assert client.post("/api/v1/ladders/nowhere/pause", headers=bearer["root"]).status_code == 404


def test_only_an_organiser_sees_and_uses_the_pause_button(client, db, ladder):
    _tokens(db)
    assert "Pause the ladder" not in client.get("/").get_data(as_text=True)
    anonymous = post_form(client, "/ladders/pagat/pause", page="/signup")
    assert anonymous.status_code == 302 and "/login" in anonymous.headers["Location"]
    log_in(client, "bob")
    assert "Pause the ladder" not in client.get("/").get_data(as_text=True)
    refused = post_form(client, "/ladders/pagat/pause", page="/account")
    assert refused.status_code == 403 and _paused(db) is False
    post_form(client, "/logout", page="/account")
    log_in(client, "root")
    assert client.post("/ladders/pagat/pause").status_code == 400  # no CSRF token
    assert _paused(db) is False
    paused = post_form(client, "/ladders/pagat/pause", page="/")  # the button's form
    assert paused.status_code == 303 and paused.headers["Location"] == "/ladders/pagat"
    assert _paused(db) is True
    page = text(client.get("/ladders/pagat").get_data(as_text=True))
    assert "ladder pagat paused" in page and "Resume the ladder" in page
    assert "paused by an organiser" in page
    assert "a new version's first match once an organiser resumes the ladder" in page
    resumed = post_form(client, "/ladders/pagat/resume", page="/ladders/pagat")
    assert resumed.status_code == 303 and _paused(db) is False
    assert "Pause the ladder" in client.get("/").get_data(as_text=True)


def test_an_upload_says_when_its_placement_matches_follow(client, db, ladder, monkeypatch):
    queued: list[int] = []
    monkeypatch.setattr(
        "dashboard.submitting.validator", lambda: lambda vid, manifest: queued.append(vid)
    )
    make_user(db, "uma")
    log_in(client, "uma")
    source = b"print('a bot')\n"
    form = {"csrf_token": csrf_of(client, "/bots/new"), "name": "solo", "version": "1"}
    form |= {"language": "python", "command": "python3 bot.py"}
    form["source"] = (io.BytesIO(source), "bot.py")
    answer = client.post("/bots/new", data=form, content_type="multipart/form-data")
    assert answer.status_code == 303 and queued, answer.get_data(as_text=True)
    page = text(client.get(answer.headers["Location"]).get_data(as_text=True))
    assert (
        f"Once solo is valid it enters the pagat ladder: its {PLACEMENT} placement matches "
        "follow, the first in about 2 min." in page
    )


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({}, "in about 2 min"),
        ({"in_flight": 30}, "in about 60 min"),
        ({"in_flight": 60}, "in about 2 h"),
        ({"in_flight": 0}, "as soon as a worker is free"),
        ({"match_seconds": None}, "as soon as a worker is free"),
        ({"state": "paused"}, "once an organiser resumes the ladder"),
    ],
)
def test_a_newcomers_wait_is_said_roughly(db, ladder, change, said):
    assert first_match(replace(view(db), **change)) == said
