"""Log-in limits per account and per address, counted in the database so that every web
worker sees the same counts.

Only failures count. While an account or an address has had ``limit`` failures within the
window, further attempts are refused before the password is even checked (no scrypt work for
a guesser, no answer either); the oldest failure leaving the window frees one attempt.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from arena.store.models import LoginFailure, utcnow


@dataclass(frozen=True)
class LoginLimits:
    per_account: int = 5
    per_address: int = 20
    window_s: int = 15 * 60

    @classmethod
    def from_env(cls) -> LoginLimits:
        """``ARENA_LOGIN_LIMIT=ACCOUNT,ADDRESS,WINDOW_S`` (default ``5,20,900``)."""
        text = os.environ.get("ARENA_LOGIN_LIMIT")
        if not text:
            return cls()
        try:
            account, address, window = (int(part) for part in text.split(","))
        except ValueError:
            raise ValueError(
                f"ARENA_LOGIN_LIMIT={text!r}: expected ACCOUNT,ADDRESS,WINDOW_SECONDS"
            ) from None
        if min(account, address, window) < 1:
            raise ValueError(f"ARENA_LOGIN_LIMIT={text!r}: every number must be at least 1")
        return cls(account, address, window)


def keys(name: str, address: str) -> tuple[str, str]:
    return f"user:{name.strip()[:64]}", f"addr:{address[:128]}"


def blocked(s: Session, name: str, address: str, limits: LoginLimits) -> bool:
    """Whether this account or this address has used up its failures for now."""
    since = utcnow() - timedelta(seconds=limits.window_s)
    account, addr = keys(name, address)
    counts = dict(
        s.execute(
            select(LoginFailure.key, func.count())
            .where(LoginFailure.key.in_((account, addr)), LoginFailure.created_at > since)
            .group_by(LoginFailure.key)
        ).all()
    )
    return counts.get(account, 0) >= limits.per_account or counts.get(addr, 0) >= limits.per_address


def record_failure(s: Session, name: str, address: str, limits: LoginLimits) -> None:
    """Count a failure against both keys and drop their failures older than the window."""
    old = utcnow() - timedelta(seconds=limits.window_s)
    both = keys(name, address)
    s.execute(delete(LoginFailure).where(LoginFailure.key.in_(both), LoginFailure.created_at < old))
    s.add_all(LoginFailure(key=key) for key in both)
    s.flush()
