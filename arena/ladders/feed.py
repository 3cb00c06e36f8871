"""Topping a ladder's queue up: the tables :mod:`arena.ladders.matchmaking` picks, stored
as pending matches of the ladder's tournament, so every backend plays them as it plays any
match (claims, leases, one result per match). Celery's beat calls :func:`feed_all` with
its recovery, and a worker after each ladder match; ``arena ladder run`` between batches.

Writers take turns on the ladder's tournament row, so two feeders at once add one batch."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import combinations

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.ladders.entrants import ANCHORS, current_versions, enter_anchors
from arena.ladders.matchmaking import Knobs, LadderState, next_tables
from arena.ratings import ELO_CENTER, NO_DATA_HALF_WIDTH, Rating
from arena.ratings.successors import starting_rating
from arena.referee import secret_seed
from arena.runtime import Runtime
from arena.store import BotVersion, Database, Match, add_matches, progress
from arena.store.ladders import IN_FLIGHT, enter, list_ladders, scheduled_since
from arena.store.models import Ladder, utcnow
from arena.store.tournaments import lock_tournament
from arena.tournaments.adaptive import SEATS, Ranked
from arena.tournaments.cache import CACHE
from arena.tournaments.create import entrant_owners
from arena.tournaments.schedule import seat_numbers
from arena.tournaments.standings import cached_standings
from arena.tournaments.successions import predecessors

WIDE = (ELO_CENTER - NO_DATA_HALF_WIDTH, ELO_CENTER + NO_DATA_HALF_WIDTH)


def feed(
    db: Database,
    runtime: Runtime,
    ladder_id: int,
    depth: int | None = None,
    now: datetime | None = None,
) -> list[int]:
    """Schedule matches until ``depth`` (default: the ladder's) are pending or running,
    within its hourly cap; nothing while it is paused or settled. The new matches' ids."""
    now = now or utcnow()
    with db.session(read_only=True) as s:
        ladder = s.get_one(Ladder, ladder_id)
        if _wanted(s, ladder, depth, now) <= 0:
            return []  # the usual case: two indexed counts
        houses = [e for e in ladder.tournament.entries if "house" in e.bot_version.manifest]
    if len(houses) < len(ANCHORS):
        enter_anchors(db, runtime, ladder_id)
    with db.session() as s:
        ladder = s.get_one(Ladder, ladder_id)
        lock_tournament(s, ladder.tournament_id)
        want = _wanted(s, ladder, depth, now)
        if want <= 0:
            return []
        versions = current_versions(s, ladder)
        index = enter(s, ladder.tournament_id, versions)
        state, tournament = ladder_state(s, ladder, versions), ladder.tournament
        knobs = Knobs(
            ladder.placement_matches, ladder.settle_half_width, tournament.games_per_match
        )
        tables = next_tables(state, want, knobs)
        if not tables:
            return []
        number = {str(v): i for v, i in index.items()}
        specs = [(0, seat_numbers(table, number), secret_seed()) for table in tables]
        return [m.id for m in add_matches(s, ladder.tournament_id, specs)]


def feed_all(db: Database, runtime: Runtime) -> dict[str, int]:
    """``feed`` every ladder; the matches scheduled, by ladder name (where any were)."""
    with db.session(read_only=True) as s:
        ladders = [(ladder.id, ladder.name) for ladder in list_ladders(s) if not ladder.paused]
    scheduled = {name: len(feed(db, runtime, ladder_id)) for ladder_id, name in ladders}
    return {name: n for name, n in scheduled.items() if n}


def _wanted(s: Session, ladder: Ladder, depth: int | None, now: datetime) -> int:
    """How many matches to schedule now: up to the depth, within the hourly cap."""
    if ladder.paused:
        return 0
    counts = progress(s, ladder.tournament_id)
    want = (ladder.depth if depth is None else depth) - sum(counts[k] for k in IN_FLIGHT)
    if ladder.matches_per_hour:
        recent = scheduled_since(s, ladder.tournament_id, now - timedelta(hours=1))
        want = min(want, ladder.matches_per_hour - recent)
    return want


def ladder_state(
    s: Session, ladder: Ladder, versions: Sequence[BotVersion] | None = None
) -> LadderState:
    """What the matchmaker needs, read from the ladder's rows; ``versions``: its current
    contestants, when the caller has them (``current_versions``). The ratings are the
    ladder's fit over all its games (older versions' games inform their opponents' too),
    and a new version's without games its predecessor's (``starting_ratings``)."""
    versions = current_versions(s, ladder) if versions is None else versions
    anchors = {
        e.bot_version_id for e in ladder.tournament.entries if "house" in e.bot_version.manifest
    }
    current = {v.id for v in versions} | anchors
    rated = {st.bot_version_id: st.rating for st in cached_standings(s, ladder.tournament_id)}
    rated |= starting_ratings(s, rated, current - set(rated))
    standings = [
        Ranked(str(v), r.elo, r.ci_low, r.ci_high, r.games)
        if (r := rated.get(v))
        else Ranked(str(v), ELO_CENTER, *WIDE, 0)
        for v in sorted(current)
    ]
    tally = match_tally(s, ladder.tournament_id)
    seats = {str(v): list(tally.seats.get(str(v), [0] * SEATS)) for v in current}
    owners = entrant_owners(s, versions)
    return LadderState(
        standings,
        tally.matches,
        seats,
        tally.meetings,
        tally.in_flight,
        owners,
        frozenset(str(a) for a in anchors),
    )


def starting_ratings(
    s: Session, rated: Mapping[int, Rating], unrated: Collection[int]
) -> dict[int, Rating]:
    """Where versions without games start: a new version of a bot whose previous valid
    version has a rating here starts at that rating, its interval widened by the prior
    (``arena.ratings.successors``); any other stands at 1500, wide open (left out)."""
    if not unrated:
        return {}
    heirs = predecessors(s, unrated, rated.keys())
    return {v: starting_rating(rated[old]) for v, old in heirs.items()}


@dataclass(frozen=True)
class Tally:
    """What the ladder's matches add up to (failed ones aside), by entrant name."""

    matches: Counter[str]
    seats: dict[str, list[int]]  # matches started in each seat
    meetings: Counter[frozenset[str]]
    in_flight: list[list[str]]


def match_tally(s: Session, tournament_id: int) -> Tally:
    """Every match of the ladder read once per change of its matches' status counts
    (cached like the standings: a page or a top-up on a long ladder does not rescan it)."""
    counts = sorted(progress(s, tournament_id).items())
    return CACHE.get(s, f"ladder-tally {counts}", tournament_id, lambda: _tally(s, tournament_id))


def _tally(s: Session, tournament_id: int) -> Tally:
    tally = Tally(Counter(), {}, Counter(), [])
    query = select(Match.seats, Match.status).where(
        Match.tournament_id == tournament_id, Match.status != "failed"
    )
    for match_seats, status in s.execute(query):
        names = [str(v) for v in match_seats]
        tally.matches.update(names)
        tally.meetings.update(frozenset(p) for p in combinations(names, 2))
        for i, name in enumerate(names):
            tally.seats.setdefault(name, [0] * SEATS)[i] += 1
        if status in IN_FLIGHT:
            tally.in_flight.append(names)
    return tally
