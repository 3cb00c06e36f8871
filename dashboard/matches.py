"""Match list, match page with the replay viewer (or, until every rotation of its deals is
played, the scores so far) and a finished match's analyses, the replay and decision
downloads, and an owner's (or organiser's) request for an analysis. What a record shows is
decided in one place: ``arena.readmodels.records``; who may have an entrant analysed, and
how often, in ``arena.analysis_runs.request``. A version's validation match is its bot
owner's and the organisers': anybody else gets the 404 of an unknown match from every view
of it (``readable``), as from the log pages; those who may read it see where its first
fault is (``arena.readmodels.validations``), and no analysis of it is asked for."""

from __future__ import annotations

import json

from flask import Blueprint, Response, abort, flash, redirect, render_template, request, url_for
from werkzeug.wrappers import Response as Redirect

from arena import analysis_runs
from arena.analysis_runs import AnalysisRefused
from arena.readmodels.analyses import entrant_analyses, shown_results
from arena.readmodels.bots import bot_choices
from arena.readmodels.decision import export_decision
from arena.readmodels.ladder import ladder_choices
from arena.readmodels.matches import match_detail, match_list
from arena.readmodels.records import shown_record
from arena.readmodels.tournaments import tournament_choices
from arena.readmodels.validations import Validation, step_of, validation_of
from dashboard.analysis_jobs import analysis_dispatch
from dashboard.auth import login_required, may_see_logs, signed_in_user
from dashboard.db import database, session
from dashboard.format import json_in_script
from dashboard.params import match_filter
from dashboard.seatlogs import log_links
from dashboard.submitting import runtime

matches = Blueprint("matches", __name__, url_prefix="/matches")


@matches.get("/")
def index():
    s = session()
    page = match_list(s, match_filter(request.args))
    return render_template(
        "matches.html",
        page=page,
        ladders=ladder_choices(s),
        tournaments=tournament_choices(s),
        bots=bot_choices(s),
    )


def readable(match_id: int) -> Validation | None:
    """The validation the match is, if it is one its reader may see (None: any other
    match); the 404 of an unknown match for everybody else."""
    validation = validation_of(session(), match_id)
    if validation is not None and not may_see_logs(validation.owner_id):
        abort(404, f"no match with id {match_id}")
    return validation


def analysable(match_id: int) -> None:
    """A match whose entrants may be analysed: not a validation (no page lists it)."""
    if readable(match_id) is not None:
        abort(400, f"match {match_id} is a validation match: it is not analysed")


@matches.get("/<int:match_id>")
def show(match_id: int):
    validation = readable(match_id)
    s = session()
    detail = match_detail(s, match_id)
    record = shown_record(s, match_id)
    replay = record if record and not record.get("progress") else None
    script = json_in_script(json.dumps(replay))  # the viewer's: a whole record, or null
    done = detail.row.status == "done"
    results = shown_results(s, match_id) if done and replay else []
    analysed = done and validation is None
    return render_template(
        "match.html",
        match=detail,
        record=record,
        replay=script,
        logs=log_links(match_id),
        results=json_in_script(json.dumps(results)) if results else None,
        validation=validation,
        step=_failing_step(replay, validation),
        **(_analyses_section(match_id) if analysed else {"analyses": None}),
    )


def _failing_step(replay: dict | None, validation: Validation | None) -> int | None:
    """Where the replay shows the validated bot's first fault (None: nowhere to jump)."""
    if replay is None or validation is None or validation.fault is None:
        return None
    return step_of(replay, validation.fault)


@matches.get("/<int:match_id>/analyses")
def analyses(match_id: int):
    """The analyses section alone, for the match page to swap in as one changes state."""
    analysable(match_id)
    return render_template("_analyses.html", match_id=match_id, **_analyses_section(match_id))


def _analyses_section(match_id: int) -> dict:
    """What _analyses.html shows: the entrants' analyses, and which the reader may ask for."""
    entrants = entrant_analyses(session(), match_id)
    may_ask = {e.entrant for e in entrants if may_see_logs(e.owner_id)}
    return {"analyses": entrants, "may_ask": may_ask}


@matches.post("/<int:match_id>/analyse")
@login_required
def ask_analysis(match_id: int):
    """Have the master judge an entrant's decisions (its bot's owner, or an organiser): the
    service decides who may and how often; its refusal is shown (404 as for its logs)."""
    analysable(match_id)  # an unknown match is a 404 whatever the form holds
    entrant = request.form.get("entrant", type=int)
    if entrant is None:
        abort(400, "say which entrant to analyse")
    settings = runtime().settings
    try:
        row = analysis_runs.request(
            database(),
            match_id,
            entrant,
            user=signed_in_user(),
            dispatch=analysis_dispatch(),
            per_hour=settings.analyses_per_hour,
            lease_s=settings.lease_s,
        )
    except AnalysisRefused as exc:
        if exc.status == 404:
            abort(404, str(exc))
        flash(str(exc), "error")
    else:
        state = "is analysed already" if row.status == "done" else f"is {row.status}"
        flash(f"The analysis of entrant {entrant} {state}: this page follows it.", "info")
    return redirect(url_for("matches.show", match_id=match_id, _anchor="analysis-title"), 303)


@matches.get("/<int:match_id>/table")
def table(match_id: int):
    """The table alone (seats, points, faults), for a live match's page to swap in."""
    readable(match_id)
    detail = match_detail(session(), match_id)
    return render_template("_match_table.html", match=detail, logs=log_links(match_id))


@matches.get("/<int:match_id>/progress")
def progress(match_id: int):
    """The scores so far alone, for a running match's page to swap in as deals end."""
    readable(match_id)
    return render_template("_progress.html", record=shown_record(session(), match_id))


@matches.get("/<int:match_id>/replay.json")
def replay_file(match_id: int):
    return download(record_or_409(match_id), f"match-{match_id}.json")


@matches.get("/<int:match_id>/games/<int:game>/decisions/<int:decision>.json")
def decision_file(match_id: int, game: int, decision: int):
    """Decision ``decision`` (the match-wide id) of game ``game``, counted from 1."""
    exported = exported_decision(match_id, game, decision)
    return download(exported, f"match-{match_id}-game-{game}-decision-{decision}.json")


@matches.get("/<int:match_id>/decisions/<int:index>/<int:decision>.json")
def old_decision_file(match_id: int, index: int, decision: int):
    return decision_moved("matches.decision_file", match_id, index, decision)


def decision_moved(endpoint: str, match_id: int, index: int, decision: int) -> Redirect:
    """A former decision link, whose game counted from 0, sent on for good to ``endpoint``
    (game from 1); an unknown match is a 404 here already."""
    readable(match_id)
    where = url_for(endpoint, match_id=match_id, game=index + 1, decision=decision)
    return redirect(where, 308)


def exported_decision(match_id: int, game: int, decision: int) -> dict:
    """The request of decision ``decision`` in game ``game`` (from 1; 404 for game 0)."""
    if game < 1:
        abort(404, "games are counted from 1")
    return export_decision(finished_record(match_id), game - 1, decision)


def record_or_409(match_id: int) -> dict:
    """The record as shown (whole, or the progress of an unfinished match); 409 when
    nothing has been played yet."""
    readable(match_id)
    record = shown_record(session(), match_id)
    if record is None:
        abort(409, f"match {match_id} has no finished deal to show yet")
    return record


def finished_record(match_id: int) -> dict:
    """The whole record (every rotation played); 409 before. Decisions are only exported
    from these: rebuilding a request needs the seed and the cards."""
    readable(match_id)
    record = shown_record(session(), match_id)
    if record is None or record.get("progress"):
        abort(409, f"match {match_id} is not finished: its decisions are not public yet")
    return record


def download(data: dict, filename: str) -> Response:
    return Response(
        json.dumps(data, indent=1),
        mimetype="application/json",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )
