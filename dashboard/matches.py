"""Match list, match page with the replay viewer, and the replay and decision downloads."""

from __future__ import annotations

import json

from flask import Blueprint, Response, abort, render_template, request

from arena.views.bots import bot_choices
from arena.views.decision import export_decision
from arena.views.matches import match_detail, match_list, public_record, public_record_json
from arena.views.tournaments import tournament_choices
from dashboard.db import session
from dashboard.format import json_in_script
from dashboard.params import match_filter

matches = Blueprint("matches", __name__, url_prefix="/matches")


@matches.get("/")
def index():
    s = session()
    page = match_list(s, match_filter(request.args))
    return render_template(
        "matches.html", page=page, tournaments=tournament_choices(s), bots=bot_choices(s)
    )


@matches.get("/<int:match_id>")
def show(match_id: int):
    s = session()
    detail = match_detail(s, match_id)
    record = public_record_json(s, match_id, live=True)  # running: its finished deals only
    page_record = "null" if record is None else json_in_script(record)
    return render_template("match.html", match=detail, record=page_record)


@matches.get("/<int:match_id>/replay.json")
def replay_file(match_id: int):
    return download(shown_record(match_id), f"match-{match_id}.json")


@matches.get("/<int:match_id>/decisions/<int:game>/<int:decision>.json")
def decision_file(match_id: int, game: int, decision: int):
    exported = export_decision(finished_record(match_id), game, decision)
    return download(exported, f"match-{match_id}-game-{game}-decision-{decision}.json")


def shown_record(match_id: int) -> dict:
    """A finished match's record, or a running one's finished deals; 409 when there is
    nothing to show yet."""
    record = public_record(session(), match_id, live=True)
    if record is None:
        abort(409, f"match {match_id} has no finished deal to show yet")
    return record


def finished_record(match_id: int) -> dict:
    """The record of a finished match; 409 while it is not finished. Decisions are only
    exported from these: rebuilding a request needs the seed, kept secret while it runs."""
    record = public_record(session(), match_id)
    if record is None:
        abort(409, f"match {match_id} is not finished: its decisions are not public yet")
    return record


def download(data: dict, filename: str) -> Response:
    return Response(
        json.dumps(data, indent=1),
        mimetype="application/json",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )
