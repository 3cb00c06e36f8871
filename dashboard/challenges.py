"""An owner's unrated challenges, from the bot page (a form) and the API (JSON); the work
is ``arena.challenges``'."""

from __future__ import annotations

from flask import Blueprint, flash, jsonify, redirect, request, url_for

from arena.challenges.start import start_challenge
from arena.readmodels.challenges import challenges_panel
from arena.readmodels.logs import bot_owner
from dashboard.auth import current_user, login_required
from dashboard.db import session
from dashboard.submitting import database, runtime
from dashboard.tokens import bearer_user
from dashboard.versions import bot_id_named

challenges = Blueprint("challenges", __name__, url_prefix="/bots")
challenges_api = Blueprint("challenges_api", __name__, url_prefix="/api/v1/bots")


@challenges.post("/<int:bot_id>/challenges")
@login_required
def challenge(bot_id: int):
    name = bot_owner(session(), bot_id).name
    opponents = [request.form.get(f"opponent{i}", "") for i in (1, 2, 3)]
    match_id = _start(name, request.form.get("version", ""), opponents)
    flash(f"challenge started: match #{match_id}", "info")
    return redirect(url_for("bots.show", bot_id=bot_id) + "#challenges", 303)


@challenges_api.get("/<name>/challenges")
def listed(name: str):
    s = session()
    user = current_user()
    return jsonify(
        challenges_panel(s, bot_id_named(s, name), None if user is None else user.id).as_dict()
    )


@challenges_api.post("/<name>/challenges")
def ask(name: str):
    bearer_user()
    body = request.get_json(silent=True) or {}
    opponents = body.get("opponents")
    if not isinstance(opponents, list) or not all(isinstance(o, str) for o in opponents):
        raise ValueError("opponents must be a list of three names (house:heuristic, NAME@VERSION)")
    match_id = _start(name, str(body.get("version", "")), opponents)
    return jsonify({"match_id": match_id, "match": url_for("matches.show", match_id=match_id)}), 202


def _start(name: str, version: str, opponents: list[str]) -> int:
    user = current_user()
    assert user is not None
    ref = f"{name}@{version}"
    return start_challenge(database(), runtime(), ref, opponents, user.id, user.admin)
