"""The decision audit's pace beside play, on the Celery backend.

One ``arena worker`` (concurrency 1, its default queues, so it takes audit jobs too) on a
``redis-server`` of this script's own and Postgres plays a tournament of four sandboxed
copies of the random sample bot (4 games x 5 deals a match; every entrant is judged) with
the worker's inline judging budget (``ARENA_AUDIT_SHARE``) at 0 (every judging queued, at
the lowest priority: a busy ladder starves it), at the default 0.5, and at 1, after a first
tournament (row "(first)", at 0) has given the bots the judged matches past which the
budget applies to them (a version's first ones are judged whatever it says). For each it
prints matches per minute while the tournament plays, the share of its matches judged by
the time its last match was recorded, how long the rest took after that, and the judging's
CPU seconds per match. A ladder never ends, so what is not judged while it plays waits as
long as it stays busy: the second column is what the audit keeps up with.

Run: python benchmarks/audit_pace.py [--tables N] [--shares 0,0.5,1] [--postgres URL]
(needs redis-server, Postgres and bwrap; works in a private schema dropped at the end).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from sqlalchemy import func, select

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks.workers

from arena.audits.suspects import FIRST_JUDGED
from arena.config import Settings
from arena.game import PAGAT
from arena.house.master import cache as master_cache
from arena.registry import register_bot
from arena.runtime import Runtime
from arena.store import Database, Match, MatchHindsight
from arena.tournaments.create import new_tournament
from arena.tournaments.spec import TournamentSpec
from benchmarks.workers import (
    DEFAULT_PG,
    ROOT,
    RedisServer,
    cluster_follow,
    copy_bot,
    private_schema,
    redis_server,
    start_workers,
    stop_workers,
)

DRAIN_WAIT_S = 1800.0  # the longest wait for the judging left after the last match


def judged(db: Database, tid: int) -> tuple[int, float]:
    """The tournament's hindsights done, and their judging's CPU seconds."""
    query = (
        select(func.count(), func.coalesce(func.sum(MatchHindsight.cpu_seconds), 0.0))
        .join(Match, Match.id == MatchHindsight.match_id)
        .where(Match.tournament_id == tid, MatchHindsight.status == "done")
    )
    with db.session(read_only=True) as s:
        done, cpu = s.execute(query).one()
    return int(done), float(cpu)


def tournament(db: Database, runtime: Runtime, refs: list[str], tables: int, seed: int) -> int:
    spec = TournamentSpec(refs, rules=PAGAT, games_per_match=4, seed=seed, tables=tables)
    return new_tournament(db, runtime, spec).id


def wait_judged(db: Database, tid: int, count: int) -> float:
    """Seconds until ``count`` of the tournament's matches are judged."""
    start = time.perf_counter()
    while judged(db, tid)[0] < count:
        if time.perf_counter() - start > DRAIN_WAIT_S:
            raise SystemExit(f"tournament {tid}: judging not done after {DRAIN_WAIT_S:.0f} s")
        time.sleep(0.5)
    return time.perf_counter() - start


def one_share(
    db: Database,
    runtime: Runtime,
    redis: RedisServer,
    refs: list[str],
    args,
    share: float,
    tables: int,
    label: str = "",
) -> str:
    follow, send_matches = cluster_follow().follow, cluster_follow().send_matches
    redis.ensure_up()
    env = {**os.environ, "ARENA_AUDIT_SHARE": str(share)}
    env.setdefault("ARENA_SANDBOX_MODE", "bwrap")
    root = Path(args.root) / f"run-{len(list(Path(args.root).glob('run-*')))}"  # fresh logs
    procs = start_workers(env, 1, root)
    try:
        warm = tournament(db, runtime, refs, 1, seed=1)  # the worker's start, unpacking
        send_matches(db, warm)
        follow(db, warm, lease_s=60)
        wait_judged(db, warm, 1)
        tid = tournament(db, runtime, refs, tables, seed=2)
        start = time.perf_counter()
        send_matches(db, tid)
        done = follow(db, tid, lease_s=60)["done"]
        played_s = time.perf_counter() - start
        during, _ = judged(db, tid)
        drain_s = wait_judged(db, tid, done)
        _, cpu = judged(db, tid)
    finally:
        stop_workers(procs)
    return (
        f"  {label or f'{share:.2f}':>7} {60 * done / played_s:10.1f}"
        f" {during / done:14.0%} ({during}/{done}) {drain_s:10.0f} s {cpu / done:10.1f}"
        f"   load {os.getloadavg()[0]:.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=8, help="matches of the timed tournament")
    parser.add_argument("--shares", default="0,0.5,1", help="ARENA_AUDIT_SHARE values to run")
    parser.add_argument("--postgres", default=DEFAULT_PG)
    args = parser.parse_args()
    if master_cache.ensure_built() is not None:
        print("built the master bot's search cache (arena setup)")
    print(f"load average at the start: {os.getloadavg()[0]:.2f} (1 min), {os.cpu_count()} cores")
    print(f"{args.tables} matches of 4 games x 5 deals, 4 sandboxed random bots, 1 worker")
    print("    share  matches/min  judged by the end  then took  CPU s/match")
    with tempfile.TemporaryDirectory() as tmp, redis_server(Path(tmp)) as redis:
        args.root = tmp
        with private_schema(args.postgres) as url:
            os.environ |= {"ARENA_BROKER_URL": redis.url, "ARENA_DATABASE_URL": url}
            db, runtime = Database(url), Runtime(Settings(url, Path(tmp) / "here", redis.url))
            sample = ROOT / "sample_bots" / "random"
            refs = [
                register_bot(db, runtime, copy_bot(sample, Path(tmp) / f"r{i}"), validate=False).ref
                for i in range(1, 5)
            ]
            # the bots' first judged matches, judged at once whatever a budget says
            # (``arena.audits.suspects``), by a worker of their own: the budget applies after
            print(
                one_share(db, runtime, redis, refs, args, 0.0, FIRST_JUDGED, "(first)"), flush=True
            )
            for share in (float(x) for x in args.shares.split(",")):
                print(one_share(db, runtime, redis, refs, args, share, args.tables), flush=True)


if __name__ == "__main__":
    main()
