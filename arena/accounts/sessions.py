"""Browser sessions kept in the database: the cookie holds a random token, the table its
sha256. Logging out deletes the row, so a copied cookie dies with it; an expired row is
worth nothing and is swept when its user logs in again."""

from __future__ import annotations

import secrets
from datetime import timedelta

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from arena.store.models import User, UserSession, utcnow
from arena.store.users import token_digest

SESSION_DAYS = 14


def open_session(s: Session, user: User, days: int = SESSION_DAYS) -> str:
    """A new session for ``user``; the token goes into the (signed) cookie only."""
    now = utcnow()
    s.execute(
        delete(UserSession).where(UserSession.user_id == user.id, UserSession.expires_at < now)
    )
    token = secrets.token_urlsafe(32)
    s.add(
        UserSession(
            token_hash=token_digest(token), user_id=user.id, expires_at=now + timedelta(days=days)
        )
    )
    s.flush()
    return token


def session_user(s: Session, token: str) -> User | None:
    """The user of a live session token, else None (unknown, logged out and expired alike)."""
    row = s.scalar(
        select(UserSession).where(
            UserSession.token_hash == token_digest(token), UserSession.expires_at > utcnow()
        )
    )
    return None if row is None else s.get(User, row.user_id)


def close_session(s: Session, token: str) -> None:
    s.execute(delete(UserSession).where(UserSession.token_hash == token_digest(token)))
