"""Validation matches as their readers see them (``arena.store.validations``): each one the
judged version's owner and the organisers read as they read a ladder match, where its first
fault is, and nobody else finds at all. Who may read is the caller's check, on
``Validation.owner_id``, the rule of the log pages; the lists, counts and statistics leave
these matches out with ``arena.store.validations.listed``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.players.player import public_reason
from arena.referee.result import FORFEIT
from arena.store import BotVersion, MatchFault, StoreError, Tournament, get_match, get_tournament
from arena.store.validations import VALIDATION, judged_version, validation_matches


@dataclass(frozen=True)
class FirstFault:
    """The judged bot's first fault: what rejected it. ``game``/``deal`` count from 0 as
    stored; ``decision`` is the match-wide id, None for a bot that did not start."""

    kind: str
    reason: str  # without the bot's own words (its log holds them)
    game: int | None
    deal: int | None
    decision: int | None


@dataclass(frozen=True)
class Validation:
    """The version a validation match judged, and its verdict."""

    match_id: int
    version_id: int
    bot_id: int
    owner_id: int | None  # with the organisers, the only reader
    ref: str
    version: str
    status: str  # the version's: pending, valid or rejected
    fault: FirstFault | None


def validation_of(s: Session, match_id: int) -> Validation | None:
    """The validation a match is (None: a match of another kind); StoreError for an unknown
    match. A few indexed reads: every view of a match asks it first."""
    match = get_match(s, match_id)
    version = judged_version(s, match)
    if version is None:
        return None
    query = (
        select(MatchFault)
        .where(
            MatchFault.match_id == match_id,
            MatchFault.bot_version_id == version.id,
            MatchFault.kind != FORFEIT,
        )
        .order_by(MatchFault.id)
        .limit(1)
    )
    first = s.scalar(query)
    fault = None
    if first is not None:
        reason = public_reason(first.reason)
        fault = FirstFault(first.kind, reason, first.game, first.deal, first.decision)
    bot = version.bot
    return Validation(
        match_id,
        version.id,
        bot.id,
        bot.owner_id,
        version.ref,
        version.version,
        version.status,
        fault,
    )


def step_of(record: dict[str, Any], fault: FirstFault) -> int | None:
    """The step of the fault's decision in its deal as the replay viewer and the log
    markers count it (the calls 1-4, the cards 5-56); None for a start-up fault or a
    decision the record does not hold."""
    if fault.decision is None or fault.game is None or fault.game >= len(record["games"]):
        return None
    for deal in record["games"][fault.game]["deals"]:
        if deal["index"] == fault.deal:
            ids = [entry.get("id") for entry in deal["decisions"]]
            return ids.index(fault.decision) + 1 if fault.decision in ids else None
    return None


def diagnosable(s: Session, bot_id: int) -> dict[int, int]:
    """The validation match of each of the bot's versions that has one, by version id."""
    versions = list(s.scalars(select(BotVersion.id).where(BotVersion.bot_id == bot_id)))
    return validation_matches(s, versions)


def shown_tournament(s: Session, tournament_id: int) -> Tournament:
    """A tournament row a page may show: a validation's is as unknown as a missing one (its
    one match is read on the match page, by those who may)."""
    tournament = get_tournament(s, tournament_id)
    if tournament.kind == VALIDATION:
        raise StoreError(f"no tournament with id {tournament_id}")
    return tournament
