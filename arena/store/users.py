"""Users, password hashes (scrypt) and API tokens (only their sha256 is stored)."""

from __future__ import annotations

import functools
import hashlib
import hmac
import secrets

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.house import HOUSE_BOTS
from arena.store.errors import StoreError
from arena.store.models import ApiToken, User
from arena.store.names import USER_NAME, refuse_lookalike
from arena.text import name_key, reads_as_house

# scrypt cost: 16 MiB of memory and ~50 ms per check; stored with each hash so it can grow.
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1
MIN_PASSWORD = 8


def may_see_logs(user: User | None, owner_id: int | None) -> bool:
    """The owner of a bot and organisers read its logs (and have its play analysed);
    nobody else."""
    return user is not None and (user.admin or (owner_id is not None and user.id == owner_id))


def hash_password(password: str) -> str:
    """``scrypt$n$r$p$salt$hash`` (hex), one string so the parameters travel with the hash."""
    salt = secrets.token_bytes(16)
    key = _scrypt(password, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P)
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${salt.hex()}${key.hex()}"


def verify_password(stored: str, password: str) -> bool:
    try:
        scheme, n, r, p, salt, key = stored.split("$")
        if scheme != "scrypt":
            return False
        expected = bytes.fromhex(key)
        actual = _scrypt(password, bytes.fromhex(salt), int(n), int(r), int(p))
    except ValueError:
        return False
    return hmac.compare_digest(actual, expected)


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(
        password.encode(), salt=salt, n=n, r=r, p=p, maxmem=256 * n * r + (1 << 20), dklen=32
    )


def create_user(s: Session, name: str, password: str, admin: bool = False) -> User:
    name = name.strip()
    if not USER_NAME.fullmatch(name):
        raise StoreError("a user name must be 1-64 letters, digits, '.', '_' or '-'")
    if reads_as_house(name, HOUSE_BOTS):
        raise StoreError(f"{name!r} reads as 'house', which is the house bots'; pick another")
    if len(password) < MIN_PASSWORD:
        raise StoreError(f"the password must have at least {MIN_PASSWORD} characters")
    if s.scalar(select(User.id).where(User.name == name)) is not None:
        raise StoreError(f"user {name!r} already exists; pick another name")
    refuse_lookalike(s, User, "user", name)
    user = User(
        name=name, name_key=name_key(name), password_hash=hash_password(password), admin=admin
    )
    s.add(user)
    s.flush()
    return user


def check_password(user: User, password: str) -> bool:
    return verify_password(user.password_hash, password)


def authenticate(s: Session, name: str, password: str) -> User | None:
    """The user if the password is right; a missing user costs the same scrypt time."""
    user = s.scalar(select(User).where(User.name == name))
    if user is None:
        verify_password(_dummy_hash(), password)
        return None
    return user if check_password(user, password) else None


@functools.cache
def _dummy_hash() -> str:
    return hash_password("not a password")


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def issue_token(s: Session, user: User, label: str = "") -> str:
    """A new API token for ``user``; the plain token is returned once and never stored."""
    token = secrets.token_urlsafe(32)
    s.add(ApiToken(user_id=user.id, token_hash=token_digest(token), label=label[:100]))
    s.flush()
    return token


def user_for_token(s: Session, token: str) -> User | None:
    """The owner of a live token, else None (unknown and revoked look the same)."""
    row = s.scalar(
        select(ApiToken).where(ApiToken.token_hash == token_digest(token), ~ApiToken.revoked)
    )
    return None if row is None else s.get(User, row.user_id)


def revoke_token(s: Session, token: str) -> bool:
    """Revoke a token; False if it was unknown or already revoked."""
    row = s.scalar(
        select(ApiToken).where(ApiToken.token_hash == token_digest(token), ~ApiToken.revoked)
    )
    if row is None:
        return False
    row.revoked = True
    s.flush()
    return True
