"""The JSON API under /api/v1/, described by openapi.json beside this module: read-only
views for everybody, bot uploads and match analyses with an API token, and an organiser's
ladder switches."""

from __future__ import annotations

import json
from dataclasses import asdict
from functools import partial
from pathlib import Path

from flask import Blueprint, Response, abort, jsonify, render_template, request, url_for
from werkzeug.http import parse_options_header

from arena import analysis_runs
from arena.analysis import DEFAULT_SAMPLES
from arena.analysis_runs import AnalysisRefused
from arena.ladders.entrants import change_ladder
from arena.players.player import public_reason
from arena.readmodels import export as exported
from arena.readmodels.analyses import analysis_detail, listed, match_analyses
from arena.readmodels.bots import bot_list, bot_page
from arena.readmodels.comparisons import seat_notice
from arena.readmodels.ladder import ladder_names, ladder_notice, ladder_view
from arena.readmodels.leaderboard import leaderboard as board_of
from arena.readmodels.matches import match_detail, match_list
from arena.readmodels.tournaments import (
    standings_table,
    tournament_list,
    tournament_page,
    tournament_summary,
)
from arena.store import BotVersion, users
from arena.store.models import as_utc, utcnow
from arena.submissions import SubmissionError, set_retired, submission_status, version_log
from arena.tournaments.cache import CACHE
from dashboard.analysis_jobs import analysis_dispatch
from dashboard.api_docs import groups, prose, ref_name
from dashboard.db import session
from dashboard.matches import (
    analysable,
    decision_moved,
    exported_decision,
    readable,
    record_or_409,
)
from dashboard.params import match_filter, scope, whole
from dashboard.submitting import cap_request, database, runtime, submit
from dashboard.tokens import bearer_token, bearer_user

api = Blueprint("api", __name__, url_prefix="/api/v1")
SPEC = json.loads((Path(__file__).parent / "openapi.json").read_text())


@api.get("/openapi.json")
def openapi():
    return jsonify(SPEC)


@api.get("/docs")
def docs():
    """The document above as a page to read (``dashboard.api_docs``)."""
    return render_template(
        "api_docs.html", spec=SPEC, groups=groups(SPEC), prose=prose, ref_name=ref_name
    )


@api.get("/leaderboard")
def leaderboard():
    s = session()
    return jsonify(asdict(board_of(s, scope(s, request.args))))


@api.get("/ladders")
def ladders():
    s = session()
    return jsonify([ladder_view(s, name).summary() for name in ladder_names(s)])


@api.get("/ladders/<name>")
def ladder(name: str):
    return jsonify(ladder_view(session(), name).as_dict())


@api.post("/ladders/<name>/pause")
def pause_ladder(name: str):
    """Schedule no new matches (those under way finish): organisers only."""
    return _paused(name, True)


@api.post("/ladders/<name>/resume")
def resume_ladder(name: str):
    return _paused(name, False)


def _paused(name: str, paused: bool):
    if not bearer_user().admin:
        abort(403, "only organisers may do this")
    change_ladder(database(), name, paused=paused)  # an unknown ladder is a 404
    return jsonify({"name": name, "paused": paused})


@api.get("/tournaments")
def tournaments():
    return jsonify([t.as_dict() for t in tournament_list(session())])


@api.get("/tournaments/<int:tournament_id>")
def tournament(tournament_id: int):
    """Small and cheap: the tournament page polls it for live progress."""
    return jsonify(tournament_summary(session(), tournament_id).as_dict())


@api.get("/tournaments/<int:tournament_id>/standings")
def standings(tournament_id: int):
    s = session()
    page = tournament_page(s, tournament_id)
    tables = CACHE.get(s, "api:standings", tournament_id, lambda: _tables(s, tournament_id))
    return jsonify({"tournament": page.summary.as_dict(), **tables, "history": page.history})


def _tables(s, tournament_id: int) -> dict:
    """Standings and head-to-head as JSON data, kept until the next result (2,500 cells)."""
    table = standings_table(s, tournament_id)
    return {
        "model": table.board.model,
        "scale": table.board.scale,
        "rows": [asdict(row) for row in table.board.rows],
        "head_to_head": {
            "bots": [row.bot_version_id for row in table.board.rows],
            "cells": [[c and asdict(c) for c in line] for line in table.matrix],
        },
    }


@api.get("/bots")
def bots():
    return jsonify([asdict(b) for b in bot_list(session())])


@api.get("/bots/<int:bot_id>")
def bot(bot_id: int):
    return jsonify(asdict(bot_page(session(), bot_id)))


@api.get("/matches")
def matches():
    page = match_list(session(), match_filter(request.args))
    return jsonify(
        {
            "total": page.total,
            "page": page.page,
            "pages": page.pages,
            "matches": [asdict(row) for row in page.rows],
        }
    )


@api.get("/matches/<int:match_id>")
def match(match_id: int):
    """Small and cheap: a running match's page polls it (``live.deals``) for new deals."""
    readable(match_id)
    detail = match_detail(session(), match_id)
    live = detail.live and asdict(detail.live)
    return jsonify({"match": asdict(detail.row), "faults": detail.faults, "live": live})


@api.get("/matches/<int:match_id>/replay")
def replay(match_id: int):
    return jsonify(record_or_409(match_id))


@api.get("/matches/<int:match_id>/games/<int:game>/decisions/<int:decision>")
def decision(match_id: int, game: int, decision: int):
    return jsonify(exported_decision(match_id, game, decision))


@api.get("/matches/<int:match_id>/decisions/<int:index>/<int:decision>")
def old_decision(match_id: int, index: int, decision: int):
    return decision_moved("api.decision", match_id, index, decision)


@api.get("/export")
def export():
    """Finished matches as JSON lines, streamed (``arena.readmodels.export``); with a token,
    the rows carry the logs of the reader's own bots (an organiser's: every bot's)."""
    user = bearer_user() if bearer_token() is not None else None
    chosen = exported.plan(session(), _export_query())  # unknown names: 404, bad values: 400
    logs = exported.no_logs if user is None else partial(users.may_see_logs, user)
    return Response(exported.lines(database(), chosen, logs), mimetype="application/x-ndjson")


def _export_query() -> exported.ExportQuery:
    args = request.args
    decisions, since = args.get("decisions", "").strip(), args.get("since", "").strip()
    if decisions not in ("", "0", "1"):
        raise ValueError(f"decisions must be 1 or 0, not {decisions!r}")
    return exported.ExportQuery(
        bot=args.get("bot", "").strip() or None,
        ladder=args.get("ladder", "").strip() or None,
        tournament=whole(args, "tournament"),
        since=exported.parse_since(since) if since else None,
        decisions=decisions == "1",
    )


@api.post("/bots/<name>/versions")
def submit_bot_version(name: str):
    """Upload a new version of ``name`` (a zip: the form field ``file`` or the raw body)."""
    user = bearer_user()
    upload, filename = _uploaded_zip(name)
    started = utcnow()
    version_id = submit(user.id, upload, filename=filename, name=name)
    status = submission_status(database(), version_id)
    where = url_for("api.version_status", version_id=version_id, _external=True)
    with database().session(read_only=True) as s:  # the request's session predates the upload
        ladder = ladder_notice(s, version_id)
        before = as_utc(s.get_one(BotVersion, version_id).created_at) < started
        seat = seat_notice(s, version_id, stored_before=before)
    body = {
        "id": version_id,
        "status": status.status,
        "status_url": where,
        "ladder": ladder,
        "seat": seat,
    }
    return jsonify(body), 201, {"Location": where}


@api.post("/bots/<name>/retire")
def retire_bot(name: str):
    """Enter the bot in no new tournament (its owner or an organiser)."""
    return _retired(name, True)


@api.post("/bots/<name>/restore")
def restore_bot(name: str):
    return _retired(name, False)


def _retired(name: str, retired: bool):
    since = set_retired(database(), name, retired, bearer_user())
    return jsonify({"name": name, "retired": since and since.isoformat(timespec="seconds")})


def _uploaded_zip(name: str):
    """The upload's stream and file name; too long a body is refused before it is read."""
    _, options = parse_options_header(request.headers.get("Content-Disposition", ""))
    filename = options.get("filename") or f"{name}.zip"
    cap_request(filename)
    if request.mimetype == "multipart/form-data":
        file = request.files.get("file")
        if file is None:
            raise SubmissionError("send the zip in the form field 'file'")
        return file.stream, file.filename or filename
    return request.stream, filename


@api.get("/versions/<int:version_id>")
def version_status(version_id: int):
    """The verdict on an uploaded version: pending, valid, or rejected with the reason."""
    status = submission_status(database(), version_id)
    body = {
        "id": status.version_id,
        "bot": status.bot,
        "version": status.version,
        "status": status.status,
        "reason": public_reason(status.reason),
        "has_log": status.has_log,
        "has_build_log": status.has_build_log,
    }
    return jsonify(body)


@api.get("/versions/<int:version_id>/log")
def version_log_text(version_id: int):
    """What the version wrote in its validation match, and what its build printed: its owner
    and organisers only."""
    user = bearer_user()
    log, build_log = version_log(database(), version_id, user.id, admin=user.admin)
    return jsonify({"id": version_id, "log": log, "build_log": build_log})


@api.route("/matches/<int:match_id>/analyses", methods=["GET", "POST"])
def analyses(match_id: int):
    """The match's analyses; a POST asks for one. One rule for both methods: werkzeug
    answers 405, not 404, for an id beyond range on a path two rules share."""
    if request.method == "POST":
        return _request_analysis(match_id)
    readable(match_id)
    return jsonify(match_analyses(session(), match_id))


def _request_analysis(match_id: int):
    """Have the master judge an entrant's decisions (its bot's owner or an organiser)."""
    user = bearer_user()
    analysable(match_id)  # an unknown match is a 404 whatever the body
    entrant, samples = _analysis_asked(request.get_json(silent=True))
    settings = runtime().settings
    row = analysis_runs.request(
        database(),
        match_id,
        entrant,
        samples,
        user,
        dispatch=analysis_dispatch(),
        per_hour=settings.analyses_per_hour,
        lease_s=settings.lease_s,
    )
    where = url_for("api.analysis", analysis_id=row.id, _external=True)
    status = 200 if row.status == "done" else 202
    return jsonify(listed(row)), status, {"Location": where}


def _analysis_asked(body: object) -> tuple[int, int]:
    """The entrant and samples of a request's JSON body."""
    if not isinstance(body, dict):
        raise AnalysisRefused('send a JSON object: {"entrant": 0, "samples": 512}')
    asked = {"entrant": body.get("entrant"), "samples": body.get("samples", DEFAULT_SAMPLES)}
    for name, value in asked.items():
        if type(value) is not int:
            raise AnalysisRefused(f"{name} must be a whole number, not {json.dumps(value)}")
    return asked["entrant"], asked["samples"]


@api.errorhandler(AnalysisRefused)
def analysis_refused(exc: AnalysisRefused):
    headers = {} if exc.retry_after is None else {"Retry-After": str(exc.retry_after)}
    return jsonify({"error": str(exc)}), exc.status, headers


@api.get("/analyses/<int:analysis_id>")
def analysis(analysis_id: int):
    """Its status and progress; every verdict once done."""
    return jsonify(analysis_detail(session(), analysis_id))
