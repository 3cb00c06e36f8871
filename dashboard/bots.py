"""Bot list and bot pages; an owner's (or organiser's) retire and restore."""

from __future__ import annotations

from flask import Blueprint, flash, redirect, render_template, url_for

from arena.readmodels.analyses import bot_analyses
from arena.readmodels.audit import bot_audit
from arena.readmodels.bots import bot_list, bot_page
from arena.readmodels.challenges import challenges_panel
from arena.readmodels.comparisons import versions_panel
from arena.readmodels.logs import bot_owner
from arena.readmodels.validations import diagnosable
from arena.submissions import set_retired
from dashboard.auth import current_user, login_required, may_see_logs
from dashboard.db import database, session

bots = Blueprint("bots", __name__, url_prefix="/bots")


@bots.get("/")
def index():
    return render_template("bots.html", bots=bot_list(session()))


@bots.get("/<int:bot_id>")
def show(bot_id: int):
    s = session()
    page = bot_page(s, bot_id)
    mine = may_see_logs(bot_owner(s, bot_id).owner_id)
    user = current_user()
    audit = bot_audit(s, bot_id) if user is not None and user.admin else None
    analysed = bot_analyses(s, bot_id)
    panel = versions_panel(s, bot_id)
    challenged = challenges_panel(s, bot_id, None if user is None else user.id) if mine else None
    return render_template(
        "bot.html",
        page=page,
        mine=mine,
        diagnosed=diagnosable(s, bot_id) if mine else {},
        audit=audit,
        analysed=analysed,
        panel=panel,
        challenged=challenged,
    )


@bots.post("/<int:bot_id>/retire")
@login_required
def retire(bot_id: int):
    return _set_retired(bot_id, True)


@bots.post("/<int:bot_id>/restore")
@login_required
def restore(bot_id: int):
    return _set_retired(bot_id, False)


def _set_retired(bot_id: int, retired: bool):
    name = bot_owner(session(), bot_id).name  # an unknown id is a 404
    set_retired(database(), name, retired, current_user())  # not the owner: 403
    flash(f"{name} {'retired' if retired else 'restored'}", "info")
    return redirect(url_for("bots.show", bot_id=bot_id), 303)
