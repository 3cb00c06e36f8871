"""Tournament throughput: the Celery backend against the embedded executor.

Plays the same tournament (light bots: two sandboxed copies of the random sample bot and
three house bots; 4 games x 5 deals a match) with the referee alone (no database, no
queue), the embedded executor with 1 and 2 workers, and 1 and 2 ``arena worker`` processes
(concurrency 1 each) on a ``redis-server`` of its own and Postgres. Prints matches per
minute and the queue + database overhead per match against the referee alone. The referee
and the Celery workers are warmed up first (numba's cache, unpacked bots); the embedded
executor starts its worker processes per run, so its figures include that start.

Targets (issue 8): Celery within 15% of the embedded executor at equal parallelism;
2 workers >= 1.8x one worker. Issue 21: the referee alone with the sandbox's kernel channels
closed (the default) against the same left open (``close_channels=False``, the sandbox
before), alternated twice, within 10%.

Run: python benchmarks/workers.py [--tables N] [--postgres URL]
(needs redis-server, Postgres and bwrap; works in a private schema dropped at the end).
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import itertools
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import select, text

from arena.config import Settings
from arena.registry import register_bot
from arena.runtime import Runtime
from arena.sandbox import SandboxPolicy
from arena.store import Database, Match, claimable_matches, engine_for, normalise_url, upgrade
from arena.tournaments.create import new_tournament
from arena.tournaments.executor import run_tournament
from arena.tournaments.run import play_stored_match
from arena.tournaments.spec import TournamentSpec

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PG = os.environ.get(
    "ARENA_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
HOUSE = ["house:heuristic", "house:random", "house:heuristic#2"]


@contextmanager
def redis_server(workdir: Path) -> Iterator[str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    command = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", ""]
    proc = subprocess.Popen([*command, "--dir", str(workdir)], stdout=subprocess.DEVNULL)
    time.sleep(0.5)
    try:
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.kill()
        proc.wait()


@contextmanager
def private_schema(base_url: str) -> Iterator[str]:
    base = normalise_url(base_url)
    schema = f"arena_bench_{uuid.uuid4().hex[:8]}"
    admin = engine_for(base)
    with admin.begin() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    url = base.update_query_dict({"options": f"-csearch_path={schema}"})
    try:
        upgrade(url)
        yield url.render_as_string(hide_password=False)
    finally:
        with admin.begin() as conn:
            conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
        admin.dispose()


def referee_alone(db: Database, runtime: Runtime, tid: int, logs: Path) -> float:
    """Seconds per match, played one after another with no claim, record or queue."""
    with db.session(read_only=True) as s:
        ids = claimable_matches(s, tid)
    play_stored_match(db, runtime, ids[0], logs)  # warm up (numba cache, unpacked bots)
    start = time.perf_counter()
    for match_id in ids:
        play_stored_match(db, runtime, match_id, logs)
    return (time.perf_counter() - start) / len(ids)


def embedded(db: Database, runtime: Runtime, tid: int, workers: int) -> float:
    start = time.perf_counter()
    summary = run_tournament(db, runtime, tid, workers)
    return (time.perf_counter() - start) / summary.status["done"]


def start_workers(env: dict[str, str], count: int, root: Path) -> list[subprocess.Popen]:
    arena = [str(Path(sys.executable).with_name("arena"))]
    root.mkdir(parents=True, exist_ok=True)
    procs = []
    for i in range(count):
        log = root / f"worker-{i}.log"
        procs.append(
            subprocess.Popen(
                [*arena, "worker", "--concurrency", "1"],
                env=env | {"ARENA_DATA_DIR": str(root / f"worker-{i}")},
                stdout=log.open("wb"),
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        )
    deadline = time.monotonic() + 60
    while sum("ready." in p.read_text() for p in root.glob("worker-*.log")) < count:
        if time.monotonic() > deadline:
            raise SystemExit("workers did not start; see " + str(root))
        time.sleep(0.1)
    return procs


def cluster_follow():
    """``workers.client.matches``, which this script's own name hides while the script runs."""
    here = Path(__file__).resolve().parent
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != here]
    sys.modules.pop("workers", None)
    return importlib.import_module("workers.client.matches")


def celery(db: Database, env: dict[str, str], tids: tuple[int, int], count: int, root: Path):
    """Seconds per match of tournament ``tids[1]``, after ``tids[0]`` warmed the workers up."""
    follow, send_matches = cluster_follow().follow, cluster_follow().send_matches
    procs = start_workers(env, count, root)
    warm, tid = tids
    try:
        send_matches(db, warm)
        follow(db, warm, lease_s=60)
        start = time.perf_counter()
        send_matches(db, tid)
        state = follow(db, tid, lease_s=60)
        return (time.perf_counter() - start) / state["done"]
    finally:
        for proc in procs:
            os.killpg(proc.pid, signal.SIGTERM)
        for proc in procs:
            proc.wait()


def idle_gap_ms(db: Database, tid: int) -> float:
    """Mean time a worker spends between finishing one match and starting its next (the
    queue round trip and the claim), from the matches' own timestamps."""
    query = select(Match.worker, Match.started_at, Match.finished_at).where(
        Match.tournament_id == tid
    )
    with db.session(read_only=True) as s:
        rows = sorted(s.execute(query).all(), key=lambda r: (r.worker, r.started_at))
    gaps = [
        (b.started_at - a.finished_at).total_seconds()
        for a, b in itertools.pairwise(rows)
        if a.worker == b.worker
    ]
    return 1000 * sum(gaps) / max(1, len(gaps))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=12, help="matches per tournament")
    parser.add_argument("--postgres", default=DEFAULT_PG)
    args = parser.parse_args()
    if shutil.which("redis-server") is None:
        raise SystemExit("redis-server is not installed")
    with tempfile.TemporaryDirectory() as tmp, redis_server(Path(tmp)) as broker:
        root = Path(tmp)
        with private_schema(args.postgres) as url:
            os.environ |= {"ARENA_BROKER_URL": broker, "ARENA_DATABASE_URL": url}
            env = {
                **os.environ,
                "ARENA_SANDBOX_MODE": os.environ.get("ARENA_SANDBOX_MODE", "bwrap"),
            }
            run_all(
                Database(url), Runtime(Settings(url, root / "here", broker)), env, root, args.tables
            )


def run_all(db: Database, runtime: Runtime, env: dict, root: Path, tables: int) -> None:
    refs = [register_bot(db, runtime, ROOT / "sample_bots" / "random", validate=False).ref]
    copy = root / "random2"
    shutil.copytree(ROOT / "sample_bots" / "random", copy)
    (copy / "bot.toml").write_text(
        'name = "random2"\nversion = "1"\ncommand = ["python3", "bot.py"]\n'
    )
    refs.append(register_bot(db, runtime, copy, validate=False).ref)

    def fresh(count: int = tables) -> int:
        t = new_tournament(db, runtime, TournamentSpec([*refs, *HOUSE], seed=3, tables=count))
        return t.id

    open_runtime = dataclasses.replace(runtime, policy=SandboxPolicy.from_env(close_channels=False))
    closed, opened = [], []
    for _ in range(2):  # alternated, so that load from elsewhere hits both alike
        closed.append(referee_alone(db, runtime, fresh(), root / "logs"))
        opened.append(referee_alone(db, open_runtime, fresh(), root / "logs"))
    alone = sum(closed) / len(closed)
    embedded_1, celery_1 = fresh(), fresh()
    results = {
        "embedded executor, 1 worker": embedded(db, runtime, embedded_1, 1),
        "embedded executor, 2 workers": embedded(db, runtime, fresh(), 2),
        "celery, 1 worker": celery(db, env, (fresh(1), celery_1), 1, root / "c1"),
        "celery, 2 workers": celery(db, env, (fresh(4), fresh()), 2, root / "c2"),
    }
    print(f"{tables} matches of 4 games x 5 deals (2 sandboxed random bots + 3 house bots)")
    print(f"  {'referee alone, 1 at a time':30} {60 / alone:7.1f} matches/min")
    open_alone = sum(opened) / len(opened)
    print(f"  {'  ... kernel channels open':30} {60 / open_alone:7.1f} matches/min")
    print(f"closing the kernel channels: {alone / open_alone:.2f}x the time  (target <= 1.10)")
    for name, seconds in results.items():
        print(f"  {name:30} {60 / seconds:7.1f} matches/min")
    e1, e2 = results["embedded executor, 1 worker"], results["embedded executor, 2 workers"]
    c1, c2 = results["celery, 1 worker"], results["celery, 2 workers"]
    print(f"celery / embedded: {e1 / c1:.2f} (1 worker), {e2 / c2:.2f} (2)  (target >= 0.85)")
    print(f"celery 2 workers / 1 worker: {c1 / c2:.2f}x  (target >= 1.8x)")
    gaps = idle_gap_ms(db, celery_1), idle_gap_ms(db, embedded_1)
    print(f"idle gap between matches on a worker: {gaps[0]:.0f} ms celery, {gaps[1]:.0f} embedded")
    print(
        f"queue + database overhead per match: {1000 * (c1 - alone):.0f} ms (celery),"
        f" {1000 * (e1 - alone):.0f} ms (embedded), on {1000 * alone:.0f} ms of referee"
    )


if __name__ == "__main__":
    main()
