"""The Celery backend with everything real: Redis, Postgres, ``arena worker`` processes with
no disk in common, sandboxed bots. Lost workers, a lost broker and failing matches must
cost re-runs only: every match recorded exactly once and every tournament finished."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest
from sqlalchemy import select, text

from arena.game import PAGAT
from arena.runtime import Runtime
from arena.store import (
    BlobStore,
    BotArchive,
    BotLog,
    BotVersion,
    Database,
    Match,
    add_bot_version,
    bot_logs,
    pack_directory,
)
from arena.tournaments.create import new_tournament
from arena.tournaments.executor import run_tournament
from arena.tournaments.spec import TournamentSpec
from arena.tournaments.standings import standings
from tests.cluster import Redis, Workers, cluster_env
from tests.services.conftest import BAD_BOTS, sample_copy, valid_bot
from tests.services.test_executor import (
    HOUSE,
    arena_command,
    assert_counted_once,
    matches,
    tournament_status,
    wait_for,
)

LOWCARD = Path(__file__).resolve().parent / "bots" / "lowcard"


def bots(db: Database, runtime: Runtime, tmp_path: Path, source: Path, *names: str) -> list[str]:
    for name in names:
        valid_bot(db, runtime, sample_copy(tmp_path / "src" / name, name, source))
    return list(names)


def create(db: Database, runtime: Runtime, refs: list[str], games: int = 2, deals: int = 1) -> int:
    rules = PAGAT.with_(deals_per_game=deals)
    spec = TournamentSpec(refs, rules, games_per_match=games, seed=7)
    return new_tournament(db, runtime, spec).id


def same_deals(db: Database, copy: int, of: int) -> None:
    """Give tournament ``copy`` the secret deal seeds of ``of`` (same seating: same seed)."""
    with db.session() as s:
        seeds = dict(
            s.execute(select(Match.table_index, Match.seed).where(Match.tournament_id == of)).all()
        )
        for match in s.scalars(select(Match).where(Match.tournament_id == copy)):
            match.seed = seeds[match.table_index]


def wait_ready(workers: Workers, count: int) -> None:
    def ready() -> bool:
        logs = [p.read_text(errors="replace") for p in workers.root.glob("worker-*.log")]
        return sum("ready." in log for log in logs) >= count

    wait_for(ready, 60, f"{count} workers ready")


def follow_cli(db: Database, redis: Redis, tmp_path: Path, tid: int, *extra: str):
    command = [*arena_command(), "tournament", "run", str(tid), "--backend", "celery", *extra]
    env = cluster_env(db, redis, tmp_path / "follower")
    return subprocess.Popen(
        command, env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )


def finished(proc: subprocess.Popen, workers: Workers, timeout: float = 240) -> str:
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
        pytest.fail(f"not finished:\n{out.decode()}\n{workers.logs()}")
    text_out = out.decode(errors="replace")
    assert proc.returncode == 0, f"{text_out}\n{workers.logs()}"
    assert "Traceback" not in text_out
    return text_out


def table(db: Database, tid: int) -> list[tuple]:
    rows = standings(db, tid)
    return [
        (r.ref, round(r.rating.elo, 6), r.rating.games, r.stats.mean_points_per_deal) for r in rows
    ]


def test_two_workers_without_shared_disk_match_the_embedded_executor(
    cluster_db, runtime, redis, workers, tmp_path
):
    refs = [*bots(cluster_db, runtime, tmp_path, LOWCARD, "low-a", "low-b"), *HOUSE]
    embedded, celery = create(cluster_db, runtime, refs), create(cluster_db, runtime, refs)
    same_deals(cluster_db, celery, embedded)
    run_tournament(cluster_db, runtime, embedded, workers=1)

    first, second = workers.start(), workers.start()
    wait_ready(workers, 2)
    out = finished(follow_cli(cluster_db, redis, tmp_path, celery), workers)

    assert "tournament 2: 5 done" in out and "Standings of tournament 2" in out
    assert tournament_status(cluster_db, celery) == "done"
    assert table(cluster_db, celery) == table(cluster_db, embedded)
    assert_counted_once(cluster_db, celery, games=2)
    played = matches(cluster_db, celery)
    assert len({m.worker for m in played}) == 2, [m.worker for m in played]
    with cluster_db.session(read_only=True) as s:
        digests = set(s.scalars(select(BotArchive.sha256)))
        logs = {m.id: bot_logs(s, m.id) for m in played}
    for proc in (first, second):  # each filled its own cache from the database
        cached = {p.name for p in (proc.data_dir / "blobs").glob("*/*")}
        assert cached and cached <= digests
    process_seats = sum(1 for m in played for v in m.seats if v in _process_ids(cluster_db))
    assert sum(len(entry) for entry in logs.values()) == process_seats


def _process_ids(db: Database) -> set[int]:
    with db.session(read_only=True) as s:
        rows = s.execute(text("SELECT id, manifest FROM bot_versions")).all()
    return {i for i, manifest in rows if "house" not in (manifest or {})}


def running_under(db: Database, tid: int, workers: Workers) -> subprocess.Popen | None:
    """The worker (main process) whose pool process is playing a match of ``tid``."""
    held = {m.worker.rsplit(":", 1)[1] for m in matches(db, tid) if m.status == "running"}
    for proc in workers.procs:
        children = subprocess.run(
            ["pgrep", "-s", str(proc.pid)], capture_output=True, text=True, check=False
        ).stdout.split()
        if proc.poll() is None and held & set(children):
            return proc
    return None


def test_a_worker_killed_mid_match_costs_one_rerun(cluster_db, runtime, redis, workers, tmp_path):
    slow = bots(cluster_db, runtime, tmp_path, BAD_BOTS / "slow_random", "bob", "carol")
    tid = create(cluster_db, runtime, [*slow, *HOUSE], games=1, deals=2)
    workers.start(), workers.start()
    wait_ready(workers, 2)
    follower = follow_cli(cluster_db, redis, tmp_path, tid)
    killed = kill_a_playing_worker(cluster_db, tid, workers)

    finished(follower, workers)
    after = matches(cluster_db, tid)
    assert all(m.status == "done" for m in after)
    assert any(m.attempts == 2 for m in after if m.id in killed)
    assert_counted_once(cluster_db, tid, games=1)
    assert tournament_status(cluster_db, tid) == "done"


def kill_a_playing_worker(db: Database, tid: int, workers: Workers) -> set[int]:
    """SIGKILL a worker well into a match of tournament ``tid``; the ids of the matches that
    were running then (or had started by the kill)."""
    victim: list[subprocess.Popen] = []
    killed: set[int] = set()

    def playing_on() -> bool:
        """Someone plays, and 0.3 s later (well into the match) still plays: on a loaded
        machine a match may end in those 0.3 s, and a kill then would cost nothing."""
        found = running_under(db, tid, workers)
        if found is None:
            return False
        killed.update(m.id for m in matches(db, tid) if m.status == "running")
        time.sleep(0.3)
        killed.update(m.id for m in matches(db, tid) if m.status == "running")
        if running_under(db, tid, workers) is not found:
            return False
        victim.append(found)
        return True

    wait_for(playing_on, 120, "a worker playing a match")
    workers.kill(victim[0])
    return killed


def _waiting_to_write_replay(db: Database) -> bool:
    query = text(
        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
        "AND query LIKE 'INSERT INTO replays%'"
    )
    with db.session(read_only=True) as s:
        return s.scalar(query) > 0


def test_a_worker_killed_while_writing_the_result_costs_one_rerun(
    cluster_db, runtime, redis, workers, tmp_path
):
    tid = create(cluster_db, runtime, [*HOUSE, *bots(cluster_db, runtime, tmp_path, LOWCARD, "lo")])
    blocker = cluster_db.engine.connect()
    blocker.execute(text("LOCK TABLE replays IN EXCLUSIVE MODE"))  # writers stall mid-write
    first = workers.start()
    wait_ready(workers, 1)
    follower = follow_cli(cluster_db, redis, tmp_path, tid)
    try:
        wait_for(lambda: _waiting_to_write_replay(cluster_db), 120, "a result write in progress")
        workers.kill(first)  # its transaction (match done, game rows) dies with it
    finally:
        blocker.rollback()
        blocker.close()
    assert all(m.status != "done" for m in matches(cluster_db, tid))
    workers.start()
    finished(follower, workers)
    after = matches(cluster_db, tid)
    assert all(m.status == "done" for m in after) and max(m.attempts for m in after) == 2
    assert_counted_once(cluster_db, tid, games=2)


def test_a_redis_restart_mid_tournament_loses_and_doubles_nothing(
    cluster_db, runtime, redis, workers, tmp_path
):
    slow = bots(cluster_db, runtime, tmp_path, BAD_BOTS / "slow_random", "bob", "carol")
    tid = create(cluster_db, runtime, [*slow, *HOUSE], games=1, deals=2)
    workers.start(), workers.start()
    wait_ready(workers, 2)
    follower = follow_cli(cluster_db, redis, tmp_path, tid)
    wait_for(lambda: any(m.status == "done" for m in matches(cluster_db, tid)), 120, "a match")
    redis.stop()  # every queued job is lost with it (no persistence)
    time.sleep(2)
    redis.start()
    finished(follower, workers)
    assert all(m.status == "done" for m in matches(cluster_db, tid))
    assert_counted_once(cluster_db, tid, games=1)
    assert tournament_status(cluster_db, tid) == "done"


def test_crashing_bots_are_recorded_and_platform_errors_fail_after_the_cap(
    cluster_db, runtime, redis, workers, tmp_path
):
    crashers = bots(cluster_db, runtime, tmp_path, BAD_BOTS / "crash_at_start", "c1", "c2")
    broken = bots(cluster_db, runtime, tmp_path, LOWCARD, "broken")
    tid = create(cluster_db, runtime, [*crashers, *broken, *HOUSE], games=1)
    with cluster_db.session() as s:  # the platform cannot run this bot: a platform error
        digest = next(v for v in _versions(s) if v.bot.name == "broken").sha256
        s.get(BotArchive, digest).data = b"corrupt"
    workers.start()
    wait_ready(workers, 1)
    out = finished(follow_cli(cluster_db, redis, tmp_path, tid), workers)

    assert "failed" in out and "retry-failed" in out
    broken_id = next(v.id for v in _all_versions(cluster_db) if v.bot.name == "broken")
    for m in matches(cluster_db, tid):
        if broken_id in m.seats:
            assert (m.status, m.attempts) == ("failed", 3)
            assert m.reason.startswith(f"StoreError: bot archive {digest} in the database")
        else:
            assert m.status == "done"  # crashing bots are faults inside a recorded result
    with cluster_db.session(read_only=True) as s:
        faults = s.scalar(text("SELECT count(*) FROM faults"))
        logs = s.scalars(select(BotLog.text)).all()
    assert faults > 0
    assert any("crash-at-start: no model file here" in log for log in logs)
    assert tournament_status(cluster_db, tid) == "running"  # not done while matches failed


def _versions(s):
    return list(s.scalars(select(BotVersion)))


def _all_versions(db: Database):
    with db.session(read_only=True) as s:
        return _versions(s)


def test_a_worker_validates_an_uploaded_bot_sent_through_the_broker(
    cluster_db, runtime, redis, workers, tmp_path, monkeypatch
):
    """The job goes through the JSON serializer and the queue; the bot comes from the DB."""
    from workers.tasks import validate_bot_task

    good = sample_copy(tmp_path / "src" / "fresh", "fresh", LOWCARD)
    bad = sample_copy(tmp_path / "src" / "dud", "dud", BAD_BOTS / "crash_at_start")
    ids = []
    for path in (good, bad):
        with cluster_db.session() as s:
            manifest = {"name": path.name, "version": "1.0", "command": ["python3", "bot.py"]}
            ids.append(
                add_bot_version(s, BlobStore(tmp_path / "up"), pack_directory(path), manifest).id
            )
    monkeypatch.setattr(validate_bot_task.app.conf, "broker_url", redis.url)
    workers.start()
    wait_ready(workers, 1)
    for version_id in ids:
        validate_bot_task.apply_async((version_id,))

    def judged() -> bool:
        return all(v.status != "pending" for v in _all_versions(cluster_db) if v.id in ids)

    wait_for(judged, 120, "both versions judged")
    status = {v.bot.name: (v.status, v.reason) for v in _all_versions(cluster_db)}
    assert status["fresh"] == ("valid", "")
    assert status["dud"][0] == "rejected" and "crash-at-start" in status["dud"][1]


def test_a_worker_validates_one_version_per_owner_at_a_time(
    cluster_db, runtime, redis, workers, tmp_path
):
    """While one of mallory's versions holds her validation turn, her next upload goes back
    to the queue (retried every few seconds) and victor's is judged; once the turn is given
    back, hers is judged too. Through the real broker and worker."""
    from arena.store import create_user
    from arena.store.models import utcnow
    from arena.submissions.turns import end_turn, take_turn
    from workers.tasks import validate_bot_task

    blobs = BlobStore(tmp_path / "up")
    with cluster_db.session() as s:
        mallory = create_user(s, "mallory", "password1")
        victor = create_user(s, "victor", "password1")
        ids = {}
        for label, owner in (("held", mallory), ("hers", mallory), ("his", victor)):
            path = sample_copy(tmp_path / "src" / label, label, LOWCARD)
            manifest = {"name": label, "version": "1.0", "command": ["python3", "bot.py"]}
            ids[label] = add_bot_version(s, blobs, pack_directory(path), manifest, owner=owner).id
    with cluster_db.session() as s:  # a validation of hers is running somewhere
        assert take_turn(s, ids["held"], utcnow(), 600)
    workers.start()
    wait_ready(workers, 1)
    # A connection of its own: the app's pool may still hold an earlier test's broker.
    with validate_bot_task.app.connection_for_write(redis.url) as broker:
        for label in ("hers", "his"):
            validate_bot_task.apply_async((ids[label],), connection=broker)

    def status(label: str) -> str:
        return next(v.status for v in _all_versions(cluster_db) if v.id == ids[label])

    wait_for(lambda: status("his") != "pending", 120, "victor's version judged")
    assert status("hers") == "pending"  # it waits for her turn, whatever the free workers
    with cluster_db.session() as s:
        end_turn(s, ids["held"])
    wait_for(lambda: status("hers") != "pending", 120, "mallory's version judged")
    assert (status("hers"), status("his")) == ("valid", "valid")
