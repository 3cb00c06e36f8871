"""Fixtures of the sandbox tests: the launch mode and a scratch area any uid can enter."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena import sandbox as sb
from tests.support import need


def need_bwrap() -> None:
    problem = sb._bwrap_problem(sb.SandboxPolicy())
    need(problem is None, f"bwrap sandbox unusable here: {problem}")


@pytest.fixture(params=["bwrap", "rlimits"])
def mode(request: pytest.FixtureRequest) -> str:
    if request.param == "bwrap":
        need_bwrap()
    return request.param


@pytest.fixture
def area() -> Iterator[Path]:
    """A world-traversable scratch directory (pytest's tmp_path sits under a 0700 directory,
    which a bot running under its own uid could not enter in rlimits mode)."""
    path = Path(tempfile.mkdtemp(prefix="arena-sandbox-test-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)
