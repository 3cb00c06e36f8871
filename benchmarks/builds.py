"""What a compiled bot's build costs, and that it is paid once.

For each starter kit whose toolchain is installed here (``starters/``):

1. its build alone, as ``arena bot build`` and the workers run it (``build_package``: a
   copy of the files, the build sandbox, the server's limits), R times: median and range;
2. its registration, as ``arena bot add`` does it on an embedded SQLite platform: the build,
   packing and storing the built folder as the version's artifact, then the validation game
   played from it;
3. the same files registered again: the same version, found by its files, with no build and
   no game; the ratio against (2) is what a second upload of the same files costs.

Run: python benchmarks/builds.py [--kits c,cpp,go,java,rust] [--repeat R]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from arena.bots.package import load_package
from arena.builds import BuildLimits, build_package
from arena.config import Settings
from arena.registry import register_bot
from arena.runtime import Runtime
from arena.store import BotVersion, Database, upgrade
from arena.toolchains import installed_version

STARTERS = Path(__file__).resolve().parents[1] / "starters"
KITS = ("c", "cpp", "go", "java", "rust")


def build_seconds(kit: str, runtime: Runtime, scratch: Path, repeat: int) -> list[float]:
    """Wall seconds of ``repeat`` builds of the kit, each on a fresh copy (a cold build)."""
    package = load_package(STARTERS / kit)
    limits = BuildLimits.from_settings(runtime.settings)
    took = []
    scratch.mkdir(exist_ok=True)
    for i in range(repeat):
        folder = scratch / f"{kit}-build-{i}"
        begun = time.perf_counter()
        build = build_package(
            package, folder, limits=limits, policy=runtime.policy, log_path=scratch / "log"
        )
        took.append(time.perf_counter() - begun)
        if not build.ok:
            raise SystemExit(f"the {kit} kit's build failed: {build.reason}\n{build.log[-2000:]}")
    return took


def registrations(kit: str, db: Database, runtime: Runtime) -> tuple[float, float]:
    """Seconds of the kit's first registration and of the same files again."""
    begun = time.perf_counter()
    first = register_bot(db, runtime, STARTERS / kit)
    first_s = time.perf_counter() - begun
    if first.status != "valid":
        raise SystemExit(f"the {kit} kit was rejected: {first.reason}")
    with db.session(read_only=True) as s:
        artifact = s.get_one(BotVersion, first.id).artifact_sha256
    begun = time.perf_counter()
    again = register_bot(db, runtime, STARTERS / kit)
    again_s = time.perf_counter() - begun
    with db.session(read_only=True) as s:
        same = s.get_one(BotVersion, again.id).artifact_sha256 == artifact
    if again.id != first.id or not same:
        raise SystemExit(f"the {kit} kit's second registration made another version")
    return first_s, again_s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kits", default=",".join(KITS))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    kits = [k for k in args.kits.split(",") if k]
    missing = [k for k in kits if installed_version(k) is None]
    kits = [k for k in kits if k not in missing]
    with tempfile.TemporaryDirectory(prefix="bench-builds-") as tmp:
        scratch = Path(tmp)
        url = f"sqlite:///{scratch}/bench.db"
        upgrade(url)
        db = Database(url)
        runtime = Runtime(Settings(url, scratch / "data"))
        limits = BuildLimits.from_settings(runtime.settings)
        print(f"build limits: {limits.describe()}; {args.repeat} cold builds of each kit")
        if kits:  # the first sandbox of a process sets up what the others reuse: not a build's
            build_seconds(kits[0], runtime, scratch / "warm-up", 1)
        row = "{:<6} {:>9} {:>15} {:>14} {:>13} {:>9}"
        print(row.format("kit", "version", "build s (range)", "registered s", "again s", "ratio"))
        for kit in kits:
            took = build_seconds(kit, runtime, scratch, args.repeat)
            first_s, again_s = registrations(kit, db, runtime)
            spread = f"{statistics.median(took):.1f} ({min(took):.1f}-{max(took):.1f})"
            print(
                row.format(
                    kit,
                    installed_version(kit) or "",
                    spread,
                    f"{first_s:.1f}",
                    f"{again_s:.3f}",
                    f"{again_s / first_s:.4f}",
                )
            )
    if missing:
        print(f"not installed here, not measured: {', '.join(missing)}")
    print("registered: build + storing the artifact + the validation game played from it;")
    print("again: the same files registered once more (the same version: nothing built)")


if __name__ == "__main__":
    main()
