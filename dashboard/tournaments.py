"""Tournament list and tournament pages (progress updates live through the JSON API)."""

from __future__ import annotations

from flask import Blueprint, redirect, render_template, url_for

from arena.readmodels.ladder import ladder_of
from arena.readmodels.leaderboard import leaderboard
from arena.readmodels.tournaments import (
    rating_history,
    standings_table,
    tournament_list,
    tournament_page,
)
from arena.store import get_tournament
from dashboard.db import session
from dashboard.fragments import cached_html
from dashboard.queues import queue_warnings

tournaments = Blueprint("tournaments", __name__, url_prefix="/tournaments")


@tournaments.get("/")
def index():
    tournaments = tournament_list(session())
    return render_template("tournaments.html", tournaments=tournaments, warnings=queue_warnings())


@tournaments.get("/<int:tournament_id>")
def show(tournament_id: int):
    s = session()
    if (ladder := ladder_of(s, tournament_id)) is not None:  # its matches' row, not a page
        return redirect(url_for("ladders.show", name=ladder))
    page = tournament_page(s, tournament_id)
    return render_template(
        "tournament.html",
        page=page,
        board_html=board(tournament_id),
        h2h=h2h(tournament_id),
        warnings=queue_warnings(),
    )


@tournaments.get("/<int:tournament_id>/board")
def board(tournament_id: int):
    """The standings table alone, for the live page to swap in when results arrive."""
    s = session()
    return cached_html(
        "board",
        tournament_id,
        lambda: render_template("_board.html", board=leaderboard(s, tournament_id)),
    )


@tournaments.get("/<int:tournament_id>/h2h")
def h2h(tournament_id: int):
    """The head-to-head matrix alone, swapped in with the standings."""
    s = session()  # an unknown id: 404 from the standings' title
    return cached_html(
        "h2h",
        tournament_id,
        lambda: render_template("_h2h.html", table=standings_table(s, tournament_id)),
    )


@tournaments.get("/<int:tournament_id>/chart")
def chart(tournament_id: int):
    """The rating chart alone, for the live page to swap in when a snapshot arrives (not
    cached by results version: a snapshot is saved just after the result it covers)."""
    s = session()
    get_tournament(s, tournament_id)  # 404 for an unknown id
    return render_template("_chart.html", history=rating_history(s, tournament_id))
