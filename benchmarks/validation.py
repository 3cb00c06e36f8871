"""How long a version's validation takes: the whole match among house bots, stored.

Each sample bot is registered (``register_bot``: stored, validated in the bwrap sandbox,
its validation match recorded) on a fresh SQLite database, ``--runs`` times; printed per
bot: the time from the call to the verdict, the match's own wall time as recorded, and the
decisions the bot was asked. No ladder is opened, so the match plays the defaults (the
pagat ladder's: 4 games of 5 deals, the default clock).

Run: python benchmarks/validation.py [--runs N] [BOT ...]   (default: the sample bots)
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from arena.config import Settings
from arena.registry import register_bot
from arena.runtime import Runtime
from arena.sandbox import SandboxPolicy
from arena.store import Database, Match, load_replay, upgrade
from arena.store.validations import validation_matches

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ("random", "heuristic", "js_lowcard", "master")


def validate_once(area: Path, bot: Path) -> tuple[float, float, int]:
    """(seconds to the verdict, the match's recorded wall time, decisions asked)."""
    url = f"sqlite:///{area / f'{time.monotonic_ns()}.db'}"
    upgrade(url)
    db = Database(url)
    runtime = Runtime(Settings(url, area / "data"), policy=SandboxPolicy(mode="bwrap"))
    started = time.perf_counter()
    version = register_bot(db, runtime, bot)
    took = time.perf_counter() - started
    if version.status != "valid":
        raise SystemExit(f"{bot.name}: {version.status}: {version.reason}")
    with db.session(read_only=True) as s:
        match = s.get_one(Match, validation_matches(s, [version.id])[version.id])
        record = load_replay(s, match.id)
    entrant = match.seats.index(version.id)
    asked = sum(
        1
        for game in record["games"]
        for deal in game["deals"]
        for entry in deal["decisions"]
        if entry["seat"] == game["seats"].index(entrant) and "id" in entry
    )
    db.dispose()
    return took, match.wall_seconds or 0.0, asked


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bots", nargs="*", default=SAMPLES)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    area = Path(tempfile.mkdtemp(prefix="arena-validation-"))
    area.chmod(0o755)
    print(f"{'bot':12} {'verdict after':>16} {'match':>10} {'decisions':>10}")
    for name in args.bots:
        runs = [validate_once(area, ROOT / "sample_bots" / name) for _ in range(args.runs)]
        took = statistics.median(r[0] for r in runs)
        wall = statistics.median(r[1] for r in runs)
        print(f"{name:12} {took:14.2f} s {wall:8.2f} s {runs[0][2]:10}")
    print(f"load: {os.getloadavg()}")


if __name__ == "__main__":
    main()
