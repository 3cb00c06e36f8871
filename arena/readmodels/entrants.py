"""What an organiser can enter into a tournament: each bot's newest valid version (retired
bots left out), and the house bots."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from arena.house import HOUSE_BOTS
from arena.house.names import HOUSE_PREFIX
from arena.store import Bot, BotVersion

HOUSE_CHOICES = tuple(HOUSE_PREFIX + kind for kind in sorted(HOUSE_BOTS))  # every house bot


def entrant_choices(s: Session) -> list[str]:
    """``name@version`` of each contestant bot's newest valid version, by name; then the
    house bots."""
    newest = (
        select(func.max(BotVersion.id))
        .where(BotVersion.status == "valid")
        .group_by(BotVersion.bot_id)
        .scalar_subquery()
    )
    rows = s.execute(
        select(Bot.name, BotVersion.version, BotVersion.manifest)
        .join(Bot, Bot.id == BotVersion.bot_id)
        .where(BotVersion.id.in_(newest), Bot.retired_at.is_(None))
        .order_by(Bot.name)
    )
    refs = [f"{name}@{version}" for name, version, manifest in rows if "house" not in manifest]
    return refs + list(HOUSE_CHOICES)
