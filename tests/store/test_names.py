"""Names as people read them: no new user or bot name may read as an existing one,
nor as a house bot's; what the database already holds keeps working."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import text

from arena.bots.package import PackageError, parse_manifest
from arena.store import Database, StoreError, authenticate, create_user, engine_for, upgrade
from arena.store.blobs import BlobStore
from arena.store.bots import add_bot_version
from arena.text import name_key

PASSWORD = "long enough pass"


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("AliceBot", "alicebot"),
        ("alice.bot", "alice_bot"),
        ("c0der", "coder"),
        ("bi11", "bill"),
        ("rnodern", "modem"),
        ("vvalter", "walter"),
        ("ＡｌｉｃｅBot", "alicebot"),  # full-width letters read as plain ones
    ],
)
def test_look_alike_names_have_one_key(first: str, second: str) -> None:
    assert name_key(first) == name_key(second)


def test_different_names_keep_different_keys() -> None:
    assert len({name_key(n) for n in ("alice", "alicia", "bob", "bobby", "al1ce2")}) == 5


def test_a_user_name_that_reads_as_another_is_refused(db: Database) -> None:
    with db.session() as s:
        create_user(s, "AliceBot", PASSWORD)
    for name in ("alicebot", "alice-bot", "ALICE_B0T"):
        with (
            pytest.raises(StoreError, match="reads as the existing user 'AliceBot'"),
            db.session() as s,
        ):
            create_user(s, name, PASSWORD)


@pytest.mark.parametrize("name", ["house", "H0use", "house-random", "h0use_heuristic"])
def test_house_names_are_the_platforms(db: Database, name: str) -> None:
    with pytest.raises(StoreError, match="house"), db.session() as s:
        create_user(s, name, PASSWORD)
    manifest = f'name = "{name}"\ncommand = ["python3", "bot.py"]'
    with pytest.raises(PackageError, match="belong to the house bots"):
        parse_manifest(manifest)


def test_new_user_names_are_plain_letters_digits_and_marks(db: Database) -> None:
    for name in ("аlice", "bob smith", "-dash", "x" * 65):  # Cyrillic a; space; leading -
        with pytest.raises(StoreError, match="letters, digits"), db.session() as s:
            create_user(s, name, PASSWORD)
    with db.session() as s:
        assert create_user(s, "housekeeper", PASSWORD).name_key == "housekeeper"


def test_a_bot_name_that_reads_as_another_is_refused(db: Database, tmp_path: Path) -> None:
    blobs = BlobStore(tmp_path / "blobs")
    with db.session() as s:
        alice = create_user(s, "alice", PASSWORD)
        bob = create_user(s, "bob", PASSWORD)
        add_bot_version(s, blobs, b"one", {"name": "AliceBot", "version": "1"}, owner=alice)
    taken = "reads as the existing bot 'AliceBot'"
    with pytest.raises(StoreError, match=taken), db.session() as s:
        add_bot_version(s, blobs, b"two", {"name": "alice_bot", "version": "1"}, owner=bob)
    with db.session() as s:  # the same name is the same bot: a new version of it
        row = add_bot_version(s, blobs, b"three", {"name": "AliceBot", "version": "2"}, owner=alice)
        assert row.bot.name_key == "allcebot"


def test_names_that_already_read_alike_keep_working_after_the_upgrade(tmp_path: Path) -> None:
    """Before the rule two users could be 'Carol' and 'carol': the upgrade keys the first,
    leaves the second unkeyed, and both still log in; no new look-alike gets in."""
    url = f"sqlite:///{tmp_path / 'old.db'}"
    upgrade(url, "0008_same_owner")
    engine = engine_for(url)
    with engine.begin() as conn:
        for uid, name in ((1, "Carol"), (2, "carol")):
            conn.execute(
                text(
                    "INSERT INTO users (id, name, password_hash, admin, created_at)"
                    " VALUES (:id, :name, :hash, false, '2026-01-01')"
                ),
                {"id": uid, "name": name, "hash": _hash()},
            )
    engine.dispose()
    upgrade(url)
    db = Database(url)
    try:
        with db.session(read_only=True) as s:
            keys = dict(s.execute(text("SELECT name, name_key FROM users")).all())
            assert keys == {"Carol": "carol", "carol": None}
            assert authenticate(s, "carol", PASSWORD) is not None
            assert authenticate(s, "Carol", PASSWORD) is not None
        with (
            pytest.raises(StoreError, match="reads as the existing user 'Carol'"),
            db.session() as s,
        ):
            create_user(s, "CAROL", PASSWORD)
    finally:
        db.dispose()


def _hash() -> str:
    from arena.store.users import hash_password

    return hash_password(PASSWORD)
