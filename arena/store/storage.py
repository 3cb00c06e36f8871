"""What each user's bots take in the database, the quota on it, and freeing the archives of
rejected versions.

What counts toward a user's storage: the bytes of every archive still in the database
(``bot_archives.size``, the zip as uploaded) that belongs to a bot the user owns: the
archive of each of its versions, whatever its status, its built folder's archive where it
was built (``arena.builds``), and the archive of each rejected upload a later one replaced
(``bot_rejections``); each archive once. Bots without an owner
(the organiser's, the house bots) count for nobody. This machine's caches (``ARENA_DATA_DIR``)
are copies of these archives and do not count.

A rejected version is never played again, so its archive is not needed: freeing it deletes
only the archive (and this machine's cached copy); the version row, its reason, its
validation log and the rejection history stay, and its bytes stop counting. Archives of
versions that were entered in a tournament are kept whatever their status (its own
validation match, which nothing plays again, aside).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Select, delete, exists, func, or_, select, union
from sqlalchemy.orm import Session

from arena.store.blobs import BlobStore
from arena.store.errors import StoreError
from arena.store.models import Bot, BotArchive, BotRejection, BotVersion, TournamentEntry, User
from arena.store.validations import validation_tournaments


class QuotaExceeded(StoreError):
    """An upload that would take its owner past the storage quota (nothing was stored)."""


def storage_used(s: Session, owner_id: int) -> int:
    """Bytes of the archives counting toward ``owner_id``'s quota (see the module)."""
    owned = _owned_archives(owner_id)
    query = select(func.coalesce(func.sum(BotArchive.size), 0)).where(BotArchive.sha256.in_(owned))
    return int(s.execute(query).scalar_one())


def check_quota(s: Session, owner_id: int, size: int, quota: int) -> None:
    """Refuse ``size`` more bytes for ``owner_id`` when they would pass ``quota``. The user's
    row is locked first (SQLite serialises writers anyway), so two uploads at once cannot
    both take the last of the room."""
    s.execute(select(User.id).where(User.id == owner_id).with_for_update())
    used = storage_used(s, owner_id)
    if used + size > quota:
        raise QuotaExceeded(
            f"storage quota: your bots' archives take {_mib(used)} of your {_mib(quota)} and "
            f"this one is {_mib(size)}; make the bot smaller (leave build outputs and data "
            "out) or ask an organiser for a larger quota (ARENA_STORAGE_QUOTA)"
        )


def free_rejected_archives(
    s: Session, blobs: BlobStore | None = None, owner_id: int | None = None
) -> list[tuple[str, int]]:
    """Delete the archives of rejected versions and of replaced rejected uploads (of
    ``owner_id``'s bots, or everybody's) that nothing else needs; each as (sha256, size).
    ``blobs``: this machine's cache, whose copies go too."""
    is_rejected = BotVersion.status == "rejected"
    rejected = select(BotVersion.sha256.label("sha256")).where(is_rejected)
    built = select(BotVersion.artifact_sha256.label("sha256")).where(is_rejected)
    replaced = select(BotRejection.sha256.label("sha256")).join(BotVersion)
    if owner_id is not None:
        rejected = rejected.join(Bot).where(Bot.owner_id == owner_id)
        built = built.join(Bot).where(Bot.owner_id == owner_id)
        replaced = replaced.join(Bot, Bot.id == BotVersion.bot_id).where(Bot.owner_id == owner_id)
    entered = exists().where(
        TournamentEntry.bot_version_id == BotVersion.id,
        TournamentEntry.tournament_id.not_in(validation_tournaments()),
    )
    kept = or_(BotVersion.status != "rejected", entered)
    needed: Any = union(
        select(BotVersion.sha256).where(kept),
        select(BotVersion.artifact_sha256).where(kept, BotVersion.artifact_sha256.is_not(None)),
    )
    candidates = union(rejected, built, replaced).subquery()
    query = (
        select(BotArchive.sha256, BotArchive.size)
        .where(BotArchive.sha256.in_(select(candidates.c.sha256)))
        .where(BotArchive.sha256.not_in(select(needed.subquery().c.sha256)))
    )
    freed = [(digest, size) for digest, size in s.execute(query)]
    if freed:
        digests = [digest for digest, _ in freed]
        s.execute(delete(BotArchive).where(BotArchive.sha256.in_(digests)))
        if blobs is not None:
            for digest in digests:
                blobs.discard(digest)
    return freed


def _owned_archives(owner_id: int) -> Select:
    """The sha256 of every archive of ``owner_id``'s bots: versions and replaced uploads."""
    versions = select(BotVersion.sha256).join(Bot).where(Bot.owner_id == owner_id)
    built = select(BotVersion.artifact_sha256).join(Bot).where(Bot.owner_id == owner_id)
    replaced = (
        select(BotRejection.sha256)
        .join(BotVersion)
        .join(Bot, Bot.id == BotVersion.bot_id)
        .where(Bot.owner_id == owner_id)
    )
    return select(union(versions, built, replaced).subquery().c.sha256)


def _mib(size: int) -> str:
    return f"{size / 2**20:.1f} MiB"
