"""The fair-play audit as organisers see it: cached per scope, results version and number of
judged matches (a hindsight stored later changes the decision lines, not the results), like
the standings (a page never refits), and the lines of one bot for its page."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy.orm import Session

from arena.ratings.audit import NEEDS
from arena.store.hindsights import Coverage, coverage
from arena.tournaments.audit import AuditLine, AuditReport, audit_report
from arena.tournaments.cache import CACHE, Scope


@dataclass(frozen=True)
class BotAudit:
    """The lines of the platform-wide audit that concern one bot (any of its versions)."""

    rotation: list[AuditLine]
    pairs: list[AuditLine]
    tests: int  # of the whole audit: its threshold is FAMILY_ALPHA / tests
    threshold: float
    needs: str = NEEDS  # what a test needs, for "too little data"
    decisions: list[AuditLine] = field(default_factory=list)
    decision_pairs: list[AuditLine] = field(default_factory=list)
    judged: Coverage = field(default_factory=Coverage)  # the platform's matches judged

    @property
    def tested(self) -> bool:
        return any(line.finding.p is not None for line in self.rotation + self.pairs)

    @property
    def decision_lines(self) -> list[AuditLine]:
        return self.decisions + self.decision_pairs


def audit_for(s: Session, scope: Scope) -> AuditReport:
    """Same-owner points pairs; cached until a result of the scope is recorded or one more
    of its matches is judged (one grouped count of its hindsights)."""
    judged = coverage(s, scope).done
    return CACHE.get(s, f"audit/{judged}", scope, lambda: audit_report(s, scope))


def bot_audit(s: Session, bot_id: int) -> BotAudit:
    """The bot's lines in the audit of every tournament (same-owner pairs)."""
    report = audit_for(s, None)

    def mine(lines: list[AuditLine]) -> list[AuditLine]:
        return [line for line in lines if bot_id in line.bot_ids]

    return BotAudit(
        mine(report.rotation),
        mine(report.pairs),
        report.tests,
        report.threshold,
        decisions=mine(report.decisions),
        decision_pairs=mine(report.decision_pairs),
        judged=report.judged,
    )
