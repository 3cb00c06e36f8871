"""What a contestant may read about a submitted version: its verdict (anybody), its
validation log and build log (the owner and organisers only)."""

from __future__ import annotations

from dataclasses import dataclass

from arena.store import BotVersion, Database, validation_log
from arena.submissions.errors import SubmissionError


@dataclass(frozen=True)
class SubmissionStatus:
    version_id: int
    bot: str
    version: str
    status: str  # pending, valid or rejected
    reason: str
    has_log: bool
    has_build_log: bool
    owner_id: int | None


def submission_status(db: Database, version_id: int) -> SubmissionStatus:
    with db.session(read_only=True) as s:
        row = _version(s, version_id)
        return SubmissionStatus(
            version_id=row.id,
            bot=row.bot.name,
            version=row.version,
            status=row.status,
            reason=row.reason,
            has_log=validation_log(s, row.id) is not None,
            has_build_log=row.build_log is not None,
            owner_id=row.bot.owner_id,
        )


def version_log(
    db: Database, version_id: int, user_id: int, admin: bool = False
) -> tuple[str, str]:
    """The validation log and the build log of a version ``user_id`` owns, or any for an
    organiser ("" where it has none yet). Anyone else is told it does not exist (404, not
    403: nothing leaks)."""
    with db.session(read_only=True) as s:
        row = _version(s, version_id)
        if not admin and (row.bot.owner_id is None or row.bot.owner_id != user_id):
            raise SubmissionError(f"no bot version with id {version_id}", 404)
        return validation_log(s, row.id) or "", row.build_log or ""


def _version(s, version_id: int) -> BotVersion:
    row = s.get(BotVersion, version_id)
    if row is None:
        raise SubmissionError(f"no bot version with id {version_id}", 404)
    return row
