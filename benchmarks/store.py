"""Storage and tournament throughput.

1. Finished matches written per second through ``record_result``, SQLite and Postgres. Each
   write is one transaction, as a worker does it: 4 games x 4 bots of game rows plus the
   zlib-compressed replay of a real match (random in-process bots, ~75 KB of JSON each).
2. Time to fit ratings with 95% intervals for 100,000 four-player games among 50 bots
   (target <= 5 s).
3. Tournament throughput: the embedded executor with 2 workers (database included) against
   the referee alone playing the same matches one after another in this process.

Run: python benchmarks/store.py [--matches N] [--repeat R] [--postgres URL|none] [--tables T]
The Postgres URL defaults to ARENA_TEST_POSTGRES_URL or the local ``test`` database; the
benchmark works in a private schema that it drops at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

import numpy as np
from sqlalchemy import text
from sqlalchemy.engine import URL

from arena.config import Settings
from arena.players.inprocess import InProcessPlayer
from arena.ratings import fit
from arena.referee.match import MatchSpec, play_match
from arena.referee.result import MatchResult
from arena.registry import player_for, register_bot
from arena.runtime import Runtime
from arena.store import (
    BlobStore,
    Database,
    add_bot_version,
    claim_match,
    create_tournament,
    engine_for,
    normalise_url,
    pending_matches,
    record_result,
    upgrade,
)
from arena.store.results import compress_replay
from arena.tournaments.create import new_tournament
from arena.tournaments.executor import run_tournament
from arena.tournaments.run import match_spec
from arena.tournaments.spec import TournamentSpec

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the synthetic games
from tests.ratings.synthetic import gumbel_games, random_tables

DEFAULT_PG = os.environ.get(
    "ARENA_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)


class _RandomBot:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def call(self, obs):
        return self.rng.choice(obs.legal_calls)

    def play(self, obs):
        return self.rng.choice(obs.legal_cards)


def realistic_results(count: int, distinct: int = 8) -> list[MatchResult]:
    """``count`` results cycling over ``distinct`` real matches (the referee's own records)."""
    played = [
        play_match(
            MatchSpec(f"bench-{i}", seed=i),
            [InProcessPlayer(_RandomBot(i * 4 + s), f"r{s}") for s in range(4)],
        )
        for i in range(distinct)
    ]
    return [played[i % distinct] for i in range(count)]


def _seed_matches(db: Database, blobs: BlobStore, count: int) -> list[int]:
    """A tournament of 4 bots with ``count`` pending tables; returns the match ids."""
    with db.session() as s:
        entries = [
            add_bot_version(
                s, blobs, f"bot {i}".encode(), {"name": f"b{i}", "version": "1"}, "valid"
            )
            for i in range(4)
        ]
        tables = [(t, (0, 1, 2, 3), t) for t in range(count)]
        spec = TournamentSpec(name="bench", games_per_match=4, seed=1)
        tournament = create_tournament(s, spec.columns(), entries, tables)
    with db.session() as s:
        return [m.id for m in pending_matches(s, tournament.id)]


@contextmanager
def sqlite_database(folder: Path) -> Iterator[URL]:
    """A migrated SQLite file of its own in ``folder``."""
    url = normalise_url(f"sqlite:///{folder / f'bench-{uuid.uuid4().hex[:8]}.db'}")
    upgrade(url)
    yield url


@contextmanager
def postgres_database(base_url: str) -> Iterator[URL]:
    """A migrated private schema, dropped afterwards."""
    base = normalise_url(base_url)
    schema = f"arena_bench_{uuid.uuid4().hex[:10]}"
    admin = engine_for(base)
    with admin.begin() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    try:
        url = base.update_query_dict({"options": f"-csearch_path={schema}"})
        upgrade(url)
        yield url
    finally:
        with admin.begin() as conn:
            conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
        admin.dispose()


def record_rate(url: URL, results: list[MatchResult], blobs: BlobStore) -> float:
    """Match results per second, one ``record_result`` transaction each."""
    db = Database(url)
    try:
        match_ids = _seed_matches(db, blobs, len(results))
        with db.session() as s:
            leases = [claim_match(s, match_id, "bench") for match_id in match_ids]
        start = time.perf_counter()
        for lease, result in zip(leases, results, strict=True):
            with db.session() as s:
                record_result(s, lease, result, wall_seconds=1.0)
        return len(results) / (time.perf_counter() - start)
    finally:
        db.dispose()


def best_rate(
    make_url: Callable[[], AbstractContextManager[URL]],
    results: list[MatchResult],
    blobs: BlobStore,
    repeat: int,
) -> float:
    """The best of ``repeat`` runs, each on a fresh database (other load only slows runs)."""
    rates = []
    for _ in range(repeat):
        with make_url() as url:
            rates.append(record_rate(url, results, blobs))
    return max(rates)


def fit_seconds(games: int = 100_000, bots: int = 50) -> float:
    """Seconds for ``fit`` with intervals on synthetic games (Bradley-Terry truth)."""
    rng = np.random.default_rng(1)
    strength = rng.normal(0, 1, bots)
    played = gumbel_games(rng, strength, random_tables(rng, bots, games))
    groups = [i // 4 for i in range(games)]  # matches of 4 games, the bootstrap unit
    start = time.perf_counter()
    fit(played, groups)
    return time.perf_counter() - start


def tournament_rates(tables: int) -> tuple[float, float]:
    """Matches per second: the referee alone, then the embedded executor with 2 workers."""
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(f"sqlite:///{tmp}/t.db", Path(tmp) / "data")
        upgrade(settings.database_url)
        db, runtime = Database(settings.database_url), Runtime(settings)
        samples = Path(__file__).resolve().parents[1] / "sample_bots"
        refs = [
            register_bot(db, runtime, samples / n, validate=False).ref
            for n in ("random", "heuristic")
        ]
        entrants = [*refs, "house:heuristic", "house:random"]
        t = new_tournament(db, runtime, TournamentSpec(entrants, seed=3, tables=tables))
        with db.session(read_only=True) as s:
            ids = [m.id for m in pending_matches(s, t.id)]
        start = time.perf_counter()
        for match_id in ids:
            spec, versions = match_spec(db, match_id)
            log_dir = Path(tmp) / "logs"
            play_match(
                spec, [player_for(db, runtime, v, i, log_dir) for i, v in enumerate(versions)]
            )
        alone = len(ids) / (time.perf_counter() - start)
        start = time.perf_counter()
        run_tournament(db, runtime, t.id, workers=2)
        executor = len(ids) / (time.perf_counter() - start)
        db.dispose()
        return alone, executor


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=300, help="results written per run")
    parser.add_argument("--repeat", type=int, default=3, help="runs per backend (best counts)")
    parser.add_argument("--postgres", default=DEFAULT_PG, help="Postgres URL (or 'none')")
    parser.add_argument("--tables", type=int, default=8, help="matches in the tournament run")
    args = parser.parse_args()
    print(
        f"ratings: fit with 95% intervals, 100,000 games x 50 bots: {fit_seconds():.2f} s"
        " (target <= 5 s)"
    )
    alone, executor = tournament_rates(args.tables)
    print(f"tournament, {args.tables} matches of 4 games x 5 deals (2 process + 2 house bots):")
    print(f"  referee alone, one match at a time: {alone:.2f} matches/s")
    print(
        f"  embedded executor, 2 workers + DB:  {executor:.2f} matches/s"
        f"  ({executor / alone:.2f}x the referee alone)"
    )
    results = realistic_results(args.matches)
    raw = sum(len(json.dumps(r.record, separators=(",", ":"))) for r in results) / len(results)
    packed = sum(len(compress_replay(r.record)) for r in results) / len(results)
    print(
        f"{args.matches} match results, replay JSON {raw / 1000:.0f} KB each "
        f"({packed / 1000:.1f} KB compressed)"
    )
    with tempfile.TemporaryDirectory() as tmp:
        blobs = BlobStore(Path(tmp) / "blobs")
        folder = Path(tmp)
        sqlite_rate = best_rate(lambda: sqlite_database(folder), results, blobs, args.repeat)
        print(f"SQLite   : {sqlite_rate:8.1f} results/s")
        if args.postgres == "none":
            return
        pg_rate = best_rate(lambda: postgres_database(args.postgres), results, blobs, args.repeat)
        print(f"Postgres : {pg_rate:8.1f} results/s")
        print(f"ratio SQLite/Postgres: {sqlite_rate / pg_rate:.2f}")


if __name__ == "__main__":
    main()
