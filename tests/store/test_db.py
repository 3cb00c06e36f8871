"""Engines, sessions and migrations on both backends."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import CheckConstraint, inspect, select, text
from sqlalchemy.engine import URL

from arena.config import Settings
from arena.store import (
    Base,
    BlobStore,
    Database,
    StoreError,
    User,
    engine_for,
    get_archive,
    normalise_url,
    upgrade,
)
from arena.store.migrate import current_revision, downgrade, is_up_to_date


@pytest.mark.parametrize(
    ("given", "driver"),
    [
        ("postgresql://u@h/db", "postgresql+psycopg"),
        ("postgres://u@h/db", "postgresql+psycopg"),
        ("postgresql+psycopg://u@h/db", "postgresql+psycopg"),
        ("sqlite:///arena.db", "sqlite"),
    ],
)
def test_urls_are_normalised_to_psycopg3(given: str, driver: str) -> None:
    assert normalise_url(given).drivername == driver


def test_a_bad_url_is_a_one_line_error() -> None:
    with pytest.raises(StoreError, match=r"not valid.*sqlite:///arena\.db"):
        normalise_url("not a url")


def test_database_from_settings_uses_the_environment_url(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'sub' / 'dir' / 'a.db'}"
    db = Database.from_settings(Settings.from_env({"ARENA_DATABASE_URL": url}))
    with db.engine.connect() as conn:
        conn.execute(text("SELECT 1"))
    assert (tmp_path / "sub" / "dir" / "a.db").exists()  # the folder was created
    db.dispose()


def test_sqlite_connections_enforce_foreign_keys_and_use_wal(tmp_path: Path) -> None:
    engine = engine_for(f"sqlite:///{tmp_path / 'a.db'}")
    with engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
    engine.dispose()


def test_session_commits_at_the_end_and_rolls_back_on_error(db: Database) -> None:
    with db.session() as s:
        s.add(User(name="kept", password_hash="x"))
    with pytest.raises(RuntimeError), db.session() as s:
        s.add(User(name="dropped", password_hash="x"))
        s.flush()
        raise RuntimeError("boom")
    with db.session(read_only=True) as s:
        assert list(s.scalars(select(User.name))) == ["kept"]


def test_a_read_only_session_does_not_block_writers(db: Database) -> None:
    with db.session() as s:
        s.add(User(name="a", password_hash="x"))
    written = threading.Event()

    def write() -> None:
        with db.session() as s:
            s.add(User(name="b", password_hash="x"))
        written.set()

    with db.session(read_only=True) as s:
        assert list(s.scalars(select(User.name))) == ["a"]
        writer = threading.Thread(target=write)
        writer.start()
        assert written.wait(10), "the writer waited for a reader"
    writer.join()


def test_foreign_keys_are_enforced(db: Database) -> None:
    from sqlalchemy.exc import IntegrityError

    from arena.store.models import ApiToken

    with pytest.raises(IntegrityError), db.session() as s:
        s.add(ApiToken(user_id=999, token_hash="h" * 64))
        s.flush()


def test_migrated_schema_matches_the_models(db_url: URL) -> None:
    engine = engine_for(db_url)
    with engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []
        inspector = inspect(conn)
        for table in Base.metadata.sorted_tables:
            # Alembic does not compare CHECK constraints: compare their names here.
            found = {c["name"] for c in inspector.get_check_constraints(table.name)}
            wanted = {c.name for c in table.constraints if isinstance(c, CheckConstraint)}
            assert found == wanted, table.name
    engine.dispose()


def test_upgrade_is_idempotent_and_reports_the_head(db_url: URL) -> None:
    upgrade(db_url)
    assert current_revision(db_url) == "0018_comparisons"  # the newest migration
    assert is_up_to_date(db_url)


def test_downgrade_to_base_and_back(db_url: URL) -> None:
    downgrade(db_url, "base")
    assert current_revision(db_url) is None
    engine = engine_for(db_url)
    with engine.connect() as conn:
        assert set(inspect(conn).get_table_names()) <= {"alembic_version"}
    engine.dispose()
    upgrade(db_url)
    assert is_up_to_date(db_url)


def test_upgrade_works_from_any_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no alembic.ini here: the config is built in code
    upgrade("sqlite:///relative.db")
    assert is_up_to_date(f"sqlite:///{tmp_path / 'relative.db'}")


def test_upgrade_to_0002_copies_archives_from_the_data_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Archives an earlier version kept only on disk end up in the database."""
    url = f"sqlite:///{tmp_path / 'old.db'}"
    upgrade(url, "0001")
    old_blobs = BlobStore(tmp_path / "data" / "blobs")
    digest = old_blobs.put(b"old archive")
    engine = engine_for(url)
    with engine.begin() as conn:
        conn.execute(
            text("INSERT INTO bots (id, name, created_at) VALUES (1, 'old', '2026-01-01')")
        )
        conn.execute(
            text(
                "INSERT INTO bot_versions (bot_id, version, sha256, manifest, status, reason,"
                " created_at) VALUES (1, '1', :d, '{}', 'valid', '', '2026-01-01')"
            ),
            {"d": digest},
        )
    engine.dispose()
    monkeypatch.setenv("ARENA_DATA_DIR", str(tmp_path / "data"))
    upgrade(url)
    db = Database(url)
    with db.session(read_only=True) as s:
        assert get_archive(s, digest) == b"old archive"
    db.dispose()


def test_upgrading_keeps_every_row(db_url: URL) -> None:
    """A database with results, upgraded through migrations that rebuild tables (SQLite's
    batch mode), keeps its bots, versions, matches and results."""
    downgrade(db_url, "0017_invites")
    engine = engine_for(db_url)
    filled = {
        "bots": "INSERT INTO bots (id, name, created_at) VALUES (1, 'kept', '2026-01-01')",
        "bot_versions": "INSERT INTO bot_versions (id, bot_id, version, sha256, manifest, "
        "status, reason, created_at) VALUES (1, 1, '1', 'aa', '{}', 'valid', '', '2026-01-01')",
        "tournaments": "INSERT INTO tournaments (id, name, ruleset, clock, max_strikes, "
        "deals_per_game, games_per_match, seed, status, created_at, rating_model, "
        "adaptive_matches, allow_same_owner, kind) VALUES (1, 't', '{}', '{}', 3, 1, 1, 7, "
        "'done', '2026-01-01', 'margin', 0, false, 'tournament')",
        "matches": "INSERT INTO matches (id, tournament_id, table_index, seats, seed, status, "
        "attempts, late_results, unsandboxed) VALUES (1, 1, 0, '[1, 1, 1, 1]', 7, 'done', 1, "
        "0, false)",
        "game_results": "INSERT INTO game_results (id, match_id, game_index, bot_version_id, "
        "seat, points, deals, calls_made) VALUES (1, 1, 0, 1, 0, 30, 1, 3)",
    }
    with engine.begin() as conn:
        for sql in filled.values():
            conn.execute(text(sql))
    upgrade(db_url)
    with engine.connect() as conn:
        for table in filled:
            assert conn.execute(text(f"SELECT count(*) FROM {table}")).scalar() == 1, table
    engine.dispose()
