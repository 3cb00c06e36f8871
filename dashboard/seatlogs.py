"""Links from a match's seats to their logs of it, for the readers who may see them (the
bot's owner and organisers: the same check as the log pages, ``dashboard.logs``)."""

from __future__ import annotations

from flask import url_for

from arena.readmodels.matches import seat_logs
from dashboard.auth import may_see_logs
from dashboard.db import session


def log_links(match_id: int) -> dict[int, str]:
    """Seat (bot version id) -> the URL of its log of the match, for the reader's seats."""
    return {
        version_id: url_for("logs.match", bot_id=log.bot_id, version=log.version, match_id=match_id)
        for version_id, log in seat_logs(session(), match_id).items()
        if may_see_logs(log.owner_id)
    }
