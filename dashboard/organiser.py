"""Organiser actions: create a tournament, start it in the background, stop it (admins only:
everybody else gets 403)."""

from __future__ import annotations

from flask import Blueprint, flash, redirect, render_template, request, url_for

from arena.bots.package import PackageError
from arena.game import RULESETS
from arena.ratings import MODELS
from arena.readmodels.entrants import entrant_choices
from arena.store import StoreError, get_tournament
from arena.tournaments.background import MatchQueue, start_run, stop_run
from arena.tournaments.create import new_tournament
from arena.tournaments.spec import DEFAULTS, MAX_NAME, TournamentSpec
from dashboard.auth import admin_required
from dashboard.db import database, session
from dashboard.queues import ask_again
from dashboard.submitting import runtime

organiser = Blueprint("organiser", __name__, url_prefix="/tournaments")
ACTION_ERRORS = (StoreError, PackageError, ValueError)


def _number(field: str, low: int, high: int) -> int | None:
    """A whole number field within the form's bounds; None when left empty (the default)."""
    text = request.form.get(field, "").strip()
    if not text:
        return None
    if not text.isdigit() or not low <= int(text) <= high:
        raise ValueError(f"{field.replace('_', ' ')} must be a whole number from {low} to {high}")
    return int(text)


def spec_from_form() -> TournamentSpec:
    """The tournament the organiser's form asks for: its fields are the command line's
    options (``TournamentSpec.from_options``); the spec checks the settings, the form only
    the numbers it offers."""
    form = request.form
    if not form.getlist("bots"):  # the core's message names the command line's option
        raise ValueError("tick at least one bot to enter (house bots fill the empty seats)")
    extra_matches, top = _number("extra_matches", 0, 1000), _number("top", 2, 1000)
    if top is not None and not extra_matches:
        raise ValueError("top places to separate need some extra matches")
    return TournamentSpec.from_options(
        form.getlist("bots"),
        rules=form.get("rules"),
        deals=_number("deals", 1, 100),
        games_per_match=_number("games_per_match", 1, 16),
        decision_ms=_number("decision_ms", 1, 60_000),
        bank_ms=_number("bank_ms", 0, 600_000),
        tables=_number("tables", 1, 500),
        name=form.get("name", "").strip()[:MAX_NAME],
        rating_model=form.get("rating_model"),
        extra_matches=extra_matches,
        top=top,
        allow_same_owner=form.get("allow_same_owner") == "on",
    )


def _form_page(**extra):
    return render_template(
        "tournament_new.html",
        choices=entrant_choices(session()),
        rules=sorted(RULESETS, key=lambda name: name != DEFAULTS.rules.name),  # default first
        models=sorted(MODELS),
        defaults=DEFAULTS,
        max_name=MAX_NAME,
        **extra,
    )


@organiser.route("/new", methods=["GET", "POST"])
@admin_required
def create():
    if request.method == "GET":
        return _form_page()
    try:
        t = new_tournament(database(), runtime(), spec_from_form())
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
