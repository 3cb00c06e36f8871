"""Tournaments with their entrants and scheduled tables, created in one transaction."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from arena.store.errors import StoreError
from arena.store.models import (
    TOURNAMENT_STATUSES,
    BotVersion,
    Match,
    Tournament,
    TournamentEntry,
)

MAX_SEED = 2**63  # seeds are signed 64-bit columns; derive_seed gives 63 bits

# (table index, entrant index in each seat, match seed)
TableSpec = tuple[int, tuple[int, int, int, int], int]


def create_tournament(
    s: Session,
    settings: Mapping[str, Any],
    entries: Sequence[BotVersion],
    tables: Sequence[TableSpec],
) -> Tournament:
    """A draft tournament with its entrants and one pending match per table.

    ``settings`` are its columns, checked where they are made (``TournamentSpec.columns()``,
    ``arena.tournaments.spec``, the one place that checks them); missing ones take the
    columns' defaults. ``entries[i]`` becomes entrant ``i``. Seats in ``tables`` are entrant
    indices (what a scheduler works with); they are stored on the match as bot_version ids,
    the referee's entrant order. Fewer than 4 entrants: add house bots to ``entries`` first.
    """
    ids = _check_entries(entries)
    matches = _match_rows(tables, ids)
    tournament = Tournament(**settings)
    s.add(tournament)
    s.flush()
    s.add_all(
        TournamentEntry(tournament_id=tournament.id, bot_version_id=v, entrant_index=i)
        for i, v in enumerate(ids)
    )
    for match in matches:
        match.tournament_id = tournament.id
    s.add_all(matches)
    s.flush()
    return tournament


def add_matches(s: Session, tournament_id: int, tables: Sequence[TableSpec]) -> list[Match]:
    """Pending matches appended to a tournament (table indices after its last); seats are
    bot_version ids of its entrants. A tournament marked done is running again."""
    tournament = get_tournament(s, tournament_id)
    entrants = [e.bot_version_id for e in tournament.entries]
    last = s.scalar(select(func.max(Match.table_index)).where(Match.tournament_id == tournament_id))
    first = -1 if last is None else last
    specs = [(first + 1 + i, seats, seed) for i, (_, seats, seed) in enumerate(tables)]
    rows = _match_rows(specs, entrants)
    for match in rows:
        match.tournament_id = tournament_id
    s.add_all(rows)
    if rows and tournament.status == "done":
        tournament.status = "running"
    s.flush()
    return rows


def _check_seed(seed: int, where: str) -> None:
    if not 0 <= seed < MAX_SEED:
        raise StoreError(f"{where}: seed must be in 0..2**63-1, not {seed}")


def _check_entries(entries: Sequence[BotVersion]) -> list[int]:
    if not entries:
        raise StoreError("a tournament needs at least one entrant; add bots to it")
    ids = [v.id for v in entries]
    if len(set(ids)) != len(ids):
        raise StoreError("a bot version can enter a tournament only once")
    for version in entries:
        if version.status != "valid":
            raise StoreError(
                f"{version.ref} cannot enter: its status is {version.status}"
                f"{f' ({version.reason})' if version.reason else ''}; only valid bots play"
            )
    return ids


def _match_rows(tables: Sequence[TableSpec], ids: list[int]) -> list[Match]:
    rows: list[Match] = []
    seen: set[int] = set()
    for table, seats, seed in tables:
        where = f"table {table}"
        if table < 0 or table in seen:
            raise StoreError(f"{where}: table indices must be distinct and not negative")
        seen.add(table)
        if len(seats) != 4 or len(set(seats)) != 4:
            raise StoreError(f"{where}: needs 4 different entrants, got {list(seats)}")
        if not all(0 <= e < len(ids) for e in seats):
            raise StoreError(f"{where}: entrant indices must be in 0..{len(ids) - 1}")
        _check_seed(seed, where)
        rows.append(Match(table_index=table, seats=[ids[e] for e in seats], seed=seed))
    return rows


def get_tournament(s: Session, tournament_id: int) -> Tournament:
    tournament = s.get(Tournament, tournament_id)
    if tournament is None:
        raise StoreError(f"no tournament with id {tournament_id}")
    return tournament


def plain_tournament(s: Session, tournament_id: int) -> Tournament:
    """The tournament, refused if its row holds a ladder's matches (a ladder is played by
    its feed, never run or extended as a tournament)."""
    tournament = get_tournament(s, tournament_id)
    if tournament.kind == "ladder":
        raise StoreError(
            f"tournament {tournament_id} holds the matches of a standing ladder: play it "
            "with `arena ladder run`, see it with `arena ladder show`"
        )
    return tournament


def lock_tournament(s: Session, tournament_id: int) -> None:
    """Hold the tournament's row until the transaction ends, so that writers of data
    derived from its results (rating snapshots) take turns. Postgres: FOR NO KEY UPDATE,
    which does not hold up inserts that refer to the row; SQLite serializes every write
    transaction anyway."""
    query = select(Tournament.id).where(Tournament.id == tournament_id)
    if s.scalar(query.with_for_update(key_share=True)) is None:
        raise StoreError(f"no tournament with id {tournament_id}")


def list_tournaments(s: Session) -> list[Tournament]:
    """Newest first; ladders' rows are not tournaments to list (``arena.store.ladders``)."""
    query = select(Tournament).where(Tournament.kind == "tournament")
    return list(s.scalars(query.order_by(Tournament.id.desc())))


def set_tournament_status(s: Session, tournament_id: int, status: str) -> Tournament:
    if status not in TOURNAMENT_STATUSES:
        allowed = ", ".join(TOURNAMENT_STATUSES)
        raise StoreError(f"tournament status must be one of {allowed}, not {status!r}")
    tournament = get_tournament(s, tournament_id)
    tournament.status = status
    s.flush()
    return tournament
