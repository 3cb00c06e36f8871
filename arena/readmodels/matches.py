"""The match list (filters, paging) and the match page (final table, faults, live state).

Its record (replay or progress) is another read model: ``arena.readmodels.records``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Select, exists, func, select
from sqlalchemy.orm import Session

from arena.players.player import public_reason
from arena.store import (
    Bot,
    BotLog,
    BotVersion,
    GameScore,
    Match,
    MatchFault,
    get_match,
    live_record_state,
)
from arena.store.models import MATCH_STATUSES, Ladder
from arena.store.validations import listed

PER_PAGE = 50
FEW = 2000  # matches a filter may find for its page to be cut from all their ids at once


@dataclass(frozen=True)
class MatchFilter:
    """Every field optional; ``bot`` is a bot id (any of its versions)."""

    tournament: int | None = None
    bot: int | None = None
    status: str | None = None
    faults: bool | None = None
    page: int = 1

    def __post_init__(self) -> None:
        if self.status is not None and self.status not in MATCH_STATUSES:
            raise ValueError(f"status must be one of {', '.join(MATCH_STATUSES)}")
        if self.page < 1:
            raise ValueError("page numbers start at 1")


@dataclass(frozen=True)
class Seat:
    bot_version_id: int
    bot_id: int
    ref: str
    points: float | None  # match total; None until done
    faults: int


@dataclass(frozen=True)
class MatchRow:
    id: int
    tournament_id: int
    table_index: int
    status: str
    seats: list[Seat]
    faults: int
    finished_at: str | None
    reason: str | None = None
    wall_seconds: float | None = None
    ladder: str | None = None  # the standing ladder whose match it is (None: a tournament's)


@dataclass(frozen=True)
class MatchPage:
    rows: list[MatchRow]
    total: int
    page: int
    pages: int
    filter: MatchFilter = field(default_factory=MatchFilter)


def _filtered(query, f: MatchFilter, versions: list[int] | None):
    """``versions``: the filtered bot's version ids, read first: given as values, each
    match is probed on the (match, game, version) index alone (a subquery of the versions
    made Postgres look a version up per game row: 24 ms against 5 at 100,000 games).
    Validation matches are in no list (their owners reach theirs from the bot page)."""
    query = query.where(listed())
    if f.tournament is not None:
        query = query.where(Match.tournament_id == f.tournament)
    if f.status is not None:
        query = query.where(Match.status == f.status)
    if versions is not None:
        played = exists().where(
            GameScore.match_id == Match.id, GameScore.bot_version_id.in_(versions)
        )
        query = query.where(played)
    if f.faults is not None:
        any_fault = exists().where(MatchFault.match_id == Match.id)
        query = query.where(any_fault if f.faults else ~any_fault)
    return query


def match_list(s: Session, f: MatchFilter, per_page: int | None = None) -> MatchPage:
    """Newest first. The bot filter finds the matches the bot has results in."""
    per_page = per_page or PER_PAGE
    versions = None
    if f.bot is not None:
        versions = list(s.scalars(select(BotVersion.id).where(BotVersion.bot_id == f.bot)))
    total = s.scalar(_filtered(select(func.count()).select_from(Match), f, versions)) or 0
    ids = _page_ids(s, f, total, per_page, versions)
    matches = list(s.scalars(select(Match).where(Match.id.in_(ids)).order_by(Match.id.desc())))
    pages = max(1, -(-total // per_page))
    return MatchPage(match_rows(s, matches), total, f.page, pages, f)


def _page_ids(
    s: Session, f: MatchFilter, total: int, per_page: int, versions: list[int] | None
) -> Sequence[int] | Select:
    """The page's ids. Up to ``FEW`` matches, all ids at once, sorted here: walking the id
    index for a sparse filter (one bot's faulty matches) probes most matches for a few hits
    (27 ms against 10 at 100,000 games). Beyond, the index from the nearer end: page 495 of
    500 skips 200 ids from the oldest end instead of 24,700 from the newest."""
    start = (f.page - 1) * per_page
    query = _filtered(select(Match.id), f, versions)
    if total <= FEW:
        return sorted(s.scalars(query), reverse=True)[start : start + per_page]
    if start <= total // 2:
        return query.order_by(Match.id.desc()).limit(per_page).offset(start)
    from_oldest = max(0, total - start - per_page)
    return query.order_by(Match.id).limit(max(0, total - start - from_oldest)).offset(from_oldest)


def match_rows(s: Session, matches: list[Match]) -> list[MatchRow]:
    """Rows with seat names, totals, fault counts and ladder names, in four queries for the
    whole page."""
    ids = [m.id for m in matches]
    versions = {v for m in matches for v in m.seats}
    query = select(BotVersion).where(BotVersion.id.in_(versions))
    names = {v.id: (v.bot_id, v.ref) for v in s.scalars(query)}  # house bots: name alone
    totals = _totals(s, ids)
    faults = _fault_counts(s, ids)
    tournaments = {m.tournament_id for m in matches}
    named = select(Ladder.tournament_id, Ladder.name).where(Ladder.tournament_id.in_(tournaments))
    ladders: dict[int, str] = {tid: name for tid, name in s.execute(named)}
    return [_row(m, names, totals, faults, ladders.get(m.tournament_id)) for m in matches]


def _totals(s: Session, ids: list[int]) -> dict[tuple[int, int], int]:
    query = (
        select(GameScore.match_id, GameScore.bot_version_id, func.sum(GameScore.points))
        .where(GameScore.match_id.in_(ids))
        .group_by(GameScore.match_id, GameScore.bot_version_id)
    )
    return {(m, b): int(p) for m, b, p in s.execute(query)}


def _fault_counts(s: Session, ids: list[int]) -> dict[tuple[int, int], int]:
    query = (
        select(MatchFault.match_id, MatchFault.bot_version_id, func.count())
        .where(MatchFault.match_id.in_(ids))
        .group_by(MatchFault.match_id, MatchFault.bot_version_id)
    )
    return {(m, b): n for m, b, n in s.execute(query)}


def _row(m: Match, names: dict, totals: dict, faults: dict, ladder: str | None) -> MatchRow:
    seats = []
    for v in m.seats:
        tenths = totals.get((m.id, v))
        bot_id, ref = names[v]
        points = None if tenths is None else tenths / 10
        seats.append(Seat(v, bot_id, ref, points, faults.get((m.id, v), 0)))
    finished = m.finished_at.isoformat(timespec="seconds") if m.finished_at else None
    return MatchRow(
        m.id,
        m.tournament_id,
        m.table_index,
        m.status,
        seats,
        sum(seat.faults for seat in seats),
        finished,
        m.reason,
        m.wall_seconds,
        ladder,
    )


@dataclass(frozen=True)
class LiveState:
    """How far a running match has got: a page polls this, not the record."""

    deals: int  # finished deals in its live record
    updated_at: str


@dataclass(frozen=True)
class MatchDetail:
    row: MatchRow
    faults: list[dict[str, Any]]
    live: LiveState | None = None


def live_state(s: Session, match_id: int) -> LiveState | None:
    state = live_record_state(s, match_id)
    if state is None:
        return None
    return LiveState(state.deals, state.updated_at.isoformat(timespec="seconds"))


def match_detail(s: Session, match_id: int) -> MatchDetail:
    match = get_match(s, match_id)
    row = match_rows(s, [match])[0]
    live = live_state(s, match_id) if match.status == "running" else None
    query = select(MatchFault).where(MatchFault.match_id == match_id).order_by(MatchFault.id)
    refs = {seat.bot_version_id: seat.ref for seat in row.seats}
    faults = [
        {
            "bot": refs.get(f.bot_version_id, "?"),
            "entrant": match.seats.index(f.bot_version_id),
            "kind": f.kind,
            "reason": public_reason(f.reason),
            "game": f.game,
            "deal": f.deal,
            "decision": f.decision,
        }
        for f in s.scalars(query)
    ]
    return MatchDetail(row, faults, live)


@dataclass(frozen=True)
class SeatLog:
    """A seat's captured log of one match: whose bot it is decides who may read it."""

    bot_id: int
    version: str
    owner_id: int | None


def seat_logs(s: Session, match_id: int) -> dict[int, SeatLog]:
    """By bot version id, the seats of the match that left a log."""
    query = (
        select(BotVersion.id, BotVersion.bot_id, BotVersion.version, Bot.owner_id)
        .join(Bot, Bot.id == BotVersion.bot_id)
        .join(BotLog, BotLog.bot_version_id == BotVersion.id)
        .where(BotLog.match_id == match_id)
    )
    return {
        vid: SeatLog(bot_id, version, owner) for vid, bot_id, version, owner in s.execute(query)
    }
