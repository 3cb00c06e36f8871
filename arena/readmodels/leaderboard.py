"""The leaderboard: standings of one tournament or of every game, ready to draw (a
standing ladder's ranking is drawn by the same rows: ``arena.readmodels.ladder``).

Each row carries its Elo interval as positions on an axis shared by all rows, so the page
draws error bars without arithmetic, and a flag saying whether its interval overlaps the
row above (ranks not separated by the data).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from arena.readmodels.validations import shown_tournament
from arena.store import BotVersion, Match, StoreError, Tournament, TournamentEntry, owners_of
from arena.tournaments.cache import Scope
from arena.tournaments.standings import (
    Standing,
    cached_standings,
    model_for,
    scale_note,
    separated,
)

AXIS_PAD = 0.05
ORGANISED = Tournament.kind == "tournament"  # a ladder's row is a tournament of kind "ladder"


@dataclass(frozen=True)
class Bar:
    """Percent positions on the shared axis; an open side runs to the axis edge."""

    low: float
    mid: float
    high: float
    open_low: bool
    open_high: bool


@dataclass(frozen=True)
class Row:
    rank: int
    bot_version_id: int
    bot_id: int
    bot: str
    owner: str  # arena.store.owners_of: shown beside the name
    version: str
    elo: float
    elo_low: float | None  # None: unbounded by the data
    elo_high: float | None
    points_per_deal: float | None
    ppd_low: float | None
    ppd_high: float | None
    games: int
    call_success: float | None
    faults: int
    separated: bool  # False: its interval overlaps the row above
    bar: Bar


@dataclass(frozen=True)
class Leaderboard:
    scope: Scope
    title: str
    model: str  # the rating model behind the Elo (a name in arena.ratings.MODELS)
    scale: str  # which model, and what the Elo is relative to, in one line
    rows: list[Row]
    axis: tuple[float, float]
    ticks: list[tuple[float, float]]  # (Elo, percent)


def default_scope(s: Session) -> Scope:
    """The latest finished tournament, else the latest one, else every game (a standing
    ladder's tournament row is never chosen: it has its own page)."""
    latest = select(func.max(Tournament.id)).where(ORGANISED)
    latest_done = s.scalar(latest.where(Tournament.status == "done"))
    return latest_done or s.scalar(latest)


@dataclass(frozen=True)
class DefaultChoice:
    """Why the leaderboard shows this tournament when none was asked for (``default_scope``)."""

    tournament: int
    finished: bool  # False: no tournament has finished, so the latest one
    matches: int  # played to the end
    entrants: int
    created_at: str


def default_choice(s: Session, scope: Scope) -> DefaultChoice | None:
    """``scope`` (what ``default_scope`` chose) described; None for every game."""
    if scope is None:
        return None
    tournament = s.get(Tournament, scope)
    if tournament is None:
        raise StoreError(f"no tournament with id {scope}")
    done = select(func.count()).where(Match.tournament_id == scope, Match.status == "done")
    entrants = select(func.count()).where(TournamentEntry.tournament_id == scope)
    return DefaultChoice(
        scope,
        tournament.status == "done",
        s.scalar(done) or 0,
        s.scalar(entrants) or 0,
        tournament.created_at.isoformat(timespec="seconds"),
    )


def leaderboard(s: Session, scope: Scope) -> Leaderboard:
    title = title_of(s, scope)  # first: an unknown scope fits nothing
    table = cached_standings(s, scope)
    model = model_for(s, scope)
    return drawn(s, table, scope, title, model, scale_note(model, scope))


def drawn(
    s: Session, table: list[Standing], scope: Scope, title: str, model: str, scale: str
) -> Leaderboard:
    """``table`` (best first) as rows ranked 1, 2, ... on one axis, each saying whether
    its interval overlaps the row above."""
    axis = _axis(table)
    ids = [st.bot_version_id for st in table]
    query = select(BotVersion.id, BotVersion.bot_id).where(BotVersion.id.in_(ids))
    bots = {version: bot for version, bot in s.execute(query)}
    owners = owners_of(s, bots.values())
    rows = [
        _row(i, st, table[i - 1] if i else None, axis, bots[st.bot_version_id], owners)
        for i, st in enumerate(table)
    ]
    return Leaderboard(scope, title, model, scale, rows, axis, _ticks(axis))


def title_of(s: Session, scope: Scope) -> str:
    if scope is None:
        return "All games (tournaments and ladders)"
    name = shown_tournament(s, scope).name
    return f"#{scope} {name}"  # as the selector names it: a made name says "Tournament N"


def _row(
    i: int,
    st: Standing,
    above: Standing | None,
    axis: tuple[float, float],
    bot_id: int,
    owners: dict[int, str],
) -> Row:
    r, stats = st.rating, st.stats
    bot, _, version = st.ref.partition("@")  # a house bot's ref is its name alone
    return Row(
        rank=i + 1,
        bot_version_id=st.bot_version_id,
        bot_id=bot_id,
        bot=bot,
        owner=owners[bot_id],
        version=version,
        elo=r.elo,
        elo_low=finite(r.ci_low),
        elo_high=finite(r.ci_high),
        points_per_deal=finite(stats.mean_points_per_deal),
        ppd_low=finite(stats.ci_low),
        ppd_high=finite(stats.ci_high),
        games=r.games,
        call_success=finite(stats.call_success_rate),
        faults=stats.faults,
        separated=separated(st, above),
        bar=_bar(r.elo, r.ci_low, r.ci_high, axis),
    )


def finite(x: float) -> float | None:
    """JSON and templates get None for an unbounded or undefined number."""
    return x if math.isfinite(x) else None


def _axis(table: list[Standing]) -> tuple[float, float]:
    values = [
        v
        for st in table
        for v in (st.rating.elo, st.rating.ci_low, st.rating.ci_high)
        if math.isfinite(v)
    ]
    if not values:
        return (1400.0, 1600.0)
    low, high = min(values), max(values)
    pad = max(10.0, (high - low) * AXIS_PAD)
    return (low - pad, high + pad)


def _at(x: float, axis: tuple[float, float]) -> float:
    low, high = axis
    return round(100 * min(1.0, max(0.0, (x - low) / (high - low))), 2)


def _bar(elo: float, low: float, high: float, axis: tuple[float, float]) -> Bar:
    return Bar(
        low=0.0 if not math.isfinite(low) else _at(low, axis),
        mid=_at(elo, axis),
        high=100.0 if not math.isfinite(high) else _at(high, axis),
        open_low=not math.isfinite(low),
        open_high=not math.isfinite(high),
    )


def _ticks(axis: tuple[float, float]) -> list[tuple[float, float]]:
    """At most six round values: their labels must fit a 14rem axis side by side."""
    low, high = axis
    steps = (10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000, 10_000, 25_000)
    step = next((s for s in steps if (high - low) / s <= 5), math.ceil((high - low) / 5))
    first = math.ceil(low / step) * step
    return [(v, _at(v, axis)) for v in range(int(first), int(high) + 1, step)]
