"""Dashboard response times on a large Postgres database, served on loopback.

Fills a private schema with ``--games`` four-player games (default 100,000: 25,000 matches
of 4 games) among 50 bots, spread over ``--tournaments`` finished tournaments, with faults
in ~3 % of the matches, a rating snapshot per tournament and the replay of a real match
(house bots, 4 games of 5 deals) stored for the newest ``--replays`` matches. Rows are bulk
inserted (``record_result`` one match at a time would take minutes, and is measured by
benchmarks/store.py). Then it starts ``arena dashboard`` (``--workers`` threads) on
that database, warms its standings cache, and prints p50/p95 over ``--requests``
sequential requests for each page. Target: p95 <= 50 ms. Last, the replay page's weight:
its HTML with the record inlined (4 games of 5 deals), and the scripts and stylesheets it
loads, raw and gzipped.

Run: python benchmarks/dashboard.py [--games N] [--tournaments T] [--requests R] [--postgres URL]
"""

from __future__ import annotations

import argparse
import gzip
import os
import re
import secrets
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
from sqlalchemy import insert, select, text, update
from sqlalchemy.engine import URL
from store import postgres_database  # benchmarks/store.py: a migrated private schema

from arena.bots.factory import house_player
from arena.game import PAGAT
from arena.referee import Clock, MatchSpec, play_match
from arena.store import (
    BlobStore,
    Database,
    GameScore,
    Match,
    MatchFault,
    Replay,
    add_bot_version,
    create_tournament,
    set_tournament_status,
)
from arena.store.models import utcnow
from arena.store.results import REPLAY_ZLIB_JSON, compress_replay
from arena.tournaments.spec import TournamentSpec
from arena.tournaments.standings import snapshot

DEFAULT_PG = os.environ.get(
    "ARENA_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
BOTS, GAMES_PER_MATCH, DEALS = 50, 4, 5
RULES = PAGAT.with_(deals_per_game=DEALS)


def replay_blobs(count: int) -> list[bytes]:
    """Compressed records of real matches between house bots."""
    blobs = []
    for seed in range(count):
        players = [house_player("heuristic" if i % 2 else "random", seed + i) for i in range(4)]
        spec = MatchSpec(f"bench-{seed}", RULES, seed, GAMES_PER_MATCH, Clock())
        blobs.append(compress_replay(play_match(spec, players).record))
    return blobs


def fill(db: Database, games: int, tournaments: int, replays: int, tmp: str) -> dict:
    """Bulk-insert the tournaments; returns ids worth requesting."""
    rng = np.random.default_rng(1)
    strength = rng.normal(0, 2.0, BOTS)  # mean points per deal of each bot
    blobs = BlobStore(Path(tmp) / "blobs")
    with db.session() as s:
        versions = [
            add_bot_version(
                s, blobs, f"bot{i}".encode(), {"name": f"bot{i:02d}", "version": "1.0"}, "valid"
            )
            for i in range(BOTS)
        ]
    per_tournament = games // GAMES_PER_MATCH // tournaments
    match_ids: list[int] = []
    for t in range(tournaments):
        seats = np.argsort(rng.random((per_tournament, BOTS)), axis=1)[:, :4]
        tables = [(i, tuple(int(x) for x in row), i + 1) for i, row in enumerate(seats)]
        with db.session() as s:
            spec = TournamentSpec(
                name=f"bench {t}", rules=RULES, games_per_match=GAMES_PER_MATCH, seed=t
            )
            tour = create_tournament(s, spec.columns(), versions, tables)
            ids = [m.id for m in sorted(tour_matches(s, tour.id), key=lambda m: m.table_index)]
        _results(db, rng, strength, versions, tables, ids)
        with db.session() as s:
            set_tournament_status(s, tour.id, "done")
        snapshot(db, tour.id)
        match_ids += ids
        last_tournament = tour.id
    _replays(db, match_ids[-replays:], replay_blobs(8))
    with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.execute(text("ANALYZE"))  # what autovacuum does after a bulk load, done now
    return {"tournament": last_tournament, "match": match_ids[-1], "bot": versions[0].bot_id}


def tour_matches(s, tournament_id: int) -> list[Match]:
    return list(s.scalars(select(Match).where(Match.tournament_id == tournament_id)))


def _results(db, rng, strength, versions, tables, ids) -> None:
    scores, faults = [], []
    for (_, seats, _), match_id in zip(tables, ids, strict=True):
        bots = [versions[e].id for e in seats]
        for g in range(GAMES_PER_MATCH):
            points = np.round((strength[list(seats)] + rng.normal(0, 3, 4)) * DEALS * 10)
            for e, bot in enumerate(bots):
                scores.append(
                    dict(
                        match_id=match_id,
                        game_index=g,
                        bot_version_id=bot,
                        seat=(e + g) % 4,
                        points=int(points[e]),
                        deals=DEALS,
                        calls_made=int(rng.integers(0, 6)),
                    )
                )
        if rng.random() < 0.03:
            faults.append(
                dict(
                    match_id=match_id,
                    bot_version_id=bots[0],
                    game=0,
                    deal=1,
                    decision=7,
                    kind="timeout",
                    reason="no answer in 1000 ms",
                )
            )
    with db.session() as s:
        for start in range(0, len(scores), 20_000):
            s.execute(insert(GameScore), scores[start : start + 20_000])
        if faults:
            s.execute(insert(MatchFault), faults)
        s.execute(
            update(Match)
            .where(Match.id.in_(ids))
            .values(status="done", finished_at=utcnow(), wall_seconds=1.0, attempts=1)
        )


def _replays(db: Database, ids: list[int], blobs: list[bytes]) -> None:
    rows = [
        dict(match_id=m, format=REPLAY_ZLIB_JSON, data=blobs[i % len(blobs)])
        for i, m in enumerate(ids)
    ]
    with db.session() as s:
        for start in range(0, len(rows), 500):
            s.execute(insert(Replay), rows[start : start + 500])


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def arena_dashboard(url: URL, workers: int) -> Iterator[str]:
    port = free_port()
    env = dict(
        os.environ,
        ARENA_DATABASE_URL=url.render_as_string(hide_password=False),
        ARENA_SECRET_KEY=secrets.token_urlsafe(32),  # else a key file in the working directory
    )
    cmd = [
        sys.executable,
        "-m",
        "arena",
        "dashboard",
        "--port",
        str(port),
        "--workers",
        str(workers),
    ]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(base + "/api/v1/openapi.json", timeout=1).read()
                break
            except OSError:
                time.sleep(0.2)
        yield base
    finally:
        proc.terminate()
        proc.wait(10)


def fetch_ms(url: str) -> float:
    t0 = time.perf_counter()
    with urllib.request.urlopen(url, timeout=120) as reply:
        reply.read()
        assert reply.status == 200, url
    return (time.perf_counter() - t0) * 1000


def fetch(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=120) as reply:
        return reply.read()


RECORD = re.compile(rb'<script type="application/json" id="record">(.*?)</script>', re.S)
ASSETS = re.compile(rb'<(?:script src|link rel="stylesheet" href)="([^"]+)"')


def page_weight(base: str, path: str) -> None:
    """Bytes of a page (and of the record inlined in it) and of every script and
    stylesheet it loads, raw and gzipped (what a compressing proxy would send)."""
    html = fetch(base + path)
    found = RECORD.search(html)
    record = found[1] if found else b""
    assets = {a.decode(): fetch(base + a.decode()) for a in ASSETS.findall(html)}

    def kb(data: bytes) -> str:
        return f"{len(data) / 1000:.1f} kB ({len(gzip.compress(data)) / 1000:.1f} gzipped)"

    print(f"replay page weight, {GAMES_PER_MATCH} games x {DEALS} deals:")
    print(f"  HTML {kb(html)}, of which the inline record JSON {kb(record)}")
    print(f"  scripts and stylesheets it loads {kb(b''.join(assets.values()))}:")
    for name, data in assets.items():
        print(f"    {name:<30} {kb(data)}")


def measure(base: str, pages: dict[str, str], requests: int) -> None:
    """Cold: the first request (fits the standings); then p50/p95 once the cache is warm."""
    print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'page':<34} {'cold ms':>9} {'p50 ms':>8} {'p95 ms':>8}")
    for name, path in pages.items():
        cold = fetch_ms(base + path)
        fetch_ms(base + path)
        times = np.array([fetch_ms(base + path) for _ in range(requests)])
        p50, p95 = np.percentile(times, [50, 95])
        print(f"{name:<34} {cold:>9.0f} {p50:>8.1f} {p95:>8.1f}")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--tournaments", type=int, default=4)
    parser.add_argument("--replays", type=int, default=2000)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--workers", type=int, default=8, help="threads of arena dashboard")
    parser.add_argument("--postgres", default=DEFAULT_PG)
    args = parser.parse_args()
    with postgres_database(args.postgres) as url, tempfile.TemporaryDirectory() as tmp:
        db = Database(url)
        t0 = time.perf_counter()
        ids = fill(db, args.games, args.tournaments, args.replays, tmp)
        print(
            f"filled {args.games:,} games of {BOTS} bots in {args.tournaments} tournaments "
            f"({args.replays} replays) in {time.perf_counter() - t0:.0f} s"
        )
        db.dispose()
        deep = args.games // GAMES_PER_MATCH // 50 - 5
        pages = {
            "leaderboard (latest tournament)": "/",
            "leaderboard (all-games ladder)": "/?tournament=all",
            "tournament page": f"/tournaments/{ids['tournament']}",
            "match list, first page": "/matches/",
            f"match list, page {deep}": f"/matches/?page={deep}",
            "match list, one bot, faults": f"/matches/?bot={ids['bot']}&faults=yes",
            "replay page": f"/matches/{ids['match']}",
            "API standings": f"/api/v1/tournaments/{ids['tournament']}/standings",
        }
        with arena_dashboard(url, args.workers) as base:
            measure(base, pages, args.requests)
            page_weight(base, pages["replay page"])


if __name__ == "__main__":
    main()
