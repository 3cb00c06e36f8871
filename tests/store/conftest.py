"""Store fixtures: the database is the subject here, so every test that uses a database
runs on SQLite and on Postgres, both migrated by Alembic (the shared fixtures of
``tests/conftest.py``: the Postgres half is skipped locally without a server and fails under
``CI=true``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from sqlalchemy.engine import URL

from arena.referee.result import Fault, GameResult, MatchResult
from arena.store import (
    BlobStore,
    BotVersion,
    Database,
    add_bot_version,
    create_tournament,
)
from arena.store.models import Tournament
from tests.support import BACKENDS, fresh_database

RULES = {"name": "pagat", "deals_per_game": 5}
CLOCK = {"decision_ms": 1000, "bank_ms": 10_000, "startup_ms": 15_000}
SETTINGS = {"name": "cup", "deals_per_game": 5, "games_per_match": 4, "seed": 7}


@pytest.fixture(params=BACKENDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> URL:
    """A freshly migrated, empty database on each backend."""
    return fresh_database(request, request.param, tmp_path)


@pytest.fixture
def blobs(tmp_path: Path) -> BlobStore:
    return BlobStore(tmp_path / "blobs")


def manifest(name: str, version: str = "1.0") -> dict:
    return {"name": name, "version": version, "command": ["python3", "bot.py"]}


def add_versions(
    db: Database, blobs: BlobStore, count: int, status: str = "valid"
) -> list[BotVersion]:
    """``count`` bots named bot0, bot1, ... with one version each."""
    with db.session() as s:
        return [
            add_bot_version(s, blobs, f"archive {i}".encode(), manifest(f"bot{i}"), status)
            for i in range(count)
        ]


def make_tournament(
    db: Database,
    versions: Sequence[BotVersion],
    tables: Sequence[tuple[int, tuple[int, int, int, int], int]] | None = None,
) -> Tournament:
    """A tournament of ``versions``; default: one table of the first four entrants."""
    with db.session() as s:
        return create_tournament(
            s,
            {**SETTINGS, "ruleset": RULES, "clock": CLOCK},
            entries=list(versions),
            tables=[(0, (0, 1, 2, 3), 11)] if tables is None else tables,
        )


def make_result(
    match_id: str = "m",
    games: int = 4,
    points: Sequence[int] = (120, 35, -40, 80),
    faults: Sequence[Fault] = (),
    record_size: int = 0,
) -> MatchResult:
    """A finished duplicate set: entrant ``e`` sits in seat ``(e + g) % 4`` in game ``g`` and
    scores ``points[e] + g`` tenths with ``e + 1`` calls made over 5 deals."""
    results = [
        GameResult(
            index=g,
            seats=tuple((s - g) % 4 for s in range(4)),
            points=tuple(p + g for p in points),
            calls_made=(1, 2, 3, 4),
            deals=5,
        )
        for g in range(games)
    ]
    record = {"format": "callbreak-match", "match_id": match_id, "pad": "x" * record_size}
    return MatchResult(match_id, ["a", "b", "c", "d"], results, list(faults), record=record)
