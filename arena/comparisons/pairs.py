"""What a comparison's matches add up to: one sample a pair (the candidate's points a deal
minus the baseline's, in the seat they both took against the same opponents), the pairs
still open, and the faults of each version."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from arena.store.models import Comparison, Match, MatchFault
from arena.store.results import match_points

TENTHS = 10  # points are stored in tenths


@dataclass(frozen=True)
class Pairs:
    diffs: list[float]  # finished pairs, in pair order
    scheduled: int
    open: int  # scheduled pairs neither finished nor broken (a match of it failed)
    faults: dict[int, int]  # by version id


def read_pairs(s: Session, comparison: Comparison) -> Pairs:
    """Pair ``k`` is the comparison tournament's tables ``2k`` (baseline) and ``2k + 1``
    (candidate)."""
    rows = s.execute(
        select(Match.id, Match.table_index, Match.status).where(
            Match.tournament_id == comparison.tournament_id
        )
    ).all()
    by_pair: dict[int, dict[int, tuple[int, str]]] = defaultdict(dict)
    for match_id, table, status in rows:
        by_pair[table // 2][table % 2] = (match_id, status)
    per_deal = _points_a_deal(s, [m for m, _, status in rows if status == "done"])
    versions = (comparison.baseline_version_id, comparison.candidate_version_id)
    diffs, still_open = [], 0
    for pair in sorted(by_pair):
        sides = by_pair[pair]
        statuses = [sides.get(k, (0, "failed"))[1] for k in (0, 1)]
        if statuses == ["done", "done"]:
            old, new = (per_deal[(sides[k][0], versions[k])] for k in (0, 1))
            diffs.append(new - old)
        elif "failed" not in statuses:
            still_open += 1
    return Pairs(diffs, len(by_pair), still_open, _faults(s, comparison.tournament_id))


def _points_a_deal(s: Session, match_ids: list[int]) -> dict[tuple[int, int], float]:
    return {
        key: points / TENTHS / max(deals, 1)
        for key, (points, deals) in match_points(s, match_ids).items()
    }


def _faults(s: Session, tournament_id: int) -> dict[int, int]:
    query = (
        select(MatchFault.bot_version_id, func.count())
        .join(Match, Match.id == MatchFault.match_id)
        .where(Match.tournament_id == tournament_id)
        .group_by(MatchFault.bot_version_id)
    )
    return {version: count for version, count in s.execute(query)}
