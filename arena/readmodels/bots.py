"""Bot list and bot page: versions, ladder standing, rating history, recent matches,
head-to-head, faults."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session, aliased

from arena.players.player import public_reason
from arena.readmodels.ladder import LadderPlace, bot_places
from arena.readmodels.matches import MatchRow, match_rows
from arena.store import (
    Bot,
    BotLog,
    BotVersion,
    GameScore,
    Match,
    MatchFault,
    RatingSnapshot,
    StoreError,
    Tournament,
    owners_of,
)
from arena.store.ladders import list_ladders
from arena.tournaments.cache import CACHE

RECENT = 20
FAULT_MATCHES = 10  # per kind of fault, the newest matches the bot page links to
NO_VERSION = "—"  # shown for a version bot.toml did not give (stored as "0")


@dataclass(frozen=True)
class BotSummary:
    id: int
    name: str
    owner: str  # arena.store.owners_of: a user name, "house" or "operator"
    versions: int
    latest: str
    status: str
    retired: str  # the day it was retired (ISO), "" while it plays
    trusted: bool = False  # its latest version is "valid" without a validation match


@dataclass(frozen=True)
class BotPage:
    summary: BotSummary
    versions: list[dict[str, Any]]
    ladders: list[LadderPlace]  # its current version in each ladder that seats it
    # {"tournament", "ladder" (a name; None: a tournament), "name" (the tournament's),
    #  "rated_at" (the snapshot's time), "version", "elo", "ci_low", "ci_high"}
    history: list[dict[str, Any]]
    recent: list[MatchRow]
    opponents: list[dict[str, Any]]  # {"bot", "bot_id", "games", "margin"}
    faults: dict[str, int]
    fault_matches: dict[str, dict[str, Any]]  # per kind: {"count": matches, "newest": ids}


def bot_list(s: Session) -> list[BotSummary]:
    """By name; each with its newest version's status (three queries, whatever the count)."""
    query = (
        select(Bot.id, Bot.name, Bot.retired_at, func.count(BotVersion.id), func.max(BotVersion.id))
        .outerjoin(BotVersion, BotVersion.bot_id == Bot.id)
        .group_by(Bot.id, Bot.name, Bot.retired_at)
        .order_by(Bot.name)
    )
    rows = list(s.execute(query))
    latest_ids = [latest for *_, latest in rows if latest is not None]
    latest = {v.id: v for v in s.scalars(select(BotVersion).where(BotVersion.id.in_(latest_ids)))}
    owners = owners_of(s, [bot_id for bot_id, *_ in rows])
    trusted = _trusted(s, list(latest.values()))
    return [
        _summary(bot_id, name, owners[bot_id], retired, n, latest.get(last), trusted)
        for bot_id, name, retired, n, last in rows
    ]


def _trusted(s: Session, versions: list[BotVersion]) -> set[int]:
    """The versions marked valid without a validation match (``arena bot add
    --no-validate``): a validation starts the bot, which always leaves a log (a header line
    at least), so a valid contestant version without one was never judged. House bots are
    the platform's own and never validated."""
    valid = [v.id for v in versions if v.status == "valid" and "house" not in v.manifest]
    logged = select(BotLog.bot_version_id).where(
        BotLog.bot_version_id.in_(valid), BotLog.match_id.is_(None)
    )
    return set(valid) - set(s.scalars(logged))


def shown_version(version: BotVersion) -> str:
    """The version as bot.toml gave it; ``NO_VERSION`` when it gave none (stored as "0")."""
    return version.version if "version" in version.manifest else NO_VERSION


def bot_choices(s: Session) -> list[tuple[int, str]]:
    """(id, name) by name: what a selector needs."""
    return [(i, name) for i, name in s.execute(select(Bot.id, Bot.name).order_by(Bot.name))]


def _summary(
    bot_id: int,
    name: str,
    owner: str,
    retired: datetime | None,
    versions: int,
    latest: BotVersion | None,
    trusted: set[int],
) -> BotSummary:
    return BotSummary(
        bot_id,
        name,
        owner,
        versions,
        shown_version(latest) if latest else "",
        latest.status if latest else "",
        retired.date().isoformat() if retired else "",
        latest is not None and latest.id in trusted,
    )


def bot_page(s: Session, bot_id: int) -> BotPage:
    """Built once per results version and change of the bot's versions (a new one, a
    verdict, a retirement): a crowd on a bot's page after a result costs one build."""
    bot = s.get(Bot, bot_id)
    if bot is None:
        raise StoreError(f"no bot with id {bot_id}")
    shape = [(v.id, v.status) for v in bot.versions], bot.retired_at
    return CACHE.get(s, f"bot-page {bot_id} {shape}", None, lambda: _bot_page(s, bot))


def _bot_page(s: Session, bot: Bot) -> BotPage:
    ids = [v.id for v in bot.versions]
    trusted = _trusted(s, bot.versions)
    versions = [
        {
            "id": v.id,
            "version": v.version,
            "shown_version": shown_version(v),
            "status": v.status,
            "trusted": v.id in trusted,
            "reason": public_reason(v.reason),
            "created_at": v.created_at.isoformat(timespec="seconds"),
        }
        for v in bot.versions
    ]
    last = bot.versions[-1] if bot.versions else None
    owner = owners_of(s, [bot.id])[bot.id]
    return BotPage(
        _summary(bot.id, bot.name, owner, bot.retired_at, len(bot.versions), last, trusted),
        versions,
        bot_places(s, bot.id),
        rating_history(s, set(ids)),
        _recent(s, ids),
        _opponents(s, ids),
        _faults(s, ids),
        _fault_matches(s, ids),
    )


def rating_history(s: Session, versions: set[int]) -> list[dict[str, Any]]:
    """The bot's Elo in the latest snapshot of each tournament or ladder it played, oldest
    first."""
    latest = (
        select(func.max(RatingSnapshot.id)).group_by(RatingSnapshot.tournament_id).scalar_subquery()
    )
    query = (
        select(RatingSnapshot, Tournament.name)
        .join(Tournament, Tournament.id == RatingSnapshot.tournament_id)
        .where(RatingSnapshot.id.in_(latest))
        .order_by(RatingSnapshot.tournament_id)
    )
    ladders = {ladder.tournament_id: ladder.name for ladder in list_ladders(s)}
    history = []
    for snap, name in s.execute(query):
        for row in snap.payload.get("standings", []):
            if row["bot_version_id"] in versions:
                history.append(
                    {
                        "tournament": snap.tournament_id,
                        "ladder": ladders.get(snap.tournament_id),
                        "name": name,
                        "rated_at": snap.created_at.isoformat(timespec="seconds"),
                        "version": row["ref"].partition("@")[2],
                        "elo": row["elo"],
                        "ci_low": row["ci_low"],
                        "ci_high": row["ci_high"],
                    }
                )
    return history


def _recent(s: Session, versions: list[int]) -> list[MatchRow]:
    ids = (
        select(GameScore.match_id)
        .where(GameScore.bot_version_id.in_(versions))
        .distinct()
        .order_by(GameScore.match_id.desc())
        .limit(RECENT)
    )
    matches = s.scalars(select(Match).where(Match.id.in_(ids)).order_by(Match.id.desc()))
    return match_rows(s, list(matches))


def _opponents(s: Session, versions: list[int]) -> list[dict[str, Any]]:
    """Mean point margin over each opponent bot in the games they shared, most games first."""
    me, other = aliased(GameScore), aliased(GameScore)
    query = (
        select(Bot.id, Bot.name, func.count(), func.avg(me.points - other.points))
        .select_from(me)
        .join(
            other,
            (other.match_id == me.match_id)
            & (other.game_index == me.game_index)
            & (other.bot_version_id != me.bot_version_id),
        )
        .join(BotVersion, BotVersion.id == other.bot_version_id)
        .join(Bot, Bot.id == BotVersion.bot_id)
        .where(me.bot_version_id.in_(versions))
        .group_by(Bot.id, Bot.name)
        .order_by(func.count().desc(), Bot.name)
    )
    return [
        {"bot_id": bid, "bot": name, "games": n, "margin": float(avg) / 10}
        for bid, name, n, avg in s.execute(query)
    ]


def _faults(s: Session, versions: list[int]) -> dict[str, int]:
    query = (
        select(MatchFault.kind, func.count())
        .where(MatchFault.bot_version_id.in_(versions))
        .group_by(MatchFault.kind)
        .order_by(func.count().desc())
    )
    return {key: n for key, n in s.execute(query)}


def _fault_matches(s: Session, versions: list[int]) -> dict[str, dict[str, Any]]:
    """Per kind of fault: in how many matches the bot made one, and the newest
    ``FAULT_MATCHES`` of them ({"count", "newest"})."""
    query = (
        select(MatchFault.kind, MatchFault.match_id)
        .where(MatchFault.bot_version_id.in_(versions))
        .group_by(MatchFault.kind, MatchFault.match_id)
        .order_by(MatchFault.match_id.desc())
    )
    found: dict[str, dict[str, Any]] = {}
    for kind, match_id in s.execute(query):
        entry = found.setdefault(kind, {"count": 0, "newest": []})
        entry["count"] += 1
        if len(entry["newest"]) < FAULT_MATCHES:
            entry["newest"].append(match_id)
    return found
