"""Rate limits of the accounts pages, counted in the database (``rate_events``) so that
every web worker and machine sees the same counts.

- Log-ins: only failures count, per account and per address. While either has had its
  limit of failures within the window, further attempts are refused before the password is
  even checked (no scrypt work for a guesser, no answer either). An attempt is counted as a
  failure *before* its password is checked (``reserve_login``) and forgiven when it proves
  right, so guesses sent in parallel cannot all pass the check before the first failure is
  written: at most the limit of them are ever checked.
- Sign-ups: per address and hour, so that one machine cannot make accounts by the dozen to
  get around the per-user upload limit. Every attempt counts, refused ones too: a sign-up
  says when a name is taken, so uncounted failures would let anyone list the users. Like a
  log-in, an attempt is counted before it is checked, so parallel ones cannot slip through.
- Sign-ups with an invite code (``arena.accounts.invites``): a valid code is forgiven, so a
  room behind one address signs up whole. A wrong one stays counted, against the address's
  sign-ups and against its wrong codes; past the limit of those, a code is refused before
  it is looked at (so codes cannot be guessed), even where sign-ups without one are not.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from arena.config import Settings
from arena.store.models import RateEvent, utcnow

SIGNUP_WINDOW_S = 3600


@dataclass(frozen=True)
class Limits:
    login_per_account: int = 5
    login_per_address: int = 20
    login_window_s: int = 15 * 60
    signups_per_address: int = 10  # per hour

    @classmethod
    def from_settings(cls, settings: Settings) -> Limits:
        """``ARENA_LOGIN_LIMIT=ACCOUNT,ADDRESS,WINDOW_S`` (default ``5,20,900``) and
        ``ARENA_SIGNUP_LIMIT=PER_HOUR`` per address (default 10), as ``Settings`` read them."""
        return cls(*settings.login_limit, settings.signups_per_hour)


def _login_keys(name: str, address: str) -> tuple[str, str]:
    return f"user:{name.strip()[:64]}", f"addr:{address[:128]}"


def _counts(s: Session, keys: Sequence[str], window_s: int) -> dict[str, int]:
    since = utcnow() - timedelta(seconds=window_s)
    query = (
        select(RateEvent.key, func.count())
        .where(RateEvent.key.in_(keys), RateEvent.created_at > since)
        .group_by(RateEvent.key)
    )
    return dict(s.execute(query).all())


def _record(s: Session, keys: Sequence[str], window_s: int) -> list[int]:
    """Count an event against ``keys``, dropping their events older than the window;
    returns the new events' ids."""
    old = utcnow() - timedelta(seconds=window_s)
    s.execute(delete(RateEvent).where(RateEvent.key.in_(keys), RateEvent.created_at < old))
    events = [RateEvent(key=key) for key in keys]
    s.add_all(events)
    s.flush()
    return [event.id for event in events]


def reserve_login(s: Session, name: str, address: str, limits: Limits) -> list[int]:
    """Count this attempt as a failure against the account and the address; commit it
    before reading the counts. Returns what ``forgive_login`` takes back."""
    return _record(s, _login_keys(name, address), limits.login_window_s)


def login_blocked(s: Session, name: str, address: str, limits: Limits) -> bool:
    """Whether this account or this address is over its failures for now, this attempt's
    reservation included (so a refused attempt must be forgiven: it checked nothing)."""
    account, addr = _login_keys(name, address)
    counts = _counts(s, (account, addr), limits.login_window_s)
    return (
        counts.get(account, 0) > limits.login_per_account
        or counts.get(addr, 0) > limits.login_per_address
    )


def forgive(s: Session, reserved: Sequence[int]) -> None:
    """Take back what ``reserve_login`` or ``reserve_signup`` counted: a log-in refused
    unchecked or with the right password, a sign-up with a valid invite code."""
    s.execute(delete(RateEvent).where(RateEvent.id.in_(reserved)))


def _signup_keys(address: str) -> tuple[str, str]:
    """The address's sign-ups, and its sign-ups with an invite code (wrong ones, once the
    right ones are forgiven)."""
    return f"signup:{address[:128]}", f"invite:{address[:128]}"


def reserve_signup(s: Session, address: str, invited: bool = False) -> list[int]:
    """Count this sign-up attempt against the address, and with an invite code against its
    codes too (commit it before the check). Returns what ``forgive`` takes back."""
    signups, codes = _signup_keys(address)
    return _record(s, (signups, codes) if invited else (signups,), SIGNUP_WINDOW_S)


def signup_blocked(s: Session, address: str, limits: Limits, invited: bool = False) -> bool:
    """Whether the address has made more attempts than it may this hour, this one included:
    sign-ups, or for one with an invite code, sign-ups with a wrong code."""
    key = _signup_keys(address)[1 if invited else 0]
    return _counts(s, (key,), SIGNUP_WINDOW_S).get(key, 0) > limits.signups_per_address
