"""Moving comparisons on: after each of their matches, and on every recovery tick, the
pairs played so far are summed up; a verdict (or the cap) ends the comparison, otherwise
its next pairs are scheduled, ``DEPTH`` pairs kept ahead of the workers.

Writers take turns on the comparison's tournament row, so two workers finishing matches
at once schedule one pair, and a verdict is reached once."""

from __future__ import annotations

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from arena.comparisons.pairs import read_pairs
from arena.comparisons.promotion import on_verdict
from arena.comparisons.start import add_pairs, bounds_of
from arena.ratings.sprt import Summary, summarise
from arena.store import Database
from arena.store.models import Comparison, Match, utcnow
from arena.store.tournaments import lock_tournament

DEPTH = 2  # pairs scheduled and not yet played (four matches: two workers' worth)
UNPLAYED = "not played: the comparison had its verdict"


def advance(db: Database, comparison_id: int) -> Summary | None:
    """Sum the comparison up, then end it or schedule its next pairs; its summary (None
    for a comparison already ended, which is left as it is)."""
    with db.session() as s:
        comparison = s.get_one(Comparison, comparison_id)
        lock_tournament(s, comparison.tournament_id)
        s.refresh(comparison)
        if comparison.status == "done":
            return None
        bounds = bounds_of(comparison)
        pairs = read_pairs(s, comparison)
        summary = summarise(pairs.diffs, bounds)
        verdict = summary.verdict
        if verdict is None and pairs.open == 0 and pairs.scheduled >= bounds.cap:
            verdict = "not separated"  # pairs lost to failed matches: the cap is spent
        comparison.summary = summary.to_dict() | {"faults": pairs.faults}
        if verdict is not None:
            comparison.status, comparison.verdict = "done", verdict
            comparison.finished_at = utcnow()
            on_verdict(s, comparison)
            _drop_unplayed(s, comparison.tournament_id)
            return summary
        wanted = min(DEPTH - pairs.open, bounds.cap - pairs.scheduled)
        if wanted > 0:
            add_pairs(s, comparison, wanted)
        return summary


def _drop_unplayed(s: Session, tournament_id: int) -> None:
    """Matches scheduled ahead and not yet started end unplayed, with the reason: a worker
    that takes one of their jobs finds nothing to claim."""
    s.execute(
        update(Match)
        .where(Match.tournament_id == tournament_id, Match.status == "pending")
        .values(status="failed", reason=UNPLAYED, lease_expires_at=None)
        .execution_options(synchronize_session=False)
    )


def advance_all(db: Database) -> int:
    """``advance`` every running comparison (the recovery tick's share); how many ran."""
    with db.session(read_only=True) as s:
        running = list(s.scalars(select(Comparison.id).where(Comparison.status == "running")))
    for comparison_id in running:
        advance(db, comparison_id)
    return len(running)


def running_tournaments(db: Database) -> list[int]:
    """The tournaments of the comparisons still running (their matches to play or send)."""
    with db.session(read_only=True) as s:
        query = select(Comparison.tournament_id).where(Comparison.status == "running")
        return list(s.scalars(query.order_by(Comparison.id)))


def comparison_of(db: Database, tournament_id: int) -> int | None:
    """The comparison whose matches the tournament holds, if it is one."""
    with db.session(read_only=True) as s:
        query = select(Comparison.id).where(Comparison.tournament_id == tournament_id)
        return s.scalar(query)
