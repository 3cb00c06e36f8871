"""Ladder rows and the queries the ladder's matchmaker and pages share.

A ladder's entrants are not chosen by anyone: they are, at every moment, the current
version of every bot that is not retired (house bots aside: the ladder seats its own
anchors). Entry rows of its tournament are appended as versions first play, and never
removed, so an older version's games keep their entrant."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from arena.store.errors import StoreError
from arena.store.models import (
    Bot,
    BotVersion,
    Ladder,
    Match,
    Tournament,
    TournamentEntry,
)

IN_FLIGHT = ("pending", "running")


def create_ladder(s: Session, name: str, columns: dict[str, Any], **settings: Any) -> Ladder:
    """A ladder named ``name`` (its ruleset's name) over a new running tournament row of
    kind "ladder" with ``columns`` (``TournamentSpec.columns()``)."""
    if s.scalar(select(Ladder.id).where(Ladder.name == name)) is not None:
        raise StoreError(f"there is a ladder named {name} already")
    tournament = Tournament(**columns, kind="ladder", status="running")
    s.add(tournament)
    s.flush()
    ladder = Ladder(tournament_id=tournament.id, name=name, **settings)
    s.add(ladder)
    s.flush()
    return ladder


def list_ladders(s: Session) -> list[Ladder]:
    return list(s.scalars(select(Ladder).order_by(Ladder.id)))


def get_ladder(s: Session, name: str) -> Ladder:
    ladder = s.scalar(select(Ladder).where(Ladder.name == name))
    if ladder is None:
        known = ", ".join(x.name for x in list_ladders(s)) or "none yet"
        raise StoreError(f"no ladder named {name!r} (ladders: {known})")
    return ladder


def ladder_of_tournament(s: Session, tournament_id: int) -> Ladder | None:
    return s.scalar(select(Ladder).where(Ladder.tournament_id == tournament_id))


def seated_versions(s: Session) -> list[BotVersion]:
    """The version every bot that is not retired holds its ladder seats with: the one made
    current (``Bot.current_version_id``: by its promotion policy, or its owner's choice),
    else its newest valid one; house bots excepted."""
    live = Bot.retired_at.is_(None)
    newest = (
        select(func.max(BotVersion.id))
        .join(Bot, Bot.id == BotVersion.bot_id)
        .where(BotVersion.status == "valid", live)
        .group_by(BotVersion.bot_id)
    )
    current = select(Bot.current_version_id).where(live, Bot.current_version_id.is_not(None))
    query = select(BotVersion).where(
        BotVersion.status == "valid", or_(BotVersion.id.in_(newest), BotVersion.id.in_(current))
    )
    chosen: dict[int, BotVersion] = {}
    for version in s.scalars(query.order_by(BotVersion.id)):
        held = chosen.get(version.bot_id)
        if held is None or held.id != version.bot.current_version_id:
            chosen[version.bot_id] = version
    return [v for v in sorted(chosen.values(), key=lambda v: v.id) if "house" not in v.manifest]


def enter(s: Session, tournament_id: int, versions: Sequence[BotVersion]) -> dict[int, int]:
    """Entry rows for the versions that have none yet; every entrant's index, by version."""
    query = select(TournamentEntry.bot_version_id, TournamentEntry.entrant_index).where(
        TournamentEntry.tournament_id == tournament_id
    )
    index: dict[int, int] = {v: i for v, i in s.execute(query)}
    for version in versions:
        if version.id not in index:
            index[version.id] = len(index)
            s.add(
                TournamentEntry(
                    tournament_id=tournament_id,
                    bot_version_id=version.id,
                    entrant_index=index[version.id],
                )
            )
    s.flush()
    return index


def scheduled_since(s: Session, tournament_id: int, since: datetime) -> int:
    query = select(func.count()).where(
        Match.tournament_id == tournament_id, Match.created_at >= since
    )
    return s.scalar(query) or 0
