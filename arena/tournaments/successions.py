"""Which version succeeds which, for the predecessor's prior of a ladder's fit
(:mod:`arena.ratings.successors`): a version's predecessor is its bot's previous valid
version among those the caller names (the versions with games on the ladder)."""

from __future__ import annotations

from collections.abc import Collection

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.store import BotVersion


def predecessors(
    s: Session, versions: Collection[int], among: Collection[int] | None = None
) -> dict[int, int]:
    """Each of ``versions`` that has one → the highest valid version id of the same bot
    below its own, among ``among`` (default: ``versions`` themselves)."""
    among = versions if among is None else among
    query = select(BotVersion.id, BotVersion.bot_id, BotVersion.status).where(
        BotVersion.id.in_(set(versions) | set(among))
    )
    by_bot: dict[int, list[tuple[int, str]]] = {}
    for version, bot, status in s.execute(query.order_by(BotVersion.id)):
        by_bot.setdefault(bot, []).append((version, status))
    wanted, candidates = set(versions), set(among)
    out: dict[int, int] = {}
    for rows in by_bot.values():
        previous = None
        for version, status in rows:
            if previous is not None and version in wanted:
                out[version] = previous
            if status == "valid" and version in candidates:
                previous = version
    return out
