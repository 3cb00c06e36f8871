"""The JSON API answers every route of its OpenAPI document as documented, and standings
are fitted once per results version, never per request."""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import func, select

from arena.analysis_runs import request, run
from arena.ladders.entrants import ensure_ladder
from arena.store import BotVersion, claim_match, record_result
from arena.tournaments.run import match_spec
from dashboard.api import SPEC

TYPES = {
    "object": dict,
    "array": list,
    "string": str,
    "integer": int,
    "number": (int, float),
    "boolean": bool,
    "null": type(None),
}


def check(value: Any, schema: dict, where: str = "$") -> None:
    """The subset of JSON Schema the document uses: $ref, type, enum, required, properties,
    items."""
    if "$ref" in schema:
        schema = SPEC["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    types = schema.get("type")
    if types is not None:
        names = types if isinstance(types, list) else [types]
        ok = any(isinstance(value, TYPES[n]) for n in names)
        ok = ok and not (isinstance(value, bool) and "boolean" not in names)
        assert ok, f"{where}: {value!r} is not {types}"
    if "enum" in schema:
        assert value in schema["enum"], f"{where}: {value!r} not in {schema['enum']}"
    if isinstance(value, dict):
        for key in schema.get("required", []):
            assert key in value, f"{where}: missing {key}"
        for key, sub in schema.get("properties", {}).items():
            if key in value:
                check(value[key], sub, f"{where}.{key}")
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            check(item, schema["items"], f"{where}[{i}]")


def url_for(path: str, op: dict, ids: dict[str, int | str]) -> str:
    params = [p for p in op.get("parameters", []) if p["in"] == "path"]
    examples = {p["name"]: ids.get(p["name"], p["example"]) for p in params}
    return re.sub(r"\{(\w+)\}", lambda m: str(examples[m[1]]), path)


def schema_of(op: dict, status: str) -> dict:
    return op["responses"][status]["content"]["application/json"]["schema"]


def test_every_documented_route_answers_as_documented(client, site, db):
    ensure_ladder(db)  # as `arena db upgrade` does: the pagat ladder, empty here
    fault = client.get(f"/api/v1/matches/{site.faulty}").get_json()["faults"][0]
    game = {"game": fault["game"] + 1, "index": fault["game"]}  # a fault's game is an index
    ids: dict[str, int | str] = game | {"decision": fault["decision"]}
    ids |= {"match_id": site.faulty, "tournament_id": site.tournament, "bot_id": site.bots["alpha"]}
    with db.session(read_only=True) as s:
        ids["version_id"] = s.scalar(select(func.min(BotVersion.id)))
    analysed = request(db, site.faulty, 1, 64)  # the entrant with faults: referee's moves too
    assert run(db, analysed.id, "test") == "done"
    ids["analysis_id"] = analysed.id
    for path, item in SPEC["paths"].items():
        op = item.get("get")
        if op is None or "security" in op:  # uploads and token routes: tests/submissions
            continue
        reply = client.get(url_for(path, op, ids))
        if "308" in op["responses"]:  # a former path: sent on to one documented here
            moved = reply.headers["Location"].removeprefix("http://localhost")
            assert reply.status_code == 308 and client.get(moved).status_code == 200, path
            assert client.get(url_for(path, op, {"match_id": 99999})).status_code == 404
            continue
        assert reply.status_code == 200, path
        if "application/json" not in op["responses"]["200"]["content"]:  # the docs page
            assert reply.mimetype in op["responses"]["200"]["content"], path
            continue
        check(reply.get_json(), schema_of(op, "200"), path)
        errors = {
            "404": url_for(path, op, {k: 99999 for k in ids} | {"name": "nowhere"})
            + "?tournament=99999",
            "409": url_for(path, op, ids | {"match_id": site.running}),
            "400": f"{path}?tournament=x&faults=maybe",
        }
        for status in set(op["responses"]) - {"200"}:
            reply = client.get(errors[status])
            assert reply.status_code == int(status), (path, status)
            check(reply.get_json(), schema_of(op, status), f"{path} {status}")


def test_every_api_route_is_documented(client):
    routes = {
        re.sub(r"<(?:int:)?(\w+)>", r"{\1}", rule.rule)
        for rule in client.application.url_map.iter_rules()
        if rule.rule.startswith("/api/")
    }
    assert routes == set(SPEC["paths"])


def test_standings_are_fitted_once_per_results_version(client, site, db, monkeypatch):
    import arena.tournaments.standings as board  # where the cached fit calls rank

    fits = []
    real = board.rank
    monkeypatch.setattr(
        board, "rank", lambda s, rows, *model: fits.append(1) or real(s, rows, *model)
    )
    for _ in range(3):
        assert client.get(f"/leaderboard?tournament={site.tournament}").status_code == 200
        assert client.get(f"/api/v1/tournaments/{site.tournament}/standings").status_code == 200
    assert len(fits) == 1
    _finish(db, site.pending)
    body = client.get("/api/v1/leaderboard").get_json()
    assert len(fits) == 2
    assert sum(row["games"] for row in body["rows"]) == 4 * 2 * 4  # 4 matches of 2 games


def _finish(db, match_id: int) -> None:
    from arena.bots.factory import house_player
    from arena.referee import play_match

    spec, _ = match_spec(db, match_id)
    result = play_match(spec, [house_player("random", i) for i in range(4)])
    with db.session() as s:
        record_result(s, claim_match(s, match_id, "test"), result, 0.1)
