"""The live page-cache channel between two seats playing at once: two sandboxes started
together (tests/hostile_bots/page_channel), the sender touching pages of the biggest files
it can see for the bits of a random 120-bit message, the receiver timing its first touch of
each page. Bits right out of 120, with the sandbox's view (only the runtimes, resident on a
tmpfs) and with the old one (``close_channels=False``: all of /usr and the Python prefix
bound from the host). Chance is 60.

As root, the page cache is dropped before each run of the old view (as on a host whose
cache holds other things), so that the pages the pair uses start on disk. Run:
python benchmarks/live_cache_channel.py [--runs N]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import secrets
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from arena.bots.package import load_package
from arena.sandbox import SandboxPolicy, launch

BOT = Path(__file__).resolve().parents[1] / "tests" / "hostile_bots" / "page_channel"
BITS = 120
LAG = 1.5  # seconds between the sender's touches and the receiver's reads
VIEWS = {
    "view (resident tmpfs copy)": SandboxPolicy(mode="bwrap", stop_grace_seconds=0.5),
    "old view (host /usr, open)": SandboxPolicy(
        mode="bwrap", stop_grace_seconds=0.5, close_channels=False
    ),
}


def pair_dirs(area: Path, bits: str, region: int, at: float) -> list[Path]:
    """The sender's and the receiver's folders, each with its channel.json."""
    dirs = []
    for role in ("send", "receive"):
        bot = area / f"{role}-{secrets.token_hex(4)}"
        shutil.copytree(BOT, bot)
        job = {"role": role, "region": region, "at": at, "lag": LAG, "count": len(bits)}
        if role == "send":
            job["bits"] = bits
        (bot / "channel.json").write_text(json.dumps(job))
        for path in [bot, *bot.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        dirs.append(bot)
    return dirs


def one_run(area: Path, policy: SandboxPolicy, setup_s: float) -> tuple[int, float, str]:
    """(bits right, how late the later bot was ready (s, negative: early), received)."""
    if policy.close_channels is False and os.geteuid() == 0:
        Path("/proc/sys/vm/drop_caches").write_text("1")
    bits = "".join(secrets.choice("01") for _ in range(BITS))
    at = time.time() + setup_s
    dirs = pair_dirs(area, bits, secrets.randbelow(1_000_000), at)
    command = load_package(dirs[0]).command
    procs = [launch(command, d, log_path=area / f"{d.name}.log", policy=policy) for d in dirs]
    try:
        for proc in procs:
            proc.wait(timeout=setup_s + 60)
    finally:
        for proc in procs:
            proc.stop()
    logs = [p.log_path.read_text(errors="replace") for p in procs]
    got = re.search(r"^RECEIVED ([01]+) in", logs[1], re.M)
    ready = [re.search(r"^READY (-?[\d.]+) ", log, re.M) for log in logs]
    if got is None or None in ready:
        tails = "\n".join(log[-1500:] for log in logs)
        raise SystemExit(f"the pair did not report as expected:\n{tails}")
    late = max(float(m[1]) for m in ready if m is not None)
    return sum(a == b for a, b in zip(got[1], bits, strict=True)), late, logs[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--setup", type=float, default=12.0, help="seconds to get ready")
    args = parser.parse_args()
    area = Path(tempfile.mkdtemp(prefix="arena-live-channel-"))
    area.chmod(0o755)
    results: dict[str, list[int]] = {name: [] for name in VIEWS}
    late: list[float] = []
    files: dict[str, str] = {}
    try:
        for _ in range(args.runs):  # interleaved: load from elsewhere hits both alike
            for name, policy in VIEWS.items():
                right, slack, log = one_run(area, policy, args.setup)
                results[name].append(right)
                late.append(slack)
                files[name] = re.findall(r"^READY \S+ (.*)$", log, re.M)[0]
    finally:
        shutil.rmtree(area, ignore_errors=True)
    print(f"runs: {args.runs} per view   bits per run: {BITS}   load: {os.getloadavg()}")
    print(f"latest bot ready {max(late):+.1f} s from the sender's start (must be < 0)")
    for name, rights in results.items():
        print(
            f"{name:28} bits right: {' '.join(map(str, rights))} / {BITS}"
            f"   median {statistics.median(rights)}   (chance {BITS // 2})"
        )
        print(f"{'':28} files used: {files[name]}")


if __name__ == "__main__":
    main()
