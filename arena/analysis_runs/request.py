"""Asking for an analysis: who may, how often, and of what.

The owner of an entrant's bot and organisers may have its play in a finished match analysed
(the rule that lets them read its logs: ``arena.store.users.may_see_logs``); anybody else
gets the answer an unknown entrant gets. An analysis costs a worker minutes, so a user may
ask for ``per_hour`` a rolling hour (organisers without limit); asking again for one that
exists (same match, entrant, samples and seed) costs nothing and returns it, and a failed
one is queued again.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from arena.analysis import DEFAULT_SAMPLES
from arena.analysis_runs.errors import AnalysisRefused
from arena.config import DEFAULT_ANALYSES_PER_HOUR, DEFAULT_LEASE_S
from arena.house.master.strategy import BATCH
from arena.store import BotVersion, Database, Match, User, get_match
from arena.store.analyses import add_analysis, find_analysis, requests_since, requeue, to_send
from arena.store.models import MatchAnalysis, as_utc, utcnow
from arena.store.users import may_see_logs

MIN_SAMPLES = 2 * BATCH  # a standard error needs two batches
MAX_SAMPLES = 4096  # a few minutes of a worker per entrant of a long match
WINDOW = timedelta(hours=1)
# Starts working out an analysis (its id) and returns at once: the workers' queue
# (``workers.client.analyses``) or a process of its own (``arena analysis-job``).
Dispatch = Callable[[int], object]


def check_samples(samples: int) -> None:
    if not (MIN_SAMPLES <= samples <= MAX_SAMPLES and samples % BATCH == 0):
        raise AnalysisRefused(
            f"samples must be a multiple of {BATCH} from {MIN_SAMPLES} to {MAX_SAMPLES}, "
            f"not {samples}"
        )


def request(
    db: Database,
    match_id: int,
    entrant: int,
    samples: int = DEFAULT_SAMPLES,
    user: User | None = None,
    *,
    seed: int = 0,
    dispatch: Dispatch | None = None,
    per_hour: int = DEFAULT_ANALYSES_PER_HOUR,
    lease_s: float = DEFAULT_LEASE_S,
) -> MatchAnalysis:
    """The analysis of ``entrant``'s decisions in the finished match ``match_id``, asked for
    by ``user`` (None: the operator, at the command line: no check, no quota): the existing
    one, or a new one queued and handed to ``dispatch``. An existing one whose job or
    worker was lost (or a failed one, queued again) is handed to it again. Raises
    ``AnalysisRefused`` (or ``StoreError`` for an unknown match)."""
    check_samples(samples)
    with db.session() as s:
        match = get_match(s, match_id)
        version = _entrant_version(s, match, entrant, user)
        if match.status != "done":
            raise AnalysisRefused(
                f"match {match_id} has not finished: it can be analysed once it is done", 409
            )
        row = find_analysis(s, match_id, entrant, samples, seed)
        if row is None or row.status == "failed":
            if user is not None and not user.admin:
                _within_quota(s, user.id, per_hour, utcnow())
            requested_by = None if user is None else user.id
            if row is None:
                row = add_analysis(s, match_id, entrant, version.id, samples, seed, requested_by)
                s.flush()
            else:
                requeue(s, row.id, requested_by)
        due = [] if dispatch is None else to_send(s, lease_s, idle=True, ids=[row.id])
        s.refresh(row)
    if due and dispatch is not None:
        dispatch(row.id)
    return row


def _entrant_version(s: Session, match: Match, entrant: int, user: User | None) -> BotVersion:
    """The entrant's bot version, if ``user`` may have its play analysed."""
    version = s.get(BotVersion, match.seats[entrant]) if 0 <= entrant < len(match.seats) else None
    if version is None or (user is not None and not may_see_logs(user, version.bot.owner_id)):
        raise AnalysisRefused(
            f"match {match.id} has no entrant {entrant} whose play you may have analysed "
            "(its bot's owner and organisers may)",
            404,
        )
    return version


def _within_quota(s: Session, user_id: int, per_hour: int, now: datetime) -> None:
    """Refuse (429) a user who asked for ``per_hour`` analyses in the last hour."""
    asked = requests_since(s, user_id, now - WINDOW)
    if len(asked) < per_hour:
        return
    free_at = as_utc(asked[-per_hour]) + WINDOW
    wait = max(1, math.ceil((free_at - now).total_seconds()))
    raise AnalysisRefused(
        f"{per_hour} analyses per hour is the limit; try again in {math.ceil(wait / 60)} minute(s)",
        429,
        retry_after=wait,
    )


def contestants(db: Database, match_id: int) -> list[int]:
    """The match's entrants that are not house bots (those fill empty seats)."""
    with db.session(read_only=True) as s:
        match = get_match(s, match_id)
        versions = [s.get_one(BotVersion, v) for v in match.seats]
    return [e for e, version in enumerate(versions) if "house" not in version.manifest]
