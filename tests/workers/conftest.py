"""The Celery backend's tests: a runtime on the cluster's database and broker (the fixtures
``cluster_db``, ``redis`` and ``workers`` are in ``tests/cluster.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.config import Settings
from arena.runtime import Runtime
from arena.store import Database
from tests.cluster import LEASE_S, Redis
from tests.support import POLICY


@pytest.fixture
def runtime(cluster_db: Database, tmp_path: Path, redis: Redis) -> Runtime:
    url = cluster_db.url.render_as_string(hide_password=False)
    return Runtime(
        Settings(url, tmp_path / "here", redis.url, lease_s=float(LEASE_S)), policy=POLICY
    )
