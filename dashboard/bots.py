"""Bot list and bot pages."""

from __future__ import annotations

from flask import Blueprint, render_template

from arena.views.bots import bot_list, bot_page
from arena.views.logs import bot_owner
from dashboard.auth import may_see_logs
from dashboard.db import session

bots = Blueprint("bots", __name__, url_prefix="/bots")


@bots.get("/")
def index():
    return render_template("bots.html", bots=bot_list(session()))


@bots.get("/<int:bot_id>")
def show(bot_id: int):
    s = session()
    page = bot_page(s, bot_id)
    mine = may_see_logs(bot_owner(s, bot_id).owner_id)
    return render_template("bot.html", page=page, mine=mine)
