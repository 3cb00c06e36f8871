"""The regression gate: every newly valid version of a bot that had a current version plays
it in a comparison (``start``), whatever the bot's promotion policy; under "now" it took
the seat at validation, and the comparison only informs. A bot's first valid version
needs none.

The gate pulls (``promotion.ungated``), so it is idempotent and safe on many hosts: it
looks after a validation, and on every recovery tick or local ladder round."""

from __future__ import annotations

from sqlalchemy import exists, select
from sqlalchemy.orm import Session

from arena.comparisons.advance import advance
from arena.comparisons.errors import ComparisonRefused
from arena.comparisons.promotion import ungated
from arena.comparisons.start import create_comparison, rival_versions
from arena.ladders.entrants import ANCHORS
from arena.ratings.sprt import Bounds
from arena.runtime import Runtime
from arena.store import Bot, BotVersion, Database
from arena.store.models import Comparison


def open_gates(db: Database, runtime: Runtime, bounds: Bounds | None = None) -> list[int]:
    """Start the comparisons new versions are owed (their first pairs scheduled); their ids.
    ``bounds``: the test's (default: capped at the settings' ``comparison_pairs``)."""
    with db.session(read_only=True) as s:
        waiting = [v.id for v in ungated(s)]
    if not waiting:
        return []
    rivals = rival_versions(db, runtime, ANCHORS)
    started = []
    for version_id in waiting:
        with db.session() as s:
            comparison_id = _gate(s, version_id, rivals, bounds or _bounds(runtime))
        if comparison_id is not None:
            advance(db, comparison_id)
            started.append(comparison_id)
    return started


def _gate(s: Session, version_id: int, rivals: list[BotVersion], bounds: Bounds) -> int | None:
    candidate = s.get_one(BotVersion, version_id)
    s.scalar(select(Bot.id).where(Bot.id == candidate.bot_id).with_for_update())
    taken = exists().where(Comparison.candidate_version_id == version_id, Comparison.gate)
    baseline = s.get(BotVersion, candidate.replaces_id)
    if s.scalar(select(taken)) or baseline is None or baseline.status != "valid":
        return None  # another host's gate took it meanwhile, or nothing to play
    try:
        comparison = create_comparison(s, baseline, candidate, rivals, bounds, gate=True)
    except ComparisonRefused:  # it plays no ladder's rules: there is nothing to compare on
        return None
    comparison.promoted = candidate.bot.current_version_id == candidate.id
    return comparison.id


def _bounds(runtime: Runtime) -> Bounds:
    return Bounds(cap=runtime.settings.comparison_pairs)
