"""API tokens on requests: ``Authorization: Bearer <token>`` names the user (only the
token's sha256 is stored). Unknown and revoked tokens get the same 401."""

from __future__ import annotations

from flask import request
from werkzeug.exceptions import Unauthorized

from arena.store import User, user_for_token
from dashboard.db import session

SCHEME = "bearer"


def bearer_token() -> str | None:
    """The token of this request's ``Authorization: Bearer`` header, if any."""
    kind, _, token = request.headers.get("Authorization", "").partition(" ")
    token = token.strip()
    return token if kind.lower() == SCHEME and token else None


def bearer_user() -> User:
    """The user whose live token this request carries; else a 401."""
    token = bearer_token()
    if token is None:
        raise Unauthorized(
            "send an API token as 'Authorization: Bearer <token>' (create one on your account page)"
        )
    user = user_for_token(session(), token)
    if user is None:
        raise Unauthorized("this API token is not valid (unknown or revoked)")
    return user
