"""The sweep of lost validations: a version left pending by a killed web process (here: a
version stored and never validated, its start moved an hour back) is validated again by a
real validation match in the bwrap sandbox; a fresh one is left alone; two sweeps at once
(separate engines, as two processes) restart it once (on SQLite and Postgres)."""

from __future__ import annotations

import threading
from datetime import timedelta
from pathlib import Path

import pytest

from arena.config import Settings
from arena.runtime import Runtime
from arena.store import BotVersion, Database, add_bot_version
from arena.store.models import utcnow
from arena.submissions import run_validation
from arena.submissions.sweep import requeue_stale
from dashboard import create_app
from tests.services.conftest import sample_copy
from tests.submissions.conftest import wait_verdict, zip_of
from tests.support import both_databases

TIMEOUT = timedelta(minutes=10)
MANIFEST = {"name": "lost", "version": "1.0", "command": ["python3", "bot.py"]}


class CountingValidator:
    """Runs the real validation at once, counting the versions it was asked to judge."""

    def __init__(self, db: Database, runtime: Runtime) -> None:
        self.db, self.runtime, self.calls = db, runtime, []
        self._lock = threading.Lock()

    def __call__(self, version_id: int, manifest: dict) -> None:
        with self._lock:
            self.calls.append(version_id)
        run_validation(self.db, self.runtime, version_id)


def pending_version(db: Database, runtime: Runtime, tmp_path: Path, age: timedelta) -> int:
    """A pending upload whose validation was started ``age`` ago and never finished."""
    folder = sample_copy(tmp_path / "lost", "lost")
    with db.session() as s:
        row = add_bot_version(s, runtime.blobs, zip_of(folder), MANIFEST)
        row.validation_started_at = utcnow() - age
        return row.id


def status_of(db: Database, version_id: int) -> str:
    with db.session(read_only=True) as s:
        return s.get(BotVersion, version_id).status


def test_a_version_pending_too_long_is_validated_again(db, runtime, tmp_path):
    version_id = pending_version(db, runtime, tmp_path, timedelta(hours=1))
    validate = CountingValidator(db, runtime)
    assert requeue_stale(db, validate, TIMEOUT) == [version_id]
    assert validate.calls == [version_id]
    assert status_of(db, version_id) == "valid"
    assert requeue_stale(db, validate, TIMEOUT) == []  # judged: nothing left to restart


def test_a_fresh_pending_version_is_left_alone(db, runtime, tmp_path):
    version_id = pending_version(db, runtime, tmp_path, timedelta(minutes=2))
    validate = CountingValidator(db, runtime)
    assert requeue_stale(db, validate, TIMEOUT) == []
    assert validate.calls == []
    assert status_of(db, version_id) == "pending"


def test_a_restarted_version_waits_a_full_timeout_before_the_next_restart(
    db, store_runtime, tmp_path
):
    version_id = pending_version(db, store_runtime, tmp_path, timedelta(hours=1))
    started: list[int] = []
    record = lambda version_id, manifest: started.append(version_id)  # noqa: E731
    assert requeue_stale(db, record, TIMEOUT) == [version_id]  # claimed, never judged
    assert requeue_stale(db, record, TIMEOUT) == []  # its claim is fresh
    later = lambda: utcnow() + TIMEOUT + timedelta(seconds=1)  # noqa: E731
    assert requeue_stale(db, record, TIMEOUT, clock=later) == [version_id]
    assert started == [version_id, version_id]


@both_databases
def test_two_sweeps_at_once_validate_it_once(db, runtime, tmp_path):
    version_id = pending_version(db, runtime, tmp_path, timedelta(hours=1))
    engines = [Database(db.url), Database(db.url)]  # as two processes would
    validators = [CountingValidator(each, runtime) for each in engines]
    start = threading.Barrier(2)
    restarted: list[list[int]] = []

    def sweep(engine: Database, validate: CountingValidator) -> None:
        start.wait()
        restarted.append(requeue_stale(engine, validate, TIMEOUT))

    pairs = zip(engines, validators, strict=True)
    threads = [threading.Thread(target=sweep, args=pair) for pair in pairs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    for engine in engines:
        engine.dispose()
    assert sorted(restarted) == [[], [version_id]]
    assert sum(len(v.calls) for v in validators) == 1
    assert status_of(db, version_id) == "valid"


def test_the_dashboard_sweeps_when_it_starts(db, runtime, tmp_path):
    lost = pending_version(db, runtime, tmp_path, timedelta(hours=1))
    create_app(db, runtime, TESTING=True)
    assert wait_verdict(db, lost) == "valid"


def test_the_timeout_comes_from_the_environment():
    assert Settings.from_env({}).pending_timeout_s == 600
    assert Settings.from_env({"ARENA_PENDING_TIMEOUT": "90"}).pending_timeout_s == 90
    with pytest.raises(ValueError, match="ARENA_PENDING_TIMEOUT='0'"):
        Settings.from_env({"ARENA_PENDING_TIMEOUT": "0"})
