"""What a queue-based backend needs to know, kept apart from any queue library: which
matches to hand out, to which queue, when a tournament is over, and what to send again.

A match is marked ``queued_at`` when its job is sent, so following a tournament again sends
only what was never sent. ``recover`` is what the cluster runs periodically (the workers'
``arena.recover`` job, sent by ``arena beat``; a follower runs it for its own tournament too):
it sends again the matches whose job was lost — claimable (pending, or running under a
lease that ran out: its worker was lost) though sent at least a lease ago, while nothing
waits in their queue — and finishes the tournaments that are over. A match its worker took
and lost (claimed since its job was last sent) goes at once, deep queue or not: that job
went with the worker, and a standing ladder's queue is never empty. Duplicate jobs are
harmless anyway: a second job finds the match done or leased, and a result is recorded once.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Callable, Collection
from datetime import timedelta
from typing import Any, NamedTuple

from sqlalchemy import ColumnElement, and_, exists, or_, select, update
from sqlalchemy.orm import Session

from arena.store import BotVersion, Database, Match, Tournament, progress
from arena.store.ladders import ladder_of_tournament
from arena.store.matches import claimable
from arena.store.models import utcnow
from arena.toolchains import TOOLCHAINS, toolchain_named
from arena.tournaments.cache import CACHE
from arena.tournaments.standings import finish_tournament

DEFAULT_QUEUE = "arena"
# Runtime family of a bot's manifest (``node20`` → ``node``) → the queue whose workers have it.
# A compiled bot's play needs only what ``arena.toolchains`` says its toolchain's bots load.
RUNTIME_QUEUES = {"": DEFAULT_QUEUE, **{chain.name: chain.queue for chain in TOOLCHAINS}}
BUILD_QUEUE = "arena.build"  # builds naming no toolchain; arena.build.NAME: needing NAME
RECOVERY_QUEUE = "arena.recovery"  # every worker takes it, beside its match queues
# The decision audit's judging (``arena.audits``): every worker takes it too (unless started
# ``--no-audit``), and last: its jobs are sent at the lowest priority, which Redis serves
# only once no other job waits in any queue of the worker.
AUDIT_QUEUE = "audit"
# Job priorities, which Redis serves across every queue of a worker (0 first, 9 last;
# ``workers.app`` keeps all ten steps): a validation or a build (sent at 0, the default) goes
# before any match, so an upload's verdict never waits behind the ladder; a match whose
# worker was lost next (it has waited already, and a ladder's queue never empties), then a
# ladder match that places a new version, then the others; the audit's judging waits for
# everything else. A comparison's and a challenge's matches go with the placements: their
# owner waits for the verdict.
LOST_PRIORITY = 1
PLACEMENT_PRIORITY = 3
MATCH_PRIORITY = 6
AUDIT_PRIORITY = 9
OWNERS_WAIT = ("comparison", "challenge")  # sent at the placements' priority
STANDING = ("ladder", *OWNERS_WAIT)  # nobody follows them: the recovery sends them
MARK_CHUNK = 5000  # ids per UPDATE (Postgres takes at most 65,535 parameters)
log = logging.getLogger(__name__)

# Running under a lease that ran out (with ``claimable``) and claimed after its job was last
# sent: the worker that took that job was lost, so no job of it waits in the queue.
TAKEN_AND_LOST = and_(Match.status == "running", Match.queued_at < Match.lease_expires_at)
Idle = Callable[[str], bool]  # nothing waits in this queue (False when unknown)


class Job(NamedTuple):
    """A match's job as it is sent: to which queue, at which priority."""

    match_id: int
    queue: str
    priority: int = MATCH_PRIORITY


Send = Callable[[Job], object]


def build_queue(toolchain: str = "") -> str:
    """Where the builds that need ``toolchain`` go ("": a build naming none): queues of their
    own, so a long compile never holds a worker that matches wait for, and one per toolchain,
    so a build only reaches a worker that has its compiler."""
    return f"{BUILD_QUEUE}.{toolchain}" if toolchain else BUILD_QUEUE


def validation_queue(manifest: dict) -> str:
    """The queue of a version's validation: the build queue of its toolchain if it has a build
    step, else the queue its matches go to."""
    if not manifest.get("build"):
        return queue_for([manifest])
    chain = toolchain_named(str(manifest.get("runtime", "")))
    return build_queue(chain.name if chain is not None else "")


def queue_for(manifests: list[dict]) -> str:
    """The queue of a match: the first its bots' runtimes need beyond the default one (a
    worker serving such a queue should have every toolchain: the image carries them all)."""
    for manifest in manifests:
        family = _family(str(manifest.get("runtime", "")).lower())
        if RUNTIME_QUEUES.get(family, "") != DEFAULT_QUEUE:
            return RUNTIME_QUEUES.get(family, f"{DEFAULT_QUEUE}.{family}")
    return DEFAULT_QUEUE


def _family(runtime: str) -> str:
    """``node20`` → ``node``: the runtime's leading letters."""
    letters = re.match(r"[a-z]*", runtime)
    return letters.group() if letters else ""


def recovery_every_s(lease_s: float) -> float:
    """How often ``recover`` runs: a third of a lease (at least a second), so a lost match is
    sent again within about a lease and a third of its lease running out."""
    return max(1.0, lease_s / 3)


def matches_to_send(
    db: Database,
    tournament_id: int,
    resend_after_s: float | None = None,
    idle: Idle | None = None,
    freed: Collection[int] = (),
) -> list[Job]:
    """The jobs of claimable matches never sent, or (with ``resend_after_s``) sent
    that long ago — those only while their queue is ``idle``, when given, unless their
    worker took their job and was lost (``TAKEN_AND_LOST``) — and the ``freed`` ones,
    whose lost worker is known dead, however recently sent; marks them sent.
    The mark is a conditional UPDATE: two senders at once (two beats, a follower and a
    worker) send each match once."""
    now = utcnow()
    due: ColumnElement[bool] = Match.queued_at.is_(None)
    if resend_after_s is not None:
        due = or_(due, Match.queued_at < now - timedelta(seconds=resend_after_s))
    if freed:
        due = or_(due, Match.id.in_(freed))
    with db.session() as s:
        rows = s.execute(
            select(Match.id, Match.seats, Match.queued_at, TAKEN_AND_LOST)
            .where(Match.tournament_id == tournament_id, claimable(now), due)
            .order_by(Match.table_index)
        ).all()
        needed = {v for _, seats, _, _ in rows for v in seats}
        query = select(BotVersion.id, BotVersion.manifest).where(BotVersion.id.in_(needed))
        manifests: dict[int, dict[str, Any]] = dict(s.execute(query).all())
        queues = {m: queue_for([manifests[v] for v in seats]) for m, seats, _, _ in rows}
        idle_now: dict[str, bool] = {}

        def may_resend(queue: str) -> bool:  # asks the broker once per queue
            if queue not in idle_now:
                idle_now[queue] = idle is None or idle(queue)
            return idle_now[queue]

        chosen = [
            m for m, _, queued, lost in rows if queued is None or lost or may_resend(queues[m])
        ]
        marked: set[int] = set()
        for start in range(0, len(chosen), MARK_CHUNK):
            marked.update(
                s.scalars(
                    update(Match)
                    .where(Match.id.in_(chosen[start : start + MARK_CHUNK]), claimable(now), due)
                    .values(queued_at=now)
                    .returning(Match.id)
                    .execution_options(synchronize_session=False)
                )
            )
        placing = _placing(s, tournament_id, {m: seats for m, seats, _, _ in rows})
        lost = {m for m, _, _, was_lost in rows if was_lost or m in freed}
    return [Job(m, queues[m], _priority(m, lost, placing)) for m in chosen if m in marked]


def _priority(match_id: int, lost: set[int], placing: set[int]) -> int:
    if match_id in lost:
        return LOST_PRIORITY
    return PLACEMENT_PRIORITY if match_id in placing else MATCH_PRIORITY


def _placing(s: Session, tournament_id: int, seats: dict[int, list[int]]) -> set[int]:
    """Of these matches, those an owner waits on: a ladder's that seat a version that has
    not yet finished its placement matches, and every one of a comparison or a challenge
    (a tournament's: none)."""
    if not seats:
        return set()
    if s.scalar(select(Tournament.kind).where(Tournament.id == tournament_id)) in OWNERS_WAIT:
        return set(seats)
    ladder = ladder_of_tournament(s, tournament_id)
    if ladder is None:
        return set()
    played = _finished_matches(s, tournament_id)
    quota = ladder.placement_matches
    return {m for m, table in seats.items() if any(played[v] < quota for v in table)}


def _finished_matches(s: Session, tournament_id: int) -> Counter[int]:
    """Matches played to the end, by version (cached per results version: a count of them)."""

    def count() -> Counter[int]:
        query = select(Match.seats).where(
            Match.tournament_id == tournament_id, Match.status == "done"
        )
        return Counter(v for table in s.scalars(query) for v in table)

    return CACHE.get(s, "finished-matches", tournament_id, count)


def finish_if_over(db: Database, tournament_id: int) -> bool:
    """Snapshot and close the tournament once no match is pending or running."""
    with db.session(read_only=True) as s:
        state = progress(s, tournament_id)
    if state["pending"] or state["running"]:
        return False
    finish_tournament(db, tournament_id)
    return True


def sent_tournaments(db: Database) -> list[int]:
    """Running tournaments whose matches were sent to the workers (an embedded run's are
    not: it plays and finishes its own), and every ladder's, comparison's and challenge's
    (the workers play those)."""
    sent = exists().where(Match.tournament_id == Tournament.id, Match.queued_at.is_not(None))
    query = select(Tournament.id).where(
        Tournament.status == "running", or_(sent, Tournament.kind.in_(STANDING))
    )
    with db.session(read_only=True) as s:
        return list(s.scalars(query.order_by(Tournament.id)))


def recover_tournament(
    db: Database, tournament_id: int, lease_s: float, idle: Idle, send: Send
) -> int:
    """Finish the tournament if it is over (which may schedule a round of adaptive matches),
    then send the matches never sent, and again those whose job was lost: claimable though
    sent a lease ago or more, while nothing waits in their queue (a deep queue is left
    alone: their job may be in it), or at once when their worker took it and was lost.
    How many jobs were sent."""
    finish_if_over(db, tournament_id)
    sent = 0
    for job in matches_to_send(db, tournament_id, lease_s, idle):
        send(job)
        sent += 1
    if sent:
        log.info("tournament %s: %s matches sent again", tournament_id, sent)
    return sent


def send_freed(db: Database, match_ids: Collection[int], send: Send) -> int:
    """Send again at once the matches whose worker is known dead (their leases ended:
    ``arena.tournaments.executor.release_dead_holders``), ahead of the queue; how many."""
    with db.session(read_only=True) as s:
        query = select(Match.tournament_id).where(Match.id.in_(match_ids)).distinct()
        tournaments = list(s.scalars(query))
    jobs = [j for t in tournaments for j in matches_to_send(db, t, freed=match_ids)]
    for job in jobs:
        send(job)
    return len(jobs)


def recover(db: Database, lease_s: float, idle: Idle, send: Send) -> dict[int, int]:
    """``recover_tournament`` for every tournament sent to the workers and still running;
    the jobs sent, by tournament (where any were)."""
    sent = {}
    for tournament_id in sent_tournaments(db):
        if count := recover_tournament(db, tournament_id, lease_s, idle, send):
            sent[tournament_id] = count
    return sent
