"""Playing a ladder on this machine (``arena ladder run``): top it up, play what is
claimable on local worker processes, again, until stopped, settled (``until_settled``) or
``max_matches`` were played. Matches are claimed under leases like any other, so a Celery
cluster, a second run or a run killed mid-match loses and doubles nothing."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from arena.ladders.feed import feed
from arena.runtime import Runtime
from arena.sandbox import resolve_mode, sweep_leftovers
from arena.store import Database, claimable_matches, progress
from arena.store.models import Ladder
from arena.tournaments.executor import play_matches

IDLE_S = 5.0  # how often a settled or paused ladder looks for a new version
Report = Callable[[str, int], None]  # (status of the match just ended, matches played so far)


@dataclass
class LadderRun:
    counts: dict[str, int] = field(default_factory=dict)  # done/failed/skipped/... this run

    @property
    def played(self) -> int:
        return sum(self.counts.values())


def run_ladder(
    db: Database,
    runtime: Runtime,
    ladder_id: int,
    workers: int | None = None,
    on_match: Report | None = None,
    until_settled: bool = False,
    max_matches: int | None = None,
    idle_s: float = IDLE_S,
    on_idle: Callable[[], None] | None = None,
    also: Callable[[], list[int]] | None = None,
) -> LadderRun:
    """Play the ladder until Ctrl-C (``KeyboardInterrupt``, matches given back), until it
    settles with nothing left to play (``until_settled``), or ``max_matches`` are played.
    ``also``: more matches to play here between rounds (the command line's: comparisons,
    which a platform without workers plays where it plays its ladder)."""
    resolve_mode(runtime.policy)  # no usable sandbox: refuse before claiming any match
    sweep_leftovers(runtime.policy)
    workers = max(1, workers or os.cpu_count() or 1)
    with db.session(read_only=True) as s:
        ladder = s.get_one(Ladder, ladder_id)
        tournament_id, depth = ladder.tournament_id, max(ladder.depth, 2 * workers)
    run = LadderRun()

    def report(status: str) -> None:
        run.counts[status] = run.counts.get(status, 0) + 1
        if on_match is not None:
            on_match(status, run.played)

    while max_matches is None or run.played < max_matches:
        left = None if max_matches is None else max_matches - run.played
        feed(db, runtime, ladder_id, depth if left is None else min(depth, left))
        with db.session(read_only=True) as s:
            todo = claimable_matches(s, tournament_id)
            running = progress(s, tournament_id)["running"]
        if also is not None:
            todo += also()
        if left is not None:
            todo = todo[:left]
        if todo:
            play_matches(db, runtime, todo, workers, report)
            continue
        if until_settled and not running:
            break
        if on_idle is not None:
            on_idle()
        time.sleep(idle_s)
    return run
