"""What an upload did, for the confirmation the upload page shows: a new version, new
files under a rejected version's number, or files stored before (nothing new). The store
is marked just before the upload; what the upload returned is compared with the mark."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from arena.readmodels.bots import shown_version
from arena.store import BotVersion
from arena.store.models import BotRejection


@dataclass(frozen=True)
class Mark:
    """The newest version and rejection rows before an upload."""

    version: int
    rejection: int


@dataclass(frozen=True)
class Uploaded:
    bot_id: int
    bot: str
    version: str  # as bot.toml gave it (``shown_version``)
    status: str
    new: bool  # False: these files were stored before, as this version
    manifest: dict


def mark(s: Session) -> Mark:
    newest_rejection = select(func.max(BotRejection.id))
    return Mark(s.scalar(select(func.max(BotVersion.id))) or 0, s.scalar(newest_rejection) or 0)


def uploaded(s: Session, version_id: int, before: Mark) -> Uploaded:
    """The version an upload returned, and whether the upload stored it (a new row, or new
    files replacing a rejected one's) or found it stored already."""
    version = s.get_one(BotVersion, version_id)
    replaced = select(func.count()).where(
        BotRejection.bot_version_id == version_id, BotRejection.id > before.rejection
    )
    new = version_id > before.version or bool(s.scalar(replaced))
    return Uploaded(
        version.bot_id,
        version.bot.name,
        shown_version(version),
        version.status,
        new,
        version.manifest,
    )
