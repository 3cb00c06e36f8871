"""Bots and their versions: one row per version, its archive in the database.

A version is identified by ``name@version`` (what users type), by its files (``tree_sha256``:
paths and contents, however they were zipped) and by its archive's sha256 (what was run).
Uploading the same files again is a no-op that returns the existing row; reusing a version
string for other files is refused, unless that version was rejected: then the fixed upload
takes its place and the rejected one is kept in ``bot_rejections``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, selectinload

from arena.store.archives import get_archive, put_archive
from arena.store.blobs import BlobStore, sha256_hex, tree_digest
from arena.store.errors import StoreError
from arena.store.models import BOT_STATUSES, Bot, BotArchive, BotLog, BotRejection, BotVersion, User
from arena.store.names import refuse_lookalike
from arena.store.storage import check_quota
from arena.text import name_key


def add_bot_version(
    s: Session,
    blobs: BlobStore,
    archive_bytes: bytes,
    manifest: dict[str, Any],
    status: str = "pending",
    reason: str = "",
    owner: User | None = None,
    quota: int | None = None,
) -> BotVersion:
    """Store the archive and register it as ``manifest["name"]@manifest["version"]``.
    ``quota``: bytes the owner's bots may take (``arena.store.storage``); an archive that
    would pass it is refused (``QuotaExceeded``) before anything is stored."""
    _check_status(status)
    digest, tree = sha256_hex(archive_bytes), tree_digest(archive_bytes)
    name, version = _identity(manifest)
    if (existing := _same_files(s, digest, tree, name, version)) is not None:
        return existing
    taken = _taken(s, name, version, owner)
    if owner is not None and quota is not None:
        check_quota(s, owner.id, len(archive_bytes), quota)
    put_archive(s, archive_bytes)  # same transaction: a row never lacks its archive
    blobs.put(archive_bytes)  # this machine's cache, which will run it first
    if taken is not None:  # rejected: the fixed upload takes its number
        return _replace_rejected(s, taken, digest, tree, manifest, status, reason)
    bot = _bot_named(s, name, owner)
    try:
        with s.begin_nested():  # a concurrent upload may win the race on a unique key
            row = BotVersion(
                bot=bot,
                version=version,
                sha256=digest,
                tree_sha256=tree,
                manifest=dict(manifest),
                status=status,
                reason=reason,
            )
            s.add(row)
    except IntegrityError:
        if (existing := _same_files(s, digest, tree, name, version)) is not None:
            return existing
        _taken(s, name, version, owner)
        raise
    return row


def _same_files(s: Session, digest: str, tree: str, name: str, version: str) -> BotVersion | None:
    """The version already holding these files: same tree, same archive, or ``name@version``
    stored before trees were recorded whose archive holds the same files."""
    query = select(BotVersion).where(BotVersion.tree_sha256 == tree).order_by(BotVersion.id)
    if (row := s.scalars(query).first()) is not None:
        return row
    if (row := _by_sha(s, digest)) is not None:
        return row
    query = select(BotVersion).join(Bot).where(Bot.name == name, BotVersion.version == version)
    row = s.scalar(query.where(BotVersion.tree_sha256.is_(None)))
    if row is None or not _archive_stored(s, row.sha256):  # a rejected one's may be freed
        return None
    if tree_digest(get_archive(s, row.sha256)) == tree:
        row.tree_sha256 = tree
        return row
    return None


def _replace_rejected(
    s: Session,
    row: BotVersion,
    digest: str,
    tree: str,
    manifest: dict[str, Any],
    status: str,
    reason: str,
) -> BotVersion:
    """Give a rejected version's number to new files; its rejection goes to the history."""
    s.add(
        BotRejection(version=row, sha256=row.sha256, reason=row.reason, uploaded_at=row.created_at)
    )
    row.sha256, row.tree_sha256, row.manifest = digest, tree, dict(manifest)
    row.status, row.reason = status, reason
    row.artifact_sha256 = row.build_log = None  # new files: built anew
    s.flush()
    return row


def _bot_named(s: Session, name: str, owner: User | None) -> Bot:
    """The bot called ``name``, created (owned by ``owner``) if new; refused if it is someone
    else's. Checked again here, at the write: a concurrent upload may have created it since
    the caller looked."""
    bot = s.scalar(select(Bot).where(Bot.name == name))
    if bot is None:
        refuse_lookalike(s, Bot, "bot", name)
        try:
            with s.begin_nested():
                bot = Bot(name=name, name_key=name_key(name), owner_id=owner.id if owner else None)
                s.add(bot)
            return bot
        except IntegrityError:  # created meanwhile (that one counts), or a look-alike
            bot = s.scalar(select(Bot).where(Bot.name == name))
            if bot is None:
                refuse_lookalike(s, Bot, "bot", name)
                raise
    _refuse_foreign(bot, owner)
    return bot


def _archive_stored(s: Session, digest: str) -> bool:
    return s.scalar(select(BotArchive.sha256).where(BotArchive.sha256 == digest)) is not None


def _by_sha(s: Session, digest: str) -> BotVersion | None:
    return s.scalar(select(BotVersion).where(BotVersion.sha256 == digest))


def _identity(manifest: dict[str, Any]) -> tuple[str, str]:
    name, version = manifest.get("name"), manifest.get("version", "0")
    if not isinstance(name, str) or not 0 < len(name) <= 64 or "@" in name:
        raise StoreError("the manifest's name must be 1-64 characters without '@'")
    if not isinstance(version, str) or not 0 < len(version.strip()) <= 64:
        raise StoreError(f"{name}: the manifest's version must be a string of 1-64 characters")
    return name, version


def _taken(s: Session, name: str, version: str, owner: User | None) -> BotVersion | None:
    """The rejected version ``name@version`` that new files may replace, None if the number is
    free; refused when it belongs to another user or holds other files still in play."""
    bot = s.scalar(select(Bot).where(Bot.name == name))
    if bot is None:
        return None
    _refuse_foreign(bot, owner)
    query = select(BotVersion).where(BotVersion.bot_id == bot.id, BotVersion.version == version)
    row = s.scalar(query)
    if row is None or row.status == "rejected":
        return row
    raise StoreError(
        f"{name}@{version} already exists with different files ({row.status}); "
        "raise the version in bot.toml and upload again"
    )


def _refuse_foreign(bot: Bot, owner: User | None) -> None:
    if owner is not None and bot.owner_id not in (None, owner.id):
        raise StoreError(f"the bot name {bot.name!r} belongs to another user; rename your bot")


def _check_status(status: str) -> None:
    if status not in BOT_STATUSES:
        raise StoreError(f"bot status must be one of {', '.join(BOT_STATUSES)}, not {status!r}")


def set_bot_status(
    s: Session, version: BotVersion | int, status: str, reason: str = ""
) -> BotVersion:
    """Record the validation verdict (``reason`` says why a version was rejected); a
    valid version takes its bot's seat by its promotion policy (``take_seat``)."""
    _check_status(status)
    row = version if isinstance(version, BotVersion) else s.get(BotVersion, version)
    if row is None:
        raise StoreError(f"no bot version with id {version}")
    row.status, row.reason = status, reason
    if status == "valid":
        take_seat(s, row)
    s.flush()
    return row


def take_seat(s: Session, version: BotVersion) -> None:
    """A version just found valid remembers the bot's current one (which its comparison
    will play: ``arena.comparisons``) and replaces it under the policy "now", or where
    there was none; under the others the current one stays until the comparison or the
    owner decides."""
    bot = version.bot
    current = bot.current_version_id or s.scalar(
        select(func.max(BotVersion.id)).where(
            BotVersion.bot_id == bot.id, BotVersion.status == "valid", BotVersion.id != version.id
        )
    )
    if current == version.id:
        return
    version.replaces_id = current
    if current is None or bot.promotion == "now":
        bot.current_version_id = version.id


def save_validation_log(s: Session, version_id: int, text: str) -> None:
    """Keep what the bot wrote in its validation match (a log without a match)."""
    query = select(BotLog).where(BotLog.bot_version_id == version_id, BotLog.match_id.is_(None))
    row = s.scalar(query)
    if row is None:
        s.add(BotLog(match_id=None, bot_version_id=version_id, text=text))
    else:
        row.text = text
    s.flush()


def validation_log(s: Session, version_id: int) -> str | None:
    """What the version wrote in its validation match; None when it has no such log."""
    query = select(BotLog.text).where(
        BotLog.bot_version_id == version_id, BotLog.match_id.is_(None)
    )
    return s.scalar(query)


def find_bot_version(s: Session, ref: str | int) -> BotVersion:
    """``"name@version"``, ``"name"`` (its most recently uploaded valid version) or an id.

    An int is always an id; a string of digits is a name if such a bot exists, else an id.
    """
    if isinstance(ref, int) or (ref.isdigit() and not _bot_exists(s, ref)):
        row = s.get(BotVersion, int(ref))
        if row is None:
            raise StoreError(f"no bot version with id {ref}")
        return row
    name, _, version = ref.partition("@")
    if not _bot_exists(s, name):
        raise StoreError(f"no bot named {name!r} (list the bots to see their names)")
    query = select(BotVersion).join(Bot).where(Bot.name == name)
    if version:
        row = s.scalar(query.where(BotVersion.version == version))
        if row is None:
            raise StoreError(f"bot {name!r} has no version {version!r}")
        return row
    row = s.scalar(query.where(BotVersion.status == "valid").order_by(BotVersion.id.desc()))
    if row is None:
        latest = s.scalar(query.order_by(BotVersion.id.desc()))
        if latest is None:
            raise StoreError(f"bot {name!r} has no version yet")
        why = f" ({latest.reason})" if latest.reason else ""
        raise StoreError(
            f"bot {name!r} has no valid version yet: its latest, {latest.ref}, "
            f"is {latest.status}{why}"
        )
    return row


def _bot_exists(s: Session, name: str) -> bool:
    return s.scalar(select(Bot.id).where(Bot.name == name)) is not None


def owners_of(s: Session, bot_ids: Iterable[int]) -> dict[int, str]:
    """Whom each bot belongs to, as every list shows it beside the name (so that look-alike
    names can never pass for one another): the owner's user name, ``house`` for a house bot
    (only they may have ``house-`` names), ``operator`` for one added from the command line."""
    query = (
        select(Bot.id, Bot.name, User.name)
        .outerjoin(User, User.id == Bot.owner_id)
        .where(Bot.id.in_(set(bot_ids)))
    )
    return {
        bot_id: user or ("house" if name.startswith("house-") else "operator")
        for bot_id, name, user in s.execute(query)
    }


def version_refs(s: Session, version_ids: Iterable[int]) -> dict[int, str]:
    """Each version id's ref (``name@version``)."""
    versions = s.scalars(select(BotVersion).where(BotVersion.id.in_(list(version_ids))))
    return {v.id: v.ref for v in versions}


def list_bots(s: Session, owner_id: int | None = None) -> list[Bot]:
    """All bots (``owner_id``'s only, when given) by name, each with ``versions`` loaded
    (oldest first)."""
    query = select(Bot).options(selectinload(Bot.versions)).order_by(Bot.name)
    if owner_id is not None:
        query = query.where(Bot.owner_id == owner_id)
    return list(s.scalars(query))
