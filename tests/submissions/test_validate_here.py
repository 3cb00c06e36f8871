"""``ARENA_VALIDATE_HERE=0``, as the compose file's dashboard has it (its container has no
sandbox): with the broker away, a live dashboard never validates an upload itself. The
version stays pending, saying why, and once the broker answers a worker validates it (its
start-up sweep finds the version lost at once)."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from arena.config import Settings
from arena.store import BotVersion, Database
from arena.store.models import Bot
from tests.services.conftest import sample_copy
from tests.submissions.conftest import wait_verdict
from tests.submissions.live import live_dashboard, submit_cli
from tests.submissions.test_celery import token_for, unpacked
from tests.support import free_port


def version_of(db: Database, name: str) -> BotVersion:
    with db.session(read_only=True) as s:
        return s.scalars(select(BotVersion).join(Bot).where(Bot.name == name)).one()


def test_the_setting_is_off_only_where_a_broker_validates_instead() -> None:
    assert Settings.from_env({}).validate_here
    broker = {"ARENA_BROKER_URL": "redis://127.0.0.1:6379/0"}
    assert not Settings.from_env({**broker, "ARENA_VALIDATE_HERE": "0"}).validate_here
    with pytest.raises(ValueError, match="needs ARENA_BROKER_URL"):
        Settings.from_env({"ARENA_VALIDATE_HERE": "0"})
    with pytest.raises(ValueError, match="expected 1 or 0"):
        Settings.from_env({**broker, "ARENA_VALIDATE_HERE": "maybe"})


def test_with_the_broker_away_an_upload_waits_for_the_workers(cluster_db, redis, workers, tmp_path):
    token = token_for(cluster_db, "erin")
    home = tmp_path / "home"
    home.mkdir()
    good = sample_copy(tmp_path / "good", "waits-good")
    down = f"redis://127.0.0.1:{free_port()}/0"
    with live_dashboard(
        cluster_db, tmp_path, ARENA_BROKER_URL=down, ARENA_VALIDATE_HERE="0"
    ) as url:
        result = submit_cli(good, url, home, "--no-wait", token=token)
    assert result.returncode == 0, (result.stdout, result.stderr)
    waiting = version_of(cluster_db, "waits-good")
    assert waiting.status == "pending"
    assert waiting.reason.startswith("waiting for a worker: the broker is unreachable")
    assert unpacked(tmp_path / "server-data") == []  # the dashboard never unpacked or ran it
    log = (tmp_path / "dashboard.log").read_text()
    assert f"version {waiting.id} waits for it" in log and "validating version" not in log
    # The broker answers again (a worker on it): the worker's sweep sends the version again.
    workers.start()
    assert wait_verdict(cluster_db, waiting.id) == "valid", workers.logs()
    assert workers.logs().count("arena.validate_bot") >= 1
