"""Start-up of the master bot in the sandbox, against the heuristic sample bot as baseline.

Every game of a match starts fresh bot processes, so the master must be ready well within the
start-up timeout (15 s by default) each time. Measured: launch in the bwrap sandbox to the
end of the protocol handshake (ProcessPlayer.start), N times each, alternating the two bots;
the master's own log line says how long its search took to load and that nothing was
compiled (the cache comes from `arena setup`, built outside the sandbox).

Run: python benchmarks/master_startup.py [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from arena.bots.package import load_package
from arena.bots.process_player import ProcessPlayer
from arena.game import PAGAT
from arena.house.master.cache import warm
from arena.players.player import MatchInfo
from arena.sandbox import SandboxPolicy

SAMPLES = Path(__file__).resolve().parents[1] / "sample_bots"


def start_once(folder: str, log_dir: Path, policy: SandboxPolicy) -> float:
    player = ProcessPlayer(load_package(SAMPLES / folder), folder, policy=policy, log_dir=log_dir)
    t0 = time.perf_counter()
    try:
        player.start(MatchInfo("startup-bench", PAGAT, 1000, 10_000), timeout_s=30)
        return time.perf_counter() - t0
    finally:
        player.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    seconds, compiled = warm()
    print(f"cache built outside the sandbox: {compiled} kernels compiled ({seconds:.2f} s)")
    policy = SandboxPolicy.from_env()
    times: dict[str, list[float]] = {"heuristic": [], "master": []}
    with tempfile.TemporaryDirectory() as logs:
        for _ in range(args.runs):
            for folder in times:
                times[folder].append(start_once(folder, Path(logs), policy))
        ready = [
            line for line in (Path(logs) / "master.log").read_text().splitlines() if "ready" in line
        ]
    for folder, values in times.items():
        print(
            f"{folder:<10} start-up p50 {statistics.median(values):.2f} s  "
            f"max {max(values):.2f} s  ({len(values)} starts, sandbox {policy.mode})"
        )
    ratio = statistics.median(times["master"]) / statistics.median(times["heuristic"])
    print(f"master / heuristic: {ratio:.1f}x")
    print(f"master's own log, last start: {ready[-1] if ready else '(no line)'}")


if __name__ == "__main__":
    main()
