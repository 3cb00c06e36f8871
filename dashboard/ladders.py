"""The standing ladders: the front page (the default ladder), a page per ladder, and an
organiser's pause and resume (admins only: everybody else gets 403)."""

from __future__ import annotations

from flask import Blueprint, flash, redirect, render_template, request, url_for

from arena.ladders.entrants import change_ladder
from arena.readmodels.ladder import front_ladder, ladder_page
from dashboard.auth import admin_required
from dashboard.db import database, session

ladders = Blueprint("ladders", __name__)


@ladders.get("/")
def front():
    if "tournament" in request.args:  # the address of the leaderboard when it was here
        return redirect(url_for("leaderboard.index", tournament=request.args["tournament"]), 301)
    name = front_ladder(session())
    if name is None:  # a database never upgraded by `arena db upgrade`
        return render_template("ladder.html", page=None)
    return show(name)


@ladders.get("/ladders/<name>")
def show(name: str):
    return render_template("ladder.html", page=ladder_page(session(), name))


@ladders.post("/ladders/<name>/pause")
@admin_required
def pause(name: str):
    return _paused(name, True)


@ladders.post("/ladders/<name>/resume")
@admin_required
def resume(name: str):
    return _paused(name, False)


def _paused(name: str, paused: bool):
    change_ladder(database(), name, paused=paused)  # an unknown ladder is a 404
    said = "paused: no new matches (those under way finish)" if paused else "resumed"
    flash(f"ladder {name} {said}", "info")
    return redirect(url_for("ladders.show", name=name), 303)
