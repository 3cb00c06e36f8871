"""Users, password hashing and API tokens."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from arena.store import (
    Database,
    StoreError,
    authenticate,
    check_password,
    create_user,
    issue_token,
    revoke_token,
    user_for_token,
)
from arena.store.models import ApiToken
from arena.store.users import hash_password, verify_password


def test_password_hash_is_salted_scrypt_in_one_string() -> None:
    first, second = hash_password("correct horse"), hash_password("correct horse")
    assert first.startswith("scrypt$16384$8$1$")
    assert len(first.split("$")) == 6
    assert first != second  # a random salt each time
    assert verify_password(first, "correct horse")
    assert not verify_password(first, "correct hors")


@pytest.mark.parametrize("stored", ["", "md5$abc", "scrypt$x$8$1$00$00", "scrypt$16384$8$1$zz$00"])
def test_a_malformed_stored_hash_never_verifies(stored: str) -> None:
    assert not verify_password(stored, "anything")


def test_create_user_and_check_password(db: Database) -> None:
    with db.session() as s:
        user = create_user(s, "alice", "s3cret-pass", admin=True)
        assert user.id is not None and user.admin and user.created_at is not None
        assert "s3cret-pass" not in user.password_hash
    assert check_password(user, "s3cret-pass")
    assert not check_password(user, "wrong-pass")
    with db.session() as s:
        assert authenticate(s, "alice", "s3cret-pass").id == user.id
        assert authenticate(s, "alice", "wrong-pass") is None
        assert authenticate(s, "nobody", "s3cret-pass") is None


def test_user_names_are_unique(db: Database) -> None:
    with db.session() as s:
        create_user(s, "bob", "password1")
    with pytest.raises(StoreError, match="'bob' already exists"), db.session() as s:
        create_user(s, "bob", "password2")


@pytest.mark.parametrize(
    ("name", "password", "message"),
    [("", "password1", "1-64 letters"), ("carol", "short", "at least 8")],
)
def test_bad_user_input_is_refused(db: Database, name: str, password: str, message: str) -> None:
    with pytest.raises(StoreError, match=message), db.session() as s:
        create_user(s, name, password)


def test_tokens_find_their_user_and_only_the_hash_is_stored(db: Database) -> None:
    with db.session() as s:
        user = create_user(s, "dave", "password1")
        token = issue_token(s, user, label="laptop")
        other = issue_token(s, user)
    assert token != other and len(token) >= 40
    with db.session() as s:
        assert user_for_token(s, token).name == "dave"
        assert user_for_token(s, "not-a-token") is None
        rows = s.scalars(select(ApiToken)).all()
        assert {r.label for r in rows} == {"laptop", ""}
        assert all(token not in (r.token_hash, r.label) for r in rows)


def test_a_revoked_token_stops_working(db: Database) -> None:
    with db.session() as s:
        token = issue_token(s, create_user(s, "erin", "password1"))
    with db.session() as s:
        assert revoke_token(s, token)
        assert not revoke_token(s, token)
    with db.session() as s:
        assert user_for_token(s, token) is None
