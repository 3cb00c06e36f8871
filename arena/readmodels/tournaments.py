"""Tournament list and tournament page: progress, standings, rating history, head-to-head."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from arena.readmodels.headtohead import Cell, head_to_head
from arena.readmodels.leaderboard import ORGANISED, Leaderboard, leaderboard
from arena.readmodels.validations import shown_tournament
from arena.store import (
    BotVersion,
    Match,
    RatingSnapshot,
    Tournament,
    TournamentEntry,
    game_rows,
    owners_of,
)
from arena.store.models import MATCH_STATUSES, TournamentRun
from arena.tournaments.background import is_active
from arena.tournaments.cache import CACHE, note_results_version


@dataclass(frozen=True)
class Progress:
    counts: dict[str, int]

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def done(self) -> int:
        return self.counts.get("done", 0)

    def as_dict(self) -> dict[str, Any]:
        return {"done": self.done, "total": self.total, **self.counts}


@dataclass(frozen=True)
class TournamentSummary:
    id: int
    name: str
    status: str  # as stored: draft, running or done
    created_at: str
    entrants: int
    progress: Progress
    snapshots: int  # rating snapshots: the live page redraws the chart when this grows
    stopped: bool = False  # a draft that was started and stopped (or its run interrupted)

    @property
    def state(self) -> str:
        """What pages show: the status, except "stopped" for a draft played part-way."""
        return "stopped" if self.stopped else self.status

    def as_dict(self) -> dict[str, Any]:
        keys = ("id", "name", "status", "state", "created_at", "entrants", "snapshots")
        return {**{k: getattr(self, k) for k in keys}, "progress": self.progress.as_dict()}


@dataclass(frozen=True)
class Entrant:
    bot_id: int
    bot: str
    version: str  # "" for a house bot
    owner: str


@dataclass(frozen=True)
class Controls:
    """Which organiser buttons apply: Start while nothing plays it and it is not done (a
    run the dashboard started and that ended early counts as nothing); Stop while a run the
    dashboard started is active and the tournament is not done (a Celery run stays active
    until stopped, and a run process lingers a moment after the last match). ``elsewhere``:
    running, but not from the dashboard (the command line's run: stopped where it runs)."""

    start: bool
    stop: bool
    elsewhere: bool


@dataclass(frozen=True)
class TournamentPage:
    summary: TournamentSummary
    rules: dict[str, Any]
    clock: dict[str, Any]
    games_per_match: int
    history: list[dict[str, Any]]  # one series per bot: {"bot": ref, "points": [[done, elo]]}
    entrants: list[Entrant]
    controls: Controls


@dataclass(frozen=True)
class Standings:
    board: Leaderboard
    matrix: list[list[Cell | None]]  # head-to-head, rows and columns in board order


def _progress_of(s: Session, ids: list[int]) -> dict[int, Progress]:
    counts: dict[int, dict[str, int]] = defaultdict(lambda: dict.fromkeys(MATCH_STATUSES, 0))
    query = (
        select(Match.tournament_id, Match.status, func.count())
        .where(Match.tournament_id.in_(ids))
        .group_by(Match.tournament_id, Match.status)
    )
    for tid, status, n in s.execute(query):
        counts[tid][status] = n
    for tid in ids:
        note_results_version(s, tid, counts[tid]["done"])
    return {tid: Progress(counts[tid]) for tid in ids}


def _entrants_of(s: Session, ids: list[int]) -> dict[int, int]:
    query = (
        select(TournamentEntry.tournament_id, func.count())
        .where(TournamentEntry.tournament_id.in_(ids))
        .group_by(TournamentEntry.tournament_id)
    )
    return {key: n for key, n in s.execute(query)}


def _snapshots_of(s: Session, ids: list[int]) -> dict[int, int]:
    query = (
        select(RatingSnapshot.tournament_id, func.count())
        .where(RatingSnapshot.tournament_id.in_(ids))
        .group_by(RatingSnapshot.tournament_id)
    )
    return {key: n for key, n in s.execute(query)}


def _stopped_runs(s: Session, ids: list[int]) -> set[int]:
    query = select(TournamentRun.tournament_id).where(
        TournamentRun.tournament_id.in_(ids), TournamentRun.stopped_at.is_not(None)
    )
    return set(s.scalars(query))


def _summaries(s: Session, tournaments: list[Tournament]) -> list[TournamentSummary]:
    ids = [t.id for t in tournaments]
    progress, entrants = _progress_of(s, ids), _entrants_of(s, ids)
    snapshots, stopped = _snapshots_of(s, ids), _stopped_runs(s, ids)
    return [
        TournamentSummary(
            t.id,
            t.name,
            t.status,
            t.created_at.isoformat(timespec="seconds"),
            entrants.get(t.id, 0),
            progress[t.id],
            snapshots.get(t.id, 0),
            t.status == "draft"
            and (t.id in stopped or progress[t.id].counts["pending"] < progress[t.id].total),
        )
        for t in tournaments
    ]


def tournament_list(s: Session) -> list[TournamentSummary]:
    """Newest first; not the standing ladders' rows (``arena.readmodels.ladder``)."""
    query = select(Tournament).where(ORGANISED).order_by(Tournament.id.desc())
    return _summaries(s, list(s.scalars(query)))


def tournament_summary(s: Session, tournament_id: int) -> TournamentSummary:
    return _summaries(s, [shown_tournament(s, tournament_id)])[0]


def tournament_page(s: Session, tournament_id: int) -> TournamentPage:
    tournament = shown_tournament(s, tournament_id)
    return TournamentPage(
        summary=_summaries(s, [tournament])[0],
        rules=tournament.ruleset,
        clock=tournament.clock,
        games_per_match=tournament.games_per_match,
        history=rating_history(s, tournament_id),
        entrants=_entrant_list(s, tournament),
        controls=_controls(s, tournament),
    )


def _entrant_list(s: Session, tournament: Tournament) -> list[Entrant]:
    """In entrant order (the house bots that fill empty seats are entrants too)."""
    query = (
        select(BotVersion)
        .join(TournamentEntry, TournamentEntry.bot_version_id == BotVersion.id)
        .where(TournamentEntry.tournament_id == tournament.id)
        .order_by(TournamentEntry.entrant_index)
    )
    versions = list(s.scalars(query))
    owners = owners_of(s, [v.bot_id for v in versions])
    return [
        Entrant(v.bot_id, v.bot.name, v.ref.partition("@")[2], owners[v.bot_id]) for v in versions
    ]


def _controls(s: Session, tournament: Tournament) -> Controls:
    run = s.get(TournamentRun, tournament.id)
    active = run is not None and is_active(run)
    elsewhere = tournament.status == "running" and run is None
    done = tournament.status == "done"
    start = not active and not done and not elsewhere
    return Controls(start, active and not done, elsewhere)


def standings_table(s: Session, tournament_id: int) -> Standings:
    """The leaderboard and head-to-head matrix, both cached until a result arrives."""
    board = leaderboard(s, tournament_id)
    cells = CACHE.get(s, "h2h", tournament_id, lambda: head_to_head(game_rows(s, tournament_id)))
    order = [row.bot_version_id for row in board.rows]
    return Standings(board, [[cells.get((a, b)) for b in order] for a in order])


def tournament_choices(s: Session) -> list[tuple[int, str, str]]:
    """(id, name, state), newest first: what a selector needs, without counting matches
    (ladders aside). A draft is "stopped" once a match of it left the pending state or a
    run of it was stopped (``TournamentSummary.state``)."""
    query = select(Tournament.id, Tournament.name, Tournament.status).where(ORGANISED)
    rows = list(s.execute(query.order_by(Tournament.id.desc())))
    drafts = [i for i, _, status in rows if status == "draft"]
    played = select(Match.tournament_id).where(
        Match.tournament_id.in_(drafts), Match.status != "pending"
    )
    stopped = set(s.scalars(played.distinct())) | _stopped_runs(s, drafts)
    return [(i, name, "stopped" if i in stopped else status) for i, name, status in rows]


def rating_history(s: Session, tournament_id: int) -> list[dict[str, Any]]:
    """Elo of each bot in each rating snapshot of the tournament, oldest first, against
    the number of matches done (the snapshot's number for those that do not say)."""
    query = (
        select(RatingSnapshot.payload)
        .where(RatingSnapshot.tournament_id == tournament_id)
        .order_by(RatingSnapshot.id)
    )
    series: dict[str, list[list[float]]] = {}
    for i, payload in enumerate(s.scalars(query)):
        for row in payload.get("standings", []):
            series.setdefault(row["ref"], []).append([payload.get("done", i), row["elo"]])
    return [{"bot": ref, "points": points} for ref, points in series.items()]
