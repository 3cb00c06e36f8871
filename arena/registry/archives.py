"""A bot's archive: the bytes stored for it (content-addressed by sha256), checked and unpacked
the way the platform runs it, and freed again when the version was rejected."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from arena.bots.package import MAX_UNPACKED_BYTES, BotPackage, PackageError, load_package
from arena.runtime import Runtime
from arena.store import BotVersion, Database, cached_archive, free_rejected_archives, pack_directory


def archive_of(path: Path) -> bytes:
    """The bytes to store for a bot directory (a deterministic zip) or a zip file."""
    path = Path(path)
    if path.is_dir():
        return pack_directory(path)
    if not path.is_file():
        raise PackageError(f"{path}: no such bot directory or archive")
    return path.read_bytes()


def unpack(
    runtime: Runtime, archive: bytes, shown: str = "the bot's archive", manifest: dict | None = None
) -> BotPackage:
    """Check and unpack an archive the way the platform will run it; messages call it
    ``shown``. ``manifest``: the stored one (a stored version's ``bot.toml`` was parsed when
    it was registered, and is not parsed again)."""
    return _unpack_into(runtime.unpack_dir, archive, shown, manifest)


def runnable(db: Database, runtime: Runtime, version: BotVersion) -> BotPackage:
    """The package a match runs for ``version``: its built folder when it was built (as big
    as a build may make it), else its upload; from this machine's cache, filled from the
    database."""
    with db.session(read_only=True) as s:
        archive = cached_archive(s, runtime.blobs, version.runs_sha256)
    built = version.artifact_sha256 is not None
    cap = max(MAX_UNPACKED_BYTES, runtime.settings.build_output_mb << 20) if built else None
    return _unpack_into(runtime.unpack_dir, archive, "the bot's archive", version.manifest, cap)


def inspect_archive(archive: bytes, shown: str) -> dict:
    """The manifest of an archive checked and unpacked as the platform will run it, in a
    folder removed again (a refused upload leaves nothing behind)."""
    with tempfile.TemporaryDirectory(prefix="arena-inspect-") as tmp:
        return _unpack_into(Path(tmp), archive, shown).manifest


def _unpack_into(
    folder: Path,
    archive: bytes,
    shown: str,
    manifest: dict | None = None,
    max_bytes: int | None = None,
) -> BotPackage:
    with tempfile.TemporaryDirectory() as tmp:
        zip_path = Path(tmp) / "bot.zip"
        zip_path.write_bytes(archive)
        cap = max_bytes or MAX_UNPACKED_BYTES
        return load_package(zip_path, folder, cap, shown=shown, manifest=manifest)


def free_rejected(
    db: Database, runtime: Runtime, owner_id: int | None = None
) -> list[tuple[str, int]]:
    """Free the archives of rejected versions (``owner_id``'s, or everybody's) in the
    database and this machine's caches, keeping their rows, reasons and logs
    (``arena.store.storage``); each freed as (sha256, bytes)."""
    with db.session() as s:
        freed = free_rejected_archives(s, runtime.blobs, owner_id)
    for digest, _ in freed:
        shutil.rmtree(runtime.unpack_dir / digest, ignore_errors=True)
    return freed
