"""How soon an organiser's stop reaches a match a worker is playing (the Celery backend's
path: no signal, the match's own watcher reads its run's row).

Each round creates a one-table tournament of house bots (two masters, two heuristics: in
process, so no sandbox is needed, and slow enough that a match lasts), records a run as the
dashboard's start does, plays the match in this thread with ``play_until_stopped`` and stops
the run from another thread after a chosen delay. It prints how long the stop took to give
the match back, against how long the rest of the same match takes when nobody stops it (the
same tournament's seed, played to the end afterwards): the wait a stop that only withdrew
queued jobs would have cost.

Run: python benchmarks/stop_latency.py [--rounds N] [--after S]
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import threading
import time
from pathlib import Path

from sqlalchemy import select

from arena.config import Settings
from arena.game import PAGAT
from arena.runtime import Runtime
from arena.store import Database, Match, upgrade
from arena.store.models import TournamentRun, utcnow
from arena.tournaments.background import stop_run
from arena.tournaments.create import new_tournament
from arena.tournaments.run import STOP_POLL_S, play_until_stopped
from arena.tournaments.spec import TournamentSpec

ENTRANTS = ["house:master", "house:heuristic", "house:master#2", "house:heuristic#2"]


def start_run(db: Database, tid: int) -> None:
    with db.session() as s:
        run = s.get(TournamentRun, tid) or TournamentRun(tournament_id=tid)
        run.backend, run.host, run.pid = "celery", "bench", None
        run.started_at, run.stopped_at = utcnow(), None
        s.add(run)


def one_round(db: Database, runtime: Runtime, seed: int, after: float) -> tuple[float, float]:
    """(seconds from the stop to the match given back, seconds the match took unstopped)."""
    rules = PAGAT.with_(deals_per_game=5)
    spec = TournamentSpec(ENTRANTS, rules, games_per_match=4, seed=seed, tables=1)
    tournament = new_tournament(db, runtime, spec)
    with db.session(read_only=True) as s:
        (match_id,) = s.scalars(select(Match.id).where(Match.tournament_id == tournament.id))
    start_run(db, tournament.id)
    stopped_at: list[float] = []

    def organiser() -> None:
        time.sleep(after + random.Random(seed).random())  # any phase of the watcher's poll
        stop_run(db, tournament.id)
        stopped_at.append(time.perf_counter())

    thread = threading.Thread(target=organiser)
    began = time.perf_counter()
    thread.start()
    status = play_until_stopped(db, runtime, match_id, "bench:1")
    returned = time.perf_counter()
    thread.join()
    if status != "stopped":
        raise SystemExit(f"the match ended ({status}) before the stop: lower --after")
    start_run(db, tournament.id)  # started again: the match is played whole this time
    whole_start = time.perf_counter()
    if play_until_stopped(db, runtime, match_id, "bench:1") != "done":
        raise SystemExit("the restarted match did not finish")
    whole = time.perf_counter() - whole_start
    return returned - stopped_at[0], whole - (stopped_at[0] - began)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument(
        "--after", type=float, default=2.0, help="seconds before the stop (plus 0-1 s)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'arena.db'}"
        upgrade(url)
        db = Database(url)
        runtime = Runtime(Settings(url, Path(tmp) / "data"))
        rounds = [one_round(db, runtime, seed, args.after) for seed in range(args.rounds)]
    stops, rests = zip(*rounds, strict=True)
    when = f"{args.after:g}-{args.after + 1:g} s"
    print(f"stop to match given back ({args.rounds} rounds, stopped {when} into a match")
    print(f"of 4 games x 5 deals; the watcher polls every {STOP_POLL_S} s):")
    print(f"  p50 {statistics.median(stops):.2f} s, max {max(stops):.2f} s")
    print(f"the rest of the same match, played out: p50 {statistics.median(rests):.1f} s")
    print(f"  {statistics.median(rests) / statistics.median(stops):.0f}x the stop's wait")


if __name__ == "__main__":
    main()
