"""Submission fixtures: users with API tokens (the database, ``store_runtime`` and
``runtime`` are the shared fixtures of ``tests/conftest.py``), and helpers that say what a
submission stored.

Refusal tests start no bot process (they pass a validator that records what it was asked to
start); validation tests run the real validation match in the bwrap sandbox.
"""

from __future__ import annotations

import dataclasses
import io
import time
from pathlib import Path

import pytest
from sqlalchemy import func, select

from arena.runtime import Runtime
from arena.store import Bot, BotArchive, BotLog, BotVersion, Database, Submission, create_user
from arena.store import issue_token as new_token
from arena.submissions import submission_status

STORED = (Bot, BotVersion, BotArchive, BotLog)


@dataclasses.dataclass(frozen=True)
class Account:
    id: int
    name: str
    token: str


def account(db: Database, name: str) -> Account:
    with db.session() as s:
        user = create_user(s, name, "a long password")
        return Account(user.id, name, new_token(s, user, "tests"))


@pytest.fixture
def alice(db: Database) -> Account:
    return account(db, "alice")


@pytest.fixture
def bob(db: Database) -> Account:
    return account(db, "bob")


class Recorder:
    """A validator that only notes which versions it was asked to validate."""

    def __init__(self) -> None:
        self.started: list[int] = []

    def __call__(self, version_id: int, manifest: dict) -> None:
        self.started.append(version_id)


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


def with_settings(runtime: Runtime, **changes) -> Runtime:
    """The same runtime with other settings (upload cap, hourly limit)."""
    settings = dataclasses.replace(runtime.settings, **changes)
    return Runtime(settings, runtime.limits, runtime.policy)


def stored_counts(db: Database) -> dict[str, int]:
    with db.session(read_only=True) as s:
        return {m.__tablename__: s.scalar(select(func.count()).select_from(m)) for m in STORED}


def assert_nothing_stored(db: Database, runtime: Runtime) -> None:
    """No bot, version, archive or log row, no blob, nothing left in the unpack folder."""
    assert stored_counts(db) == dict.fromkeys((m.__tablename__ for m in STORED), 0)
    for folder in (runtime.blobs.root, runtime.unpack_dir):
        left = list(folder.rglob("*")) if folder.exists() else []
        assert left == [], left


def submissions(db: Database) -> list[Submission]:
    with db.session(read_only=True) as s:
        return list(s.scalars(select(Submission).order_by(Submission.id)))


def zip_of(folder: Path) -> bytes:
    from arena.store import pack_directory

    return pack_directory(folder)


class CountingReader(io.RawIOBase):
    """An upload stream that remembers how many bytes were read from it."""

    def __init__(self, size: int) -> None:
        self.size, self.read_bytes = size, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        n = min(len(buffer), self.size - self.read_bytes)
        buffer[:n] = b"\0" * n
        self.read_bytes += n
        return n


def wait_verdict(db: Database, version_id: int, timeout: float = 120) -> str:
    deadline = time.monotonic() + timeout
    while (status := submission_status(db, version_id)).status == "pending":
        if time.monotonic() > deadline:
            pytest.fail(f"version {version_id} still pending after {timeout} s: {status}")
        time.sleep(0.2)
    return status.status
