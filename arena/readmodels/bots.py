"""Bot list and bot page: versions, ladder standing, rating history (every snapshot, with
the matches that moved each rating), recent matches, head-to-head, faults."""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import groupby
from operator import attrgetter
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
from arena.store.validations import listed
from arena.tournaments.cache import CACHE

RECENT = 20
FAULT_MATCHES = 10  # per kind of fault, the newest matches the bot page links to
NO_VERSION = "—"  # shown for a version bot.toml did not give (stored as "0")
MOVED = 0.05  # an Elo change this small shows as 0.0: the rating did not move


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
class RatingStep:
    """One rating snapshot of a version, and what happened since the one before it."""

    rated_at: str  # when the snapshot was saved (ISO)
    done: int  # the finished matches of the tournament or ladder it fitted
    elo: float
    ci_low: float | None  # None: the data bound no side
    ci_high: float | None
    games: int  # the version's games in the fit
    change: float | None  # Elo since the version's previous snapshot there (None: its first)
    matches: list[int]  # the version's matches fitted since then, in the order recorded
    refit: bool  # no match of its own since then, yet its Elo moved: others' results did


@dataclass(frozen=True)
class VersionRatings:
    bot_version_id: int
    version: str
    steps: list[RatingStep]  # oldest first
    unrated: list[int]  # its matches recorded after its latest snapshot


@dataclass(frozen=True)
class RatedScope:
    """A tournament or ladder that rated versions of the bot; its Elo are its own."""

    tournament: int
    ladder: str | None  # the ladder's name; None: a tournament
    name: str  # the tournament's (or ladder's row's)
    versions: list[VersionRatings]


@dataclass(frozen=True)
class BotPage:
    summary: BotSummary
    versions: list[dict[str, Any]]
    ladders: list[LadderPlace]  # its current version in each ladder that seats it
    # {"tournament", "ladder" (a name; None: a tournament), "name" (the tournament's),
    #  "rated_at" (the snapshot's time), "version", "elo", "ci_low", "ci_high"}
    history: list[dict[str, Any]]
    version_history: list[RatedScope]  # every snapshot of each version, the oldest first
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
    verdict, a retirement) or rating snapshot (saved just after the result it covers): a
    crowd on a bot's page after a result costs one build."""
    bot = s.get(Bot, bot_id)
    if bot is None:
        raise StoreError(f"no bot with id {bot_id}")
    snapshot = s.scalar(select(func.max(RatingSnapshot.id)))
    shape = [(v.id, v.status) for v in bot.versions], bot.retired_at, snapshot
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
    scopes = version_rating_history(s, bot.versions)
    return BotPage(
        _summary(bot.id, bot.name, owner, bot.retired_at, len(bot.versions), last, trusted),
        versions,
        bot_places(s, bot.id),
        _latest_ratings(scopes),
        scopes,
        _recent(s, ids),
        _opponents(s, ids),
        _faults(s, ids),
        _fault_matches(s, ids),
    )


def version_rating_history(s: Session, versions: Sequence[BotVersion]) -> list[RatedScope]:
    """Every rating snapshot of ``versions`` in each tournament or ladder that rated them
    (by tournament id, then version id), each with the matches that version played since
    its previous snapshot there, or the re-fit that moved it without one.

    A snapshot's row says how many of the version's games the fit covered; its matches,
    taken in the order they were recorded, fill that count. So "no match since" is the
    fit's own word, whatever the clocks of the workers that recorded them."""
    shown = {v.id: shown_version(v) for v in versions}
    queues = {key: deque(played) for key, played in _matches_by_scope(s, list(shown)).items()}
    query = (
        select(RatingSnapshot)
        .where(RatingSnapshot.tournament_id.in_(sorted({t for t, _ in queues})))
        .order_by(RatingSnapshot.tournament_id, RatingSnapshot.id)
    )
    steps: dict[tuple[int, int], list[RatingStep]] = {}
    for tournament_id, snapshots in groupby(s.scalars(query), attrgetter("tournament_id")):
        for i, snap in enumerate(snapshots):
            for row in snap.payload.get("standings", []):
                key = (tournament_id, row["bot_version_id"])
                if key in queues:
                    earlier = steps.setdefault(key, [])
                    before = earlier[-1] if earlier else None
                    earlier.append(
                        _step(snap, snap.payload.get("done", i), row, before, queues[key])
                    )
    rated = sorted({t for t, _ in steps})
    names = dict(
        s.execute(select(Tournament.id, Tournament.name).where(Tournament.id.in_(rated))).all()
    )
    ladders = {ladder.tournament_id: ladder.name for ladder in list_ladders(s)}
    scopes: dict[int, list[VersionRatings]] = {}
    for (tournament_id, version), its_steps in sorted(steps.items()):
        unrated = [match_id for match_id, _ in queues[tournament_id, version]]
        ratings = VersionRatings(version, shown[version], its_steps, unrated)
        scopes.setdefault(tournament_id, []).append(ratings)
    return [RatedScope(t, ladders.get(t), names[t], scopes[t]) for t in rated]


def _matches_by_scope(
    s: Session, versions: list[int]
) -> dict[tuple[int, int], list[tuple[int, int]]]:
    """Per (tournament, version): its finished matches as (id, games), in the order
    recorded."""
    query = (
        select(
            Match.tournament_id,
            GameScore.bot_version_id,
            GameScore.match_id,
            func.count(GameScore.game_index.distinct()),
        )
        .join(Match, Match.id == GameScore.match_id)
        .where(GameScore.bot_version_id.in_(versions))
        .group_by(
            Match.tournament_id, GameScore.bot_version_id, GameScore.match_id, Match.finished_at
        )
        .order_by(Match.finished_at, GameScore.match_id)
    )
    played: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for tournament_id, version, match_id, games in s.execute(query):
        played.setdefault((tournament_id, version), []).append((match_id, games))
    return played


def _step(
    snap: RatingSnapshot,
    done: int,
    row: dict[str, Any],
    before: RatingStep | None,
    queue: deque[tuple[int, int]],
) -> RatingStep:
    """The version's ``row`` of ``snap``, with the matches its fit added since ``before``
    (taken off ``queue``: (id, games) in the order recorded)."""
    covered = row["games"] - (before.games if before else 0)
    matches = []
    while queue and queue[0][1] <= covered:
        match_id, games = queue.popleft()
        matches.append(match_id)
        covered -= games
    change = None if before is None else row["elo"] - before.elo
    return RatingStep(
        snap.created_at.isoformat(timespec="seconds"),
        done,
        row["elo"],
        row["ci_low"],
        row["ci_high"],
        row["games"],
        change,
        matches,
        change is not None and not matches and abs(change) >= MOVED,
    )


def _latest_ratings(scopes: list[RatedScope]) -> list[dict[str, Any]]:
    """Each version's latest snapshot in each tournament or ladder: where it stands now."""
    return [
        {
            "tournament": scope.tournament,
            "ladder": scope.ladder,
            "name": scope.name,
            "rated_at": rated.steps[-1].rated_at,
            "version": rated.version,
            "elo": rated.steps[-1].elo,
            "ci_low": rated.steps[-1].ci_low,
            "ci_high": rated.steps[-1].ci_high,
        }
        for scope in scopes
        for rated in scope.versions
    ]


def _recent(s: Session, versions: list[int]) -> list[MatchRow]:
    ids = (
        select(GameScore.match_id)
        .join(Match, Match.id == GameScore.match_id)
        .where(GameScore.bot_version_id.in_(versions), listed())
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
        .join(Match, Match.id == me.match_id)
        .where(me.bot_version_id.in_(versions), listed())
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
        .join(Match, Match.id == MatchFault.match_id)
        .where(MatchFault.bot_version_id.in_(versions), listed())
        .group_by(MatchFault.kind)
        .order_by(func.count().desc())
    )
    return {key: n for key, n in s.execute(query)}


def _fault_matches(s: Session, versions: list[int]) -> dict[str, dict[str, Any]]:
    """Per kind of fault: in how many matches the bot made one, and the newest
    ``FAULT_MATCHES`` of them ({"count", "newest"})."""
    query = (
        select(MatchFault.kind, MatchFault.match_id)
        .join(Match, Match.id == MatchFault.match_id)
        .where(MatchFault.bot_version_id.in_(versions), listed())
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
