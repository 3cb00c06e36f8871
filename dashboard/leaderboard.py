"""The front page: the latest finished tournament's standings, or any other, or the ladder."""

from __future__ import annotations

from flask import Blueprint, render_template, request

from arena.views.leaderboard import leaderboard as board_of
from arena.views.tournaments import tournament_list
from dashboard.db import session
from dashboard.params import scope

leaderboard = Blueprint("leaderboard", __name__)


@leaderboard.get("/")
def index():
    s = session()
    board = board_of(s, scope(s, request.args))
    return render_template("leaderboard.html", board=board, tournaments=tournament_list(s))
