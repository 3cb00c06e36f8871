"""Standings: the batch rating fit plus per-bot statistics, computed in one place.

Elo is relative to the games fitted: the mean rating of the bots of one tournament (or of
the all-games ladder) is 1500, so the same bot rates differently in different company.
:func:`scale_note` says so, with the model, wherever standings are shown."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.ratings import DEFAULT_MODEL, MODEL_LABELS, BotGameLine, BotStats, Rating, bot_stats, fit
from arena.store import (
    BotVersion,
    Database,
    GameRows,
    game_rows,
    get_tournament,
    latest_rating_snapshot,
    progress,
    save_rating_snapshot,
    set_tournament_status,
)
from arena.store.models import RATED_KINDS
from arena.store.tournaments import lock_tournament
from arena.tournaments.cache import CACHE
from arena.tournaments.extend import extend_if_due
from arena.tournaments.successions import predecessors


@dataclass(frozen=True)
class Standing:
    bot_version_id: int
    ref: str
    rating: Rating
    stats: BotStats


def separated(standing: Standing, above: Standing | None) -> bool:
    """Whether the data separate ``standing`` from the rank ``above`` it: its Elo interval
    is clear of that one's (the first rank always is). Pages and the CLI mark it alike."""
    return above is None or above.rating.ci_low > standing.rating.ci_high


def standings(db: Database, tournament_id: int | None) -> list[Standing]:
    """Every entrant that has played, best rating first (``None``: every game of every
    tournament, the all-games ladder)."""
    with db.session(read_only=True) as s:
        return fitted(s, tournament_id, game_rows(s, tournament_id))


def cached_standings(s: Session, tournament_id: int | None) -> list[Standing]:
    """``standings`` for a page or a matchmaker: the fit is made once per results version
    (``arena.tournaments.cache``) and reused until a result of the scope is recorded."""
    return CACHE.get(
        s,
        "standings",
        tournament_id,
        lambda: fitted(s, tournament_id, game_rows(s, tournament_id)),
    )


def fitted(s: Session, tournament_id: int | None, rows: GameRows) -> list[Standing]:
    """``rank`` of the scope's ``rows`` by its model; a ladder's with the predecessor's
    prior on each new version of a bot (a tournament compares its entrants instead)."""
    ladder = tournament_id is not None and get_tournament(s, tournament_id).kind == "ladder"
    successors = predecessors(s, _bots(rows)) if ladder else None
    return rank(s, rows, model_for(s, tournament_id), successors)


def model_for(s: Session, tournament_id: int | None) -> str:
    """The rating model of a tournament; the ladder's is the default one."""
    if tournament_id is None:
        return DEFAULT_MODEL
    return get_tournament(s, tournament_id).rating_model


def scale_note(model: str, tournament_id: int | None) -> str:
    """One line saying which model produced the Elo and what it is relative to."""
    scope = (
        "every game played (tournaments and ladders)"
        if tournament_id is None
        else "this tournament"
    )
    return (
        f"Elo by {MODEL_LABELS.get(model, model)}; relative to {scope}: the mean of its "
        "bots is 1500, so Elo from different tournaments do not compare"
    )


def rank(
    s: Session,
    rows: GameRows,
    model: str = DEFAULT_MODEL,
    successors: Mapping[int, int] | None = None,
) -> list[Standing]:
    """The rating fit (by ``model``, with the predecessor's prior of ``successors``) and
    statistics of ``rows``; ``s`` only names the versions."""
    versions = s.scalars(select(BotVersion).where(BotVersion.id.in_(_bots(rows))))
    refs = {v.id: v.ref for v in versions}
    ratings = fit(rows.games, rows.groups, model=model, successors=successors)
    lines = (
        BotGameLine(
            g.bot_version_id, g.match_id, g.points / 10, g.deals, g.calls_made, g.deals, g.faults
        )
        for g in rows.lines
    )
    stats = bot_stats(lines)
    table = [Standing(b, refs[b], ratings[b], stats[b]) for b in ratings]
    return sorted(table, key=lambda row: (-row.rating.elo, row.ref))


def finish_tournament(db: Database, tournament_id: int) -> dict[str, int]:
    """Snapshot the ratings and mark the tournament done once every match is; returns the
    count of matches in each status. With adaptive matches left in its budget, it schedules
    the next round instead of marking it done (the count then shows them pending).
    Idempotent: both backends call it whenever a run or a match ends, and a second call
    with nothing new changes nothing. A ladder's tournament only snapshots: it never ends."""
    with db.session(read_only=True) as s:
        status = progress(s, tournament_id)
        standing = get_tournament(s, tournament_id).kind == "ladder"  # never done
    if status["done"]:
        snapshot(db, tournament_id)
    if standing:
        return status
    if status["done"] and not any(status[k] for k in ("pending", "running", "failed")):
        if extend_if_due(db, tournament_id):
            with db.session(read_only=True) as s:
                return progress(s, tournament_id)
        with db.session() as s:
            set_tournament_status(s, tournament_id, "done")
    return status


def snapshot_if_due(db: Database, tournament_id: int) -> bool:
    """Snapshot the ratings when the done count has crossed a step (a tenth of the matches)
    since the latest snapshot: about ten points of rating history per tournament, saved as
    results arrive, and never a fit per result on a big one. When not due it costs three
    indexed reads. True if a snapshot was saved."""
    with db.session(read_only=True) as s:
        total = sum(progress(s, tournament_id).values())
    return snapshot(db, tournament_id, max(1, total // 10))


def snapshot(db: Database, tournament_id: int, step: int = 1) -> bool:
    """Fit the tournament and keep the ratings, labelled with the number of finished
    matches they cover (``done``), unless the latest snapshot covers as many (in steps of
    ``step``). Writers of one tournament take turns on its row, so two workers crossing
    the same step save one snapshot. True if one was saved."""
    with db.session(read_only=True) as s:
        if _covered(s, tournament_id, progress(s, tournament_id)["done"], step):
            return False  # before fitting: the usual case
        if get_tournament(s, tournament_id).kind not in RATED_KINDS:
            return False  # a comparison's or a challenge's matches are rated nowhere
        rows = game_rows(s, tournament_id)
        model = model_for(s, tournament_id)
        table = fitted(s, tournament_id, rows)
    done = len(set(rows.groups))  # the matches in this very fit
    with db.session() as s:
        lock_tournament(s, tournament_id)
        if _covered(s, tournament_id, done, step):
            return False
        save_rating_snapshot(s, tournament_id, _payload(table, done, model))
    return True


def _covered(s: Session, tournament_id: int, done: int, step: int) -> bool:
    """The latest snapshot covers ``done`` finished matches, counted in steps of ``step``
    (a snapshot saved before snapshots said how many counts as none)."""
    latest = latest_rating_snapshot(s, tournament_id)
    last = 0 if latest is None else latest.payload.get("done", 0)
    return done // step <= last // step


def _payload(table: list[Standing], done: int, model: str) -> dict:
    return {
        "done": done,
        "model": model,
        "standings": [
            {
                "bot_version_id": r.bot_version_id,
                "ref": r.ref,
                "elo": r.rating.elo,
                "ci_low": r.rating.ci_low,
                "ci_high": r.rating.ci_high,
                "games": r.rating.games,
                "points_per_deal": r.stats.mean_points_per_deal,
                "faults": r.stats.faults,
            }
            for r in table
        ],
    }


def _bots(rows: GameRows) -> set[int]:
    return {bot for game in rows.games for bot in game}
