"""Tournament throughput and where a match's time goes, for light and for thinking bots.

Plays the same tournament with the referee alone (no database, no queue), the embedded
executor with 1 and 2 workers, and 1 and 2 ``arena worker`` processes (concurrency 1 each)
on a ``redis-server`` of its own and Postgres, for two loads (4 games x 5 deals a match,
1,120 decisions):

- light: two sandboxed copies of the random sample bot and three house bots;
- thinking: five sandboxed copies of the random sample bot, made in a temporary folder,
  that spin 10 ms of CPU before every call and card.

Prints matches per minute, then where a match's time goes: start-up (per game, from the
first seat's ``start()`` to the last one's return: the referee starts the seats in
parallel), decisions (the wall time of ``decide()``: the bot's thinking and the round
trip), closing (the bots' exits), the rest of the referee's loop, all timed by a proxy
around each player of the referee-alone run; and queue + database (a backend's seconds
per match minus the referee alone's). The referee and the Celery workers are warmed up
first (numba's cache, unpacked bots); the embedded executor starts its worker processes
per run, so its figures include that start.

Targets: Celery within 15% of the embedded executor at equal parallelism;
2 workers >= 1.8x one worker. Light bots only: the referee alone with the
sandbox's kernel channels closed (the default) against the same left open
(``close_channels=False``, the sandbox before), alternated twice, within 10%.

Run: python benchmarks/workers.py [--tables N] [--think-tables N] [--postgres URL]
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
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import select, text

from arena.config import Settings
from arena.game import PAGAT
from arena.house.master import cache as master_cache
from arena.players.player import MatchInfo, Move, Player, Request
from arena.referee.match import Referee
from arena.registry import player_for, register_bot
from arena.runtime import Runtime
from arena.sandbox import SandboxPolicy
from arena.store import (
    Database,
    Match,
    MatchFault,
    claimable_matches,
    engine_for,
    normalise_url,
    upgrade,
)
from arena.tournaments.create import new_tournament
from arena.tournaments.executor import run_tournament
from arena.tournaments.run import match_spec
from arena.tournaments.spec import TournamentSpec

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PG = os.environ.get(
    "ARENA_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
HOUSE = ["house:heuristic", "house:random", "house:heuristic#2"]


class RedisServer:
    """A ``redis-server`` of the benchmark's own on a free port (no persistence)."""

    def __init__(self, workdir: Path) -> None:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        self.workdir, self.url = workdir, f"redis://127.0.0.1:{self.port}/0"
        self.proc = self._start()

    def _start(self) -> subprocess.Popen:
        command = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
        proc = subprocess.Popen([*command, "--dir", str(self.workdir)], stdout=subprocess.DEVNULL)
        time.sleep(0.5)
        return proc

    def ensure_up(self) -> None:
        """Start it again, on the same port, if something outside killed it (between runs:
        its queues are empty then), and say so."""
        if (status := self.proc.poll()) is not None:
            print(f"  (redis-server had exited with status {status}: started again)")
            self.proc = self._start()

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait()


@contextmanager
def redis_server(workdir: Path) -> Iterator[RedisServer]:
    server = RedisServer(workdir)
    try:
        yield server
    finally:
        server.stop()


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


class Phases:
    """Wall time of the referee-alone matches by phase, summed; filled by ``TimedPlayer``s."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.matches = 0
        self.total = self.start = self.decide = self.close = 0.0
        self.decisions = self.games = 0
        self.process_starts: list[float] = []  # one sandboxed seat's start(), seconds
        self.faults: list[str] = []  # any bot fault makes the figures meaningless
        # (phase, game) -> the (call, return) times of its seats: the referee starts and
        # closes the four seats of a game in parallel
        self._spans: dict[tuple[str, int], list[tuple[float, float]]] = {}

    def span(self, phase: str, game: int, begun: float, process: bool) -> None:
        ended = time.perf_counter()
        with self.lock:
            self._spans.setdefault((phase, game), []).append((begun, ended))
            if process and phase == "start":
                self.process_starts.append(ended - begun)

    def match_over(self, seconds: float) -> None:
        """Per game and phase, from the first seat's call to the last one's return."""
        self.matches += 1
        self.total += seconds
        self.games += sum(phase == "start" for phase, _ in self._spans)
        for (phase, _), spans in self._spans.items():
            wall = max(e for _, e in spans) - min(b for b, _ in spans)
            setattr(self, phase, getattr(self, phase) + wall)
        self._spans = {}


class TimedPlayer:
    """A Player that passes every call on to ``inner`` and times start, decide and close."""

    def __init__(self, inner: Player, phases: Phases) -> None:
        self.inner, self.phases = inner, phases
        self.name, self.games = inner.name, 0
        self.process = inner.sandbox not in ("in-process", "remote")

    def __getattr__(self, attr: str):
        return getattr(self.inner, attr)

    def start(self, info: MatchInfo, timeout_s: float) -> None:
        self.games += 1  # a seat's starts are its games 0, 1, ... (a forfeit ends them)
        begun = time.perf_counter()
        try:
            self.inner.start(info, timeout_s)
        finally:
            self.phases.span("start", self.games - 1, begun, self.process)

    def decide(self, request: Request, timeout_s: float) -> Move:
        begun = time.perf_counter()
        try:
            return self.inner.decide(request, timeout_s)
        finally:
            self.phases.decide += time.perf_counter() - begun
            self.phases.decisions += 1

    def close(self) -> None:
        begun = time.perf_counter()
        try:
            self.inner.close()
        finally:
            self.phases.span("close", self.games - 1, begun, self.process)


def referee_alone(
    db: Database, runtime: Runtime, tid: int, logs: Path, phases: Phases | None = None
) -> float:
    """Seconds per match, played one after another with no claim, record or queue; with
    ``phases``, each player is timed by a ``TimedPlayer``."""
    with db.session(read_only=True) as s:
        ids = claimable_matches(s, tid)
    play_alone(db, runtime, ids[0], logs, None)  # warm up (numba cache, unpacked bots)
    start = time.perf_counter()
    for match_id in ids:
        play_alone(db, runtime, match_id, logs, phases)
    return (time.perf_counter() - start) / len(ids)


def play_alone(
    db: Database, runtime: Runtime, match_id: int, logs: Path, phases: Phases | None
) -> None:
    """``play_stored_match`` (without a lease), its players wrapped when ``phases`` is given."""
    begun = time.perf_counter()
    spec, versions = match_spec(db, match_id)
    players = [player_for(db, runtime, v, spec.seed + i, logs) for i, v in enumerate(versions)]
    if phases is not None:
        players = [TimedPlayer(p, phases) for p in players]
    result = Referee(spec, players, None).run()
    if phases is not None:
        phases.faults += [f"{f.kind}: {f.reason}" for f in result.faults]
        phases.match_over(time.perf_counter() - begun)


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
            stop_workers(procs)
            logs = "".join(p.read_text()[-2000:] for p in root.glob("worker-*.log"))
            raise SystemExit(f"workers did not start:\n{logs}")
        time.sleep(0.1)
    return procs


def cluster_follow():
    """``workers.client.matches``, which this script's own name hides while the script runs."""
    here = Path(__file__).resolve().parent
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != here]
    sys.modules.pop("workers", None)
    return importlib.import_module("workers.client.matches")


def host_cpu_seconds() -> float:
    """CPU time the whole machine has spent working (user, nice, system; every process)."""
    fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    user, nice, system = (int(x) for x in fields[:3])
    return (user + nice + system) / os.sysconf("SC_CLK_TCK")


CPU_PER_MATCH: dict[int, float] = {}  # the last celery run's, by worker count


def celery(
    db: Database, redis: RedisServer, tids: tuple[int, int], count: int, root: Path
) -> float:
    """Seconds per match of tournament ``tids[1]``, after ``tids[0]`` warmed the workers up;
    the host's CPU seconds per match go to ``CPU_PER_MATCH``."""
    follow, send_matches = cluster_follow().follow, cluster_follow().send_matches
    redis.ensure_up()
    env = {**os.environ, "ARENA_SANDBOX_MODE": os.environ.get("ARENA_SANDBOX_MODE", "bwrap")}
    procs = start_workers(env, count, root)
    warm, tid = tids
    try:
        send_matches(db, warm)
        follow(db, warm, lease_s=60)
        start, cpu = time.perf_counter(), host_cpu_seconds()
        send_matches(db, tid)
        state = follow(db, tid, lease_s=60)
        CPU_PER_MATCH[count] = (host_cpu_seconds() - cpu) / state["done"]
        return (time.perf_counter() - start) / state["done"]
    finally:
        stop_workers(procs)


def stop_workers(procs: list[subprocess.Popen]) -> None:
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
    parser.add_argument(
        "--think-tables", type=int, default=8, help="matches per tournament of thinking bots"
    )
    parser.add_argument("--postgres", default=DEFAULT_PG)
    args = parser.parse_args()
    if shutil.which("redis-server") is None:
        raise SystemExit("redis-server is not installed")
    if master_cache.ensure_built() is not None:  # or every worker would build it at its start
        print("built the master bot's search cache (arena setup)")
    print(f"load average at the start: {os.getloadavg()[0]:.2f} (1 min), {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as tmp, redis_server(Path(tmp)) as redis:
        broker = redis.url
        root = Path(tmp)
        with private_schema(args.postgres) as url:
            os.environ |= {"ARENA_BROKER_URL": broker, "ARENA_DATABASE_URL": url}
            db, runtime = Database(url), Runtime(Settings(url, root / "here", broker))
            light, sandboxed, thinking = bots(db, runtime, root)
            loads = [
                ("light", light, args.tables, "2 sandboxed random bots + 3 house bots"),
                ("sandboxed", sandboxed, args.tables, "5 sandboxed random bots: 4 seats a game"),
                ("thinking", thinking, args.think_tables, "5 sandboxed random bots, 10 ms each"),
            ]
            print("(load: the 1-minute load average as each run ended, its own processes included)")
            for name, refs, tables, label in loads:
                print(f"\n{name}: {tables} matches of 4 games x 5 deals ({label})")
                run_load(db, runtime, redis, root / name, refs, tables, channels=name == "light")
    print(f"\nload average at the end: {os.getloadavg()[0]:.2f} (1 min)")


def bots(db: Database, runtime: Runtime, root: Path) -> tuple[list[str], ...]:
    """The loads' entrants: two random bots and three house bots; five random bots (every
    seat sandboxed); five random bots that think 10 ms (copies of the sample bot made in
    ``root``, never in the repository)."""
    sample = ROOT / "sample_bots" / "random"

    def copies(prefix: str, think: str = "") -> list[str]:
        folders = [copy_bot(sample, root / f"{prefix}{i}", think) for i in range(1, 6)]
        return [register_bot(db, runtime, f, validate=False).ref for f in folders]

    light = [register_bot(db, runtime, sample, validate=False).ref]
    light.append(register_bot(db, runtime, copy_bot(sample, root / "random2"), validate=False).ref)
    return [*light, *HOUSE], copies("sandboxed"), copies("think", THINK)


THINK = """
def think(seconds=0.010):
    \"\"\"Spin ``seconds`` of this process's CPU time, as a bot that searches would.\"\"\"
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass
"""


def copy_bot(sample: Path, folder: Path, think: str = "") -> Path:
    """A copy of ``sample`` named after ``folder``; with ``think``, it thinks before answering."""
    shutil.copytree(sample, folder)
    name = folder.name
    (folder / "bot.toml").write_text(
        f'name = "{name}"\nversion = "1"\ncommand = ["python3", "bot.py"]\n'
    )
    if think:
        code = (folder / "bot.py").read_text()
        spun = code.replace(
            "        return self.rng.choice", "        think()\n        return self.rng.choice"
        )
        assert spun.count("think()") == 2, "the sample bot no longer answers as expected"
        head, tail = spun.split("\n\nclass ", 1)
        (folder / "bot.py").write_text(f"{head}\nimport time\n{think}\n\nclass {tail}")
    return folder


def run_load(
    db: Database,
    runtime: Runtime,
    redis: RedisServer,
    root: Path,
    refs: list[str],
    tables: int,
    channels: bool,
) -> None:
    """Play one load on every backend and print its figures; ``channels``: also the referee
    alone with the kernel channels open."""

    def fresh(count: int = tables, warm: bool = False) -> int:
        # warm-up tournaments play short matches: their job is the workers' first start
        rules = PAGAT.with_(deals_per_game=1) if warm else PAGAT
        games = 1 if warm else 4
        spec = TournamentSpec(refs, rules=rules, games_per_match=games, seed=3, tables=count)
        return new_tournament(db, runtime, spec).id

    open_runtime = dataclasses.replace(runtime, policy=SandboxPolicy.from_env(close_channels=False))
    phases = Phases()
    closed, opened = [], []
    for _ in range(2 if channels else 1):  # alternated, so that load from elsewhere hits both
        closed.append(referee_alone(db, runtime, fresh(), root / "logs", phases))
        if channels:
            opened.append(referee_alone(db, open_runtime, fresh(), root / "logs"))
    alone, alone_load = sum(closed) / len(closed), os.getloadavg()[0]
    embedded_1, embedded_2, celery_1, celery_2 = fresh(), fresh(), fresh(), fresh()
    runs = {
        "embedded executor, 1 worker": lambda: embedded(db, runtime, embedded_1, 1),
        "embedded executor, 2 workers": lambda: embedded(db, runtime, embedded_2, 2),
        "celery, 1 worker": lambda: celery(db, redis, (fresh(2, True), celery_1), 1, root / "c1"),
        "celery, 2 workers": lambda: celery(db, redis, (fresh(6, True), celery_2), 2, root / "c2"),
    }
    results, load_after = {}, {}
    for name, run in runs.items():
        results[name] = run()
        load_after[name] = os.getloadavg()[0]
    print(
        f"  {'referee alone, 1 at a time':30} {60 / alone:7.1f} matches/min  load {alone_load:.1f}"
    )
    if channels:
        open_alone = sum(opened) / len(opened)
        print(f"  {'  ... kernel channels open':30} {60 / open_alone:7.1f} matches/min")
        print(f"closing the kernel channels: {alone / open_alone:.2f}x the time  (target <= 1.10)")
    for name, seconds in results.items():
        print(f"  {name:30} {60 / seconds:7.1f} matches/min  load {load_after[name]:.1f}")
    cpu = ", ".join(f"{n} worker{'s' * (n > 1)} {s:.2f}" for n, s in sorted(CPU_PER_MATCH.items()))
    print(f"host CPU seconds per match on celery (every process: bots, referee, databases): {cpu}")
    e1, e2 = results["embedded executor, 1 worker"], results["embedded executor, 2 workers"]
    c1, c2 = results["celery, 1 worker"], results["celery, 2 workers"]
    print(f"celery / embedded: {e1 / c1:.2f} (1 worker), {e2 / c2:.2f} (2)  (target >= 0.85)")
    print(f"celery 2 workers / 1 worker: {c1 / c2:.2f}x  (target >= 1.8x)")
    gaps = idle_gap_ms(db, celery_1), idle_gap_ms(db, embedded_1)
    print(f"idle gap between matches on a worker: {gaps[0]:.0f} ms celery, {gaps[1]:.0f} embedded")
    print_phases(phases, c1, e1)
    faults = phases.faults + stored_faults(db, [embedded_1, embedded_2, celery_1, celery_2])
    if faults:
        print(f"!! {len(faults)} bot faults (these figures are not a fair load): {faults[0]}")


def stored_faults(db: Database, tids: list[int]) -> list[str]:
    query = (
        select(MatchFault.kind, MatchFault.reason)
        .join(Match, Match.id == MatchFault.match_id)
        .where(Match.tournament_id.in_(tids))
    )
    with db.session(read_only=True) as s:
        return [f"{kind}: {reason}" for kind, reason in s.execute(query).all()]


def print_phases(phases: Phases, celery_1: float, embedded_1: float) -> None:
    """Where a match's time goes: the referee-alone phases per match, then the queue and
    database as the 1-worker backends' seconds per match minus the referee alone's."""
    n = phases.matches
    alone = phases.total / n
    start, decide, close = phases.start / n, phases.decide / n, phases.close / n
    seats = len(phases.process_starts) / phases.games
    one_start = 1000 * statistics.mean(phases.process_starts)
    each = 1000 * phases.decide / phases.decisions
    rest = alone - start - decide - close
    rows = [
        (
            "start-up",
            start,
            f"{phases.games / n:.0f} games x {seats:.1f} sandboxed seats started in parallel;"
            f" one start {one_start:.0f} ms",
        ),
        (
            "decisions",
            decide,
            f"{phases.decisions / n:,.0f} decide() calls, {each:.2f} ms each"
            " (the bot's thinking + the round trip)",
        ),
        ("closing", close, "the bots' exits, seats closed in parallel"),
        ("rest of the referee", rest, "events to the bots, rules, record"),
        ("= referee alone", alone, ""),
        (
            "queue + database",
            celery_1 - alone,
            f"(embedded executor, 1 worker: {1000 * (embedded_1 - alone):.0f} ms)",
        ),
    ]
    print(
        "where a match's time goes (ms a match; share of a match on 1 celery worker,"
        f" {celery_1:.2f} s):"
    )
    for name, seconds, note in rows:
        print(f"  {name:20} {1000 * seconds:7.0f} {100 * seconds / celery_1:4.0f}%  {note}")


if __name__ == "__main__":
    main()
