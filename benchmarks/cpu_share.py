"""How much CPU an honest bot keeps next to a bot that forks busy processes.

The honest bot (tests/hostile_bots/cpu_counter) counts loop turns for 20 ms of each of its
decisions; the hog (tests/hostile_bots/cpu_hog) forks ``--spinners`` niced spinners (100),
each in a session of its own, that run through every seat's turns. Each row plays whole
matches through the real referee with both in the bwrap sandbox and two house bots,
interleaved so that load from elsewhere hits every row alike:

- quiet:   the counter next to a sandboxed bot that only answers (the baseline);
- hog:     the counter next to the hog, with the cpu cgroup as the platform sets it (one
  core and an ordinary weight on a bot's turn; the least weight and
  ``cgroups.WAITING_QUOTA_US`` per period while it waits);
- hog, waiting quota N ms: the same with another waiting quota (``--quotas``);
- hog, weight only: the turn weight without the waiting quota (the platform before);
- hog, no cpu cgroup: without the cpu controller (as the platform once placed bots).

Prints, per row, the counter's median work per decision and its 10th percentile, each as a
share of the quiet row's median (target: >= 90% next to the hog), its worst decision time,
and the CPU seconds the match record charges to each of the two bots (the hog's counts its
spinners). Needs root and a cpu cgroup controller.
Run: python benchmarks/cpu_share.py [--matches N] [--spinners N] [--quotas MS,...]
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


@dataclasses.dataclass
class Row:
    """What one row measured, over its matches."""

    work: list[int] = dataclasses.field(default_factory=list)
    worst_ms: float = 0.0
    cpu_s: list[float] = dataclasses.field(default_factory=lambda: [0.0, 0.0])
    forfeits: int = 0  # matches the neighbour was forfeited in (it failed to start, ...)

    def add(self, other: Row) -> None:
        self.work += other.work
        self.worst_ms = max(self.worst_ms, other.worst_ms)
        self.cpu_s = [a + b for a, b in zip(self.cpu_s, other.cpu_s, strict=True)]
        self.forfeits += other.forfeits


def one_match(counter: Path, neighbour: Path, area: Path) -> Row:
    """The counter's work per decision, its worst decision time (ms) and the CPU seconds
    the record charges to the counter and to its neighbour, in one match."""
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
    games = result.record["games"]
    worst = max(
        entry["ms"]
        for game in games
        for deal in game["deals"]
        for entry in deal["decisions"]
        if game["seats"][entry["seat"]] == 0 and "ms" in entry
    )
    cpu = [sum(g["cpu_ms"][g["seats"].index(e)] or 0 for g in games) / 1000 for e in (0, 1)]
    return Row(work, worst, cpu, int(result.forfeited[1]))


def without_cpu_controller(run: Callable[[], Row]) -> Row:
    """``run`` with bots placed in memory and pids groups only, without the cpu controller."""
    real = cgroups._find_hierarchies
    cgroups._find_hierarchies = lambda: dataclasses.replace(real(), cpu=None, cpuacct=None)  # type: ignore[type-var]
    cgroups._detect.cache_clear()
    try:
        return run()
    finally:
        cgroups._find_hierarchies = real
        cgroups._detect.cache_clear()


def with_waiting_quota(quota_us: int, run: Callable[[], Row]) -> Row:
    """``run`` with another quota for a bot waiting for its turn."""
    real = cgroups.WAITING_QUOTA_US
    cgroups.WAITING_QUOTA_US = quota_us
    try:
        return run()
    finally:
        cgroups.WAITING_QUOTA_US = real


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=3)
    parser.add_argument("--spinners", type=int, default=100)
    parser.add_argument("--quotas", default="", help="other waiting quotas to try, in ms")
    args = parser.parse_args()
    where = cgroups.hierarchies(POLICY)
    if where is None or where.cpu is None:
        raise SystemExit("needs root and a cpu cgroup controller")
    area = Path(tempfile.mkdtemp(prefix="arena-cpu-share-"))
    area.chmod(0o755)
    counter = world_readable_copy(BOTS / "cpu_counter", area)
    hog = world_readable_copy(BOTS / "cpu_hog", area)
    (hog / "spinners.txt").write_text(str(args.spinners))
    (hog / "spinners.txt").chmod(0o644)
    quiet = world_readable_copy(QUIET, area)

    def next_to_hog() -> Row:
        return one_match(counter, hog, area)

    rows: dict[str, Callable[[], Row]] = {
        "quiet": lambda: one_match(counter, quiet, area),
        "hog": next_to_hog,
    }
    for ms in filter(None, args.quotas.split(",")):
        quota = round(float(ms) * 1000)
        rows[f"hog, waiting quota {ms} ms"] = lambda q=quota: with_waiting_quota(q, next_to_hog)
    rows["hog, weight only"] = lambda: with_waiting_quota(10**9, next_to_hog)
    rows["hog, no cpu cgroup"] = lambda: without_cpu_controller(next_to_hog)
    measured = {name: Row() for name in rows}
    loads = [os.getloadavg()]
    for _ in range(args.matches):
        for name, run in rows.items():
            measured[name].add(run())
        loads.append(os.getloadavg())
    shutil.rmtree(area, ignore_errors=True)
    base = statistics.median(measured["quiet"].work)
    print(
        f"matches per row: {args.matches}   spinners: {args.spinners}   cores: "
        f"{os.cpu_count()}   waiting quota: {cgroups.WAITING_QUOTA_US / 1000:g} ms per "
        f"{cgroups._PERIOD_US / 1000:g} ms"
    )
    print("load (1-min average) before and after each round:", [round(x[0], 2) for x in loads])
    print(
        f"{'':28} {'work/decision':>13} {'vs quiet':>9} {'10th pct':>9} {'worst decision':>15}"
        f" {'CPU s counter / neighbour':>26}"
    )
    for name, row in measured.items():
        med = statistics.median(row.work)
        low = statistics.quantiles(row.work, n=10)[0]
        counter_s, neighbour_s = row.cpu_s
        print(
            f"{name:28} {med:13,.0f} {med / base:8.0%} {low / base:8.0%} {row.worst_ms:12.1f} ms"
            f" {counter_s:15.1f} / {neighbour_s:.1f}"
            + (f"   (neighbour forfeited in {row.forfeits})" if row.forfeits else "")
        )


if __name__ == "__main__":
    main()
