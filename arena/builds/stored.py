"""A stored version's build: run once, its built folder stored as the version's artifact (an
archive like any other: content-addressed, in the database and each machine's cache), so
every worker and every later match runs the same bytes and nothing is built again."""

from __future__ import annotations

import secrets
import shutil
import tempfile
from pathlib import Path

from sqlalchemy.orm import Session

from arena.bots.package import BotPackage, PackageError
from arena.builds.limits import BuildLimits
from arena.builds.run import Build, build_package
from arena.runtime import Runtime
from arena.store import BotVersion, Database, QuotaExceeded, pack_directory, put_archive
from arena.store.storage import check_quota


def build_stored(db: Database, runtime: Runtime, version_id: int, package: BotPackage) -> Build:
    """Build ``package`` (version ``version_id``'s files) and keep its log; store the built
    folder as the version's artifact when the build succeeded. A built folder the platform
    would not store (too big, a link out of it, over the owner's quota) fails the build."""
    limits = BuildLimits.from_settings(runtime.settings)
    root = runtime.settings.data_dir / "builds"
    root.mkdir(parents=True, exist_ok=True)
    work = tempfile.mkdtemp(prefix=f"{version_id}-", dir=root)
    log_path = runtime.log_dir("builds", f"{version_id}-{secrets.token_hex(4)}.log")
    log_path.parent.mkdir(parents=True, exist_ok=True)
    try:
        build = build_package(
            package, Path(work) / "bot", limits=limits, policy=runtime.policy, log_path=log_path
        )
        artifact = _packed(build, limits) if build.ok else None
        reason = artifact if isinstance(artifact, str) else build.reason
        with db.session() as s:
            row = s.get_one(BotVersion, version_id)
            row.build_log = build.log
            if isinstance(artifact, bytes):
                reason = _keep(s, runtime, row, artifact)
        return Build(build.folder, reason, build.log, build.seconds)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        log_path.unlink(missing_ok=True)


def _packed(build: Build, limits: BuildLimits) -> bytes | str:
    """The built folder's archive, or why it cannot be one (named as the bot's folder)."""
    try:
        return pack_directory(build.folder, max_bytes=limits.output_bytes)
    except PackageError as exc:
        return "the built folder cannot be stored: " + str(exc).replace(str(build.folder), ".")


def _keep(s: Session, runtime: Runtime, row: BotVersion, artifact: bytes) -> str:
    """Store the artifact for ``row``; why not (the owner's quota), or ""."""
    owner = row.bot.owner_id
    if owner is not None:
        try:
            check_quota(s, owner, len(artifact), runtime.settings.storage_quota)
        except QuotaExceeded as exc:
            return f"the built folder is over the storage quota: {exc}"
    row.artifact_sha256 = put_archive(s, artifact)
    runtime.blobs.put(artifact)
    return ""
