"""Contest day on this machine: the real stack (``arena dashboard``, ``arena beat``, N
``arena worker``, Postgres behind a forwarder that can cut it, a Redis of its own), a room of
contestants signing up from one address with an invite code, making API tokens and uploading
versions over HTTP (valid, crashing, illegal, oversized, wrong manifest) while readers browse
every public page and API, and a fault schedule: a worker killed with -9, Redis restarted
(losing its jobs), the database cut for 20 s, the dashboard killed with -9.

Prints latency percentiles per page (outside the fault windows, and overall), upload-to-
verdict latency, the ladder's throughput and placements, what each fault cost, and an
integrity check: each match recorded once, each upload answered, no fault charged to a bot
that never misbehaves, no HTTP 500.

Needs PostgreSQL on 127.0.0.1:5432 (trust), redis-server, bwrap.

Run: python benchmarks/contest_day.py [--workers 2] [--contestants 30] [--uploads 60]
     [--readers 20] [--minutes 10] [--no-faults] [--json FILE]
"""

from __future__ import annotations

import argparse
import http.client
import io
import json
import multiprocessing
import os
import random
import re
import statistics
import subprocess
import tempfile
import threading
import time
import zipfile
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote_plus

import psycopg
from stack import (  # benchmarks/stack.py, beside this file
    ARENA,
    DatabaseLink,
    Redis,
    arena,
    drop_database,
    free_port,
    fresh_database,
    kill,
    started,
)

PASSWORD = "contest-day-password"
OVERSIZED = 65 * 1024 * 1024
GRACE_S = 180  # after the last upload: verdicts still due, placements going on
TRIES = 10  # an upload answered 503 (Retry-After) or not at all is sent again, up to this
QUIET_AFTER_S = 10  # a fault's window lasts this long after it ends
BOT = """from arena.sdk import Bot, serve


class Entry(Bot):
    name = "{name}"
    version = "{version}"
    decisions = 0

    def call(self, obs):
        return {call}

    def play(self, obs):
        self.decisions += 1
        {play}


if __name__ == "__main__":
    serve(Entry())
"""
PLAYS = {
    "valid": "return self.rng.choice(obs.legal_cards)",
    "crashing": "if self.decisions > 20:\n            raise SystemExit(3)\n"
    "        return obs.legal_cards[0]",
    "illegal": "return next((c for c in obs.hand if c not in obs.legal_cards), obs.hand[0])",
}
# What 60 uploads are made of (scaled to --uploads), in a seeded random order.
KINDS = {"valid": 44, "crashing": 5, "illegal": 5, "oversized": 3, "manifest": 3}


@dataclass
class Upload:
    contestant: int
    kind: str
    at_s: float  # planned, from the start
    version_id: int | None = None
    status: int = 0  # HTTP status of the upload
    retries: int = 0  # sent again after a 503 or a refused connection
    verdict: str = ""
    latency_s: float | None = None
    error: str = ""


@dataclass
class Fault:
    name: str
    start: float
    end: float = 0.0
    notes: list[str] = field(default_factory=list)


def archive(kind: str, name: str, version: str, seed: int) -> bytes:
    if kind == "oversized":
        return random.Random(seed).randbytes(OVERSIZED)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        if kind == "manifest":
            zf.writestr("bot.toml", f'name = "{name}"\nversion = "{version}"\n')  # no command
        else:
            manifest = f'name = "{name}"\nversion = "{version}"\ncommand = ["python3", "bot.py"]\n'
            zf.writestr("bot.toml", manifest)
        play = PLAYS.get(kind, PLAYS["valid"])
        call = "obs.legal_calls[0]" if kind != "valid" else "self.rng.choice(obs.legal_calls)"
        zf.writestr("bot.py", BOT.format(name=name, version=version, call=call, play=play))
    return buf.getvalue()


class Http:
    """One keep-alive connection with a cookie jar: a browser, roughly."""

    def __init__(self, port: int, timeout: float = 30.0) -> None:
        self.port, self.timeout = port, timeout
        self.cookies: dict[str, str] = {}
        self.conn: http.client.HTTPConnection | None = None

    def request(
        self, method: str, path: str, body: bytes | None = None, headers: dict | None = None
    ) -> tuple[int, bytes, dict[str, str]]:
        headers = dict(headers or {})
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        for attempt in range(2):
            if self.conn is None:
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
            try:
                self.conn.request(method, path, body=body, headers=headers)
                reply = self.conn.getresponse()
                data = reply.read()
            except (OSError, http.client.HTTPException):
                self.close()
                if attempt or body is not None:
                    raise
                continue
            for value in reply.headers.get_all("Set-Cookie") or []:
                key, _, rest = value.partition("=")
                self.cookies[key.strip()] = rest.split(";", 1)[0]
            if reply.getheader("Connection", "").lower() == "close":
                self.close()
            return reply.status, data, dict(reply.headers)
        raise AssertionError("unreachable")

    def form(self, path: str, fields: dict[str, str], page: str) -> tuple[int, bytes]:
        _, html, _ = self.request("GET", page)
        found = re.search(rb'name="csrf_token" value="([^"]+)"', html)
        fields = {**fields, "csrf_token": found.group(1).decode() if found else ""}
        body = "&".join(f"{k}={quote_plus(v)}" for k, v in fields.items()).encode()
        status, data, _ = self.request(
            "POST", path, body, {"Content-Type": "application/x-www-form-urlencoded"}
        )
        return status, data

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


# ---------------------------------------------------------------- the stack


class Platform:
    def __init__(self, scratch: Path, workers: int) -> None:
        self.scratch, self.logs = scratch, scratch / "logs"
        self.logs.mkdir()
        self.database = fresh_database("bench_contest")
        self.redis = Redis(scratch)
        self.redis.start()
        base = {**os.environ, "ARENA_SECRET_KEY": "contest-day-" + "k" * 20, "COLUMNS": "200"}
        self.link = DatabaseLink(base)
        url = f"postgresql+psycopg://postgres@127.0.0.1:{{}}/{self.database}"
        self.direct = url.format(5432).replace("+psycopg", "")
        self.env = {
            **base,
            "ARENA_DATABASE_URL": url.format(self.link.port),
            "ARENA_BROKER_URL": self.redis.url,
            "ARENA_SANDBOX_MODE": "bwrap",
        }
        arena("db", "upgrade", env=self.service_env("cli"))
        self.port = free_port()
        self.dashboard = self._dashboard()
        self.beat = started([*ARENA, "beat"], self.service_env("beat"), self.logs / "beat")
        self.workers = [self._worker(i) for i in range(workers)]

    def service_env(self, name: str) -> dict[str, str]:
        return {**self.env, "ARENA_DATA_DIR": str(self.scratch / "data" / name)}

    def _dashboard(self) -> subprocess.Popen:
        argv = [*ARENA, "dashboard", "--port", str(self.port)]
        return started(argv, self.service_env("dashboard"), self.logs / "dashboard")

    def _worker(self, i: int) -> subprocess.Popen:
        argv = [*ARENA, "worker", "--concurrency", "1"]
        return started(argv, self.service_env(f"worker-{i}"), self.logs / f"worker-{i}")

    def restart_worker(self, i: int) -> None:
        self.workers[i] = self._worker(i)

    def restart_dashboard(self) -> None:
        self.dashboard = self._dashboard()

    def sql(self, query: str, *params) -> list[tuple]:
        with psycopg.connect(self.direct) as conn:
            return conn.execute(query, params).fetchall()

    def close(self) -> None:
        for proc in [self.dashboard, self.beat, *self.workers]:
            kill(proc, 15)
        self.link.close()
        self.redis.stop()
        drop_database(self.database)


def wait_ready(platform: Platform, timeout: float = 240.0) -> None:
    """The dashboard answers and every worker has said it is ready."""
    deadline = time.monotonic() + timeout
    web = Http(platform.port, timeout=5)
    while time.monotonic() < deadline:
        try:
            up = web.request("GET", "/")[0] == 200
        except OSError:
            up = False
        ready = all(
            "ready." in (platform.logs / f"worker-{i}").read_text(errors="replace")
            for i in range(len(platform.workers))
        )
        if up and ready:
            return
        time.sleep(1)
    raise SystemExit(f"the stack did not come up in {timeout:.0f} s: see {platform.logs}")


# ---------------------------------------------------------------- contestants


def invite_code(platform: Platform, uses: int) -> str:
    arena("user", "add", "organiser", "--admin", env={**platform.env, "ARENA_PASSWORD": PASSWORD})
    out = arena("user", "invite", "--uses", str(uses), "--label", "contest day", env=platform.env)
    return out.split()[-1]


def sign_up(port: int, i: int, code: str) -> str:
    """The contestant's API token, from the sign-up form and the account page."""
    web = Http(port)
    fields = {"name": f"player{i:02d}", "password": PASSWORD, "password2": PASSWORD}
    fields["invite"] = code
    status, body = web.form("/signup", fields, "/signup")
    if status not in (200, 302, 303):
        raise SystemExit(f"sign-up of player{i:02d} refused ({status}): {body[:300]!r}")
    status, body = web.form("/account/tokens", {"label": "contest"}, "/account")
    found = re.search(rb'id="new-token">([^<]+)<', body)
    if status != 201 or not found:
        raise SystemExit(f"no token for player{i:02d} ({status})")
    return found.group(1).decode()


def run_upload(port: int, token: str, upload: Upload, version: str, seed: int) -> None:
    name = f"entry{upload.contestant:02d}"
    data = archive(upload.kind, name, version, seed)
    web = Http(port, timeout=120)
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/zip"}
    headers["Content-Length"] = str(len(data))
    begun = time.monotonic()
    for attempt in range(TRIES):  # as a client should: again after a 503 or a refused connection
        try:
            status, body, answer = web.request(
                "POST", f"/api/v1/bots/{name}/versions", data, headers
            )
        except OSError as exc:
            status, body, answer = 0, repr(exc).encode(), {}
        if status not in (0, 503) or attempt == TRIES - 1:
            break
        upload.retries += 1
        time.sleep(float(answer.get("Retry-After", 2)))
    if status == 0:
        upload.error = f"no answer: {body.decode()}"
        return
    upload.status = status
    reply = _json(body)
    if status != 201:
        upload.verdict, upload.error = f"refused {status}", str(reply.get("error", body[:200]))
        upload.latency_s = time.monotonic() - begun
        return
    upload.version_id = reply.get("id") or reply.get("version_id")
    auth = {"Authorization": f"Bearer {token}"}
    while True:
        try:
            status, body, _ = web.request(
                "GET", f"/api/v1/versions/{upload.version_id}", None, auth
            )
        except OSError:
            status, body = 0, b""
        verdict = _json(body).get("status", "") if status == 200 else ""
        if verdict and verdict != "pending":
            upload.verdict, upload.latency_s = verdict, time.monotonic() - begun
            return
        if time.monotonic() - begun > GRACE_S + 600:
            upload.verdict = "no verdict"
            return
        time.sleep(0.5)


def _json(body: bytes) -> dict:
    try:
        value = json.loads(body)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def plan_uploads(contestants: int, uploads: int, window_s: float, seed: int) -> list[Upload]:
    rng = random.Random(seed)
    total = sum(KINDS.values())
    kinds = [k for k, n in KINDS.items() for _ in range(round(n * uploads / total))]
    kinds = (kinds + ["valid"] * uploads)[:uploads]
    rng.shuffle(kinds)
    # every contestant's first upload is a valid one (a room uploads its bot, then tries)
    owners = [i % contestants for i in range(uploads)]
    rng.shuffle(owners)
    times = sorted(rng.uniform(0, window_s) for _ in range(uploads))
    plan = [Upload(o, k, t) for o, k, t in zip(owners, kinds, times, strict=True)]
    first: set[int] = set()
    for upload in plan:
        if upload.contestant not in first:
            first.add(upload.contestant)
            if upload.kind != "valid":
                swap = next(u for u in plan if u.kind == "valid" and u.contestant in first)
                upload.kind, swap.kind = "valid", upload.kind
    return plan


# ---------------------------------------------------------------- readers


PAGES = {
    "/": "/",
    "/ladders/pagat": "/ladders/pagat",
    "/leaderboard": "/leaderboard",
    "/bots/": "/bots/",
    "/bots/N": "/bots/{bot}",
    "/matches/": "/matches/",
    "/matches/N": "/matches/{match}",
    "/matches/N/replay.json": "/matches/{match}/replay.json",
    "/tournaments/": "/tournaments/",
    "api ladder": "/api/v1/ladders/pagat",
    "api bots": "/api/v1/bots",
    "api bots/N": "/api/v1/bots/{bot}",
    "api matches": "/api/v1/matches",
    "api matches/N": "/api/v1/matches/{match}",
    "api replay": "/api/v1/matches/{match}/replay",
}


def reader(port: int, until: float, seed: int, out: str, threads: int) -> None:
    """``threads`` readers in this process, each a page then 0.5-2 s of reading; one line
    per request in ``out``: wall time, page, status, milliseconds."""
    lines: list[str] = []
    lock = threading.Lock()
    known = {"bot": [], "match": []}

    def learn(web: Http) -> None:
        for key, path in (("bot", "/api/v1/bots"), ("match", "/api/v1/matches")):
            try:
                status, body, _ = web.request("GET", path)
            except OSError:
                continue
            if status == 200:
                items = json.loads(body)
                items = items.get("matches", []) if isinstance(items, dict) else items
                ids = [item["id"] for item in items if isinstance(item, dict) and "id" in item]
                if ids:
                    known[key] = ids

    def one(n: int) -> None:
        rng = random.Random(seed * 100 + n)
        web = Http(port, timeout=30)
        learn(web)
        while time.time() < until:
            label = rng.choice(list(PAGES))
            template = PAGES[label]
            if ("{bot}" in template and not known["bot"]) or (
                "{match}" in template and not known["match"]
            ):
                learn(web)
                continue
            path = template.format(
                bot=rng.choice(known["bot"] or [0]), match=rng.choice(known["match"] or [0])
            )
            begun = time.time()
            try:
                status = web.request("GET", path)[0]
            except OSError:
                status = 0
            ms = (time.time() - begun) * 1000
            with lock:
                lines.append(f"{begun:.3f}\t{label}\t{status}\t{ms:.1f}")
            if rng.random() < 0.05:
                learn(web)
            time.sleep(rng.uniform(0.5, 2.0))

    pool = [threading.Thread(target=one, args=(n,)) for n in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    Path(out).write_text("\n".join(lines) + "\n")


# ---------------------------------------------------------------- faults


def kill_worker(platform: Platform, fault: Fault) -> None:
    """-9 on worker 0 mid-match, restarted 5 s later (a restart policy's pause); how long
    until its match was claimed again (or done)."""
    proc = platform.workers[0]
    held = _running_on(platform, proc.pid)
    for _ in range(120):
        if held:
            break
        time.sleep(0.5)
        held = _running_on(platform, proc.pid)
    attempts = dict(platform.sql("SELECT id, attempts FROM matches WHERE id = ANY(%s)", held))
    kill(proc)
    fault.start = time.time()
    time.sleep(5)
    platform.restart_worker(0)
    if not held:
        fault.notes.append("the worker held no match when killed")
        fault.end = time.time()
        return
    while time.time() - fault.start < 600:
        rows = platform.sql("SELECT id, attempts, status FROM matches WHERE id = ANY(%s)", held)
        if all(status == "done" or n > attempts[m] for m, n, status in rows):
            break
        time.sleep(0.5)
    fault.end = time.time()
    fault.notes.append(f"match {held} claimed again {fault.end - fault.start:.0f} s after the kill")


def _running_on(platform: Platform, pid: int) -> list[int]:
    """The matches leased by the worker's pool processes (a lease names ``host:pid``)."""
    children = Path(f"/proc/{pid}/task/{pid}/children")
    kids = [pid, *map(int, children.read_text().split())] if children.exists() else [pid]
    rows = platform.sql(
        "SELECT id, worker FROM matches WHERE status = 'running' AND worker IS NOT NULL"
    )
    return [m for m, worker in rows if int(worker.rpartition(":")[2] or 0) in kids]


def restart_redis(platform: Platform, fault: Fault) -> None:
    """Redis killed (its jobs lost) and started again 3 s later; how long until a match
    started after it."""
    fault.start = time.time()
    platform.redis.stop()
    time.sleep(3)
    platform.redis.start()
    back = time.time()
    while time.time() - back < 600:
        rows = platform.sql(
            "SELECT count(*) FROM matches WHERE started_at > to_timestamp(%s)", back
        )
        if rows[0][0]:
            break
        time.sleep(0.5)
    fault.end = time.time()
    fault.notes.append(f"a match started {fault.end - back:.0f} s after Redis was back")


def cut_database(platform: Platform, fault: Fault, seconds: float = 20.0) -> None:
    fault.start = time.time()
    platform.link.cut()
    time.sleep(seconds)
    platform.link.restore()
    fault.end = time.time()


def kill_dashboard(platform: Platform, fault: Fault) -> None:
    """-9 on the dashboard, started again at once; how long until it answered."""
    fault.start = time.time()
    kill(platform.dashboard)
    platform.restart_dashboard()
    web = Http(platform.port, timeout=5)
    while time.time() - fault.start < 120:
        try:
            if web.request("GET", "/healthz")[0] == 200:
                break
        except OSError:
            pass
        time.sleep(0.1)
    fault.end = time.time()
    fault.notes.append(f"answering again {fault.end - fault.start:.1f} s after the kill")


SCHEDULE = [
    (0.25, kill_worker),
    (0.45, restart_redis),
    (0.65, cut_database),
    (0.85, kill_dashboard),
]


# ---------------------------------------------------------------- the run


def percentiles(values: list[float]) -> str:
    if not values:
        return "-"
    q = statistics.quantiles(values, n=100, method="inclusive") if len(values) > 1 else values * 99
    return f"{q[49]:7.0f} {q[94]:7.0f} {max(values):7.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--contestants", type=int, default=30)
    parser.add_argument("--uploads", type=int, default=60)
    parser.add_argument("--readers", type=int, default=20)
    parser.add_argument("--minutes", type=float, default=10.0, help="of uploads")
    parser.add_argument("--no-faults", action="store_true")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    window_s = args.minutes * 60
    with tempfile.TemporaryDirectory(prefix="bench-contest-") as tmp:
        platform = Platform(Path(tmp), args.workers)
        try:
            report = contest(platform, args, window_s)
        finally:
            platform.close()
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))


def contest(platform: Platform, args, window_s: float) -> dict:
    print(f"stack: dashboard :{platform.port}, {args.workers} workers, logs in {platform.logs}")
    wait_ready(platform)
    code = invite_code(platform, args.contestants)
    plan = plan_uploads(args.contestants, args.uploads, window_s, args.seed)
    t0 = time.time()
    tokens = {}
    for i in range(args.contestants):
        tokens[i] = sign_up(platform.port, i, code)
    print(f"{args.contestants} contestants signed up from one address in {time.time() - t0:.1f} s")

    start = time.time()
    end_reading = start + window_s + GRACE_S
    tracks = Path(platform.scratch) / "reads"
    tracks.mkdir()
    procs = max(1, args.readers // 5)
    readers = [
        multiprocessing.Process(
            target=reader,
            args=(platform.port, end_reading, args.seed + p, str(tracks / f"{p}.tsv"), share),
        )
        for p, share in enumerate(_split(args.readers, procs))
    ]
    for proc in readers:
        proc.start()
    faults: list[Fault] = []

    def faulting() -> None:
        for at, action in SCHEDULE:
            time.sleep(max(0.0, start + at * window_s - time.time()))
            fault = Fault(action.__name__.replace("_", " "), time.time())
            faults.append(fault)
            print(f"  {time.time() - start:5.0f} s  fault: {fault.name}", flush=True)
            action(platform, fault)
            print(
                f"  {time.time() - start:5.0f} s  {fault.name}: {'; '.join(fault.notes) or 'over'}"
            )

    versions: Counter[int] = Counter()
    threads = []
    if not args.no_faults:
        threads.append(threading.Thread(target=faulting))
        threads[-1].start()
    ladder = LadderWatch(platform, start)
    ladder.begin()
    for n, upload in enumerate(plan):
        time.sleep(max(0.0, start + upload.at_s - time.time()))
        versions[upload.contestant] += 1
        version = f"1.{versions[upload.contestant]}.0"
        thread = threading.Thread(
            target=run_upload,
            args=(platform.port, tokens[upload.contestant], upload, version, n),
        )
        thread.start()
        threads.append(thread)
    for thread in threads:
        thread.join()
    for proc in readers:
        proc.join()
    ladder.stop()
    return summarise(platform, args, start, plan, faults, ladder, tracks)


def _split(total: int, parts: int) -> list[int]:
    return [total // parts + (1 if i < total % parts else 0) for i in range(parts)]


class LadderWatch:
    """The ladder's finished matches every 10 s, read straight from Postgres."""

    def __init__(self, platform: Platform, start: float) -> None:
        self.platform, self.start = platform, start
        self.samples: list[tuple[float, int]] = []
        self.placed: list[tuple[float, int, int]] = []  # (s, placed, contestant bots)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def begin(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(10):
            done = self.platform.sql(
                "SELECT count(*) FROM matches m JOIN ladders l ON l.tournament_id = "
                "m.tournament_id WHERE m.status = 'done'"
            )[0][0]
            self.samples.append((time.time() - self.start, done))
            self.placed.append((time.time() - self.start, *placements(self.platform)))


def summarise(platform, args, start, plan, faults, ladder, tracks) -> dict:
    reads = []
    for path in tracks.glob("*.tsv"):
        for line in path.read_text().splitlines():
            if line:
                at, label, status, ms = line.split("\t")
                reads.append((float(at), label, int(status), float(ms)))
    windows = [(f.start, f.end + QUIET_AFTER_S) for f in faults]

    def quiet(at: float) -> bool:
        return not any(a <= at <= b for a, b in windows)

    report: dict = {"pages": {}, "faults": [], "uploads": {}, "ladder": {}, "integrity": {}}
    print(f"\npages ({len(reads)} requests by {args.readers} readers), ms p50 p95 max:")
    print(f"  {'page':<24} {'outside faults':>23}   {'overall':>23}   statuses")
    by_page: dict[str, list] = defaultdict(list)
    for read in reads:
        by_page[read[1]].append(read)
    for label in PAGES:
        rows = by_page.get(label, [])
        calm = [ms for at, _, st, ms in rows if quiet(at) and st == 200]
        every = [ms for _, _, st, ms in rows if st]
        statuses = Counter(st for _, _, st, _ in rows)
        print(f"  {label:<24} {percentiles(calm)}   {percentiles(every)}   {dict(statuses)}")
        report["pages"][label] = {
            "p50_ms": _q(calm, 50),
            "p95_ms": _q(calm, 95),
            "statuses": dict(statuses),
        }
    calm_all = [ms for at, _, st, ms in reads if quiet(at) and st == 200]
    print(f"  {'all pages':<24} {percentiles(calm_all)}")
    report["pages_p95_ms"] = _q(calm_all, 95)
    errors = Counter(st for _, _, st, _ in reads if st >= 500 or st == 0)
    print(f"  HTTP 5xx / no answer: {dict(errors) or 'none'}")
    report["http_errors"] = dict(errors)

    for fault in faults:
        inside = Counter(st for at, _, st, _ in reads if fault.start <= at <= fault.end)
        line = f"  {fault.name}: {fault.end - fault.start:.0f} s; reads {dict(inside)}"
        print(line + ("; " + "; ".join(fault.notes) if fault.notes else ""))
        report["faults"].append(
            {
                "name": fault.name,
                "seconds": fault.end - fault.start,
                "reads": dict(inside),
                "notes": fault.notes,
            }
        )
    outage_lines = _outage_lines(platform)
    print(
        f"  dashboard log: {len(outage_lines)} lines about the database, "
        f"{_tracebacks(platform)} tracebacks"
    )
    for line in outage_lines[:6]:
        print(f"    {line}")
    report["outage_log_lines"], report["tracebacks"] = len(outage_lines), _tracebacks(platform)

    print("\nuploads:")
    kinds: dict[str, list[Upload]] = defaultdict(list)
    for upload in plan:
        kinds[upload.kind].append(upload)
    for kind, group in kinds.items():
        verdicts = Counter(u.verdict or u.error or "none" for u in group)
        latencies = [u.latency_s for u in group if u.latency_s is not None]
        q = f"p50 {_q(latencies, 50):.1f} s, p95 {_q(latencies, 95):.1f} s" if latencies else ""
        again = sum(u.retries for u in group)
        again_note = f"  ({again} sent again)" if again else ""
        print(f"  {kind:<10} {len(group):3d}  {dict(verdicts)}  {q}{again_note}")
        report["uploads"][kind] = {
            "verdicts": dict(verdicts),
            "p50_s": _q(latencies, 50),
            "p95_s": _q(latencies, 95),
        }
    judged = [u.latency_s for u in plan if u.version_id and u.latency_s is not None]
    report["verdict_p95_s"] = _q(judged, 95)
    print(
        f"  upload to verdict (validated ones): p50 {_q(judged, 50):.1f} s, "
        f"p95 {_q(judged, 95):.1f} s, max {max(judged, default=0):.1f} s"
    )
    unanswered = [u for u in plan if not u.verdict or u.verdict == "no verdict"]
    report["integrity"]["unanswered_uploads"] = len(unanswered)

    placed, bots = placements(platform)
    quota = platform.sql("SELECT placement_matches FROM ladders WHERE name = 'pagat'")[0][0]
    last = next((at for at, n, of in ladder.placed if n == of == bots), None)
    samples = ladder.samples
    minutes = (samples[-1][0] - samples[0][0]) / 60 if len(samples) > 1 else 0
    rate = (samples[-1][1] - samples[0][1]) / minutes if minutes else 0
    when = f", all of them {last:.0f} s after the start" if last is not None else ""
    print(
        f"\nladder: {samples[-1][1] if samples else 0} matches played, {rate:.1f} a minute; "
        f"{placed} of {bots} contestant bots placed ({quota} matches each){when} "
        f"(uploads over the first {args.minutes * 60:.0f} s)"
    )
    report["ladder"] = {
        "matches": samples[-1][1] if samples else 0,
        "per_minute": rate,
        "placed": placed,
        "bots": bots,
        "all_placed_at_s": last,
    }

    integrity = check_integrity(platform, plan)
    report["integrity"].update(integrity)
    print("integrity: " + ", ".join(f"{k} {v}" for k, v in report["integrity"].items()))
    return report


def placements(platform: Platform) -> tuple[int, int]:
    """(placed, all): the contestants' current versions with their placement matches done."""
    rows = platform.sql(
        "SELECT count(m.id) FILTER (WHERE m.status = 'done') FROM bot_versions v "
        "LEFT JOIN matches m ON m.seats::jsonb @> to_jsonb(v.id) "
        "AND m.tournament_id = (SELECT tournament_id FROM ladders WHERE name = 'pagat') "
        "WHERE v.status = 'valid' AND NOT (v.manifest::jsonb ? 'house') AND v.id IN "
        "(SELECT max(id) FROM bot_versions WHERE status = 'valid' GROUP BY bot_id) "
        "GROUP BY v.id"
    )
    quota = platform.sql("SELECT placement_matches FROM ladders WHERE name = 'pagat'")[0][0]
    return sum(1 for (n,) in rows if n >= quota), len(rows)


def check_integrity(platform: Platform, plan: list[Upload]) -> dict:
    games = platform.sql(
        "SELECT m.id, t.games_per_match, count(g.id), (SELECT count(*) FROM replays r WHERE "
        "r.match_id = m.id) FROM matches m JOIN tournaments t ON t.id = m.tournament_id "
        "LEFT JOIN game_results g ON g.match_id = m.id WHERE m.status = 'done' "
        "GROUP BY m.id, t.games_per_match"
    )
    wrong = [m for m, per, results, replays in games if results != per * 4 or replays != 1]
    valid_ids = [u.version_id for u in plan if u.kind == "valid" and u.version_id]
    charged = platform.sql(
        "SELECT count(*) FROM faults f JOIN matches m ON m.id = f.match_id "
        "WHERE f.bot_version_id = ANY(%s)",
        valid_ids,
    )[0][0]
    house = platform.sql(
        "SELECT count(*) FROM faults f JOIN bot_versions v ON v.id = f.bot_version_id "
        "WHERE v.manifest::jsonb ? 'house'"
    )[0][0]
    failed = platform.sql("SELECT count(*) FROM matches WHERE status = 'failed'")[0][0]
    late = platform.sql("SELECT coalesce(sum(late_results), 0) FROM matches")[0][0]
    return {
        "matches_done": len(games),
        "matches_recorded_wrong": len(wrong),
        "matches_failed": failed,
        "late_results_discarded": late,
        "faults_on_honest_bots": charged + house,
    }


def _outage_lines(platform: Platform) -> list[str]:
    text = (platform.logs / "dashboard").read_text(errors="replace")
    return [line for line in text.splitlines() if line.startswith("database outage")]


def _tracebacks(platform: Platform) -> int:
    return (platform.logs / "dashboard").read_text(errors="replace").count("Traceback")


def _q(values: list[float], pct: int) -> float:
    if not values:
        return 0.0
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[pct - 1]


if __name__ == "__main__":
    main()
