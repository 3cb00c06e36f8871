"""Validation matches as rows: each validated version's match among house bots is a match
like any other (leases, results, replays, faults, logs), in a tournament row of kind
"validation" of its own, whose entrant 0 is the version judged. A version keeps one: a new
validation of it replaces the earlier.

They are its owner's (and the organisers') to read, so every public list, count and
statistic of matches leaves them out: ``listed``."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from sqlalchemy import ColumnElement, Select, delete, func, select
from sqlalchemy.orm import Session

from arena.store.models import BotVersion, Match, Tournament, TournamentEntry

VALIDATION = "validation"  # Tournament.kind
JUDGED = 0  # the entrant index of the version a validation tournament judges


def validation_tournaments() -> Select[int]:
    """The ids of every validation tournament, as a subquery."""
    return select(Tournament.id).where(Tournament.kind == VALIDATION)


def listed() -> ColumnElement[bool]:
    """Matches of no validation tournament: those public lists, counts and statistics of
    matches may show (a query of rows that belong to a match joins ``Match`` for it)."""
    return Match.tournament_id.not_in(validation_tournaments())


def add_validation(
    s: Session,
    columns: Mapping[str, Any],
    version: BotVersion,
    opponents: Sequence[BotVersion],
    seat: int,
    seed: int,
) -> Match:
    """The version's validation tournament (its settings ``columns``, running) with one
    pending match: ``version`` at ``seat``, ``opponents`` around it in their order. Unlike
    ``create_tournament`` it takes a version still pending (the one judged); the version's
    earlier validation tournaments go."""
    s.execute(delete(Tournament).where(Tournament.id.in_(_judging(version.id))))
    tournament = Tournament(**columns, kind=VALIDATION, status="running")
    s.add(tournament)
    s.flush()
    entrants = [version, *opponents]
    s.add_all(
        TournamentEntry(tournament_id=tournament.id, bot_version_id=v.id, entrant_index=i)
        for i, v in enumerate(entrants)
    )
    seats = [v.id for v in opponents]
    seats.insert(seat, version.id)
    match = Match(tournament_id=tournament.id, table_index=0, seats=seats, seed=seed)
    s.add(match)
    s.flush()
    return match


def _judging(version_id: int) -> Select[int]:
    """The ids of the validation tournaments that judged ``version_id``."""
    return (
        select(TournamentEntry.tournament_id)
        .join(Tournament, Tournament.id == TournamentEntry.tournament_id)
        .where(
            Tournament.kind == VALIDATION,
            TournamentEntry.bot_version_id == version_id,
            TournamentEntry.entrant_index == JUDGED,
        )
    )


def validation_matches(s: Session, version_ids: Collection[int]) -> dict[int, int]:
    """The id of the validation match of each of ``version_ids`` that has one."""
    query = (
        select(TournamentEntry.bot_version_id, func.max(Match.id))
        .join(Tournament, Tournament.id == TournamentEntry.tournament_id)
        .join(Match, Match.tournament_id == Tournament.id)
        .where(
            Tournament.kind == VALIDATION,
            TournamentEntry.entrant_index == JUDGED,
            TournamentEntry.bot_version_id.in_(version_ids),
        )
        .group_by(TournamentEntry.bot_version_id)
    )
    return {version: match for version, match in s.execute(query)}


def judged_version(s: Session, match: Match) -> BotVersion | None:
    """The version a validation match judged; None for a match of any other kind (one read
    by primary key)."""
    tournament = s.get(Tournament, match.tournament_id)
    if tournament is None or tournament.kind != VALIDATION:
        return None
    query = (
        select(BotVersion)
        .join(TournamentEntry, TournamentEntry.bot_version_id == BotVersion.id)
        .where(
            TournamentEntry.tournament_id == tournament.id,
            TournamentEntry.entrant_index == JUDGED,
        )
    )
    return s.scalar(query)
