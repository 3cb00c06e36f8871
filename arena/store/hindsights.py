"""The life of a match's hindsight row (the decision-level audit's judging): queued as the
match is recorded → running (under a lease) → done or failed.

Leased as analyses are (``arena.store.leases``): a worker claims the row, renews its lease
while the master judges, and stores the result with the lease's token in one conditional
``UPDATE``, so a worker that lost its lease never stores a second result over the first.
One row per match: house bots are trusted, so a match of house bots alone has none.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import and_, func, or_, select, update
from sqlalchemy.orm import Session

from arena.analysis.hindsight import Hindsight
from arena.config import DEFAULT_LEASE_S, DEFAULT_MAX_ATTEMPTS
from arena.ratings.telling import Trial
from arena.store import leases
from arena.store.db import rowcount
from arena.store.leases import MAX_REASON, Leased
from arena.store.models import BotVersion, GameScore, Match, MatchHindsight, utcnow

HINDSIGHTS = Leased(MatchHindsight, "queued", "hindsight")
# Taken by a worker since its job was last sent, and its lease ran out: that worker (and the
# job with it) was lost, so no job of it waits in the queue.
TAKEN_AND_LOST = and_(
    MatchHindsight.status == "running", MatchHindsight.queued_at < MatchHindsight.lease_expires_at
)


@dataclass(frozen=True)
class HindsightLease:
    """The right to judge one attempt of a match's hindsight and to store its result."""

    hindsight_id: int
    token: str
    worker: str
    attempt: int


@dataclass(frozen=True)
class Judged:
    """A done hindsight: the match, its seats (entrant → bot version id) and the stored
    ``Hindsight.to_dict()`` of each judged entrant."""

    match_id: int
    seats: list[int]
    entrants: list[dict[str, Any]]


@dataclass(frozen=True)
class Coverage:
    """How many of a scope's matches with a hindsight row are judged, wait (queued or
    running) or failed; matches of house bots alone have no row."""

    done: int = 0
    waiting: int = 0
    failed: int = 0


def get_hindsight(s: Session, hindsight_id: int) -> MatchHindsight:
    row: MatchHindsight = HINDSIGHTS.get(s, hindsight_id)
    return row


def judged_entrants(s: Session, seats: Iterable[int]) -> list[int]:
    """The entrants (seat indices) whose bot is not a house bot: the ones to judge."""
    seats = list(seats)
    query = select(BotVersion.id, BotVersion.manifest).where(BotVersion.id.in_(seats))
    manifests = {version: manifest for version, manifest in s.execute(query)}
    return [e for e, version in enumerate(seats) if "house" not in manifests[version]]


def add_hindsight(s: Session, match_id: int, seats: Iterable[int]) -> bool:
    """Queue the judging of the just-finished ``match_id`` if one of its ``seats`` is not a
    house bot (in the caller's transaction, the one that records the match: a match
    recorded once is queued once); whether it was."""
    if not judged_entrants(s, seats):
        return False
    s.add(MatchHindsight(match_id=match_id, status="queued"))
    s.flush()
    return True


def claim_hindsight(
    s: Session,
    hindsight_id: int,
    worker: str,
    lease_s: float = DEFAULT_LEASE_S,
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
) -> HindsightLease | None:
    """Take the hindsight for ``worker``; None if it is done, failed or leased to someone
    else (one whose workers keep vanishing ends failed after ``max_attempts`` claims)."""
    now = utcnow()
    taken = leases.claim(s, HINDSIGHTS, hindsight_id, worker, now, lease_s, max_attempts)
    if taken is not None:
        return HindsightLease(hindsight_id, taken[0], worker[:128], taken[1])
    leases.give_up_if_exhausted(s, HINDSIGHTS, hindsight_id, now, max_attempts)
    return None


def _held(lease: HindsightLease):
    return HINDSIGHTS.held(lease.hindsight_id, lease.token)


def store_hindsight(
    s: Session, lease: HindsightLease, entrants: list[dict[str, Any]], cpu_seconds: float
) -> bool:
    """Store the judged entrants (``Hindsight.to_dict()`` each) in one conditional UPDATE;
    False, storing nothing, unless ``lease`` is the current attempt: stored once."""
    stored = s.execute(
        update(MatchHindsight)
        .where(_held(lease))
        .values(
            status="done",
            result={"entrants": entrants},
            cpu_seconds=cpu_seconds,
            telling=sum(len(e["telling"]) for e in entrants),
            finished_at=utcnow(),
            reason=None,
            attempt_token=None,
            lease_expires_at=None,
        )
    )
    return rowcount(stored) == 1


def fail_hindsight(s: Session, lease: HindsightLease, reason: str) -> bool:
    """End the attempt failed with ``reason`` (an error of the judging itself, which another
    attempt would repeat); False once the lease is lost."""
    failed = s.execute(
        update(MatchHindsight)
        .where(_held(lease))
        .values(
            status="failed",
            reason=reason[:MAX_REASON],
            finished_at=utcnow(),
            attempt_token=None,
            lease_expires_at=None,
        )
    )
    return rowcount(failed) == 1


def release_hindsight(s: Session, lease: HindsightLease) -> bool:
    """Give the hindsight back, queued, its attempt not counted (stopped by the operator, or
    cut short by a database outage); False once the lease is lost."""
    released = s.execute(
        update(MatchHindsight)
        .where(_held(lease))
        .values(
            status="queued",
            attempts=MatchHindsight.attempts - 1,
            queued_at=None,  # its job is gone: the next send must include it
            attempt_token=None,
            lease_expires_at=None,
        )
    )
    return rowcount(released) == 1


def to_send(
    s: Session, lease_s: float, idle: bool, match_ids: Collection[int] | None = None
) -> list[int]:
    """Ids of the hindsights (of ``match_ids``, when given) whose job to send: claimable and
    never sent; taken by a worker since lost; or, while nothing waits in their queue
    (``idle``), sent a lease ago or more (the job was lost). Marks them sent, in one
    conditional UPDATE: two senders at once send each once."""
    now = utcnow()
    due = or_(MatchHindsight.queued_at.is_(None), TAKEN_AND_LOST)
    if idle:
        due = or_(due, MatchHindsight.queued_at < now - timedelta(seconds=lease_s))
    where = [HINDSIGHTS.claimable(now), due]
    if match_ids is not None:
        where.append(MatchHindsight.match_id.in_(list(match_ids)))
    marked = s.scalars(
        update(MatchHindsight)
        .where(*where)
        .values(queued_at=now)
        .returning(MatchHindsight.id)
        .execution_options(synchronize_session=False)
    )
    return sorted(marked)


def _in_scope(query, tournament_id: int | None):
    if tournament_id is None:
        return query
    return query.join(Match, Match.id == MatchHindsight.match_id).where(
        Match.tournament_id == tournament_id
    )


def unfinished(s: Session, tournament_id: int | None) -> list[int]:
    """Ids of the scope's hindsights still to judge (queued, or running elsewhere), oldest
    first (``None``: every tournament's)."""
    query = select(MatchHindsight.id).where(MatchHindsight.status.in_(("queued", "running")))
    return list(s.scalars(_in_scope(query, tournament_id).order_by(MatchHindsight.id)))


def coverage(s: Session, tournament_id: int | None) -> Coverage:
    """The scope's hindsights by state (one grouped count)."""
    query = select(MatchHindsight.status, func.count()).group_by(MatchHindsight.status)
    counts = {status: n for status, n in s.execute(_in_scope(query, tournament_id))}
    waiting = counts.get("queued", 0) + counts.get("running", 0)
    return Coverage(counts.get("done", 0), waiting, counts.get("failed", 0))


def documents(s: Session, match_ids: Collection[int]) -> list[Judged]:
    """The done hindsights of ``match_ids``, by match id (their results read)."""
    found: list[Judged] = []
    ids = sorted(set(match_ids))
    for start in range(0, len(ids), 5000):  # Postgres takes at most 65,535 parameters
        query = (
            select(MatchHindsight.match_id, Match.seats, MatchHindsight.result)
            .join(Match, Match.id == MatchHindsight.match_id)
            .where(
                MatchHindsight.match_id.in_(ids[start : start + 5000]),
                MatchHindsight.status == "done",
            )
            .order_by(MatchHindsight.match_id)
        )
        found += [Judged(m, list(seats), r["entrants"]) for m, seats, r in s.execute(query)]
    return found


def judged_matches_of(s: Session, version_id: int, limit: int) -> list[int]:
    """The latest ``limit`` matches of a bot version whose hindsight is done."""
    played = select(GameScore.match_id).where(GameScore.bot_version_id == version_id)
    query = (
        select(MatchHindsight.match_id)
        .where(MatchHindsight.status == "done", MatchHindsight.match_id.in_(played))
        .order_by(MatchHindsight.match_id.desc())
        .limit(limit)
    )
    return list(s.scalars(query))


def hindsights_of(judged: Iterable[Judged]) -> Iterator[tuple[int, list[int], Hindsight]]:
    """(match id, seats, each judged entrant's Hindsight) of the stored documents."""
    for doc in judged:
        for entrant in doc.entrants:
            yield doc.match_id, doc.seats, Hindsight.from_dict(entrant)


def trials_of(judged: Iterable[Judged]) -> list[Trial]:
    """The stored telling decisions as the tests' trials: the bot is the entrant's bot
    version, ``first`` its match's game 0, ``seen`` the bot version whose hand was added;
    "neither" answers are no trial (neither the truth nor the knowledge was followed)."""
    return [
        Trial(
            match_id,
            seats[h.entrant],
            t.game == 0,
            None if t.seen is None else seats[t.seen],
            t.followed == "truth",
        )
        for match_id, seats, h in hindsights_of(judged)
        for t in h.telling
        if t.followed != "neither"
    ]
