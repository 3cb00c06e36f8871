"""What one contestant must not do to another, tried for real: read
another's bot logs (404, exactly as for a log that does not exist), find them on any other
page or API route (the last log line quoted in a fault or verdict reason included), or act
as an organiser (403)."""

from __future__ import annotations

import pytest
from sqlalchemy import insert, select, update

from arena.players.player import LOG_LINE
from arena.store import (
    Bot,
    BotLog,
    BotVersion,
    Match,
    MatchFault,
    Tournament,
    User,
    issue_token,
    load_replay,
)
from arena.store.models import Replay, TournamentRun
from arena.store.results import compress_replay
from tests.dashboard.users import csrf_of, log_in, make_user, post_form

SECRET = "alpha-private-log-line-9f3e"
VALIDATION_SECRET = "alpha-validation-log-line-77ab"


@pytest.fixture
def owned(db, site):
    """alice owns the bot alpha, which wrote SECRET in a finished match."""
    alice = make_user(db, "alice")
    make_user(db, "bob")
    make_user(db, "root", admin=True)
    bot_id = site.bots["alpha"]
    with db.session() as s:
        s.execute(update(Bot).where(Bot.id == bot_id).values(owner_id=alice.id))
        version = s.scalar(select(BotVersion.id).where(BotVersion.bot_id == bot_id))
        s.execute(insert(BotLog).values(match_id=site.done[0], bot_version_id=version, text=SECRET))
        s.execute(
            insert(BotLog).values(match_id=None, bot_version_id=version, text=VALIDATION_SECRET)
        )
        # the platform quotes a dying bot's last log line in the fault and verdict reasons
        died = f"exited during start-up; exit status 3{LOG_LINE}"
        s.execute(
            update(BotVersion)
            .where(BotVersion.id == version)
            .values(reason=died + VALIDATION_SECRET)
        )
        s.execute(
            insert(MatchFault).values(
                match_id=site.done[0], bot_version_id=version, kind="crash", reason=died + SECRET
            )
        )
        record = load_replay(s, site.done[0])
        record["faults"].append(
            {"entrant": 0, "kind": "crash", "reason": died + SECRET, "game": None, "deal": None}
        )
        replay = s.scalar(select(Replay).where(Replay.match_id == site.done[0]))
        replay.data = compress_replay(record)
    return bot_id


def _version_of(db, bot_id: int) -> int:
    with db.session(read_only=True) as s:
        return s.scalar(select(BotVersion.id).where(BotVersion.bot_id == bot_id))


def _log_urls(bot_id: int, match_id: int) -> list[str]:
    return [
        f"/bots/{bot_id}/logs/",
        f"/bots/{bot_id}/logs/1/matches/{match_id}",
        f"/bots/{bot_id}/logs/1/validation",
    ]


def test_only_the_owner_and_organisers_read_a_bots_logs(client, site, owned):
    urls = _log_urls(owned, site.done[0])
    for who in (None, "bob"):
        if who:
            log_in(client, who)
        missing = client.get(f"/bots/{owned}/logs/1/matches/{site.done[1]}")  # no such log
        assert missing.status_code == 404
        for url in urls:
            answer = client.get(url)
            assert answer.status_code == 404, (who, url)
            # the same answer as for a log that does not exist: nothing leaks
            assert answer.get_data() == missing.get_data()
        assert "Logs</a>" not in client.get(f"/bots/{owned}").get_data(as_text=True)
    for who in ("alice", "root"):
        post_form(client, "/logout", page="/account")
        log_in(client, who)
        assert SECRET in client.get(urls[1]).get_data(as_text=True)
        assert VALIDATION_SECRET in client.get(urls[2]).get_data(as_text=True)
        index = client.get(urls[0]).get_data(as_text=True)
        assert f"match {site.done[0]}" in index and "validation match" in index
    # a log is found under its own bot only: not through another bot's id
    other = site.bots["beta"]
    assert client.get(f"/bots/{other}/logs/1/matches/{site.done[0]}").status_code == 404


def test_the_api_gives_a_validation_log_to_its_owner_and_organisers_only(client, db, owned):
    url = f"/api/v1/versions/{_version_of(db, owned)}/log"
    tokens = {}
    for name in ("alice", "bob", "root"):
        with db.session() as s:
            tokens[name] = issue_token(s, s.scalar(select(User).where(User.name == name)))
    missing = client.get("/api/v1/versions/99999/log", headers=_bearer(tokens["bob"]))
    answer = client.get(url, headers=_bearer(tokens["bob"]))
    assert answer.status_code == missing.status_code == 404
    assert VALIDATION_SECRET not in answer.get_data(as_text=True)
    assert client.get(url).status_code == 401
    for name in ("alice", "root"):
        answer = client.get(url, headers=_bearer(tokens[name]))
        assert answer.status_code == 200 and answer.get_json()["log"] == VALIDATION_SECRET


def _bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def test_no_other_page_or_api_route_shows_a_bots_log(client, db, site, owned):
    log_in(client, "bob")
    values = {
        "version_id": _version_of(db, owned),
        "tournament_id": site.tournament,
        "bot_id": owned,
        "match_id": site.done[0],
        "game": 1,
        "index": 0,  # the 0-based paths kept for old links (they redirect)
        "decision": 0,
        "version": "1",
        "token_id": 1,
        "name": "pagat",
        "analysis_id": 1,
    }
    seen = 0
    for rule in client.application.url_map.iter_rules():
        if "GET" not in rule.methods or rule.endpoint == "static":
            continue
        url = rule.build({k: values[k] for k in rule.arguments})[1]
        body = client.get(url).get_data(as_text=True)
        assert SECRET not in body and VALIDATION_SECRET not in body, url
        seen += 1
    assert seen > 15


def test_a_non_organiser_cannot_create_start_or_stop_a_tournament(client, db, site, owned):
    with db.session(read_only=True) as s:
        before = (
            s.scalar(select(Tournament.status).where(Tournament.id == site.tournament)),
            len(s.scalars(select(Tournament.id)).all()),
        )
    t = site.tournament
    form = {"bots": ["house:random", "house:heuristic"], "games_per_match": "1", "deals": "1"}
    for url in (f"/tournaments/{t}/start", f"/tournaments/{t}/stop", "/tournaments/new"):
        # a visitor is sent to log in; a contestant is refused
        anonymous = post_form(client, url, form)
        assert anonymous.status_code == 302 and "/login" in anonymous.headers["Location"]
    log_in(client, "bob")
    assert client.get("/tournaments/new").status_code == 403
    for url in (f"/tournaments/{t}/start", f"/tournaments/{t}/stop", "/tournaments/new"):
        answer = post_form(client, url, form, page="/account")
        assert answer.status_code == 403 and "organisers" in answer.get_data(as_text=True)
    page = client.get(f"/tournaments/{t}").get_data(as_text=True)
    assert "/start" not in page and "/stop" not in page
    with db.session(read_only=True) as s:
        after = (
            s.scalar(select(Tournament.status).where(Tournament.id == site.tournament)),
            len(s.scalars(select(Tournament.id)).all()),
        )
        assert s.scalar(select(TournamentRun)) is None
        assert s.scalar(select(Match.status).where(Match.id == site.pending)) == "pending"
    assert after == before


def test_nobody_can_delete_or_rename_a_bot_over_the_web(client, db, owned):
    """There is no such operation (results refer to versions forever): every method on a
    bot's URL but GET is refused, for its owner too, and the bot is unchanged."""
    for who in ("bob", "alice"):
        log_in(client, who)
        for method in ("DELETE", "PUT", "PATCH", "POST"):
            token = csrf_of(client, "/account")
            answer = client.open(
                f"/bots/{owned}", method=method, data={"csrf_token": token, "name": "x"}
            )
            assert answer.status_code == 405, (who, method)
        post_form(client, "/logout", page="/account")
    with db.session(read_only=True) as s:
        assert s.get(Bot, owned).name == "alpha"
