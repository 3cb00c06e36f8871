"""Standings: the batch rating fit plus per-bot statistics, computed in one place."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.ratings import BotGameLine, BotStats, Rating, bot_stats, fit
from arena.store import (
    BotVersion,
    Database,
    GameRows,
    game_rows,
    latest_rating_snapshot,
    progress,
    save_rating_snapshot,
    set_tournament_status,
)
from arena.store.results import finite_json as _finite


@dataclass(frozen=True)
class Standing:
    bot_version_id: int
    ref: str
    rating: Rating
    stats: BotStats


def standings(db: Database, tournament_id: int | None) -> list[Standing]:
    """Every entrant that has played, best rating first (``None``: every game of every
    tournament, the all-games ladder)."""
    with db.session(read_only=True) as s:
        rows = game_rows(s, tournament_id)
        return rank(s, rows)


def rank(s: Session, rows: GameRows) -> list[Standing]:
    """The rating fit and statistics of ``rows``; ``s`` only names the versions."""
    versions = s.scalars(select(BotVersion).where(BotVersion.id.in_(_bots(rows))))
    refs = {v.id: v.ref for v in versions}
    ratings = fit(rows.games, rows.groups)
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
    count of matches in each status. Idempotent: both backends call it whenever a run or a
    match ends, and a second call with nothing new changes nothing."""
    with db.session(read_only=True) as s:
        status = progress(s, tournament_id)
    if status["done"]:
        save_snapshot(db, tournament_id, standings(db, tournament_id))
    if status["done"] and not any(status[k] for k in ("pending", "running", "failed")):
        with db.session() as s:
            set_tournament_status(s, tournament_id, "done")
    return status


def save_snapshot(db: Database, tournament_id: int, table: list[Standing]) -> None:
    """Keep the ratings table unless the latest snapshot already holds the same one."""
    payload = {
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
        ]
    }
    with db.session() as s:
        latest = latest_rating_snapshot(s, tournament_id)
        if latest is None or latest.payload != _finite(payload):
            save_rating_snapshot(s, tournament_id, payload)


def _bots(rows: GameRows) -> set[int]:
    return {bot for game in rows.games for bot in game}
