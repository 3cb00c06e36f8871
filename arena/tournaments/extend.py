"""Extra matches for a tournament where its ranking is unsure (``arena tournament extend``).

The tables come from :func:`arena.tournaments.adaptive.extra_tables` on the tournament's
current ratings (its own rating model); the matches are appended as pending rows, so every
backend picks them up as it picks up any match: the embedded executor claims them, Celery
workers get them sent. A tournament created with adaptive matches extends itself a round
of ``ADAPTIVE_ROUND`` matches at a time whenever every scheduled match is done, until its
budget is spent (:func:`extend_if_due`, called where a tournament would be marked done).
Two bots of one owner never share an extra table either, unless the tournament allows it.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.ratings import ELO_CENTER, NO_DATA_HALF_WIDTH, fit
from arena.referee import secret_seed
from arena.store import Database, Match, StoreError, add_matches, game_rows, get_tournament
from arena.store.tournaments import lock_tournament, plain_tournament
from arena.tournaments.adaptive import SEATS, Ranked, extra_tables
from arena.tournaments.create import entrant_owners
from arena.tournaments.schedule import seat_numbers

ADAPTIVE_ROUND = 4  # matches per round of a create-time budget, refitted between rounds


def extend_tournament(
    db: Database, tournament_id: int, matches: int, top: int | None = None
) -> list[int]:
    """Schedule ``matches`` extra matches (the ids) where the ranking is unsure; ``top``:
    separate only the first ``top`` places."""
    with db.session() as s:
        plain_tournament(s, tournament_id)
        lock_tournament(s, tournament_id)
        return [m.id for m in _extend(s, tournament_id, matches, top)]


def extend_if_due(db: Database, tournament_id: int) -> int:
    """With every match of the tournament played (none pending, running or failed) and
    adaptive matches left in its budget: schedule the next round. How many were added.
    Writers take turns on the tournament row, so two finishers add one round."""
    with db.session() as s:
        lock_tournament(s, tournament_id)
        t = get_tournament(s, tournament_id)
        if t.adaptive_matches <= 0 or _unfinished(s, tournament_id):
            return 0
        count = min(ADAPTIVE_ROUND, t.adaptive_matches)
        _extend(s, tournament_id, count, t.adaptive_top)
        t.adaptive_matches -= count
        return count


def _unfinished(s: Session, tournament_id: int) -> bool:
    query = select(Match.id).where(
        Match.tournament_id == tournament_id, Match.status.in_(("pending", "running", "failed"))
    )
    return s.scalar(query.limit(1)) is not None


def _extend(s: Session, tournament_id: int, matches: int, top: int | None) -> list[Match]:
    t = get_tournament(s, tournament_id)
    versions = [e.bot_version for e in t.entries]
    entrants = [v.id for v in versions]
    if len(entrants) < SEATS:
        raise StoreError(
            f"tournament {tournament_id} has {len(entrants)} entrants: extra matches need "
            f"at least {SEATS} (tables are drawn from its entrants)"
        )
    if matches < 1:
        raise StoreError(f"the number of extra matches must be at least 1, not {matches}")
    if top is not None and not 2 <= top <= len(entrants):
        raise StoreError(f"--top must be between 2 and the {len(entrants)} entrants, not {top}")
    rows = game_rows(s, tournament_id)
    ratings = fit(rows.games, rows.groups, model=t.rating_model)
    wide = (ELO_CENTER - NO_DATA_HALF_WIDTH, ELO_CENTER + NO_DATA_HALF_WIDTH)
    standings = [
        Ranked(str(bot), r.elo, r.ci_low, r.ci_high, r.games)
        if (r := ratings.get(bot))
        else Ranked(str(bot), ELO_CENTER, *wide, 0)  # not played yet: as unsure as can be
        for bot in entrants
    ]
    seats = {str(bot): [0] * SEATS for bot in entrants}
    for match_seats in s.scalars(select(Match.seats).where(Match.tournament_id == tournament_id)):
        for i, bot in enumerate(match_seats):
            seats[str(bot)][i] += 1
    owners = {} if t.allow_same_owner else entrant_owners(s, versions)
    try:
        tables = extra_tables(standings, matches, seats, t.games_per_match, top, owners)
    except ValueError as exc:
        raise StoreError(str(exc)) from None
    index = {str(bot): i for i, bot in enumerate(entrants)}
    specs = [(0, seat_numbers(table, index), secret_seed()) for table in tables]
    return add_matches(s, tournament_id, specs)
