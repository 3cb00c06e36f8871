"""Playing comparisons on this machine: ``arena bot compare`` plays one to its verdict,
and ``arena ladder run`` plays every running one between its ladder rounds (the embedded
default has no workers to send them to)."""

from __future__ import annotations

import time
from collections.abc import Callable

from arena.comparisons.advance import advance, advance_all, running_tournaments
from arena.comparisons.gate import open_gates
from arena.ratings.sprt import Summary
from arena.runtime import Runtime
from arena.store import Database, claimable_matches
from arena.store.models import Comparison
from arena.tournaments.executor import play_matches

Progress = Callable[[Summary], None]
POLL_S = 1.0


def play_comparison(
    db: Database,
    runtime: Runtime,
    comparison_id: int,
    workers: int = 1,
    on_progress: Progress | None = None,
) -> Comparison:
    """Play the comparison's pairs as they are scheduled, until its verdict; its row."""
    while True:
        summary = advance(db, comparison_id)
        if summary is not None and on_progress is not None:
            on_progress(summary)
        with db.session(read_only=True) as s:
            comparison = s.get_one(Comparison, comparison_id)
            todo = claimable_matches(s, comparison.tournament_id)
        if comparison.status == "done":
            return comparison
        if todo:
            play_matches(db, runtime, todo, workers, lambda status: None)
        else:
            time.sleep(POLL_S)  # its matches are being played elsewhere


def comparison_matches(db: Database, runtime: Runtime) -> list[int]:
    """Open the gates, move every running comparison on, and the matches they wait for."""
    open_gates(db, runtime)
    advance_all(db)
    running = running_tournaments(db)
    with db.session(read_only=True) as s:
        return [m for t in running for m in claimable_matches(s, t)]
