"""The per-user storage quota: an upload that would take a user's
stored archives past it is refused (413, how much is used, the quota, what to do) before
anything is stored; rejected versions' archives are freed (rows, reasons, history kept) and
stop counting, so an upload that meets the quota first frees its owner's."""

from __future__ import annotations

import os

import pytest
from sqlalchemy import select

from arena.config import DEFAULT_STORAGE_QUOTA, Settings
from arena.store import (
    BlobStore,
    BotArchive,
    BotVersion,
    add_bot_version,
    create_tournament,
    create_user,
    free_rejected_archives,
    set_bot_status,
    sha256_hex,
    storage_used,
)
from arena.store.models import BotRejection, User
from arena.submissions import SubmissionError, submit_version
from tests.services.conftest import MANIFEST
from tests.store.conftest import CLOCK, RULES
from tests.submissions.conftest import stored_counts, submissions, with_settings
from tests.submissions.test_archives import BOT, build

MIB = 1 << 20


def bot_zip(name: str, version: str, payload: int) -> bytes:
    """A bot with ``payload`` incompressible bytes: its archive is a little over that."""
    toml = MANIFEST.format(name=name, version=version).encode()
    return build(("bot.toml", toml), ("bot.py", BOT), ("weights.bin", os.urandom(payload)))


def used(db, user_id: int) -> int:
    with db.session(read_only=True) as s:
        return storage_used(s, user_id)


def archive_stored(db, digest: str) -> bool:
    with db.session(read_only=True) as s:
        return s.scalar(select(BotArchive.sha256).where(BotArchive.sha256 == digest)) is not None


def test_an_upload_past_the_quota_is_refused_before_anything_is_stored(
    db, store_runtime, alice, bob, recorder
):
    runtime = with_settings(store_runtime, storage_quota=2 * MIB)
    first, second = bot_zip("q", "1", MIB), bot_zip("q", "2", MIB + MIB // 4)
    submit_version(db, runtime, alice.id, first, filename="q1.zip", validate=recorder)
    assert used(db, alice.id) == len(first)
    before = stored_counts(db)
    with pytest.raises(SubmissionError) as err:
        submit_version(db, runtime, alice.id, second, filename="q2.zip", validate=recorder)
    message = str(err.value)
    assert err.value.status == 413
    assert message == (
        f"storage quota: your bots' archives take {len(first) / MIB:.1f} MiB of your 2.0 MiB "
        f"and this one is {len(second) / MIB:.1f} MiB; make the bot smaller (leave build "
        "outputs and data out) or ask an organiser for a larger quota (ARENA_STORAGE_QUOTA)"
    )
    assert stored_counts(db) == before and len(recorder.started) == 1
    cached = [p.name for p in runtime.blobs.root.rglob("*") if p.is_file()]
    assert cached == [sha256_hex(first)]  # nor a byte of it in this machine's cache
    assert submissions(db)[-1].error == message
    # the quota is each user's own: bob's room is untouched by alice's
    submit_version(db, runtime, bob.id, bot_zip("r", "1", MIB), filename="r.zip", validate=recorder)
    assert used(db, bob.id) > MIB and used(db, alice.id) == len(first)


def test_rejected_archives_are_freed_to_make_room_and_their_versions_stay(
    db, store_runtime, alice, recorder
):
    runtime = with_settings(store_runtime, storage_quota=2 * MIB)
    first = bot_zip("q", "1", MIB + MIB // 4)
    first_id = submit_version(db, runtime, alice.id, first, filename="q1.zip", validate=recorder)
    with db.session() as s:
        set_bot_status(s, first_id, "rejected", "validation match: timeout")
    second = bot_zip("q", "2", MIB + MIB // 4)
    second_id = submit_version(db, runtime, alice.id, second, filename="q2.zip", validate=recorder)
    assert recorder.started == [first_id, second_id]
    assert not archive_stored(db, sha256_hex(first)) and archive_stored(db, sha256_hex(second))
    assert not runtime.blobs.path(sha256_hex(first)).is_file()
    assert used(db, alice.id) == len(second)
    with db.session(read_only=True) as s:
        kept = s.get(BotVersion, first_id)
        assert (kept.status, kept.reason) == ("rejected", "validation match: timeout")


def test_what_counts_and_what_is_freed(db, tmp_path):
    """Each archive of a user's bots counts once, a replaced rejected upload's too; freeing
    takes rejected versions' archives not needed elsewhere (not one entered in a
    tournament), of one user or of all, and keeps every row."""
    blobs = BlobStore(tmp_path / "blobs")
    with db.session() as s:
        alice, bob = (_user(s, name) for name in ("alice", "bob"))

        def add(owner, name, version, data, status="valid"):
            manifest = {"name": name, "version": version, "command": ["python3", "bot.py"]}
            return add_bot_version(s, blobs, data, manifest, status, owner=owner)

        valid = add(alice, "a", "1", b"a" * 100)
        rejected = add(alice, "a", "2", b"b" * 200, "rejected")
        replaced = add(alice, "a", "3", b"c" * 400, "rejected")
        replaced = add(alice, "a", "3", b"d" * 800)  # takes the rejected one's number
        entered = add(alice, "e", "1", b"e" * 1600)
        others = [add(bob, f"b{i}", "1", bytes([i]) * 10) for i in range(3)]
        settings = {"name": "cup", "ruleset": RULES, "clock": CLOCK, "deals_per_game": 5}
        settings |= {"games_per_match": 4, "seed": 7}
        create_tournament(s, settings, [entered, *others], [(0, (0, 1, 2, 3), 1)])
        set_bot_status(s, entered, "rejected", "broken since")
        bobs_rejected = add(bob, "b9", "1", b"f" * 3200, "rejected")
        assert storage_used(s, alice.id) == 100 + 200 + 400 + 800 + 1600
        assert storage_used(s, bob.id) == 30 + 3200

        freed = free_rejected_archives(s, blobs, alice.id)
        assert sorted(size for _, size in freed) == [200, 400]
        assert storage_used(s, alice.id) == 100 + 800 + 1600
        assert storage_used(s, bob.id) == 30 + 3200
        assert free_rejected_archives(s, blobs, alice.id) == []
        assert [size for _, size in free_rejected_archives(s, blobs)] == [3200]
        assert (
            not blobs.path(bobs_rejected.sha256).is_file() and blobs.path(entered.sha256).is_file()
        )
        ids = {valid.id, rejected.id, replaced.id, entered.id, bobs_rejected.id}
        rows = s.scalars(select(BotVersion.id).where(BotVersion.id.in_(ids))).all()
        assert len(rows) == 5 and s.scalar(select(BotRejection.sha256)) == sha256_hex(b"c" * 400)


def _user(s, name: str) -> User:
    return create_user(s, name, "a long password")


def test_the_quota_setting():
    assert Settings.from_env({}).storage_quota == DEFAULT_STORAGE_QUOTA == 256 * MIB
    assert Settings.from_env({"ARENA_STORAGE_QUOTA": "1048576"}).storage_quota == MIB
    with pytest.raises(ValueError, match="ARENA_STORAGE_QUOTA='lots'"):
        Settings.from_env({"ARENA_STORAGE_QUOTA": "lots"})
