"""API tokens as the account page shows them: listed and revoked by id, one user's only."""

from __future__ import annotations

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from arena.store.db import rowcount
from arena.store.models import ApiToken


def list_tokens(s: Session, user_id: int) -> list[ApiToken]:
    """The user's tokens, newest first (the plain tokens are not known: only labels)."""
    query = select(ApiToken).where(ApiToken.user_id == user_id).order_by(ApiToken.id.desc())
    return list(s.scalars(query))


def revoke_token_id(s: Session, user_id: int, token_id: int) -> bool:
    """Revoke one of the user's tokens; False when it is not theirs, unknown, or revoked."""
    done = s.execute(
        update(ApiToken)
        .where(ApiToken.id == token_id, ApiToken.user_id == user_id, ~ApiToken.revoked)
        .values(revoked=True)
    )
    return rowcount(done) == 1
