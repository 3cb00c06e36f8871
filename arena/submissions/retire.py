"""Retiring a bot: its owner (or an organiser, or the operator at the command line) takes it
out of every new tournament, e.g. superseded by another bot or broken for good. Nothing is
deleted: its versions, matches, replays and ratings stay, and tournaments it is already in
play on with it (stopping them midway would be unfair to the others). Restoring undoes it.

Bots are neither deleted nor renamed: every stored match, replay and rating names them."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select

from arena.store import Bot, Database, User
from arena.store.models import as_utc, utcnow
from arena.submissions.errors import SubmissionError
from arena.submissions.submit import whose


def set_retired(
    db: Database, name: str, retired: bool, user: User | None = None
) -> datetime | None:
    """Retire (or restore) the bot ``name`` on behalf of ``user`` (None: the operator).
    Returns when it was retired, None once restored. Retiring twice keeps the first date."""
    with db.session() as s:
        bot = s.scalar(select(Bot).where(Bot.name == name))
        if bot is None:
            raise SubmissionError(f"no bot named {name!r}", 404)
        if any("house" in v.manifest for v in bot.versions):
            raise SubmissionError(f"{name} is a house bot: the platform's own, never retired")
        if user is not None and not user.admin and bot.owner_id != user.id:
            raise SubmissionError(f"the bot {name!r} belongs to {whose(bot)}", 403)
        if not retired:
            bot.retired_at = None
        elif bot.retired_at is None:
            bot.retired_at = utcnow()
        return bot.retired_at and as_utc(bot.retired_at)
