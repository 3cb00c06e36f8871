"""A bot's captured logs, for its owner and organisers only. Anyone else gets the same 404
as for a log that does not exist, so not even the existence of a log leaks."""

from __future__ import annotations

from flask import Blueprint, abort, render_template

from arena.readmodels.logs import bot_owner, log_index, log_text
from arena.text import printable
from dashboard.auth import may_see_logs
from dashboard.db import session

logs = Blueprint("logs", __name__, url_prefix="/bots/<int:bot_id>/logs")
NOT_FOUND = "no such log"


def _owned(bot_id: int) -> None:
    if not may_see_logs(bot_owner(session(), bot_id).owner_id):
        abort(404, NOT_FOUND)


def shown(text: str) -> str:
    """Line by line without control characters (a bot's escape sequences stay inert)."""
    return "\n".join(printable(line) for line in text.splitlines())


@logs.get("/")
def index(bot_id: int):
    _owned(bot_id)
    return render_template("logs.html", logs=log_index(session(), bot_id))


@logs.get("/<version>/validation")
def validation(bot_id: int, version: str):
    _owned(bot_id)
    text = shown(log_text(session(), bot_id, version, None))
    return render_template("log.html", bot_id=bot_id, version=version, match_id=None, text=text)


@logs.get("/<version>/matches/<int:match_id>")
def match(bot_id: int, version: str, match_id: int):
    _owned(bot_id)
    text = shown(log_text(session(), bot_id, version, match_id))
    return render_template("log.html", bot_id=bot_id, version=version, match_id=match_id, text=text)
