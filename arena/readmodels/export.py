"""Bulk export of finished matches as JSON lines, for contestants who train bots on match
data: one row per match (its record as anybody may see it, seeds left out), or one row per
decision of one bot (what it saw, what it could do, what it did, what the deal gave it).

``arena export`` and ``GET /api/v1/export`` both stream ``lines``. Matches are read in
keyset pages of ``PAGE`` ids, each page in a short read-only session of its own, so memory
stays flat however many matches match and no transaction is held open while a slow client
reads. What a row shows is the rule every reader goes through
(``arena.readmodels.records.visible``); a seat's stored log only when ``LogAccess`` lets
the reader see that bot's logs (its owner and organisers, as on the log pages).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Select, exists, func, select
from sqlalchemy.orm import Session

from arena.house.names import parse_house
from arena.players.stdio.json_wire import message_json
from arena.players.wire import observation_to_proto
from arena.proto import bot_pb2 as pb
from arena.readmodels.decision import Turn, game_turns
from arena.readmodels.matches import seat_logs
from arena.readmodels.records import visible
from arena.store import (
    Bot,
    BotVersion,
    Database,
    GameScore,
    Match,
    StoreError,
    Tournament,
    bot_logs,
    find_bot_version,
    get_tournament,
    load_replay_json,
    version_refs,
)
from arena.store.ladders import get_ladder
from arena.store.models import Ladder, as_utc
from arena.store.validations import listed as public_matches

FORMAT = "callbreak-export-match"  # a match row: the record's keys, no seeds, and the below
VERSION = 1
PAGE = 50  # matches read per query and session (their records held until handed out)

#: Whether the reader may see the logs of a bot with this owner id (None: no owner).
LogAccess = Callable[[int | None], bool]


def no_logs(owner_id: int | None) -> bool:
    return False


@dataclass(frozen=True)
class ExportQuery:
    """What to export, as a user writes it (names, not ids); every filter optional."""

    bot: str | None = None  # NAME (every version) or NAME@VERSION
    ladder: str | None = None  # a standing ladder's name: its rules' ("pagat")
    tournament: int | None = None
    since: datetime | None = None  # finished at or after
    decisions: bool = False  # one row per decision of ``bot`` instead of one per match


@dataclass(frozen=True)
class ExportPlan:
    """An ``ExportQuery`` with its names found: what the pages select."""

    versions: tuple[int, ...] | None  # the bot's versions; None: any bot
    tournaments: tuple[int, ...] | None  # None: any tournament (both filters: where they meet)
    since: datetime | None
    decisions: bool


def parse_since(text: str) -> datetime:
    """A date (``2025-03-01``) or an ISO time (``2025-03-01T12:00``, ``...+05:45``); UTC
    unless it names its offset. A ValueError that says how to write it."""
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(
            f"since must be a date (YYYY-MM-DD) or an ISO time (YYYY-MM-DDTHH:MM), not {text!r}"
        ) from None
    return as_utc(moment)


def plan(s: Session, query: ExportQuery) -> ExportPlan:
    """The query's names looked up: StoreError names an unknown bot, version, ladder or
    tournament; ValueError a query that cannot be answered."""
    if query.decisions and not query.bot:
        raise ValueError("decisions are exported for one bot: name it (bot=NAME[@VERSION])")
    versions = None if query.bot is None else _versions(s, query.bot)
    tournaments: set[int] | None = None
    if query.ladder is not None:
        tournaments = {get_ladder(s, query.ladder).tournament_id}
    if query.tournament is not None:
        chosen = {get_tournament(s, query.tournament).id}
        tournaments = chosen if tournaments is None else tournaments & chosen
    since = None if query.since is None else as_utc(query.since).astimezone(UTC)
    found = None if tournaments is None else tuple(tournaments)
    return ExportPlan(versions, found, since, query.decisions)


def _versions(s: Session, ref: str) -> tuple[int, ...]:
    """``NAME@VERSION``: that version; ``NAME``: every version of the bot (a house bot by
    any of its names, ``house:heuristic`` too)."""
    name, at, version = ref.strip().partition("@")
    house = parse_house(name)
    name = house.stored_name if house is not None else name
    if at:
        return (find_bot_version(s, f"{name}@{version}").id,)
    bot = s.scalar(select(Bot).where(Bot.name == name))
    if bot is None:
        raise StoreError(f"no bot named {name!r} (list the bots to see their names)")
    return tuple(s.scalars(select(BotVersion.id).where(BotVersion.bot_id == bot.id)))


def _selected(query: Select, p: ExportPlan) -> Select:
    query = query.where(Match.status == "done", public_matches())  # no validation match
    if p.versions is not None:
        played = exists().where(
            GameScore.match_id == Match.id, GameScore.bot_version_id.in_(p.versions)
        )
        query = query.where(played)
    if p.tournaments is not None:
        query = query.where(Match.tournament_id.in_(p.tournaments))
    if p.since is not None:
        query = query.where(Match.finished_at >= p.since)
    return query


def match_count(s: Session, p: ExportPlan) -> int:
    """How many matches the export reads (a progress bar's length)."""
    return s.scalar(_selected(select(func.count()).select_from(Match), p)) or 0


@dataclass(frozen=True)
class _Listed:
    """A match of a page: its stored record, and what its rows add to it."""

    id: int
    tournament_id: int
    finished_at: datetime | None
    tournament: str
    rotations: int  # the tournament's games per match: a record is whole once it holds all
    ladder: str | None
    versions: list[int]  # by entrant
    seats: list[str]  # their refs
    record: str  # JSON
    logs: dict[str, str]  # by ref: the seats' logs the reader may see


def batches(db: Database, p: ExportPlan, logs: LogAccess = no_logs) -> Iterator[list[dict]]:
    """The export's rows, one list per match in id order (a match's decisions, or its one
    row; none for a match whose cards are not shown yet). A page is read in its own session,
    closed before its rows are made and handed out."""
    after = 0
    while True:
        with db.session(read_only=True) as s:
            page = _page(s, p, after, logs)
        for listed in page:
            yield _rows(p, listed)
        if len(page) < PAGE:
            return
        after = page[-1].id


def lines(db: Database, p: ExportPlan, logs: LogAccess = no_logs) -> Iterator[str]:
    """The export as text: each match's rows as JSON lines, one chunk per match."""
    for rows in batches(db, p, logs):
        if rows:
            yield "".join(json_line(row) for row in rows)


def json_line(row: dict[str, Any]) -> str:
    return json.dumps(row, separators=(",", ":")) + "\n"


def _page(s: Session, p: ExportPlan, after: int, logs: LogAccess) -> list[_Listed]:
    query = (
        select(
            Match.id,
            Match.tournament_id,
            Match.finished_at,
            Tournament.name,
            Tournament.games_per_match,
            Ladder.name,
            Match.seats,
        )
        .join(Tournament, Tournament.id == Match.tournament_id)
        .outerjoin(Ladder, Ladder.tournament_id == Match.tournament_id)
        .where(Match.id > after)
        .order_by(Match.id)
        .limit(PAGE)
    )
    found = s.execute(_selected(query, p)).all()
    refs = version_refs(s, {v for *_, versions in found for v in versions})
    page = []
    for match_id, tournament_id, finished, name, rotations, ladder, versions in found:
        seats = [refs[v] for v in versions]
        readable = _logs(s, match_id, versions, seats, logs)
        record = load_replay_json(s, match_id)
        listed = (match_id, tournament_id, finished, name, rotations, ladder)
        page.append(_Listed(*listed, versions, seats, record, readable))
    return page


def _logs(
    s: Session, match_id: int, versions: list[int], seats: list[str], logs: LogAccess
) -> dict[str, str]:
    if logs is no_logs:
        return {}
    allowed = {v for v, log in seat_logs(s, match_id).items() if logs(log.owner_id)}
    if not allowed:
        return {}
    texts = bot_logs(s, match_id)
    return {seats[e]: texts[v] for e, v in enumerate(versions) if v in allowed}


def _rows(p: ExportPlan, listed: _Listed) -> list[dict]:
    record = visible(json.loads(listed.record), True, listed.rotations)
    if not p.decisions:
        return [_match_row(listed, record)]
    if record.get("progress"):
        return []
    mine = {e for e, v in enumerate(listed.versions) if p.versions and v in p.versions}
    return list(_decisions(listed.id, record, listed.seats, mine))


def _match_row(listed: _Listed, record: dict[str, Any]) -> dict[str, Any]:
    """The record without its seeds, led by the match's id, tournament, ladder, finish and
    seats (``name@version`` by entrant); ``logs`` by ref, for the seats the reader may see."""
    record.pop("seed", None)
    for game in record["games"]:
        game.pop("seed", None)
        for deal in game["deals"]:
            deal.pop("seed", None)
    finished = listed.finished_at and as_utc(listed.finished_at).isoformat(timespec="seconds")
    row = {
        "format": FORMAT,
        "version": VERSION,
        "match": listed.id,
        "tournament": listed.tournament_id,
        "tournament_name": listed.tournament,
        "ladder": listed.ladder,
        "finished_at": finished,
        "seats": listed.seats,
    }
    row.update((key, value) for key, value in record.items() if key not in row)
    if listed.logs:
        row["logs"] = listed.logs
    return row


def _decisions(
    match_id: int, record: dict[str, Any], seats: list[str], entrants: set[int]
) -> Iterator[dict[str, Any]]:
    """A row per decision the bot was asked (not the moves played for it once it forfeited)."""
    for g, game in enumerate(record["games"]):
        mine = {seat: seats[e] for seat, e in enumerate(game["seats"]) if e in entrants}
        if not mine:
            continue
        for turn in game_turns(record, g):
            if turn.seat in mine and not turn.entry.get("auto"):
                yield _decision_row(match_id, g, turn, mine[turn.seat])


def _decision_row(match_id: int, game: int, turn: Turn, ref: str) -> dict[str, Any]:
    obs = turn.game.deal.observation(turn.seat)
    seen = pb.Observation()
    observation_to_proto(obs, game, seen)
    call = turn.kind == "call"
    return {
        "match": match_id,
        "game": game,
        "deal": turn.deal["index"],
        "decision": turn.entry["id"],
        "bot": ref,
        "seat": turn.seat,
        "kind": "call" if call else "card",
        "observation": message_json(seen),
        "legal": list(obs.legal_calls) if call else [str(c) for c in obs.legal_cards],
        "action": turn.move,
        "fault": turn.entry.get("fault"),
        "points": turn.deal["points"][turn.seat],
    }
