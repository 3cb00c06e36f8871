"""Organiser actions: create a tournament, start it in the background, stop it (admins only:
everybody else gets 403)."""

from __future__ import annotations

from flask import Blueprint, flash, redirect, render_template, request, url_for

from arena.bots.package import PackageError
from arena.game import RULESETS
from arena.ratings import DEFAULT_MODEL, MODELS
from arena.readmodels.entrants import entrant_choices
from arena.referee import Clock
from arena.store import StoreError, get_tournament
from arena.tournaments.background import MatchQueue, start_run, stop_run
from arena.tournaments.create import new_tournament
from dashboard.auth import admin_required
from dashboard.db import database, session
from dashboard.queues import ask_again
from dashboard.submitting import runtime

organiser = Blueprint("organiser", __name__, url_prefix="/tournaments")
ACTION_ERRORS = (StoreError, PackageError, ValueError)


def _number(field: str, default: int | None, low: int, high: int) -> int | None:
    text = request.form.get(field, "").strip()
    if not text:
        return default
    if not text.isdigit() or not low <= int(text) <= high:
        raise ValueError(f"{field.replace('_', ' ')} must be a whole number from {low} to {high}")
    return int(text)


def _rating_model() -> str:
    model = request.form.get("rating_model", DEFAULT_MODEL)
    if model not in MODELS:
        raise ValueError(f"rating model must be one of {', '.join(sorted(MODELS))}")
    return model


def _adaptive() -> tuple[int, int | None]:
    """Extra adaptive matches and the top places they separate (None: all)."""
    extra = _number("extra_matches", 0, 0, 1000)
    top = _number("top", None, 2, 1000)
    if top is not None and not extra:
        raise ValueError("top places to separate need some extra matches")
    return extra, top


def _form_page(**extra):
    return render_template(
        "tournament_new.html",
        choices=entrant_choices(session()),
        rules=sorted(RULESETS),
        models=sorted(MODELS),
        default_model=DEFAULT_MODEL,
        **extra,
    )


@organiser.route("/new", methods=["GET", "POST"])
@admin_required
def create():
    if request.method == "GET":
        return _form_page()
    form = request.form
    try:
        rules = RULESETS.get(form.get("rules", "pagat"))
        if rules is None:
            raise ValueError(f"rules must be one of {', '.join(sorted(RULESETS))}")
        deals = _number("deals", None, 1, 100)
        if deals is not None:
            rules = rules.with_(deals_per_game=deals)
        clock = Clock(
            _number("decision_ms", 1000, 1, 60_000), _number("bank_ms", 10_000, 0, 600_000)
        )
        extra_matches, top = _adaptive()
        t = new_tournament(
            database(),
            runtime(),
            form.getlist("bots"),
            rules=rules,
            games_per_match=_number("games_per_match", 4, 1, 16),
            clock=clock,
            tables=_number("tables", None, 1, 500),
            name=form.get("name", "").strip()[:128],
            rating_model=_rating_model(),
            adaptive_matches=extra_matches,
            adaptive_top=top,
            allow_same_owner=form.get("allow_same_owner") == "on",
        )
    except ACTION_ERRORS as exc:
        return _form_page(error=str(exc)), 400
    return redirect(url_for("tournaments.show", tournament_id=t.id))


@organiser.post("/<int:tournament_id>/start")
@admin_required
def start(tournament_id: int):
    queue = _match_queue()
    ask_again()  # the page shown next warns of jobs no worker takes
    return _act(
        tournament_id, lambda: start_run(database(), runtime(), tournament_id, queue), "started"
    )


def _match_queue() -> MatchQueue | None:
    """The workers' queue when a broker is configured; else the start plays in a process."""
    if not runtime().settings.broker_configured:
        return None
    from workers.client.matches import CeleryMatches  # Celery is loaded only with a broker

    return CeleryMatches()


@organiser.post("/<int:tournament_id>/stop")
@admin_required
def stop(tournament_id: int):
    return _act(tournament_id, lambda: stop_run(database(), tournament_id), "stopped")


def _act(tournament_id: int, action, done: str):
    get_tournament(session(), tournament_id)  # an unknown id is a 404
    try:
        run = action()
    except StoreError as exc:
        flash(str(exc), "error")
        return redirect(url_for("tournaments.show", tournament_id=tournament_id), 303)
    flash(f"tournament {tournament_id} {done} ({run.backend} backend)", "info")
    return redirect(url_for("tournaments.show", tournament_id=tournament_id), 303)
