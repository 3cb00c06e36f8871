"""GET /api/v1/export on the dashboard's played site (and one more tournament, where a bot
of its own plays): the finished matches streamed as JSON lines, as openapi.json describes
them, filtered by names; a bot's decisions; the stored logs of a bot for its owner and
organisers only; bad input answered 400 or 404 with the reason."""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import insert, select, update

from arena.ladders.entrants import ensure_ladder
from arena.readmodels.decision import export_decision
from arena.store import BotLog, BotVersion, Match, add_bot_version, create_tournament, issue_token
from arena.store.models import User
from arena.tournaments.run import run_match
from arena.tournaments.spec import TournamentSpec
from dashboard.api import SPEC
from tests.cli.test_export import keys, without_seeds
from tests.dashboard.conftest import BOTS, RULES, Site
from tests.dashboard.test_api import check
from tests.dashboard.test_permissions import SECRET, owned  # noqa: F401 (a fixture)

MATCH_ROW = {"$ref": "#/components/schemas/ExportMatch"}
DECISION_ROW = {"$ref": "#/components/schemas/ExportDecision"}


def rows(client, query: str = "", **headers: str) -> list[dict[str, Any]]:
    reply = client.get(f"/api/v1/export{query}", headers=headers)
    assert reply.status_code == 200, reply.get_data(as_text=True)
    assert reply.is_streamed and reply.mimetype == "application/x-ndjson"
    found = [json.loads(line) for line in reply.get_data(as_text=True).splitlines()]
    schema = DECISION_ROW if "decisions=1" in query else MATCH_ROW
    for row in found:
        check(row, schema)
    return found


def matches(client, query: str = "") -> list[int]:
    return [row["match"] for row in rows(client, query)]


@pytest.fixture
def delta_cup(db, site: Site) -> int:
    """A second tournament, finished: delta (a bot of its own) with alpha, beta and gamma."""
    with db.session() as s:
        manifest = {"name": "delta", "version": "2", "house": "random"}
        delta = add_bot_version(s, site.runtime.blobs, b"delta", manifest, "valid")
        query = select(BotVersion).where(BotVersion.bot_id.in_(site.bots.values()))
        others = [v for v in s.scalars(query.order_by(BotVersion.id)) if v.bot.name != "beta"]
        spec = TournamentSpec(name="delta cup", rules=RULES, games_per_match=2, seed=3)
        cup = create_tournament(s, spec.columns(), [delta, *others[:3]], [(0, (0, 1, 2, 3), 9)])
        [match] = s.scalars(select(Match.id).where(Match.tournament_id == cup.id))
    assert run_match(db, site.runtime, match, "test") == "done"
    return match


def test_every_finished_match_streams_as_its_public_record_without_seeds(client, site):
    found = rows(client)
    assert [row["match"] for row in found] == [*site.done, site.faulty]  # not running, pending
    for row in found:
        replay = client.get(f"/api/v1/matches/{row['match']}/replay").get_json()
        assert "seed" not in set(keys(row)) and "logs" not in row
        assert row["games"] == without_seeds(replay)["games"]
        assert row["tournament"] == site.tournament and row["tournament_name"] == "cup <i>"
        assert row["ladder"] is None and row["seats"] == [name for name, _ in BOTS]
    faulty = found[-1]
    assert [fault["kind"] for fault in faulty["faults"]] == ["malformed", "malformed"]
    assert {fault["entrant"] for fault in faulty["faults"]} == {1}


def test_filters_take_names_and_combine(client, db, site, delta_cup):
    everything = [*site.done, site.faulty, delta_cup]
    assert matches(client) == everything
    assert matches(client, "?bot=delta") == matches(client, "?bot=delta@2") == [delta_cup]
    assert matches(client, "?bot=beta") == [*site.done, site.faulty]
    assert matches(client, "?bot=alpha") == everything
    assert matches(client, f"?bot=alpha&tournament={site.tournament}") == everything[:-1]
    assert matches(client, f"?bot=delta&tournament={site.tournament}") == []
    ensure_ladder(db)  # the pagat ladder, which has played nothing here
    assert matches(client, "?ladder=pagat") == []
    with db.session() as s:  # the first match finished long ago
        s.execute(update(Match).where(Match.id == site.done[0]).values(finished_at=_old()))
    assert matches(client, "?since=2021-01-01") == everything[1:]
    assert matches(client, "?since=2020-06-01T11:00%2B02:00") == everything  # 09:00 UTC
    assert matches(client, "?since=2020-06-01T10:00") == everything[1:]


def _old():
    from datetime import UTC, datetime

    return datetime(2020, 6, 1, 9, 30, tzinfo=UTC)


def test_decision_rows_are_the_bots_own_and_match_the_decision_export(client, site):
    found = rows(client, "?bot=beta&decisions=1")
    assert {row["bot"] for row in found} == {"beta"}
    assert sorted({row["match"] for row in found}) == [*site.done, site.faulty]
    for row in found:
        assert row["action"] in row["legal"]
    faulted = [row for row in found if row["fault"]]
    assert [(row["match"], row["fault"]) for row in faulted] == [(site.faulty, "malformed")] * 2
    records = {m: client.get(f"/api/v1/matches/{m}/replay").get_json() for m in site.done}
    for row in found[:40]:  # the export of the same decision holds the same observation
        if row["match"] not in records:
            continue
        sent = export_decision(records[row["match"]], row["game"], row["decision"])["request"]
        assert sent["observation"]["hand"] == row["observation"]["hand"]
        assert sorted(sent.get("legal_cards", [])) == sorted(
            [] if row["kind"] == "call" else row["legal"]
        )
        record = records[row["match"]]
        deal = record["games"][row["game"]]["deals"][row["deal"]]
        assert row["points"] == deal["points"][row["seat"]]


def test_a_bots_logs_go_to_its_owner_and_organisers_only(client, db, site, owned):  # noqa: F811
    with db.session() as s:
        version = s.scalar(select(BotVersion.id).where(BotVersion.bot_id == site.bots["beta"]))
        s.execute(insert(BotLog).values(match_id=site.done[0], bot_version_id=version, text="b"))
        tokens = {
            user.name: issue_token(s, user)
            for user in s.scalars(select(User).where(User.name.in_(["alice", "bob", "root"])))
        }
    seen = {}
    for who in (None, "bob", "alice", "root"):
        headers = {} if who is None else {"Authorization": f"Bearer {tokens[who]}"}
        found = rows(client, **headers)
        seen[who] = {row["match"]: row.get("logs") for row in found}
        assert (SECRET in json.dumps(found)) == (who in ("alice", "root")), who
        assert SECRET not in json.dumps([row["faults"] for row in found])  # reasons: public
    first = site.done[0]
    assert seen[None] == seen["bob"] == dict.fromkeys([*site.done, site.faulty])
    assert seen["alice"][first] == {"alpha": SECRET}  # hers, not beta's (the operator's)
    assert seen["root"][first] == {"alpha": SECRET, "beta": "b"}
    assert seen["alice"][site.done[1]] is None
    bad = client.get("/api/v1/export", headers={"Authorization": "Bearer nope"})
    assert bad.status_code == 401 and "not valid" in bad.get_json()["error"]


@pytest.mark.parametrize(
    "query, status, message",
    [
        ("?bot=nope", 404, "no bot named 'nope'"),
        ("?bot=alpha@9", 404, "bot 'alpha' has no version '9'"),
        ("?ladder=nope", 404, "no ladder named 'nope'"),
        ("?tournament=99999", 404, "no tournament with id 99999"),
        ("?tournament=x", 400, "tournament must be a whole number"),
        ("?since=yesterday", 400, "since must be a date (YYYY-MM-DD) or an ISO time"),
        ("?decisions=1", 400, "decisions are exported for one bot"),
        ("?bot=alpha&decisions=yes", 400, "decisions must be 1 or 0, not 'yes'"),
    ],
)
def test_bad_input_is_answered_with_the_reason(client, site, query, status, message):
    reply = client.get(f"/api/v1/export{query}")
    assert reply.status_code == status and message in reply.get_json()["error"]
    assert str(status) in SPEC["paths"]["/api/v1/export"]["get"]["responses"]
