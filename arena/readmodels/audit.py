"""The fair-play audit as organisers see it: cached per scope and results version, like
the standings (a page never refits), and the lines of one bot for its page."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from arena.ratings.audit import NEEDS
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

    @property
    def tested(self) -> bool:
        return any(line.finding.p is not None for line in self.rotation + self.pairs)


def audit_for(s: Session, scope: Scope) -> AuditReport:
    """Same-owner pairs; cached until a result of the scope is recorded."""
    return CACHE.get(s, "audit", scope, lambda: audit_report(s, scope))


def bot_audit(s: Session, bot_id: int) -> BotAudit:
    """The bot's lines in the audit of every tournament (same-owner pairs)."""
    report = audit_for(s, None)

    def mine(lines: list[AuditLine]) -> list[AuditLine]:
        return [line for line in lines if bot_id in line.bot_ids]

    return BotAudit(mine(report.rotation), mine(report.pairs), report.tests, report.threshold)
