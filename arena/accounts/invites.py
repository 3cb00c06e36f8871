"""Invite codes: an organiser makes them (the web's organiser page, ``arena user invite``),
each good for ``uses`` sign-ups until it expires. A sign-up with a valid code is not counted
against its address's hourly limit, so a room of contestants behind one NAT can all sign up;
a wrong code is counted (``arena.accounts.throttle``), so codes cannot be guessed freely.

Codes are 16 characters from 31 that cannot be misread (no 0/O, 1/I/L), about 79 random
bits, shown in groups of four; what people type is read case-blind, spaces and dashes
ignored. Only a code's sha256 is stored: it is shown once, when made.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from arena.store.db import rowcount
from arena.store.models import Invite, User, as_utc, utcnow
from arena.store.users import token_digest

ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 16
MAX_COUNT, MAX_USES, MAX_HOURS = 500, 10_000, 24 * 365


class InviteError(ValueError):
    """A code that cannot be used (unknown, expired, used up), or invites asked for wrongly."""


@dataclass(frozen=True)
class InviteRow:
    """One invite as the organiser's list shows it (never the code)."""

    id: int
    label: str
    uses: int
    used: int
    expires_at: datetime
    created_at: datetime
    created_by: str | None

    @property
    def live(self) -> bool:
        return self.used < self.uses and self.expires_at > utcnow()


def _digest(code: str) -> str:
    """The stored form of a code as typed: case, spaces and dashes do not count."""
    return token_digest("".join(code.split()).replace("-", "").upper())


def _shown(code: str) -> str:
    return "-".join(code[i : i + 4] for i in range(0, len(code), 4))


def create_invites(
    s: Session, count: int, uses: int, hours: float, label: str = "", by: User | None = None
) -> list[str]:
    """``count`` new codes, each good for ``uses`` sign-ups within ``hours``; returned once
    (as people type them), never stored in clear."""
    for value, what, top in ((count, "count", MAX_COUNT), (uses, "uses", MAX_USES)):
        if not 1 <= value <= top:
            raise InviteError(f"{what} must be a whole number from 1 to {top}")
    if not 0 < hours <= MAX_HOURS:
        raise InviteError(f"an invite expires within 0 to {MAX_HOURS} hours")
    expires = utcnow() + timedelta(hours=hours)
    codes = ["".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH)) for _ in range(count)]
    s.add_all(
        Invite(
            code_hash=_digest(code),
            label=label.strip()[:100],
            uses=uses,
            used=0,
            expires_at=expires,
            created_by=by.id if by else None,
        )
        for code in codes
    )
    s.flush()
    return [_shown(code) for code in codes]


def invite_problem(s: Session, code: str) -> str | None:
    """Why a sign-up may not use ``code`` now (unknown, expired, used up); None if it may."""
    invite = s.scalar(select(Invite).where(Invite.code_hash == _digest(code)))
    if invite is None:
        return "this invite code is not valid: check it with your organiser"
    if as_utc(invite.expires_at) <= utcnow():
        when = as_utc(invite.expires_at).strftime("%Y-%m-%d %H:%M UTC")
        return f"this invite code expired at {when}: ask your organiser for a new one"
    if invite.used >= invite.uses:
        return (
            f"this invite code has been used for all its {invite.uses} sign-ups: "
            "ask your organiser for a new one"
        )
    return None


def redeem_invite(s: Session, code: str) -> None:
    """Take one use of ``code`` for a sign-up in this transaction (given back if it rolls
    back): one conditional UPDATE, so sign-ups at once never take more than its uses.
    ``InviteError`` says why it cannot be used."""
    taken = s.execute(
        update(Invite)
        .where(
            Invite.code_hash == _digest(code),
            Invite.used < Invite.uses,
            Invite.expires_at > utcnow(),
        )
        .values(used=Invite.used + 1)
    )
    if rowcount(taken) != 1:
        raise InviteError(invite_problem(s, code) or "this invite code was used up just now")


def list_invites(s: Session) -> list[InviteRow]:
    """Every invite, newest first, with the name of the organiser who made it."""
    rows = s.execute(
        select(Invite, User.name)
        .outerjoin(User, User.id == Invite.created_by)
        .order_by(Invite.id.desc())
    )
    return [
        InviteRow(i.id, i.label, i.uses, i.used, as_utc(i.expires_at), as_utc(i.created_at), name)
        for i, name in rows
    ]


def expire_invite(s: Session, invite_id: int) -> bool:
    """End this invite now (a code that leaked, a room that is in); False if there is none."""
    invite = s.get(Invite, invite_id)
    if invite is None:
        return False
    invite.expires_at = min(as_utc(invite.expires_at), utcnow())
    return True
