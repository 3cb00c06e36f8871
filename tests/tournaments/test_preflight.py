"""A worker asks whether bots can start here before it takes a job: a host where they cannot
would charge every start failure to the bots it seats (an unsandboxed worker on
such a host charged 12)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from arena.bots.runtimes import available_runtimes
from arena.config import Settings
from arena.runtime import Runtime
from arena.sandbox.limits import DEFAULT_LIMITS, MiB
from arena.tournaments.preflight import preflight
from tests.referee.conftest import POLICY
from tests.support import need_sandbox


def _runtime(tmp_path: Path, **limits: int) -> Runtime:
    settings = Settings(f"sqlite:///{tmp_path}/unused.db", tmp_path / "data")
    return Runtime(settings, dataclasses.replace(DEFAULT_LIMITS, **limits), policy=POLICY)


def test_a_machine_that_starts_bots_passes(tmp_path: Path) -> None:
    need_sandbox(POLICY)
    assert preflight(_runtime(tmp_path), ["arena"]) is None


def test_limits_no_bot_can_start_under_are_refused_before_any_job(tmp_path: Path) -> None:
    need_sandbox(POLICY)
    problem = preflight(_runtime(tmp_path, memory_bytes=4 * MiB), ["arena"])
    assert problem is not None
    assert problem.startswith("a probe bot could not start in this machine's sandbox: ")
    assert "\n" not in problem


def test_a_queue_whose_runtime_is_missing_is_named(tmp_path: Path, monkeypatch, request) -> None:
    """The Node queue on a machine without node: its jobs would all fail to start."""
    monkeypatch.setattr("arena.bots.runtimes._node_major", lambda: None)
    available_runtimes.cache_clear()  # found once per process: look again without node
    request.addfinalizer(available_runtimes.cache_clear)
    problem = preflight(_runtime(tmp_path), ["arena", "arena.node"])
    assert problem is not None and problem.startswith("queue arena.node: ")
