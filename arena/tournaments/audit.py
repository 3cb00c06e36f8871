"""The fair-play audit (:mod:`arena.ratings.audit`) of a tournament, or of every tournament,
from stored results: which pairs are tested, and the bots' names.

Points pairs tested: every two bot versions of one owner that shared a table (bots without
an owner, house bots among them, are the operator's, so they count as one owner), or with
``all_pairs`` every two that shared a table, for an organiser who suspects bots of
different accounts.

Decisions: the done hindsights of the scope's finished matches (``arena.audits`` judges
them) as ``Trial``s, one per telling decision the bot followed the truth or its knowledge
in. The decision pair test costs no card luck, so it runs on every two judged bot versions
that shared a table whatever their owners (colluders use two accounts); a house bot is not
judged and tells no one its hand, so pairs with one are left out, as are bots with no
judged trial yet.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from itertools import combinations

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.ratings.audit import Finding, Seating, audit
from arena.store import BotVersion, GameRows, game_rows
from arena.store.hindsights import (
    Coverage,
    Judged,
    coverage,
    documents,
    hindsights_of,
    trials_of,
)

MAX_EVIDENCE = 10  # telling decisions shown per decision line


@dataclass(frozen=True)
class Evidence:
    """A telling decision where the bot followed what it should not have known: in a
    match's later game (the truth), or given its partner's hand; where it is in the replay
    (game, deal from 0; step in the deal from 1) and the record's decision id."""

    match_id: int
    bot_version_id: int
    game: int
    deal: int
    step: int
    decision: int | None


@dataclass(frozen=True)
class AuditLine:
    """A finding with the names (``ref``) and bot ids of its bot versions."""

    finding: Finding
    refs: tuple[str, ...]
    bot_ids: tuple[int, ...]
    evidence: tuple[Evidence, ...] = ()  # a decision line's first MAX_EVIDENCE hits


@dataclass(frozen=True)
class AuditReport:
    tournament_id: int | None  # None: every tournament
    all_pairs: bool
    rotation: list[AuditLine]  # most suspicious (smallest p) first
    pairs: list[AuditLine]
    tests: int
    threshold: float
    decisions: list[AuditLine] = field(default_factory=list)
    decision_pairs: list[AuditLine] = field(default_factory=list)
    judged: Coverage = field(default_factory=Coverage)  # the scope's hindsights by state

    @property
    def lines(self) -> list[AuditLine]:
        return self.decisions + self.rotation + self.decision_pairs + self.pairs

    @property
    def flagged(self) -> list[AuditLine]:
        return [line for line in self.lines if line.finding.flagged]


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
    met = tablemates(rows)
    pairs = [(a, b) for a, b in met if all_pairs or owner[a] == owner[b]]
    judged = documents(s, {match_id for match_id, _ in rows.keys})
    trials = trials_of(judged)
    judged_bots = {t.bot for t in trials}  # never a house bot's
    decision_pairs = [(a, b) for a, b in met if a in judged_bots and b in judged_bots]
    found = audit(seatings, pairs, trials, decision_pairs)
    hits = evidence(judged)

    def named(findings: list[Finding]) -> list[AuditLine]:
        lines = [
            AuditLine(
                f,
                tuple(versions[b].ref for b in f.bots),
                tuple(versions[b].bot_id for b in f.bots),
                tuple(hits.get(f.bots, ())[:MAX_EVIDENCE]) if f.counts is not None else (),
            )
            for f in findings
        ]
        return sorted(lines, key=lambda x: (x.finding.p is None, x.finding.p or 0.0, x.refs))

    return AuditReport(
        tournament_id,
        all_pairs,
        named(found.rotation),
        named(found.pairs),
        found.tests,
        found.threshold,
        named(found.decisions),
        named(found.decision_pairs),
        coverage(s, tournament_id),
    )


def evidence(judged: list[Judged]) -> dict[tuple[Hashable, ...], list[Evidence]]:
    """The decisions behind each decision test's suspect count, by the test's bots: a bot's
    truth followed in later games (memory), and each of two bots' truth followed given
    the other's hand (pair, keyed lower id first), in match order."""
    out: dict[tuple[Hashable, ...], list[Evidence]] = {}
    for match_id, seats, h in hindsights_of(judged):
        bot = seats[h.entrant]
        for t in h.telling:
            if t.followed != "truth":
                continue
            if t.seen is None and t.game == 0:
                continue
            key = (bot,) if t.seen is None else tuple(sorted((bot, seats[t.seen])))
            found = Evidence(match_id, bot, t.game, t.deal, t.step, t.decision)
            out.setdefault(key, []).append(found)
    return out


def tablemates(rows: GameRows) -> list[tuple[int, int]]:
    """Every two bot versions that played a game at one table, lower id first."""
    met = {pair for game in rows.games for pair in combinations(sorted(game), 2)}
    return sorted(met)
