"""Bot versions: upload, dedupe by sha256, status, lookup by reference."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from arena.store import (
    BlobStore,
    BotVersion,
    Database,
    StoreError,
    add_bot_version,
    create_user,
    find_bot_version,
    list_bots,
    set_bot_status,
    sha256_hex,
)
from tests.store.conftest import manifest


def test_add_stores_the_archive_and_the_row(db: Database, blobs: BlobStore) -> None:
    with db.session() as s:
        row = add_bot_version(s, blobs, b"zip-1", manifest("alpha", "1.0"))
    assert row.sha256 == sha256_hex(b"zip-1")
    assert blobs.get(row.sha256) == b"zip-1"
    assert (row.status, row.reason, row.version) == ("pending", "", "1.0")
    assert row.manifest["command"] == ["python3", "bot.py"]
    with db.session() as s:
        assert find_bot_version(s, "alpha@1.0").id == row.id


def test_same_bytes_return_the_existing_version(db: Database, blobs: BlobStore) -> None:
    with db.session() as s:
        first = add_bot_version(s, blobs, b"zip-1", manifest("alpha", "1.0"))
    with db.session() as s:
        again = add_bot_version(s, blobs, b"zip-1", manifest("alpha", "1.0"), "valid")
        assert again.id == first.id and again.status == "pending"
        assert s.scalar(select(func.count()).select_from(BotVersion)) == 1


def test_same_version_with_other_bytes_is_refused(db: Database, blobs: BlobStore) -> None:
    with db.session() as s:
        add_bot_version(s, blobs, b"zip-1", manifest("alpha", "1.0"))
    taken = r"alpha@1\.0 already exists.*raise the version"
    with pytest.raises(StoreError, match=taken), db.session() as s:
        add_bot_version(s, blobs, b"zip-2", manifest("alpha", "1.0"))
    with db.session() as s:
        assert add_bot_version(s, blobs, b"zip-2", manifest("alpha", "1.1")).version == "1.1"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"version": "1"}, "name must be"),
        ({"name": "a@b"}, "without '@'"),
        ({"name": "ok", "version": ""}, "version must be"),
    ],
)
def test_bad_manifests_are_refused(db: Database, blobs: BlobStore, data, message) -> None:
    with pytest.raises(StoreError, match=message), db.session() as s:
        add_bot_version(s, blobs, b"zip", data)


def test_status_is_checked_and_set(db: Database, blobs: BlobStore) -> None:
    with pytest.raises(StoreError, match="status must be one of"), db.session() as s:
        add_bot_version(s, blobs, b"zip", manifest("alpha"), status="great")
    with db.session() as s:
        row = add_bot_version(s, blobs, b"zip", manifest("alpha"))
        set_bot_status(s, row.id, "rejected", "timed out in validation")
    with db.session() as s:
        again = find_bot_version(s, row.id)
        assert (again.status, again.reason) == ("rejected", "timed out in validation")
        with pytest.raises(StoreError, match="no bot version with id 999"):
            set_bot_status(s, 999, "valid")


def test_a_name_belongs_to_its_owner(db: Database, blobs: BlobStore) -> None:
    with db.session() as s:
        alice, bob = create_user(s, "alice", "password1"), create_user(s, "bob", "password1")
        add_bot_version(s, blobs, b"zip-1", manifest("alpha", "1"), owner=alice)
        add_bot_version(s, blobs, b"zip-2", manifest("alpha", "2"), owner=alice)
    with pytest.raises(StoreError, match="belongs to another user"), db.session() as s:
        add_bot_version(s, blobs, b"zip-3", manifest("alpha", "3"), owner=bob)


def test_find_by_name_gives_the_latest_valid_version(db: Database, blobs: BlobStore) -> None:
    with db.session() as s:
        v1 = add_bot_version(s, blobs, b"1", manifest("alpha", "1"), "valid")
        add_bot_version(s, blobs, b"2", manifest("alpha", "2"), "rejected")
        add_bot_version(s, blobs, b"3", manifest("alpha", "3"), "pending")
        numeric = add_bot_version(s, blobs, b"4", manifest("2024", "1"), "valid")
    with db.session() as s:
        assert find_bot_version(s, "alpha").id == v1.id
        assert find_bot_version(s, "alpha@3").version == "3"
        assert find_bot_version(s, v1.id).id == v1.id
        assert find_bot_version(s, str(v1.id)).id == v1.id  # digits: an id, no bot has that name
        assert find_bot_version(s, "2024").id == numeric.id  # digits: a bot with that name


@pytest.mark.parametrize(
    ("ref", "message"),
    [
        ("ghost", "no bot named 'ghost'"),
        ("alpha@9", "no version '9'"),
        ("beta", "no valid version yet"),
        ("12345", "no bot version with id 12345"),
        (12345, "no bot version with id 12345"),
    ],
)
def test_unknown_references_are_clear_errors(
    db: Database, blobs: BlobStore, ref: str | int, message: str
) -> None:
    with db.session() as s:
        add_bot_version(s, blobs, b"1", manifest("alpha", "1"), "valid")
        add_bot_version(s, blobs, b"2", manifest("beta", "1"), "pending")
    with pytest.raises(StoreError, match=message), db.session() as s:
        find_bot_version(s, ref)


def test_list_bots_by_name_with_versions(db: Database, blobs: BlobStore) -> None:
    with db.session() as s:
        add_bot_version(s, blobs, b"b1", manifest("beta", "1"))
        add_bot_version(s, blobs, b"a1", manifest("alpha", "1"))
        add_bot_version(s, blobs, b"a2", manifest("alpha", "2"))
    with db.session() as s:
        bots = list_bots(s)
    assert [b.name for b in bots] == ["alpha", "beta"]
    assert [v.version for v in bots[0].versions] == ["1", "2"]
    assert bots[0].versions[1].ref == "alpha@2"
