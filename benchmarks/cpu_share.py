"""How much CPU an honest bot keeps next to a bot that forks busy processes (issue 21).

The honest bot (tests/hostile_bots/cpu_counter) counts loop turns for 20 ms of each of its
decisions; the hog (tests/hostile_bots/cpu_hog) forks 80 niced spinners, each in a session
of its own, that run through every seat's turns. Each row plays whole matches through the
real referee with both in the bwrap sandbox and two house bots, interleaved so that load
from elsewhere hits every row alike:

- quiet:   the counter next to a sandboxed bot that only answers (the baseline);
- hog:     the counter next to the hog, with the cpu cgroup (one core, turn weight);
- hog, no cpu cgroup: the same without the cpu controller (the platform before issue 21).

Prints the counter's median work per decision, its ratio to the quiet row (target >= 90%
with the cgroup) and its worst decision time. Needs root and a cpu cgroup controller.
Run: python benchmarks/cpu_share.py [--matches N]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import shutil
import statistics
import tempfile
from collections.abc import Callable
from pathlib import Path

from arena.bots.package import load_package
from arena.bots.process_player import ProcessPlayer
from arena.game import PAGAT
from arena.house.names import house_player
from arena.referee import Clock, MatchSpec, play_match, secret_seed
from arena.sandbox import SandboxPolicy, cgroups

ROOT = Path(__file__).resolve().parents[1]
BOTS = ROOT / "tests" / "hostile_bots"
RULES = PAGAT.with_(deals_per_game=2)
CLOCK = Clock(decision_ms=2000, bank_ms=20_000, startup_ms=15_000)
POLICY = SandboxPolicy(mode="bwrap", stop_grace_seconds=0.5)
QUIET = ROOT / "sample_bots" / "random"


def world_readable_copy(source: Path, area: Path) -> Path:
    target = area / source.name
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "node_modules"))
    for path in [target, *target.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return target


def one_match(counter: Path, neighbour: Path, area: Path) -> tuple[list[int], float]:
    """The counter's work per decision and its worst decision time (ms) in one match."""
    logs = Path(tempfile.mkdtemp(dir=area))
    players = [
        ProcessPlayer(load_package(d), f"p{i}", policy=POLICY, log_dir=logs / str(i))
        for i, d in enumerate([counter, neighbour])
    ]
    houses = [house_player("random", s, f"house:{s}") for s in (2, 3)]
    spec = MatchSpec("cpu-share", rules=RULES, seed=secret_seed(), games=4, clock=CLOCK)
    try:
        result = play_match(spec, [*players, *houses])
    finally:
        for player in players:
            player.close()
    work = [int(n) for n in re.findall(r"^WORK (\d+)$", players[0].log_path.read_text(), re.M)]
    worst = max(
        entry["ms"]
        for game in result.record["games"]
        for deal in game["deals"]
        for entry in deal["decisions"]
        if game["seats"][entry["seat"]] == 0 and "ms" in entry
    )
    return work, worst


def without_cpu_controller(run: Callable[[], tuple[list[int], float]]) -> tuple[list[int], float]:
    """``run`` with bots placed in memory and pids groups only, as before issue 21."""
    real = cgroups._find_hierarchies
    cgroups._find_hierarchies = lambda: dataclasses.replace(real(), cpu=None)  # type: ignore[type-var]
    cgroups._detect.cache_clear()
    try:
        return run()
    finally:
        cgroups._find_hierarchies = real
        cgroups._detect.cache_clear()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=3)
    args = parser.parse_args()
    where = cgroups.hierarchies(POLICY)
    if where is None or where.cpu is None:
        raise SystemExit("needs root and a cpu cgroup controller")
    area = Path(tempfile.mkdtemp(prefix="arena-cpu-share-"))
    area.chmod(0o755)
    counter = world_readable_copy(BOTS / "cpu_counter", area)
    hog = world_readable_copy(BOTS / "cpu_hog", area)
    quiet = world_readable_copy(QUIET, area)
    rows: dict[str, Callable[[], tuple[list[int], float]]] = {
        "quiet": lambda: one_match(counter, quiet, area),
        "hog": lambda: one_match(counter, hog, area),
        "hog, no cpu cgroup": lambda: without_cpu_controller(lambda: one_match(counter, hog, area)),
    }
    work: dict[str, list[int]] = {name: [] for name in rows}
    worst: dict[str, float] = dict.fromkeys(rows, 0.0)
    for _ in range(args.matches):
        for name, run in rows.items():
            counts, slowest = run()
            work[name] += counts
            worst[name] = max(worst[name], slowest)
    shutil.rmtree(area, ignore_errors=True)
    base = statistics.median(work["quiet"])
    print(f"matches per row: {args.matches}   cores: {os.cpu_count()}   load: {os.getloadavg()}")
    print(f"{'':20} {'work/decision (median)':>23} {'vs quiet':>9} {'worst decision':>15}")
    for name in rows:
        med = statistics.median(work[name])
        print(f"{name:20} {med:23,.0f} {med / base:8.0%} {worst[name]:12.1f} ms")


if __name__ == "__main__":
    main()
