"""What hostile uploads cost the server, and what an ordinary one costs.

1. An archive of ENTRIES empty files (a central directory a 64 MiB upload can hold): the
   platform's refusal (from the end record, before the directory is parsed) against what
   merely opening it with ``zipfile`` costs (time and peak Python memory), in this process.
   The same entries behind a zip64 end record (which ``zipfile`` uses) while the plain end
   record claims 10: the refusal, against what opening it costs.
2. A zip bomb (64 MiB + 1 byte of zeros, ~65 KB compressed): time to refuse it; a bot whose
   ``bot.toml`` holds a 16-MiB description (17 KB zipped): time to refuse it.
3. An ordinary upload (the sample random bot, a zip), through ``submit_version`` on SQLite up
   to the stored pending version (validation not included: it runs in the background): mean
   time per upload, against checking the same archive alone.

Run: python benchmarks/uploads.py [--entries N] [--uploads U]
"""

from __future__ import annotations

import argparse
import io
import struct
import tempfile
import time
import tracemalloc
import zipfile
from pathlib import Path

from arena.bots.package import MAX_UNPACKED_BYTES, PackageError, load_package
from arena.config import Settings
from arena.registry import inspect_archive
from arena.runtime import Runtime
from arena.store import Database, create_user, pack_directory, upgrade
from arena.submissions import submit_version

ROOT = Path(__file__).resolve().parents[1]


def many_entries(count: int) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr("bot.toml", 'name = "many"\ncommand = ["python3", "bot.py"]\n')
        for i in range(count):
            zf.writestr(f"{i:x}", b"")
    return buffer.getvalue()


def zip64_hiding(data: bytes, claimed: int = 10) -> bytes:
    """``data`` (over 65,535 entries: ``zipfile`` wrote a zip64 end record, which it reads
    back) with its plain end record claiming ``claimed`` entries instead of 0xFFFF."""
    end = len(data) - 22
    if data[end - 20 : end - 16] != b"PK\x06\x07":
        raise SystemExit("--entries must be over 65535 for the zip64 case")
    return data[: end + 8] + struct.pack("<HH", claimed, claimed) + data[end + 12 :]


def long_manifest() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        description = "x" * (16 << 20)
        zf.writestr("bot.toml", f'name = "long"\ncommand = ["a"]\ndescription = "{description}"\n')
    return buffer.getvalue()


def bomb() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("bot.toml", 'name = "bomb"\ncommand = ["python3", "bot.py"]\n')
        zf.writestr("weights.bin", bytes(MAX_UNPACKED_BYTES + 1))
    return buffer.getvalue()


def timed(action, repeat: int = 1) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        action()
    return (time.perf_counter() - start) / repeat


def refuse(path: Path, tmp: Path) -> None:
    try:
        load_package(path, tmp / "unpacked", shown="x.zip")
    except PackageError:
        return
    raise AssertionError("not refused")


def open_only(path: Path) -> int:
    with zipfile.ZipFile(path) as zf:
        return len(zf.infolist())


def against_zipfile(label: str, path: Path, tmp: Path) -> None:
    """Print the refusal's time against opening the archive with ``zipfile`` alone."""
    refused_s = timed(lambda: refuse(path, tmp), 5)
    opened_s = timed(lambda: open_only(path))
    tracemalloc.start()  # (slows what it traces: timed apart)
    open_only(path)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(
        f"{label} ({path.stat().st_size / 2**20:.1f} MiB): refused in {refused_s * 1e3:.2f} ms; "
        f"zipfile alone opens it in {opened_s * 1e3:.0f} ms with {peak / 2**20:.0f} MiB "
        f"peak ({opened_s / refused_s:.0f}x the refusal's time)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=200_000)
    parser.add_argument("--uploads", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        many = tmp / "many.zip"
        many.write_bytes(many_entries(args.entries))
        against_zipfile(f"1. {args.entries} entries", many, tmp)
        hiding = tmp / "hiding.zip"
        hiding.write_bytes(zip64_hiding(many.read_bytes()))
        against_zipfile(
            "   the same behind a zip64 record, the end record claiming 10", hiding, tmp
        )

        boom = tmp / "bomb.zip"
        boom.write_bytes(bomb())
        bomb_s = timed(lambda: refuse(boom, tmp), 3)
        print(
            f"2. zip bomb of {boom.stat().st_size / 1024:.0f} KiB unpacking to "
            f"{MAX_UNPACKED_BYTES + 1} bytes: refused in {bomb_s * 1e3:.0f} ms"
        )
        long = tmp / "long.zip"
        long.write_bytes(long_manifest())
        long_s = timed(lambda: refuse(long, tmp), 3)
        print(
            f"   a bot.toml of 16 MiB ({long.stat().st_size / 1024:.0f} KiB zipped): "
            f"refused in {long_s * 1e3:.0f} ms"
        )

        url = f"sqlite:///{tmp}/bench.db"
        upgrade(url)
        db = Database(url)
        settings = Settings(url, tmp / "data", submissions_per_hour=10 * args.uploads)
        runtime = Runtime(settings)
        with db.session() as s:
            user_id = create_user(s, "bench", "a long password").id
        source = ROOT / "sample_bots" / "random"
        archives = []
        for i in range(args.uploads):
            folder = tmp / f"bot{i}"
            folder.mkdir()
            (folder / "bot.py").write_bytes((source / "bot.py").read_bytes())
            (folder / "bot.toml").write_text(
                f'name = "bench{i}"\nversion = "1"\ncommand = ["python3", "bot.py"]\n'
            )
            archives.append(pack_directory(folder))
        check_s = timed(lambda: inspect_archive(archives[0], "bot.zip"), args.uploads)
        started: list[int] = []
        it = iter(archives)
        upload_s = timed(
            lambda: submit_version(
                db,
                runtime,
                user_id,
                next(it),
                filename="bot.zip",
                validate=lambda vid, _m: started.append(vid),
            ),
            args.uploads,
        )
        assert len(started) == args.uploads
        print(
            f"3. ordinary upload ({len(archives[0])} bytes) stored pending in "
            f"{upload_s * 1e3:.1f} ms on SQLite (mean of {args.uploads}); checking the "
            f"archive alone {check_s * 1e3:.1f} ms ({upload_s / check_s:.1f}x)"
        )
        db.dispose()


if __name__ == "__main__":
    main()
