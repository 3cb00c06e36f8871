"""Adding a bot to the platform: store its archive and manifest, then validate it."""

from __future__ import annotations

from pathlib import Path

from arena.bots.package import load_package
from arena.registry.archives import archive_of, unpack
from arena.registry.validation import validate_stored
from arena.runtime import Runtime
from arena.sandbox import resolve_mode
from arena.store import BotVersion, Database, add_bot_version, set_bot_status


def register_bot(
    db: Database, runtime: Runtime, path: Path, *, validate: bool = True
) -> BotVersion:
    """Store a bot and judge it by its validation match, one game among house bots
    (``validate=False`` trusts it without one)."""
    if validate:
        resolve_mode(runtime.policy)  # no usable sandbox: refuse before storing anything
    archive = archive_of(path)
    if Path(path).is_dir():
        load_package(path)  # a folder's errors name its own files (mybot/bot.toml)
    manifest = unpack(runtime, archive, str(path)).manifest  # parsed here, once, and stored
    with db.session() as s:
        version = add_bot_version(s, runtime.blobs, archive, manifest)
    if version.status == "pending" and validate:
        return validate_stored(db, runtime, version.id)
    if version.status == "pending":
        with db.session() as s:
            version = set_bot_status(s, version.id, "valid")
    return version
