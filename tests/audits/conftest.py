"""A finished match on this test's database (``tests/analysis_runs/site.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.store import BlobStore, Database
from tests.analysis_runs.site import Played, played_match


@pytest.fixture
def played(db: Database, tmp_path: Path) -> Played:
    return played_match(db, BlobStore(tmp_path / "blobs"))
