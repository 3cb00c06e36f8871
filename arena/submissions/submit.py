"""One upload → one stored, pending bot version whose validation has been started."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import BinaryIO

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.registry import free_rejected
from arena.runtime import Runtime
from arena.sandbox import SandboxUnavailable, resolve_mode
from arena.store import (
    Bot,
    Database,
    QuotaExceeded,
    StoreError,
    Submission,
    User,
    add_bot_version,
)
from arena.store.models import utcnow
from arena.submissions.errors import SubmissionError
from arena.submissions.quota import take_slot
from arena.submissions.upload import checked_manifest, read_capped, shown_name, single_file_package
from arena.submissions.validation import EmbeddedValidation, Validator


def submit_version(
    db: Database,
    runtime: Runtime,
    user_id: int,
    upload: bytes | BinaryIO,
    *,
    filename: str,
    fields: Mapping[str, object] | None = None,
    name: str | None = None,
    validate: Validator | None = None,
    clock: Callable[[], datetime] = utcnow,
) -> int:
    """Store ``upload`` as a new version of a bot ``user_id`` owns (or a new bot they then
    own) and start its validation; returns the version id (status ``pending``, or the
    existing row's status when these exact bytes were uploaded before).

    ``upload`` is a zip, or with ``fields`` (name, version, command, language, runtime) one
    source file. ``name``: the bot the caller meant (the API's URL); the manifest must match.
    ``validate`` starts the background validation (default: this process's own thread,
    which needs a usable sandbox here: else a 503 before anything is read).
    Raises ``SubmissionError`` (with ``.status``) and then stores no bot data.
    """
    shown = shown_name(filename)
    validate = validate or EmbeddedValidation(db, runtime)
    if isinstance(validate, EmbeddedValidation):
        _require_sandbox(runtime)
    with db.session() as s:
        slot = take_slot(s, user_id, shown, runtime.settings.submissions_per_hour, clock()).id
    try:
        data = read_capped(upload, runtime.settings.max_upload, shown)
        if fields is not None:
            data = single_file_package(data, shown, fields)
        manifest = checked_manifest(data, shown)
        if name is not None and manifest["name"] != name:
            raise SubmissionError(
                f"{shown}: its bot.toml names the bot {manifest['name']!r}, not {name!r}"
            )
        store = functools.partial(_store, db, runtime, user_id, slot, data, manifest)
        version_id, status = _within_quota(db, runtime, user_id, lambda: store(clock()))
    except SubmissionError as exc:
        with db.session() as s:
            s.get_one(Submission, slot).error = str(exc)
        raise
    if status == "pending":
        validate(version_id, manifest)
    return version_id


def _require_sandbox(runtime: Runtime) -> None:
    """Validating here needs a usable sandbox: say so before taking the upload."""
    try:
        resolve_mode(runtime.policy)
    except SandboxUnavailable as exc:
        raise SubmissionError(f"this server cannot run bots now ({exc})", 503) from None


def _within_quota(
    db: Database, runtime: Runtime, user_id: int, store: Callable[[], tuple[int, str]]
) -> tuple[int, str]:
    """``store()``; over the storage quota, free the user's rejected archives and try once
    more (a rejected version is never played: its archive only takes room)."""
    try:
        return store()
    except SubmissionError as exc:
        if exc.status != 413 or not free_rejected(db, runtime, user_id):
            raise
    return store()


def _store(
    db: Database,
    runtime: Runtime,
    user_id: int,
    slot: int,
    data: bytes,
    manifest: dict,
    now: datetime,
) -> tuple[int, str]:
    try:
        with db.session() as s:
            user = s.get(User, user_id)
            check_owner(s, user_id, manifest["name"])
            quota = runtime.settings.storage_quota
            version = add_bot_version(s, runtime.blobs, data, manifest, owner=user, quota=quota)
            s.get_one(Submission, slot).bot_version_id = version.id
            if version.status == "pending":  # validated (again) from now: the sweep waits
                version.validation_started_at = now
            return version.id, version.status
    except QuotaExceeded as exc:
        raise SubmissionError(str(exc), 413) from None
    except StoreError as exc:  # a version string reused, or a race for a new bot name
        with db.session(read_only=True) as s:
            check_owner(s, user_id, manifest["name"])
        raise SubmissionError(str(exc)) from None


def check_owner(s: Session, user_id: int, name: str) -> None:
    """Only the owner adds versions to a bot; a bot the organiser registered has no owner
    and takes no uploads."""
    bot = s.scalar(select(Bot).where(Bot.name == name))
    if bot is None or bot.owner_id == user_id:
        return
    raise SubmissionError(
        f"the bot name {name!r} belongs to {whose(bot)}; pick another name in bot.toml", 403
    )


def whose(bot: Bot) -> str:
    """Who a bot belongs to, as a refusal to anybody else names it."""
    return "another user" if bot.owner_id is not None else "the organiser"
