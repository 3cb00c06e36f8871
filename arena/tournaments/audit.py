"""The fair-play audit (:mod:`arena.ratings.audit`) of a tournament, or of every tournament,
from stored results: which pairs are tested, and the bots' names.

Pairs tested: every two bot versions of one owner that shared a table (bots without an
owner are the operator's, so they count as one owner), or with ``all_pairs`` every two that
shared a table, for an organiser who suspects bots of different accounts.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from itertools import combinations

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.ratings.audit import Finding, Seating, audit
from arena.store import BotVersion, GameRows, game_rows


@dataclass(frozen=True)
class AuditLine:
    """A finding with the names (``ref``) and bot ids of its bot versions."""

    finding: Finding
    refs: tuple[str, ...]
    bot_ids: tuple[int, ...]


@dataclass(frozen=True)
class AuditReport:
    tournament_id: int | None  # None: every tournament
    all_pairs: bool
    rotation: list[AuditLine]  # most suspicious (smallest p) first
    pairs: list[AuditLine]
    tests: int
    threshold: float

    @property
    def flagged(self) -> list[AuditLine]:
        return [line for line in self.rotation + self.pairs if line.finding.flagged]


def audit_report(s: Session, tournament_id: int | None, all_pairs: bool = False) -> AuditReport:
    """The audit of one tournament's finished matches (``None``: of every tournament)."""
    rows = game_rows(s, tournament_id)
    ids = {line.bot_version_id for line in rows.lines}
    # keyed as the audit's findings name bots: by any hashable (here the version id)
    versions: dict[Hashable, BotVersion] = {
        v.id: v for v in s.scalars(select(BotVersion).where(BotVersion.id.in_(ids)))
    }
    seatings = (
        Seating(g.match_id, g.game_index, g.bot_version_id, g.seat, g.points / 10, g.deals)
        for g in rows.lines
    )
    owner = {v.id: v.bot.owner_id for v in versions.values()}
    pairs = [(a, b) for a, b in tablemates(rows) if all_pairs or owner[a] == owner[b]]
    found = audit(seatings, pairs)

    def named(findings: list[Finding]) -> list[AuditLine]:
        lines = [
            AuditLine(
                f,
                tuple(versions[b].ref for b in f.bots),
                tuple(versions[b].bot_id for b in f.bots),
            )
            for f in findings
        ]
        return sorted(lines, key=lambda x: (x.finding.p is None, x.finding.p or 0.0, x.refs))

    rotation, tested = named(found.rotation), named(found.pairs)
    return AuditReport(tournament_id, all_pairs, rotation, tested, found.tests, found.threshold)


def tablemates(rows: GameRows) -> list[tuple[int, int]]:
    """Every two bot versions that played a game at one table, lower id first."""
    met = {pair for game in rows.games for pair in combinations(sorted(game), 2)}
    return sorted(met)
