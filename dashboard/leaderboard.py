"""The leaderboard: the latest finished tournament's standings, or any other's, or those of
every game (the front page is the standing ladder: ``dashboard.ladders``)."""

from __future__ import annotations

from flask import Blueprint, redirect, render_template, request, url_for

from arena.readmodels.ladder import ladder_of
from arena.readmodels.leaderboard import default_choice, title_of
from arena.readmodels.leaderboard import leaderboard as board_of
from arena.readmodels.tournaments import tournament_choices
from dashboard.db import session
from dashboard.fragments import cached_html
from dashboard.params import scope

leaderboard = Blueprint("leaderboard", __name__)


@leaderboard.get("/leaderboard")
def index():
    s = session()
    chosen = scope(s, request.args)
    if chosen is not None and (ladder := ladder_of(s, chosen)) is not None:
        return redirect(url_for("ladders.show", name=ladder))
    title = title_of(s, chosen)  # an unknown tournament is a 404 before anything is fitted
    board = cached_html(
        "board", chosen, lambda: render_template("_board.html", board=board_of(s, chosen))
    )
    asked = request.args.get("tournament", "").strip()  # else say why this one is shown
    return render_template(
        "leaderboard.html",
        title=title,
        scope=chosen,
        board_html=board,
        tournaments=tournament_choices(s),
        default=None if asked else default_choice(s, chosen),
    )
