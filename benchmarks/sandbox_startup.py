"""Launch overhead of the bot sandbox: time from start to exit of `python3 -c pass`.

Compares a plain subprocess with the sandbox's rlimits and bwrap modes (launch -> exit,
and the stop() that follows). Run: python benchmarks/sandbox_startup.py [--runs N]
"""

from __future__ import annotations

import argparse
import functools
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from arena.bots import sandbox as sb


def reachable_by_others(path: str) -> bool:
    """Can a bot under its own uid (rlimits mode as root) execute ``path``?"""
    p = Path(os.path.realpath(path))  # a venv's python is a symlink to the real one
    return all(os.stat(d).st_mode & 0o001 for d in p.parents) and bool(os.stat(p).st_mode & 0o005)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()

    python = sys.executable
    if os.geteuid() == 0 and not reachable_by_others(python):
        # As root the bot runs under its own uid; in rlimits mode it needs a host
        # interpreter it can reach (bwrap mode bind-mounts the runtime, so it does not).
        python = shutil.which("python3", path="/usr/local/bin:/usr/bin:/bin") or python
    command = [python, "-c", "pass"]

    area = Path(tempfile.mkdtemp(prefix="arena-sandbox-bench-"))
    area.chmod(0o755)
    bot, logs = area / "bot", area / "logs"
    bot.mkdir(mode=0o755)
    logs.mkdir()
    counter = 0

    def plain() -> tuple[float, float]:
        t0 = time.perf_counter()
        subprocess.run(command, check=True)
        return time.perf_counter() - t0, 0.0

    def sandboxed(policy: sb.SandboxPolicy) -> tuple[float, float]:
        nonlocal counter
        counter += 1
        t0 = time.perf_counter()
        proc = sb.launch(command, bot, log_path=logs / f"{counter}.log", policy=policy)
        rc = proc.wait(timeout=30)
        t1 = time.perf_counter()
        proc.stop()
        t2 = time.perf_counter()
        if rc != 0:
            raise SystemExit(f"{policy.mode}: exit {rc}: {proc.log_path.read_text()}")
        return t1 - t0, t2 - t1

    variants: dict[str, Callable[[], tuple[float, float]]] = {"plain subprocess": plain}
    for mode in ("rlimits", "bwrap"):
        policy = sb.SandboxPolicy(mode=mode)  # type: ignore[arg-type]
        problem = sb._bwrap_problem(policy) if mode == "bwrap" else None
        if problem is not None:
            print(f"bwrap unusable here: {problem}")
            continue
        sb.resolve_mode(policy)
        variants[f"sandbox {mode}"] = functools.partial(sandboxed, policy)

    # Interleaved, so that load from elsewhere hits every variant alike.
    results: dict[str, tuple[list[float], list[float]]] = {k: ([], []) for k in variants}
    for run in range(args.runs + 1):
        for name, once in variants.items():
            start, stop = once()
            if run:  # the first round is a warm-up
                results[name][0].append(start)
                results[name][1].append(stop)
    shutil.rmtree(area, ignore_errors=True)

    print(f"command: {' '.join(command)}   runs: {args.runs}")
    print(f"{'':18} {'launch->exit: median':>21} {'min':>9}   {'stop(): median':>14}")
    base_med = statistics.median(results["plain subprocess"][0])
    base_min = min(results["plain subprocess"][0])
    for name, (starts, stops) in results.items():
        med, low = statistics.median(starts), min(starts)
        extra = ""
        if name != "plain subprocess":
            extra = f"overhead: +{(med - base_med) * 1000:.1f} ms median, "
            extra += f"+{(low - base_min) * 1000:.1f} ms min"
        print(
            f"{name:18} {med * 1000:18.1f} ms {low * 1000:6.1f} ms "
            f"{statistics.median(stops) * 1000:13.1f} ms   {extra}"
        )


if __name__ == "__main__":
    main()
