"""The front page: the latest finished tournament's standings, or any other, or the ladder."""

from __future__ import annotations

from flask import Blueprint, render_template, request

from arena.readmodels.leaderboard import leaderboard as board_of
from arena.readmodels.leaderboard import title_of
from arena.readmodels.tournaments import tournament_choices
from dashboard.db import session
from dashboard.fragments import cached_html
from dashboard.params import scope

leaderboard = Blueprint("leaderboard", __name__)


@leaderboard.get("/")
def index():
    s = session()
    chosen = scope(s, request.args)
    title = title_of(s, chosen)  # an unknown tournament is a 404 before anything is fitted
    board = cached_html(
        "board", chosen, lambda: render_template("_board.html", board=board_of(s, chosen))
    )
    return render_template(
        "leaderboard.html",
        title=title,
        scope=chosen,
        board_html=board,
        tournaments=tournament_choices(s),
    )
