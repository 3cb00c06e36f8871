"""A bot's versions as its owner steers them: which one holds the ladder seat (a rollback
is making an older one current), the policy for the next, and comparisons of two of them;
the same on the page (forms) and in the API (JSON). Views stay thin: the work is
``arena.comparisons``'."""

from __future__ import annotations

from flask import Blueprint, flash, jsonify, redirect, request, url_for
from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.comparisons.promotion import TAKES_SEAT, make_current, set_promotion
from arena.comparisons.start import start_comparison
from arena.ratings.sprt import Bounds
from arena.readmodels.comparisons import comparison_view, versions_panel
from arena.readmodels.logs import bot_owner
from arena.store import Bot, StoreError
from arena.store.models import Comparison
from dashboard.auth import current_user, login_required
from dashboard.db import session
from dashboard.submitting import database, runtime
from dashboard.tokens import bearer_user

versions = Blueprint("versions", __name__, url_prefix="/bots")
versions_api = Blueprint("versions_api", __name__, url_prefix="/api/v1/bots")
MAX_PAIRS = 100  # a comparison asked for plays at most this many pairs


@versions.post("/<int:bot_id>/current")
@login_required
def current(bot_id: int):
    name = bot_owner(session(), bot_id).name
    flash(_make_current(name, request.form.get("version", "")), "info")
    return _back(bot_id)


@versions.post("/<int:bot_id>/promotion")
@login_required
def promotion(bot_id: int):
    name = bot_owner(session(), bot_id).name
    policy = request.form.get("promotion", "")
    _set_promotion(name, policy)
    flash(f"{name}: a new version now takes the seat {TAKES_SEAT[policy]}", "info")
    return _back(bot_id)


@versions.post("/<int:bot_id>/comparisons")
@login_required
def compare(bot_id: int):
    name = bot_owner(session(), bot_id).name
    form = request.form
    _start(name, form.get("baseline", ""), form.get("candidate", ""), form.get("pairs", ""))
    flash(f"comparison of {name}@{form['candidate']} with {form['baseline']} started", "info")
    return _back(bot_id)


@versions_api.get("/<name>/comparisons")
def comparisons(name: str):
    s = session()
    return jsonify(versions_panel(s, bot_id_named(s, name)).as_dict())


@versions_api.post("/<name>/comparisons")
def ask_comparison(name: str):
    bearer_user()
    body = request.get_json(silent=True) or {}
    comparison_id = _start(
        name, str(body.get("baseline", "")), str(body.get("candidate", "")), body.get("pairs")
    )
    with database().session(read_only=True) as s:  # the request's own began before it
        view = comparison_view(s, s.get_one(Comparison, comparison_id))
    return jsonify(view.as_dict()), 202


@versions_api.post("/<name>/current")
def choose_current(name: str):
    bearer_user()
    body = request.get_json(silent=True) or {}
    message = _make_current(name, str(body.get("version", "")))
    return jsonify(_panel(name) | {"message": message})


@versions_api.post("/<name>/promotion")
def choose_promotion(name: str):
    bearer_user()
    body = request.get_json(silent=True) or {}
    _set_promotion(name, str(body.get("promotion", "")))
    return jsonify(_panel(name))


def _make_current(name: str, version: str) -> str:
    user = current_user()
    assert user is not None
    return make_current(database(), f"{name}@{version}", user.id, user.admin)


def _set_promotion(name: str, policy: str) -> None:
    user = current_user()
    assert user is not None
    set_promotion(database(), name, policy, user.id, user.admin)


def _start(name: str, baseline: str, candidate: str, pairs: object) -> int:
    """Start a comparison for the user of this request; ``pairs``: the cap ("" or None:
    the default)."""
    user = current_user()
    assert user is not None
    text = "" if pairs is None else str(pairs).strip()
    if text and (not text.isdigit() or not 1 <= int(text) <= MAX_PAIRS):
        raise ValueError(f"pairs must be a whole number from 1 to {MAX_PAIRS}, not {text!r}")
    bounds = Bounds(cap=int(text)) if text else Bounds()
    return start_comparison(
        database(),
        runtime(),
        f"{name}@{baseline}",
        f"{name}@{candidate}",
        bounds=bounds,
        user_id=user.id,
        admin=user.admin,
    )


def _panel(name: str) -> dict:
    """The panel after a change (read afresh: the request's session began before it)."""
    with database().session(read_only=True) as s:
        return versions_panel(s, bot_id_named(s, name)).as_dict()


def bot_id_named(s: Session, name: str) -> int:
    found = s.scalar(select(Bot.id).where(Bot.name == name))
    if found is None:
        raise StoreError(f"no bot named {name!r}")
    return found


def _back(bot_id: int):
    return redirect(url_for("bots.show", bot_id=bot_id) + "#versions", 303)
