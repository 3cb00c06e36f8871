"""Tournament list and tournament pages (progress updates live through the JSON API)."""

from __future__ import annotations

from flask import Blueprint, render_template

from arena.views.leaderboard import leaderboard
from arena.views.tournaments import tournament_list, tournament_page
from dashboard.db import session

tournaments = Blueprint("tournaments", __name__, url_prefix="/tournaments")


@tournaments.get("/")
def index():
    return render_template("tournaments.html", tournaments=tournament_list(session()))


@tournaments.get("/<int:tournament_id>")
def show(tournament_id: int):
    page = tournament_page(session(), tournament_id)
    return render_template("tournament.html", page=page, board=page.board)


@tournaments.get("/<int:tournament_id>/board")
def board(tournament_id: int):
    """The standings table alone, for the live page to swap in when results arrive."""
    return render_template("_board.html", board=leaderboard(session(), tournament_id))
