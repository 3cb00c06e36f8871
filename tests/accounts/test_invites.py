"""Invite codes and bulk accounts under the views: codes made random, readable and stored
hashed, taken at most their uses even by sign-ups at once (SQLite and Postgres), refused
with the reason; a CSV file's accounts read and made all or none."""

from __future__ import annotations

import re
import threading
from datetime import timedelta

import pytest
from sqlalchemy import select, update

from arena.accounts.bulk import create_accounts, read_accounts
from arena.accounts.invites import (
    InviteError,
    create_invites,
    expire_invite,
    invite_problem,
    list_invites,
    redeem_invite,
)
from arena.store import StoreError, User, authenticate, create_user
from arena.store.models import Invite, utcnow
from tests.support import both_databases


def test_codes_are_random_readable_and_only_their_hash_is_kept(db):
    with db.session() as s:
        organiser = create_user(s, "org", "a long password", admin=True)
        codes = create_invites(s, 50, 2, 1.5, "room 101", organiser)
    assert len(set(codes)) == 50
    assert all(re.fullmatch(r"([A-HJKMNP-Z2-9]{4}-){3}[A-HJKMNP-Z2-9]{4}", c) for c in codes)
    with db.session(read_only=True) as s:
        stored = s.scalars(select(Invite)).all()
        rows = list_invites(s)
    assert {c.replace("-", "") for c in codes}.isdisjoint(r.code_hash for r in stored)
    assert all(len(r.code_hash) == 64 for r in stored)
    assert {(r.label, r.uses, r.used, r.created_by, r.live) for r in rows} == {
        ("room 101", 2, 0, "org", True)
    }
    expires = rows[0].expires_at - rows[0].created_at
    assert timedelta(hours=1.4) < expires < timedelta(hours=1.6)


def test_a_code_is_typed_loosely_used_up_expired_or_wrong_with_the_reason(db):
    with db.session() as s:
        (code,) = create_invites(s, 1, 2, 1)
    typed = f"  {code.lower().replace('-', ' ')} "
    with db.session() as s:
        assert invite_problem(s, typed) is None
        redeem_invite(s, typed)
        redeem_invite(s, code)
    with db.session() as s:
        assert "used for all its 2 sign-ups" in (invite_problem(s, code) or "")
        with pytest.raises(InviteError, match="used for all its 2 sign-ups"):
            redeem_invite(s, code)
        assert "not valid" in (invite_problem(s, "AAAA-BBBB-CCCC-DDDD") or "")
        (other,) = create_invites(s, 1, 5, 1)
    with db.session() as s:
        assert all(expire_invite(s, invite.id) for invite in list_invites(s))
        assert not expire_invite(s, 99)
    expired = r"expired at \d{4}-\d\d-\d\d \d\d:\d\d UTC"
    with db.session() as s, pytest.raises(InviteError, match=expired):
        redeem_invite(s, other)


def test_a_use_taken_in_a_transaction_that_fails_is_given_back(db):
    with db.session() as s:
        (code,) = create_invites(s, 1, 1, 1)
    with pytest.raises(StoreError), db.session() as s:
        redeem_invite(s, code)
        create_user(s, "x", "short")
    with db.session(read_only=True) as s:
        assert invite_problem(s, code) is None


@pytest.mark.parametrize(
    ("count", "uses", "hours", "reason"),
    [(0, 1, 1, "count must be"), (1, 0, 1, "uses must be"), (1, 1, 0, "expires within")],
)
def test_invites_asked_for_wrongly_are_refused(db, count, uses, hours, reason):
    with db.session() as s, pytest.raises(InviteError, match=reason):
        create_invites(s, count, uses, hours)


@both_databases
def test_sign_ups_at_once_never_take_more_than_a_codes_uses(db):
    with db.session() as s:
        (code,) = create_invites(s, 1, 5, 1)
    taken: list[bool] = []
    start = threading.Barrier(12)

    def sign_up() -> None:
        start.wait()
        try:
            with db.session() as s:
                redeem_invite(s, code)
            taken.append(True)
        except InviteError:
            taken.append(False)

    threads = [threading.Thread(target=sign_up) for _ in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sorted(taken) == [False] * 7 + [True] * 5
    with db.session(read_only=True) as s:
        assert s.scalar(select(Invite.used)) == 5


def test_an_invite_past_its_time_is_refused_even_with_uses_left(db):
    with db.session() as s:
        (code,) = create_invites(s, 1, 5, 1)
        s.execute(update(Invite).values(expires_at=utcnow() - timedelta(seconds=1)))
    with db.session() as s, pytest.raises(InviteError, match="expired"):
        redeem_invite(s, code)


def test_a_csv_files_accounts_are_read_and_made_all_or_none(db):
    lines = ["Name ,E-mail,password,ADMIN", "ann,a@x,ann-password,", "bob,,,Yes", ""]
    accounts, ignored = read_accounts(lines, "c.csv")
    assert [(a.line, a.name, a.password, a.admin) for a in accounts] == [
        (2, "ann", "ann-password", False),
        (3, "bob", "", True),
    ]
    assert ignored == ["e-mail"]
    with db.session() as s:
        generated = create_accounts(s, accounts, "c.csv")
    assert [name for name, _ in generated] == ["bob"] and len(generated[0][1]) >= 16
    with db.session(read_only=True) as s:
        assert authenticate(s, "bob", generated[0][1]).admin
    bad, _ = read_accounts(["name,password", "cid,cid-password", "d d,short"], "d.csv")
    with pytest.raises(StoreError, match=r"d\.csv line 3: a user name must be"), db.session() as s:
        create_accounts(s, bad, "d.csv")
    with db.session(read_only=True) as s:
        assert "cid" not in set(s.scalars(select(User.name)))
    for lines, reason in (([], "one of them 'name'"), (["name"], "no accounts")):
        with pytest.raises(ValueError, match=reason):
            read_accounts(lines, "e.csv")
