"""One validation per user at a time on the Celery workers too (the embedded pool does it
in memory, ``fair.py``): a worker that picks up a version whose owner already has one being
validated gives it back to the queue for later, so the other users' uploads go first."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from arena.store import Bot, BotVersion, User


def take_turn(s: Session, version_id: int, now: datetime, lease_s: float) -> bool:
    """Hold the owner's validation turn for ``version_id`` until ``now + lease_s`` (a lost
    worker's turn lapses then); False while another of the owner's versions holds it. A
    version without an owner, or no longer pending, needs no turn."""
    row = s.get(BotVersion, version_id)
    if row is None or row.status != "pending" or row.bot.owner_id is None:
        return True
    owner = row.bot.owner_id
    s.scalar(select(User.id).where(User.id == owner).with_for_update())  # one taker at a time
    held = s.scalar(
        select(func.count())
        .select_from(BotVersion)
        .join(Bot, Bot.id == BotVersion.bot_id)
        .where(
            Bot.owner_id == owner,
            BotVersion.id != version_id,
            BotVersion.status == "pending",
            BotVersion.validating_until > now,
        )
    )
    if held:
        return False
    row.validating_until = now + timedelta(seconds=lease_s)
    return True


def end_turn(s: Session, version_id: int) -> None:
    row = s.get(BotVersion, version_id)
    if row is not None:
        row.validating_until = None
