"""``arena export`` on a SQLite database of stored matches: rows, seconds, rows/s, peak RSS.

Plays ``--distinct`` real matches once (house bots in-process: heuristic and random, 4 games
of 5 deals, pagat) and stores each of ``--matches`` finished matches as a copy of one of
them: its game rows, faults and compressed replay bulk-inserted (playing 10,000 matches
would take hours; what the export reads is the same). A second database holds the first
``--small`` of them. Then ``arena export`` runs in a child process on each, as a user runs
it (``--out FILE``, the progress bar on stderr), and so does one bot's ``--decisions`` on
the small one. Each run prints rows, wall seconds (the child's start-up included), rows/s,
the child's peak RSS and its growth while the command ran (from the peak after the CLI's
imports): flat memory is the same growth at ``--small`` and at ``--matches`` matches.

Run: python benchmarks/export.py [--matches 10000] [--small 1000] [--distinct 8]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sqlalchemy import insert, select, update

from arena.bots.factory import house_player
from arena.game import PAGAT
from arena.referee import Clock, MatchSpec, play_match
from arena.referee.result import MatchResult
from arena.store import (
    BlobStore,
    Database,
    GameScore,
    Match,
    MatchFault,
    Replay,
    add_bot_version,
    create_tournament,
    normalise_url,
    upgrade,
)
from arena.store.models import utcnow
from arena.store.results import MAX_REASON, REPLAY_ZLIB_JSON, compress_replay
from arena.tournaments.spec import TournamentSpec

KINDS = ("heuristic", "random", "heuristic", "random")
GAMES = 4
BATCH = 500  # matches a bulk insert
DECISIONS = ("--bot", "heuristic-0", "--decisions")  # one bot's: 280 rows a match


def played(count: int) -> list[MatchResult]:
    """Real matches between house bots: what each stored copy holds."""
    results = []
    for seed in range(count):
        players = [house_player(kind, seed * 4 + i) for i, kind in enumerate(KINDS)]
        spec = MatchSpec(f"bench-{seed}", PAGAT, seed, GAMES, Clock())
        results.append(play_match(spec, players))
    return results


def fill(url: str, results: list[MatchResult], count: int, folder: Path) -> None:
    """A migrated database of ``count`` finished matches, copies of ``results``."""
    upgrade(url)
    db = Database(normalise_url(url))
    blobs = BlobStore(folder / "blobs")
    replays = [compress_replay(r.record) for r in results]
    with db.session() as s:
        versions = [
            add_bot_version(s, blobs, kind.encode() + bytes([i]), _manifest(i, kind), "valid")
            for i, kind in enumerate(KINDS)
        ]
        spec = TournamentSpec(name="export bench", rules=PAGAT, games_per_match=GAMES, seed=1)
        tables = [(t, (0, 1, 2, 3), t) for t in range(count)]
        tournament = create_tournament(s, spec.columns(), versions, tables)
        seats = [v.id for v in versions]
        tournament_id = tournament.id
    for start in range(0, count, BATCH):
        _store(db, tournament_id, seats, results, replays, range(start, min(count, start + BATCH)))
    db.dispose()


def _manifest(i: int, kind: str) -> dict:
    return {"name": f"{kind}-{i}", "version": "1", "house": kind}


def _store(db, tournament_id, seats, results, replays, tables: range) -> None:
    with db.session() as s:
        query = select(Match.table_index, Match.id).where(
            Match.tournament_id == tournament_id, Match.table_index.in_(tables)
        )
        ids = dict(s.execute(query).all())
        scores, faults, stored = [], [], []
        for table in tables:
            match_id, result = ids[table], results[table % len(results)]
            for game in result.games:
                for e, points in enumerate(game.points):
                    scores.append(
                        dict(
                            match_id=match_id,
                            game_index=game.index,
                            bot_version_id=seats[e],
                            seat=game.seats.index(e),
                            points=points,
                            deals=game.deals,
                            calls_made=game.calls_made[e],
                        )
                    )
            faults += [
                dict(
                    match_id=match_id,
                    bot_version_id=seats[f.entrant],
                    game=f.game,
                    deal=f.deal,
                    decision=f.decision,
                    kind=f.kind,
                    reason=f.reason[:MAX_REASON],
                )
                for f in result.faults
            ]
            data = replays[table % len(replays)]
            stored.append(dict(match_id=match_id, format=REPLAY_ZLIB_JSON, data=data))
        s.execute(insert(GameScore), scores)
        if faults:
            s.execute(insert(MatchFault), faults)
        s.execute(insert(Replay), stored)
        s.execute(
            update(Match)
            .where(Match.id.in_(list(ids.values())))
            .values(status="done", finished_at=utcnow(), wall_seconds=1.0, attempts=1)
        )


# The child: ``arena export`` in-process, then its memory's high-water mark (VmHWM, of this
# process alone: a child's ru_maxrss starts from its parent's size at the fork) before and
# after the command, on stderr's last line.
CHILD = """
import sys
from arena.cli import main

def high_water():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))

before = high_water()
try:
    main(["export", *sys.argv[1:]])
finally:
    print("VmHWM", before, high_water(), file=sys.stderr)
"""


def export(url: str, folder: Path, *options: str) -> tuple[int, int, float, int, int]:
    """Lines and bytes written, wall seconds, peak RSS and its growth during the command
    (KiB) of ``arena export OPTIONS`` run in a child process."""
    out = folder / "out.jsonl"
    env = {**os.environ, "ARENA_DATABASE_URL": url, "ARENA_DATA_DIR": str(folder / "data")}
    command = [sys.executable, "-c", CHILD, *options, "--out", str(out)]
    start = time.perf_counter()
    child = subprocess.run(command, env=env, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - start
    said = child.stderr.strip().splitlines()
    if child.returncode != 0 or not said[-1].startswith("VmHWM "):
        raise SystemExit(f"arena export {' '.join(options)} failed: {child.stderr}")
    before, peak = map(int, said[-1].split()[1:])
    with out.open("rb") as lines:
        rows = sum(1 for _ in lines)
    return rows, out.stat().st_size, seconds, peak, peak - before


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=10_000)
    parser.add_argument("--small", type=int, default=1_000)
    parser.add_argument("--distinct", type=int, default=8)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        t0 = time.perf_counter()
        results = played(args.distinct)
        print(f"played {args.distinct} real matches in {time.perf_counter() - t0:.1f} s")
        urls = {}
        for count in (args.small, args.matches):
            urls[count] = f"sqlite:///{folder / f'export-{count}.db'}"
            t0 = time.perf_counter()
            fill(urls[count], results, count, folder)
            size = (folder / f"export-{count}.db").stat().st_size / 2**20
            print(f"stored {count:,} matches in {time.perf_counter() - t0:.1f} s ({size:.0f} MiB)")
        heading = ("export", "rows", "MiB out", "seconds", "rows/s", "peak RSS", "growth")
        print("{:<28} {:>9} {:>8} {:>8} {:>8} {:>9} {:>8}".format(*heading))
        runs = [
            ("nothing (since 2999)", urls[args.matches], ("--since", "2999-01-01")),
            (f"{args.small:,} matches", urls[args.small], ()),
            (f"{args.matches:,} matches", urls[args.matches], ()),
            (f"decisions, {args.small:,} matches", urls[args.small], DECISIONS),
        ]
        for label, url, options in runs:
            rows, size, seconds, peak, growth = export(url, folder, *options)
            print(
                f"{label:<28} {rows:>9,} {size / 2**20:>8,.0f} {seconds:>8.1f} "
                f"{rows / seconds:>8,.0f} "
                f"{peak / 1024:>5.0f} MiB {growth / 1024:>4.1f} MiB"
            )


if __name__ == "__main__":
    main()
