"""The analyses API: only the owner of an entrant's bot and organisers may ask (anybody
else gets what the logs API gives them: 404), within the hour's quota (429 with
Retry-After; organisers without one), of a finished match; the list and the analysis show
its status, progress and, once done, every verdict, as openapi.json documents; and without
a broker the analysis is worked out by a process of its own."""

from __future__ import annotations

from pathlib import Path

import pytest
from flask.testing import FlaskClient

from arena.analysis import DEFAULT_SAMPLES, Analysis, analyse
from arena.analysis_runs import run
from arena.config import Settings
from arena.runtime import Runtime
from arena.store import BlobStore, Database, Match, issue_token, load_replay
from dashboard import create_app
from dashboard.api import SPEC
from tests.analysis_runs.site import Played, played_match
from tests.dashboard.test_api import check
from tests.services.test_executor import wait_for


@pytest.fixture
def played(db: Database, tmp_path: Path) -> Played:
    return played_match(db, BlobStore(tmp_path / "blobs"))


@pytest.fixture
def tokens(db: Database, played: Played) -> dict[str, dict[str, str]]:
    with db.session() as s:
        made = {name: issue_token(s, user) for name, user in played.users.items()}
    return {name: {"Authorization": f"Bearer {token}"} for name, token in made.items()}


def app_client(db: Database, tmp_path: Path, **settings) -> FlaskClient:
    url = db.url.render_as_string(hide_password=False)
    runtime = Runtime(Settings(url, tmp_path / "d", "", **settings))
    return create_app(db, runtime, TESTING=True).test_client()


@pytest.fixture
def sent(client: FlaskClient) -> list[int]:
    """The analyses the app hands to its workers (none is worked out)."""
    handed: list[int] = []
    client.application.extensions["arena_analyses"] = handed.append
    return handed


@pytest.fixture
def client(db: Database, tmp_path: Path, played: Played) -> FlaskClient:
    return app_client(db, tmp_path, analyses_per_hour=2)


def ask(client: FlaskClient, match_id: int, headers: dict | None = None, **body):
    return client.post(f"/api/v1/matches/{match_id}/analyses", json=body, headers=headers)


def schema(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def test_owners_and_organisers_may_ask_others_get_the_logs_answer(client, db, played, tokens, sent):
    m = played.match_id
    assert ask(client, m, entrant=0).status_code == 401
    with db.session(read_only=True) as s:
        alices = s.get_one(Match, m).seats[0]  # entrant 0's bot version
    logs = client.get(f"/api/v1/versions/{alices}/log", headers=tokens["bob"])
    not_his = ask(client, m, tokens["bob"], entrant=0)
    assert not_his.status_code == logs.status_code == 404
    assert ask(client, m, tokens["alice"], entrant=2).status_code == 404  # a house bot
    nowhere = ask(client, m, tokens["alice"], entrant=9)
    assert nowhere.get_json()["error"].replace("9", "0") == not_his.get_json()["error"]
    assert sent == []

    mine = ask(client, m, tokens["alice"], entrant=0, samples=64)
    assert mine.status_code == 202
    body = mine.get_json()
    check(body, schema("AnalysisListed"))
    assert (body["entrant"], body["samples"], body["status"]) == (0, 64, "queued")
    assert mine.headers["Location"].endswith(f"/api/v1/analyses/{body['id']}")
    house = ask(client, m, tokens["carol"], entrant=2)
    assert house.status_code == 202 and house.get_json()["samples"] == DEFAULT_SAMPLES
    documented = SPEC["components"]["schemas"]["AnalysisRequest"]["properties"]["samples"]
    assert f"(default {DEFAULT_SAMPLES})" in documented["description"]
    assert sent == [body["id"], house.get_json()["id"]]


def test_what_is_refused_before_the_quota(client, played, tokens, sent):
    alice = tokens["alice"]
    assert ask(client, played.pending_id, alice, entrant=0).status_code == 409
    assert ask(client, 99999, alice, entrant=0).status_code == 404
    for body in ({"entrant": "0"}, {"entrant": 0, "samples": 100}, {"samples": 64}):
        reply = ask(client, played.match_id, alice, **body)
        assert reply.status_code == 400, body
        check(reply.get_json(), schema("Error"))
    not_json = client.post(
        f"/api/v1/matches/{played.match_id}/analyses", data="entrant=0", headers=alice
    )
    assert not_json.status_code == 400
    assert sent == []


def test_the_hours_quota_answers_429_with_retry_after(client, played, tokens, sent):
    m, alice = played.match_id, tokens["alice"]
    assert [ask(client, m, alice, entrant=0, samples=n).status_code for n in (64, 96)] == [
        202,
        202,
    ]
    over = ask(client, m, alice, entrant=0, samples=128)
    assert over.status_code == 429
    check(over.get_json(), schema("Error"))
    assert "2 analyses per hour is the limit" in over.get_json()["error"]
    assert 3500 < int(over.headers["Retry-After"]) <= 3600
    assert ask(client, m, alice, entrant=0, samples=64).status_code == 202  # hers: no cost
    organiser = [ask(client, m, tokens["carol"], entrant=0, samples=n) for n in (128, 160, 192)]
    assert [reply.status_code for reply in organiser] == [202] * 3
    assert len(sent) == 5


def test_the_list_and_the_analysis_follow_it_to_its_verdicts(client, db, played, tokens, sent):
    m = played.match_id
    asked = ask(client, m, tokens["bob"], entrant=1, samples=64).get_json()
    listed = client.get(f"/api/v1/matches/{m}/analyses").get_json()
    check(listed, {"type": "array", "items": schema("AnalysisListed")})
    assert [(a["id"], a["status"], a["summary"]) for a in listed] == [(asked["id"], "queued", None)]
    waiting = client.get(f"/api/v1/analyses/{asked['id']}").get_json()
    assert (waiting["status"], waiting["result"]) == ("queued", None)

    assert run(db, asked["id"], "test") == "done"
    detail = client.get(f"/api/v1/analyses/{asked['id']}").get_json()
    check(detail, schema("AnalysisDetail"))
    with db.session(read_only=True) as s:
        expected = analyse(load_replay(s, m), 1, 64, 0)
    assert Analysis.from_dict(detail["result"]) == expected
    total = len(expected.verdicts)
    assert detail["progress"] == {"done": total, "total": total}
    assert detail["summary"]["labels"] == expected.summary()["labels"]
    [done] = client.get(f"/api/v1/matches/{m}/analyses").get_json()
    assert done["summary"] == detail["summary"] and done["status"] == "done"
    again = ask(client, m, tokens["bob"], entrant=1, samples=64)
    assert again.status_code == 200 and again.get_json()["id"] == asked["id"]
    assert sent == [asked["id"]]
    assert client.get("/api/v1/analyses/99999").status_code == 404
    assert client.get("/api/v1/matches/99999/analyses").status_code == 404
    assert "AnalysisDetail" in str(SPEC["paths"]["/api/v1/analyses/{analysis_id}"])


def test_without_a_broker_a_process_of_its_own_works_it_out(db, tmp_path, played, tokens):
    client = app_client(db, tmp_path)  # no ARENA_BROKER_URL: the embedded backend
    asked = ask(client, played.match_id, tokens["alice"], entrant=0, samples=64).get_json()
    where = f"/api/v1/analyses/{asked['id']}"
    log = tmp_path / "d" / "logs" / "runs" / f"analysis-{asked['id']}.log"

    def done() -> bool:
        return client.get(where).get_json()["status"] in ("done", "failed")

    wait_for(done, 240, "the analysis worked out", lambda: log.read_text(errors="replace"))
    detail = client.get(where).get_json()
    assert detail["status"] == "done", detail
    assert detail["summary"]["decisions"] > 0
    assert f"analysis {asked['id']}: done" in log.read_text()
