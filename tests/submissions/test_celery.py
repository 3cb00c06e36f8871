"""Uploads on the cluster backend: a live dashboard with ``ARENA_BROKER_URL`` set sends the
validation to a real ``arena worker`` (private Redis, Postgres, bwrap), which judges the bot;
the dashboard itself never unpacks or runs it. A broker that is down falls back to the
dashboard's own thread."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from arena.store import BlobStore, Database, add_bot_version, create_user, issue_token
from arena.store.models import utcnow
from tests.services.conftest import BAD_BOTS, sample_copy
from tests.submissions.conftest import wait_verdict, zip_of
from tests.submissions.live import live_dashboard, submit_cli
from tests.support import bot_with_build, free_port
from tests.workers.test_celery import wait_ready


def token_for(db: Database, name: str) -> str:
    with db.session() as s:
        return issue_token(s, create_user(s, name, "a long password"))


def unpacked(data_dir: Path) -> list[Path]:
    folder = data_dir / "bots"
    return sorted(folder.iterdir()) if folder.exists() else []


def test_uploads_are_validated_by_a_celery_worker(cluster_db, redis, workers, tmp_path):
    worker = workers.start()
    wait_ready(workers, 1)
    token = token_for(cluster_db, "carol")
    home = tmp_path / "home"
    home.mkdir()
    good = sample_copy(tmp_path / "good", "celery-good")
    with live_dashboard(cluster_db, tmp_path, ARENA_BROKER_URL=redis.url) as url:
        valid = submit_cli(good, url, home, token=token)
        rejected = submit_cli(BAD_BOTS / "crash_at_start", url, home, token=token)
        broken = bot_with_build(tmp_path / "broken", "echo BUILD-SAYS-NO >&2; exit 4")
        unbuilt = submit_cli(broken, url, home, token=token)  # via the build queue, arena.build
    assert valid.returncode == 0, (valid.stdout, valid.stderr, workers.logs())
    *_, verdict, ladder = valid.stdout.splitlines()
    assert verdict.endswith("is valid") and ladder.startswith("it enters the pagat ladder")
    assert rejected.returncode == 1
    assert "rejected: validation match: start_failed" in rejected.stderr
    assert "crash-at-start: no model file here" in rejected.stderr
    assert unbuilt.returncode == 1
    assert "rejected: build: the build command exited with status 4" in unbuilt.stderr
    assert "the end of its build log:\n  BUILD-SAYS-NO" in unbuilt.stderr
    # The worker unpacked and ran (or built) the bots; the dashboard's machine never did.
    assert len(unpacked(worker.data_dir)) == 3
    assert unpacked(tmp_path / "server-data") == []
    assert workers.logs().count("arena.validate_bot") >= 2


def test_a_broker_that_is_down_falls_back_to_the_dashboards_thread(cluster_db, tmp_path):
    token = token_for(cluster_db, "dave")
    home = tmp_path / "home"
    home.mkdir()
    good = sample_copy(tmp_path / "good", "fallback-good")
    down = f"redis://127.0.0.1:{free_port()}/0"
    with live_dashboard(cluster_db, tmp_path, ARENA_BROKER_URL=down) as url:
        result = submit_cli(good, url, home, token=token)
    assert result.returncode == 0, (result.stdout, result.stderr)
    *_, verdict, ladder = result.stdout.splitlines()
    assert verdict.endswith("is valid") and ladder.startswith("it enters the pagat ladder")
    assert len(unpacked(tmp_path / "server-data")) == 1
    assert "validating version" in (tmp_path / "dashboard.log").read_text()


def test_a_starting_worker_sends_again_a_validation_the_broker_lost(
    cluster_db, redis, workers, tmp_path
):
    folder = sample_copy(tmp_path / "lost", "celery-lost")
    manifest = {"name": "celery-lost", "version": "1.0", "command": ["python3", "bot.py"]}
    with cluster_db.session() as s:  # stored, its job sent an hour ago and never run
        row = add_bot_version(s, BlobStore(tmp_path / "blobs"), zip_of(folder), manifest)
        row.validation_started_at = utcnow() - timedelta(hours=1)
        version_id = row.id
    workers.start()
    assert wait_verdict(cluster_db, version_id) == "valid", workers.logs()
    assert workers.logs().count("arena.validate_bot") >= 1
