"""A bot's captured logs, for its owner and organisers only. Anyone else gets the same 404
as for a log that does not exist, so not even the existence of a log leaks."""

from __future__ import annotations

from dataclasses import dataclass

from flask import Blueprint, abort, render_template

from arena.players.markers import marker_of
from arena.readmodels.logs import bot_owner, build_log_text, log_index, log_text
from arena.sandbox import LOG_MARK
from arena.text import printable
from dashboard.auth import may_see_logs
from dashboard.db import session

logs = Blueprint("logs", __name__, url_prefix="/bots/<int:bot_id>/logs")
NOT_FOUND = "no such log"


@dataclass(frozen=True)
class Line:
    """A line of a log as shown: the bot's, or the platform's (``mark``), which is a
    decision's marker when it has an ``anchor`` (the replay's name of the step)."""

    text: str
    mark: bool = False
    anchor: str | None = None


def _owned(bot_id: int) -> None:
    if not may_see_logs(bot_owner(session(), bot_id).owner_id):
        abort(404, NOT_FOUND)


def shown(text: str) -> list[Line]:
    """Line by line without control characters (a bot's escape sequences stay inert). Only
    the capture writes a line starting with ``LOG_MARK`` (it strips the byte from the bot's
    output), so only those are the platform's; an anchor is given once. Split at "\\n"
    only: ``splitlines`` would also break at ``LOG_MARK`` and at characters a bot chooses."""
    lines, anchors = [], set()
    for raw in text.removesuffix("\n").split("\n") if text else []:
        if not raw.startswith(LOG_MARK):
            lines.append(Line(printable(raw)))
            continue
        label = printable(raw)
        marker = marker_of(label)
        anchor = None if marker is None or marker.anchor in anchors else marker.anchor
        anchors.add(anchor)
        lines.append(Line(label, True, anchor))
    return lines


@logs.get("/")
def index(bot_id: int):
    _owned(bot_id)
    return render_template("logs.html", logs=log_index(session(), bot_id))


@logs.get("/<version>/validation")
def validation(bot_id: int, version: str):
    _owned(bot_id)
    lines = shown(log_text(session(), bot_id, version, None))
    return render_template("log.html", bot_id=bot_id, version=version, match_id=None, lines=lines)


@logs.get("/<version>/build")
def build(bot_id: int, version: str):
    _owned(bot_id)
    lines = [Line(printable(raw)) for raw in build_log_text(session(), bot_id, version).split("\n")]
    return render_template(
        "log.html", bot_id=bot_id, version=version, match_id=None, lines=lines, build=True
    )


@logs.get("/<version>/matches/<int:match_id>")
def match(bot_id: int, version: str, match_id: int):
    _owned(bot_id)
    lines = shown(log_text(session(), bot_id, version, match_id))
    return render_template(
        "log.html", bot_id=bot_id, version=version, match_id=match_id, lines=lines
    )
