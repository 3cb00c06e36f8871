"""What the pages say about states that used to be shown wrong or not at all, through the
Flask test client: stopped tournaments and their entrants, which organiser buttons apply,
why the leaderboard shows its tournament, intervals too wide to mean anything, dates as
<time>, the organiser form's defaults, upload confirmations, versions never validated or
without a version, a bot's rating history and fault matches, the fragments the live pages
swap in, and the seat log links of a match's owners."""

from __future__ import annotations

import io
import itertools
import re
from datetime import UTC, datetime

import pytest
from sqlalchemy import select

from arena.readmodels.leaderboard import leaderboard
from arena.store import BotLog, BotVersion, Tournament, add_bot_version
from arena.store.models import Bot, TournamentRun
from arena.tournaments.run import run_match
from dashboard.charts import MAX_TICKS, line_chart, nice_ticks
from dashboard.format import when
from tests.dashboard.conftest import XSS
from tests.dashboard.pages_site import matches_of, new_tournament
from tests.dashboard.users import csrf_of, log_in, make_user, post_form

ESCAPED_XSS = "&lt;script&gt;alert(1)&lt;/script&gt;"


def text(client, url: str) -> str:
    reply = client.get(url)
    assert reply.status_code == 200, url
    return reply.get_data(as_text=True)


def test_when_writes_utc_iso_whatever_the_database_hands_back():
    naive = str(when("2024-03-01T12:00:00"))  # SQLite: naive UTC
    aware = str(when(datetime(2024, 3, 1, 17, 45, tzinfo=UTC).astimezone()))  # Postgres
    expected = '<time datetime="2024-03-01T12:00:00Z" title="2024-03-01T12:00:00Z">'
    assert naive.startswith(expected) and "2024-03-01 12:00 UTC</time>" in naive
    assert aware.startswith('<time datetime="2024-03-01T17:45:00Z"')
    assert str(when(None)) == str(when("")) == ""


@pytest.mark.parametrize(
    ("low", "high"), [(1490, 1510), (0, 1), (0, 4), (0, 37), (892, 1939), (-3, 250_000)]
)
def test_chart_ticks_are_round_few_and_inside(low, high):
    ticks = nice_ticks(low, high)
    assert 2 <= len(ticks) <= MAX_TICKS
    assert all(low <= v <= high for v in ticks) and ticks == sorted(set(ticks))
    steps = {round(b - a, 9) for a, b in itertools.pairwise(ticks)}
    assert len(steps) == 1


def test_chart_labels_stand_apart_at_a_phones_size():
    """A flat series once gave three labels at one height (1500, 1500, 1500)."""
    chart = line_chart([{"bot": "a", "points": [[1, 1500], [2, 1500]]}])
    assert chart is not None
    ys = [y for _, y in chart.y_ticks]
    assert len({v for v, _ in chart.y_ticks}) == len(ys) >= 2
    assert min(abs(a - b) for a, b in itertools.pairwise(ys)) >= 24  # a 20-unit label's height
    assert [v for v, _ in chart.x_ticks] == [0, 1, 2]


def test_a_stopped_draft_says_so_and_lists_its_entrants(client, db, site):
    draft = new_tournament(db, "never started")
    stopped = new_tournament(db, "stopped cup")
    with db.session() as s:
        s.add(TournamentRun(tournament_id=stopped, backend="celery", stopped_at=datetime.now(UTC)))
    states = {t["id"]: t["state"] for t in client.get("/api/v1/tournaments").get_json()}
    assert states[draft] == "draft" and states[stopped] == "stopped"
    assert states[site.tournament] == "stopped"  # a draft with matches played
    listed = text(client, "/tournaments/")
    assert listed.count('<span class="status stopped">stopped</span>') == 2
    page = text(client, f"/tournaments/{draft}")
    assert '<span class="status draft" data-field="status">draft</span>' in page
    entrants = re.findall(r'<ul class="entrants">(.*?)</ul>', page, re.S)[0]
    for name in ("alpha", "beta", "gamma", ESCAPED_XSS):
        assert f">{name}</a>" in entrants
    assert XSS not in page
    board = text(client, f"/leaderboard?tournament={stopped}")
    assert f"#{stopped} stopped cup (stopped)" in board  # the selector says it too


def buttons(client, tournament_id: int) -> list[str]:
    return re.findall(r'value="(start|stop)">', text(client, f"/tournaments/{tournament_id}"))


def test_start_and_stop_are_offered_only_when_they_apply(client, db, site):
    make_user(db, "root", admin=True)
    draft, running, done = (new_tournament(db, name) for name in ("a", "b", "c"))
    assert buttons(client, draft) == []  # visitors see no button
    log_in(client, "root")
    assert buttons(client, draft) == ["start"]
    with db.session() as s:
        s.get_one(Tournament, running).status = "running"
        s.get_one(Tournament, done).status = "done"
    page = text(client, f"/tournaments/{running}")  # run from the command line
    assert buttons(client, running) == [] and "stop it there" in page
    assert buttons(client, done) == []
    with db.session() as s:
        s.add(TournamentRun(tournament_id=running, backend="celery"))  # the dashboard's run
    assert buttons(client, running) == ["stop"]
    with db.session() as s:
        s.get_one(TournamentRun, running).stopped_at = datetime.now(UTC)  # ended early
    assert buttons(client, running) == ["start"]


def test_the_leaderboard_says_why_it_shows_its_tournament(client, db, site):
    page = text(client, "/leaderboard")
    why = re.findall(r'<p class="meta" id="why-shown">(.*?)</p>', page, re.S)
    assert why and "latest tournament (none has finished yet)" in why[0]
    assert "3 matches played, 4 entrants" in why[0] and "<time datetime=" in why[0]
    with db.session() as s:
        s.get_one(Tournament, site.tournament).status = "done"
    new_tournament(db, "later, unfinished")
    why = re.findall(r'id="why-shown">(.*?)</p>', text(client, "/leaderboard"), re.S)[0]
    assert "latest finished tournament" in why and "3 matches played" in why
    assert 'id="why-shown"' not in text(client, f"/leaderboard?tournament={site.tournament}")


def test_intervals_the_data_do_not_bound_read_too_few_games(client, db, site):
    tid = new_tournament(db, "one match", status="running")
    assert run_match(db, site.runtime, matches_of(db, tid)[0], "t") == "done"
    with db.session(read_only=True) as s:
        rows = leaderboard(s, tid).rows
    assert any(r.ppd_low is None or r.elo_low is None for r in rows)  # what this test is for
    for url in (f"/leaderboard?tournament={tid}", f"/tournaments/{tid}"):
        page = text(client, url)
        assert "∞" not in page, url
        assert "too few games" in page, url


def test_the_head_to_head_and_match_table_fragments(client, db, site):
    h2h = text(client, f"/tournaments/{site.tournament}/h2h")
    assert h2h.lstrip().startswith("<h2>Head to head</h2>") and "<html" not in h2h
    assert len(re.findall(r'<td class="(?:pos|neg|even)"', h2h)) == 12
    assert h2h.count('<span class="col-name">') == 4 and ESCAPED_XSS in h2h
    assert client.get("/tournaments/999/h2h").status_code == 404
    done = text(client, f"/matches/{site.done[0]}/table")
    assert "<h2>Final table</h2>" in done and "played in" in done
    points = re.findall(r'<td class="num points">([^<]*)</td>', done)
    assert len(points) == 4 and "–" not in points
    pending = text(client, f"/matches/{site.pending}/table")
    assert "<h2>Table</h2>" in pending
    assert re.findall(r'<td class="num points">([^<]*)</td>', pending) == ["–"] * 4
    page = text(client, f"/matches/{site.pending}")  # a pending page follows the match
    assert "match-live.js" in page and 'data-when="pending">' in page
    assert client.get("/matches/999/table").status_code == 404


def test_a_seat_log_link_shows_to_its_owner_and_organisers_only(client, db, site):
    owner, _ = make_user(db, "owner"), make_user(db, "stranger")
    make_user(db, "root", admin=True)
    with db.session() as s:
        version = s.scalar(select(BotVersion).join(Bot).where(Bot.name == "alpha"))
        version.bot.owner_id = owner.id
        s.add(BotLog(match_id=site.done[0], bot_version_id=version.id, text="words of alpha"))
        link = f'href="/bots/{version.bot_id}/logs/{version.version}/matches/{site.done[0]}"'
    url = f"/matches/{site.done[0]}"
    assert "seat-log" not in text(client, url)  # a visitor
    for name, sees in (("stranger", False), ("owner", True), ("root", True)):
        reader = client.application.test_client()
        log_in(reader, name)
        page = text(reader, url)
        assert (link in page) is sees, name
        assert (link in text(reader, f"{url}/table")) is sees, name
        if sees:
            assert "words of alpha" in text(reader, link.split('"')[1])


def test_the_organiser_form_defaults_to_pagat_and_offers_every_house_bot(client, db, site):
    make_user(db, "root", admin=True)
    log_in(client, "root")
    form = text(client, "/tournaments/new")
    rules = re.findall(r'<select name="rules"[^>]*>(.*?)</select>', form, re.S)[0]
    assert re.findall(r'<option value="(\w+)"( selected)?', rules)[0] == ("pagat", " selected")
    for house in ("house:heuristic", "house:master", "house:random"):
        assert f'value="{house}"' in form
    refused = post_form(client, "/tournaments/new", {"name": "empty"}, page="/tournaments/new")
    body = refused.get_data(as_text=True)
    assert refused.status_code == 400
    assert "tick at least one bot to enter" in body and "--bots" not in body


SOURCE = b"print('a bot')\n"


def upload(client, **fields):
    data = {"csrf_token": csrf_of(client, "/bots/new")}
    for key, value in fields.items():
        data[key] = (io.BytesIO(value[1]), value[0]) if isinstance(value, tuple) else value
    return client.post("/bots/new", data=data, content_type="multipart/form-data")


def flashes(client, reply) -> list[str]:
    assert reply.status_code == 303, reply.get_data(as_text=True)[-500:]
    page = text(client, reply.headers["Location"])
    return re.findall(r'<p class="flash info" role="status">(.*?)</p>', page, re.S)


def test_an_upload_is_confirmed_and_an_identical_one_stores_nothing(client, db, monkeypatch):
    monkeypatch.setattr("dashboard.submitting.validator", lambda: lambda vid, manifest: None)
    make_user(db, "ann")
    log_in(client, "ann")
    fields = {
        "source": ("bot.py", SOURCE),
        "name": "solo",
        "version": "2",
        "command": "python3 bot.py",
    }
    assert "Version 2 of solo uploaded; validation queued." in flashes(
        client, upload(client, **fields)
    )
    again = flashes(client, upload(client, **fields))
    assert again == [
        "Identical to solo version 2, stored before (pending): nothing new was uploaded."
    ]
    with db.session() as s:  # rejected: new files may take its number
        version = s.scalar(select(BotVersion).join(Bot).where(Bot.name == "solo"))
        version.status = "rejected"
    fixed = {**fields, "source": ("bot.py", SOURCE + b"# fixed\n")}
    assert "Version 2 of solo uploaded; validation queued." in flashes(
        client, upload(client, **fixed)
    )

    refused = upload(client, source=("bot.py", SOURCE), name="solo", version="3", language="py")
    body = refused.get_data(as_text=True)
    assert refused.status_code == 400 and "command is required" in body
    assert "Choose the source file again" in body
    assert 'name="version" maxlength="64" value="3"' in body and 'value="py"' in body  # kept
    assert 'placeholder="e.g. python3 bot.py"' in body and "Command (required" in body
    nothing = upload(client, name="solo")
    assert nothing.status_code == 400 and "Choose the" not in nothing.get_data(as_text=True)


def test_a_bot_page_tells_validated_from_trusted_and_shows_a_missing_version(client, db, site):
    with db.session() as s:
        judged = add_bot_version(
            s, site.runtime.blobs, b"j", {"name": "judged", "version": "1"}, "valid"
        )
        s.add(BotLog(match_id=None, bot_version_id=judged.id, text="== validation ==\n"))
        trusted = add_bot_version(
            s, site.runtime.blobs, b"t", {"name": "trusted", "version": "1"}, "valid"
        )
        bare = add_bot_version(s, site.runtime.blobs, b"b", {"name": "bare"}, "valid")
        ids = {"judged": judged.bot_id, "trusted": trusted.bot_id, "bare": bare.bot_id}
        assert bare.version == "0"  # what the store keeps for a bot.toml without one
    assert 'data-field="status">valid</span>' in text(client, f"/bots/{ids['judged']}")
    page = text(client, f"/bots/{ids['trusted']}")
    assert ">not validated</span>" in page and 'data-field="status">valid<' not in page
    bare_page = text(client, f"/bots/{ids['bare']}")
    assert 'stored as 0">—</span>' in bare_page
    listed = text(client, "/bots/")
    row = re.findall(rf'<tr><td><a href="/bots/{ids["trusted"]}">.*?</tr>', listed, re.S)[0]
    assert "not validated" in row and "status valid" not in row
    api = client.get(f"/api/v1/bots/{ids['trusted']}").get_json()
    assert api["versions"][0]["trusted"] is True and api["versions"][0]["status"] == "valid"


def test_a_bot_page_names_its_tournaments_and_links_its_fault_matches(client, site):
    page = text(client, f"/bots/{site.bots['beta']}")
    history = page[page.index("<h2>Rating history</h2>") : page.index("<h2>Head to head</h2>")]
    assert (
        f'<a href="/tournaments/{site.tournament}">#{site.tournament} cup &lt;i&gt;</a>' in history
    )
    assert "<time datetime=" in history
    faults = page[page.index("<h2>Faults</h2>") : page.index("<h2>Recent matches</h2>")]
    assert "<b>2</b> malformed in 1 match:" in faults
    assert f'<a href="/matches/{site.faulty}">#{site.faulty}</a>' in faults
    assert f'href="/matches/?bot={site.bots["beta"]}&amp;faults=yes"' in faults
