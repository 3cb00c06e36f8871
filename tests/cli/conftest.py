"""The CLI tests' fixtures: ``home``, a fresh embedded platform (a SQLite file and a data
dir in tmp_path, named by the environment), ``arena``, the command run in-process on it,
and ``sandbox``, which skips (fails under CI=true) a test that needs bwrap when it is missing.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from arena.cli import main
from tests.support import POLICY, need_sandbox

Arena = Callable[..., Result]


@pytest.fixture(scope="module")
def sandbox() -> None:
    need_sandbox(POLICY)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh embedded platform: database file and data dir under tmp_path."""
    monkeypatch.setenv("ARENA_DATABASE_URL", f"sqlite:///{tmp_path / 'arena.db'}")
    monkeypatch.setenv("ARENA_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("ARENA_SANDBOX_MODE", "bwrap")
    monkeypatch.setenv("COLUMNS", "200")  # rich tables: no truncated names
    return tmp_path


@pytest.fixture
def arena(home: Path) -> Arena:
    def run(*args: str | Path) -> Result:
        return CliRunner().invoke(main, [str(a) for a in args])

    return run
