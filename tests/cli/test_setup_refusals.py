"""The wrong setup refused loudly, in one line: a worker without the shared database, and
the settings a multi-host deployment gives (passwords from files, the sandbox's uid range)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from arena.config import DEFAULT_UID_BASE, DEFAULT_UID_COUNT, DEFAULT_UID_LOCK_DIR, Settings
from arena.sandbox import SandboxPolicy
from arena.store import upgrade
from tests.cli.test_cli import no_bwrap, one_line_error  # noqa: F401 (a fixture)
from tests.support import pg_schema


@pytest.mark.parametrize(
    ("url", "fragments"),
    [
        (None, ("ARENA_DATABASE_URL is not set", "postgresql://")),
        ("sqlite:///arena.db", ("ARENA_DATABASE_URL is a SQLite file", "postgresql://")),
        ("sqlite:////srv/x.db", ("is a SQLite file (sqlite:////srv/x.db)", "Postgres")),
    ],
)
def test_a_worker_refuses_to_start_without_the_shared_database(
    arena, monkeypatch, tmp_path, url, fragments
):
    """Before anything else (no database file is made, no broker is asked)."""
    if url is None:
        monkeypatch.delenv("ARENA_DATABASE_URL")
    else:
        monkeypatch.setenv("ARENA_DATABASE_URL", url)
    monkeypatch.chdir(tmp_path)
    one_line_error(arena("worker"), *fragments)
    assert list(tmp_path.glob("*.db")) == []


def test_passwords_come_from_files(tmp_path: Path) -> None:
    db_secret, broker_secret = tmp_path / "db_password", tmp_path / "redis_password"
    db_secret.write_text("p@ss:w/rd%\n")  # as `echo` writes it: the newline is no part of it
    broker_secret.write_text("s3cret")
    settings = Settings.from_env(
        {
            "ARENA_DATABASE_URL": "postgresql://arena@core.internal:5432/arena",
            "ARENA_DATABASE_PASSWORD_FILE": str(db_secret),
            "ARENA_BROKER_URL": "redis://core.internal:6379/0",
            "ARENA_BROKER_PASSWORD_FILE": str(broker_secret),
        }
    )
    url = make_url(settings.database_url)
    assert (url.username, url.password, url.host, url.database) == (
        "arena",
        "p@ss:w/rd%",
        "core.internal",
        "arena",
    )
    assert settings.broker_url == "redis://:s3cret@core.internal:6379/0"
    assert settings.database_configured and settings.broker_configured


@pytest.mark.parametrize(
    ("env", "fragment"),
    [
        ({"ARENA_DATABASE_PASSWORD_FILE": "/nonexistent/pw"}, "cannot read it"),
        ({"ARENA_BROKER_PASSWORD_FILE": "EMPTY"}, "the password is empty"),
        ({"ARENA_SANDBOX_UID_BASE": "0"}, "ARENA_SANDBOX_UID_BASE='0'"),
        ({"ARENA_SANDBOX_UID_COUNT": "many"}, "ARENA_SANDBOX_UID_COUNT='many'"),
        ({"ARENA_SANDBOX_UID_BASE": str(2**32 - 10)}, "the last uid must be at most"),
    ],
)
def test_bad_deployment_settings_are_refused_in_one_line(tmp_path, env, fragment):
    empty = tmp_path / "empty"
    empty.write_text("\n")
    env = {k: str(empty) if v == "EMPTY" else v for k, v in env.items()}
    with pytest.raises(ValueError) as caught:
        Settings.from_env({"ARENA_DATABASE_URL": "postgresql://arena@db/arena", **env})
    assert fragment in str(caught.value) and "\n" not in str(caught.value)


def test_the_sandbox_uid_range_and_its_locks_are_settings(tmp_path: Path) -> None:
    default = SandboxPolicy.from_settings(Settings.from_env({}))
    assert (default.uid_base, default.uid_count, default.uid_lock_dir) == (
        DEFAULT_UID_BASE,
        DEFAULT_UID_COUNT,
        DEFAULT_UID_LOCK_DIR,
    )
    env = {
        "ARENA_SANDBOX_UID_BASE": "2000000",
        "ARENA_SANDBOX_UID_COUNT": "4000",
        "ARENA_SANDBOX_UID_LOCK_DIR": str(tmp_path / "locks"),
    }
    policy = SandboxPolicy.from_env(env)
    assert (policy.uid_base, policy.uid_count, policy.uid_lock_dir) == (
        2_000_000,
        4000,
        tmp_path / "locks",
    )


@pytest.mark.usefixtures("no_bwrap")
def test_a_worker_on_the_shared_database_still_refuses_a_host_without_bwrap(arena, monkeypatch):
    with pg_schema("arena_worker_cli") as url:
        upgrade(url)
        monkeypatch.setenv("ARENA_DATABASE_URL", url.render_as_string(hide_password=False))
        one_line_error(arena("worker"), "the bwrap sandbox is unusable", "--unsafe-no-sandbox")


def test_the_cookie_key_comes_from_a_file_when_not_set(tmp_path: Path) -> None:
    key = tmp_path / "secret_key"
    key.write_text("0123456789abcdef0123\n")
    assert (
        Settings.from_env({"ARENA_SECRET_KEY_FILE": str(key)}).secret_key == key.read_text().strip()
    )
    given = {"ARENA_SECRET_KEY": "set-in-the-environment", "ARENA_SECRET_KEY_FILE": str(key)}
    assert Settings.from_env(given).secret_key == "set-in-the-environment"
    key.write_text("short")
    with pytest.raises(ValueError, match="at least 16 characters"):
        Settings.from_env({"ARENA_SECRET_KEY_FILE": str(key)})
