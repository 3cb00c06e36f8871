"""Launch overhead of the bot sandbox: time from start to exit of `python3 -c pass`.

Compares a plain subprocess with the sandbox's rlimits and bwrap modes (launch -> exit,
and the stop() that follows), and bwrap with the kernel channels left open
(``close_channels=False``: no channel filter, keyring, private copy of the bot's files or
eviction: the sandbox as it was). ``--bot DIR`` launches from a copy of DIR (e.g.
sample_bots/js_lowcard with its node_modules) to see what copying a big bot costs.

The rows above are later launches (the first round is a warm-up). The sandbox's view of
the host (view.py) costs the first bwrap launch of each platform process: two more rows
time it in a fresh process, once finding the view another process built, once building
its own (a copy in a fresh directory under /dev/shm).
Run: python benchmarks/sandbox_startup.py [--runs N] [--bot DIR]
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
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

from arena import sandbox as sb


def reachable_by_others(path: str) -> bool:
    """Can a bot under its own uid (rlimits mode as root) execute ``path``?"""
    p = Path(os.path.realpath(path))  # a venv's python is a symlink to the real one
    return all(os.stat(d).st_mode & 0o001 for d in p.parents) and bool(os.stat(p).st_mode & 0o005)


FIRST_LAUNCH = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    t0 = time.perf_counter()
    from arena import sandbox as sb
    from arena.sandbox.view import view_for
    where = Path(sys.argv[1]) if sys.argv[1] else None
    policy = sb.SandboxPolicy(mode="bwrap", copy_dir=where)
    sb.resolve_mode(policy)  # the probe run: the first launch, view included
    t1 = time.perf_counter()
    view = view_for(policy)
    proc = sb.launch([sys.argv[2], "-c", "pass"], Path(sys.argv[3]),
                     log_path=Path(sys.argv[3]).parent / "first.log", policy=policy)
    proc.wait(timeout=60)
    proc.stop()
    t2 = time.perf_counter()
    print(f"{t1 - t0:.3f} {t2 - t1:.3f} {len(view.files)}")
    """
)


def first_launch(python: str, bot: Path, build: bool) -> tuple[float, float, int]:
    """In a fresh process: (import + probe run with the view, the next launch, files)."""
    where = tempfile.mkdtemp(prefix="arena-view-bench-", dir="/dev/shm") if build else ""
    try:
        done = subprocess.run(
            [sys.executable, "-c", FIRST_LAUNCH, where, python, str(bot)],
            capture_output=True,
            text=True,
            check=True,
        )
    finally:
        if where:
            shutil.rmtree(where, ignore_errors=True)
    first, later, files = done.stdout.split()
    return float(first), float(later), int(files)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--bot", type=Path, help="launch from a copy of this bot folder")
    args = parser.parse_args()

    python = sys.executable
    if os.geteuid() == 0 and not reachable_by_others(python):
        # As root the bot runs under its own uid; in rlimits mode it needs a host
        # interpreter it can reach (bwrap mode bind-mounts the runtime, so it does not).
        python = shutil.which("python3", path="/usr/local/bin:/usr/bin:/bin") or python
    command = [sys.executable, "-c", "pass"]  # bwrap binds the platform's Python
    host_command = [python, "-c", "pass"]  # rlimits mode: one the bot's uid can reach

    area = Path(tempfile.mkdtemp(prefix="arena-sandbox-bench-"))
    area.chmod(0o755)
    bot, logs = area / "bot", area / "logs"
    if args.bot is None:
        bot.mkdir(mode=0o755)
    else:
        shutil.copytree(args.bot, bot, symlinks=True)
        for path in [bot, *bot.rglob("*")]:
            if not path.is_symlink():
                path.chmod(0o755 if path.is_dir() else 0o644)
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
        run = host_command if policy.mode == "rlimits" else command
        proc = sb.launch(run, bot, log_path=logs / f"{counter}.log", policy=policy)
        rc = proc.wait(timeout=30)
        t1 = time.perf_counter()
        proc.stop()
        t2 = time.perf_counter()
        if rc != 0:
            raise SystemExit(f"{policy.mode}: exit {rc}: {proc.log_path.read_text()}")
        return t1 - t0, t2 - t1

    variants: dict[str, Callable[[], tuple[float, float]]] = {"plain subprocess": plain}
    policies = {
        "sandbox rlimits": sb.SandboxPolicy(mode="rlimits"),
        "sandbox bwrap": sb.SandboxPolicy(mode="bwrap"),
        "bwrap, open": sb.SandboxPolicy(mode="bwrap", close_channels=False),
    }
    for name, policy in policies.items():
        problem = sb._bwrap_problem(policy) if policy.mode == "bwrap" else None
        if problem is not None:
            print(f"bwrap unusable here: {problem}")
            continue
        sb.resolve_mode(policy)
        variants[name] = functools.partial(sandboxed, policy)

    # Interleaved, so that load from elsewhere hits every variant alike.
    results: dict[str, tuple[list[float], list[float]]] = {k: ([], []) for k in variants}
    for run in range(args.runs + 1):
        for name, once in variants.items():
            start, stop = once()
            if run:  # the first round is a warm-up
                results[name][0].append(start)
                results[name][1].append(stop)
    firsts = {}
    if "sandbox bwrap" in variants:
        for build in (False, True):
            firsts[build] = first_launch(sys.executable, bot, build)
    shutil.rmtree(area, ignore_errors=True)

    print(f"command: {' '.join(command)} (rlimits: {host_command[0]})")
    print(f"bot folder: {args.bot or 'empty'}   runs: {args.runs}")
    print(f"load: {os.getloadavg()}")
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

    plain_ms = base_med * 1000
    for build, (first, later, files) in firsts.items():
        how = "building its view" if build else "finding the view"
        print(
            f"first bwrap launch of a process, {how} ({files} files): "
            f"import + probe run {first * 1000:.0f} ms, then a launch {later * 1000:.0f} ms"
            f" (plain subprocess: {plain_ms:.0f} ms)"
        )


if __name__ == "__main__":
    main()
