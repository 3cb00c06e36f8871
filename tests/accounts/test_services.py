"""The account services under the views: session rows, the signing key, the limits' settings."""

from __future__ import annotations

import stat
import threading

import pytest
from sqlalchemy import select

from arena.accounts.secret import secret_key
from arena.accounts.sessions import close_session, open_session, session_user
from arena.accounts.throttle import Limits
from arena.config import Settings
from arena.store import create_user
from arena.store.models import UserSession
from arena.store.users import token_digest


def test_a_session_works_until_it_is_closed_or_expires(db):
    with db.session() as s:
        user = create_user(s, "ann", "a long password")
        live, expired = open_session(s, user), open_session(s, user, days=-1)
    with db.session() as s:
        assert session_user(s, live).name == "ann"
        assert session_user(s, expired) is None
        assert session_user(s, live + "x") is None
        stored = set(s.scalars(select(UserSession.token_hash)))
        assert live not in stored and token_digest(live) in stored  # only the hash is kept
        close_session(s, live)
    with db.session() as s:
        assert session_user(s, live) is None
        open_session(s, user)  # a new log-in sweeps the user's expired rows
        assert token_digest(expired) not in set(s.scalars(select(UserSession.token_hash)))


def test_the_signing_key_is_made_once_private_and_shared(tmp_path):
    keys: list[str] = []
    together = threading.Barrier(8)

    def start() -> None:
        together.wait()
        keys.append(secret_key(tmp_path / "d"))

    threads = [threading.Thread(target=start) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(keys) == 8  # none raised
    assert len(set(keys)) == 1 and len(keys[0]) >= 32  # every worker signs with one key
    path = tmp_path / "d" / "secret_key"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in path.parent.iterdir()] == ["secret_key"]  # no leftovers
    configured = Settings.from_env({"ARENA_SECRET_KEY": "k" * 20}).secret_key
    assert secret_key(tmp_path / "e", configured) == "k" * 20
    assert not (tmp_path / "e").exists()
    with pytest.raises(ValueError, match="at least 16"):
        Settings.from_env({"ARENA_SECRET_KEY": "short"})


def test_limits_come_from_the_environment_or_are_refused_clearly():
    assert Limits.from_settings(Settings.from_env({})) == Limits(5, 20, 900, 10)
    env = {"ARENA_LOGIN_LIMIT": "3,7,60", "ARENA_SIGNUP_LIMIT": "2"}
    limits = Limits.from_settings(Settings.from_env(env))
    assert limits == Limits(3, 7, 60, 2)
    for env in (
        {"ARENA_LOGIN_LIMIT": "3,7"},
        {"ARENA_LOGIN_LIMIT": "0,1,1"},
        {"ARENA_SIGNUP_LIMIT": "x"},
    ):
        with pytest.raises(ValueError, match="whole numbers of at least 1"):
            Settings.from_env(env)
