"""Tournaments with their entrants and scheduled tables, created in one transaction."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from arena.game.rules import Ruleset
from arena.ratings import DEFAULT_MODEL, MODELS
from arena.store.errors import StoreError
from arena.store.models import (
    TOURNAMENT_STATUSES,
    BotVersion,
    Match,
    Tournament,
    TournamentEntry,
)

MAX_SEED = 2**63  # seeds are signed 64-bit columns; derive_seed gives 63 bits
# The referee clock plus the strike limit of its failure policy, all whole numbers.
_CLOCK_KEYS = {"decision_ms", "bank_ms", "startup_ms", "max_strikes"}

# (table index, entrant index in each seat, match seed)
TableSpec = tuple[int, tuple[int, int, int, int], int]


def create_tournament(
    s: Session,
    name: str,
    ruleset: dict[str, Any],
    clock: dict[str, Any],
    deals_per_game: int,
    games_per_match: int,
    seed: int,
    entries: Sequence[BotVersion],
    tables: Sequence[TableSpec],
    *,
    rating_model: str = DEFAULT_MODEL,
    adaptive_matches: int = 0,
    adaptive_top: int | None = None,
    allow_same_owner: bool = False,
) -> Tournament:
    """A draft tournament with its entrants and one pending match per table.

    ``entries[i]`` becomes entrant ``i``. Seats in ``tables`` are entrant indices (what a
    scheduler works with); they are stored on the match as bot_version ids, the referee's
    entrant order. Fewer than 4 entrants: add house bots to ``entries`` first.
    ``adaptive_matches`` extra matches are scheduled once ``tables`` are played (see
    ``arena.tournaments.extend``). ``allow_same_owner``: the organiser lets two bots of one
    owner share a table (the schedulers' business; stored for later extensions).
    """
    _check_settings(name, ruleset, clock, deals_per_game, games_per_match, seed)
    _check_rating(rating_model, adaptive_matches, adaptive_top)
    ids = _check_entries(entries)
    matches = _match_rows(tables, ids)
    tournament = Tournament(
        name=name,
        ruleset=dict(ruleset),
        clock=dict(clock),
        deals_per_game=deals_per_game,
        games_per_match=games_per_match,
        seed=seed,
        rating_model=rating_model,
        adaptive_matches=adaptive_matches,
        adaptive_top=adaptive_top,
        allow_same_owner=allow_same_owner,
    )
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


def _check_settings(
    name: str, ruleset: dict, clock: dict, deals: int, games: int, seed: int
) -> None:
    if not name.strip() or len(name) > 128:
        raise StoreError("a tournament name must be 1-128 characters")
    try:
        rules = Ruleset.from_dict(ruleset)
    except (TypeError, ValueError) as exc:
        raise StoreError(f"tournament {name!r}: bad ruleset ({exc})") from None
    if rules.deals_per_game != deals:
        raise StoreError(
            f"tournament {name!r}: deals_per_game {deals} differs from the ruleset's "
            f"{rules.deals_per_game}; set it in the ruleset"
        )
    unknown = set(clock) - _CLOCK_KEYS
    if unknown or not all(isinstance(v, int) and v >= 0 for v in clock.values()):
        raise StoreError(
            f"tournament {name!r}: the clock takes whole numbers (>= 0) for "
            f"{', '.join(sorted(_CLOCK_KEYS))}, got {clock}"
        )
    if games < 1:
        raise StoreError(f"tournament {name!r}: games_per_match must be at least 1")
    _check_seed(seed, f"tournament {name!r}")


def _check_rating(model: str, adaptive_matches: int, adaptive_top: int | None) -> None:
    if model not in MODELS:
        raise StoreError(f"unknown rating model {model!r}; known: {', '.join(MODELS)}")
    if adaptive_matches < 0:
        raise StoreError(f"adaptive extra matches cannot be negative, not {adaptive_matches}")
    if adaptive_top is not None and adaptive_top < 2:
        raise StoreError(f"the places to separate must be at least 2, not {adaptive_top}")


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


def lock_tournament(s: Session, tournament_id: int) -> None:
    """Hold the tournament's row until the transaction ends, so that writers of data
    derived from its results (rating snapshots) take turns. Postgres: FOR NO KEY UPDATE,
    which does not hold up inserts that refer to the row; SQLite serializes every write
    transaction anyway."""
    query = select(Tournament.id).where(Tournament.id == tournament_id)
    if s.scalar(query.with_for_update(key_share=True)) is None:
        raise StoreError(f"no tournament with id {tournament_id}")


def list_tournaments(s: Session) -> list[Tournament]:
    """Newest first."""
    return list(s.scalars(select(Tournament).order_by(Tournament.id.desc())))


def set_tournament_status(s: Session, tournament_id: int, status: str) -> Tournament:
    if status not in TOURNAMENT_STATUSES:
        allowed = ", ".join(TOURNAMENT_STATUSES)
        raise StoreError(f"tournament status must be one of {allowed}, not {status!r}")
    tournament = get_tournament(s, tournament_id)
    tournament.status = status
    s.flush()
    return tournament
