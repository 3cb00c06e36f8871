"""The embedded executor: tournaments run to done in-process and in worker processes, count
every match once, survive platform errors, and resume after the real CLI was stopped by
Ctrl-C or killed, leaving no process behind."""

from __future__ import annotations

import math
import os
import signal
import subprocess
import time
from collections.abc import Callable
from concurrent.futures import Future
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlalchemy.engine import make_url

from arena.config import Settings
from arena.game import PAGAT, validate_record
from arena.runtime import Runtime
from arena.store import (
    BotArchive,
    Database,
    GameScore,
    Match,
    MatchFault,
    Replay,
    Tournament,
    TournamentEntry,
    latest_rating_snapshot,
    load_replay,
    retry_failed,
)
from arena.tournaments import executor, run
from arena.tournaments.create import new_tournament
from arena.tournaments.executor import run_tournament
from arena.tournaments.run import run_match
from arena.tournaments.spec import TournamentSpec
from arena.tournaments.standings import standings
from tests.services.conftest import (
    BAD_BOTS,
    house_entrant,
    processes_of,
    sample_copy,
    valid_bot,
)
from tests.support import arena_command, on_postgres

HOUSE = ["house:heuristic", "house:random", "house:heuristic#2"]
MID_MATCH = timedelta(seconds=0.3)  # bots are launched well within this


def tournament(
    db: Database,
    runtime: Runtime,
    refs: list[str],
    *,
    games: int = 1,
    deals: int = 1,
    tables: int | None = None,
) -> int:
    rules = PAGAT.with_(deals_per_game=deals)
    spec = TournamentSpec(refs, rules, games_per_match=games, seed=5, tables=tables)
    t = new_tournament(db, runtime, spec)
    return t.id


def process_bots(
    db: Database, runtime: Runtime, tmp_path: Path, *names: str, source: str | Path = "random"
) -> list[str]:
    """Copies of a bot (default: the random sample bot) under these names, trusted."""
    for name in names:
        valid_bot(db, runtime, sample_copy(tmp_path / "src" / name, name, source))
    return list(names)


def house_only(db: Database, runtime: Runtime) -> list[str]:
    """Five entrants that run in-process (fast): the three fillers and two more."""
    for name in ("house-extra-1", "house-extra-2"):
        house_entrant(db, runtime, name)
    return [*HOUSE, "house-extra-1", "house-extra-2"]


def matches(db: Database, tournament_id: int) -> list[Match]:
    query = select(Match).where(Match.tournament_id == tournament_id).order_by(Match.table_index)
    with db.session(read_only=True) as s:
        return list(s.scalars(query))


def entrant_ids(db: Database, tournament_id: int) -> list[int]:
    query = select(TournamentEntry.bot_version_id).where(
        TournamentEntry.tournament_id == tournament_id
    )
    with db.session(read_only=True) as s:
        return sorted(s.scalars(query))


def rows_per_match(db: Database, model, tournament_id: int) -> dict[int, int]:
    query = (
        select(model.match_id, func.count())
        .join(Match, Match.id == model.match_id)
        .where(Match.tournament_id == tournament_id)
        .group_by(model.match_id)
    )
    with db.session(read_only=True) as s:
        return dict(s.execute(query).all())


def tournament_status(db: Database, tournament_id: int) -> str:
    with db.session(read_only=True) as s:
        return s.get(Tournament, tournament_id).status


def assert_counted_once(db: Database, tournament_id: int, games: int) -> None:
    """Every done match has games × 4 result rows (one per game and bot, the match's own
    bots) and one replay that re-validates; other matches have none."""
    done = [m for m in matches(db, tournament_id) if m.status == "done"]
    per_match = rows_per_match(db, GameScore, tournament_id)
    assert per_match == {m.id: games * 4 for m in done}
    assert rows_per_match(db, Replay, tournament_id) == {m.id: 1 for m in done}
    with db.session(read_only=True) as s:
        for m in done:
            scores = s.execute(
                select(GameScore.game_index, GameScore.bot_version_id).where(
                    GameScore.match_id == m.id
                )
            ).all()
            assert sorted(scores) == sorted((g, b) for g in range(games) for b in m.seats)
            assert validate_record(load_replay(s, m.id)) is None


def assert_sensible_standings(db: Database, tournament_id: int, games: int, deals: int) -> None:
    """Every entrant is listed with a finite Elo inside its interval and the games it played."""
    table = standings(db, tournament_id)
    played = {}
    for m in matches(db, tournament_id):
        if m.status == "done":
            for bot in m.seats:
                played[bot] = played.get(bot, 0) + games
    assert sorted(row.bot_version_id for row in table) == entrant_ids(db, tournament_id)
    for row in table:
        r, st = row.rating, row.stats
        assert math.isfinite(r.elo) and r.ci_low <= r.elo <= r.ci_high, row
        assert r.games == st.games == played[row.bot_version_id], row
        assert st.deals == st.calls == st.games * deals
        assert 0 <= st.calls_made <= st.calls
        assert 0 <= st.call_success_rate <= 1
        assert math.isfinite(st.mean_points_per_deal) and st.faults == 0
    elos = [row.rating.elo for row in table]
    assert elos == sorted(elos, reverse=True)
    with db.session(read_only=True) as s:
        snapshot = latest_rating_snapshot(s, tournament_id)
    assert snapshot is not None
    assert {e["bot_version_id"] for e in snapshot.payload["standings"]} == set(played)


# --------------------------------------------------------------------------- running


# Two workers claiming matches at once is a database subject: on both backends.
@pytest.mark.parametrize(
    ("db_url", "workers"), [("sqlite", 1), ("sqlite", 2), ("postgres", 2)], indirect=["db_url"]
)
def test_a_tournament_runs_to_done(db, runtime, tmp_path, workers):
    refs = [*process_bots(db, runtime, tmp_path, "alice"), *house_only(db, runtime)[:4]]
    tid = tournament(db, runtime, refs, games=2)
    seen = []
    summary = run_tournament(db, runtime, tid, workers, lambda *a: seen.append(a))

    assert summary.counts == {"done": 5}
    assert summary.status == {"pending": 0, "running": 0, "done": 5, "failed": 0}
    if workers == 1:
        assert seen == [("done", n, 5) for n in range(1, 6)]
    else:  # a report counts what is done by then: the other worker may have finished too
        assert [status for status, _, _ in seen] == ["done"] * 5
        counts = [n for _, n, _ in seen]
        assert counts == sorted(counts) and counts[-1] == 5
    assert tournament_status(db, tid) == "done"
    here = f":{os.getpid()}"
    for m in matches(db, tid):
        assert (m.status, m.attempts, m.reason) == ("done", 1, None)
        assert m.finished_at is not None and m.wall_seconds > 0
        assert m.worker.endswith(here) == (workers == 1), m.worker
    assert_counted_once(db, tid, games=2)
    assert rows_per_match(db, MatchFault, tid) == {}
    assert_sensible_standings(db, tid, games=2, deals=1)


def test_rerunning_a_finished_tournament_plays_nothing(db, store_runtime):
    tid = tournament(db, store_runtime, house_only(db, store_runtime), games=2)
    run_tournament(db, store_runtime, tid, workers=1)
    before = [(m.id, m.attempts, m.finished_at, m.worker) for m in matches(db, tid)]

    again = run_tournament(db, store_runtime, tid, workers=2)
    assert again.counts == {}
    assert again.status["done"] == 5 and tournament_status(db, tid) == "done"
    assert [(m.id, m.attempts, m.finished_at, m.worker) for m in matches(db, tid)] == before
    assert run_match(db, store_runtime, before[0][0], "late-worker") == "skipped"
    assert_counted_once(db, tid, games=2)


def test_a_platform_error_fails_its_match_and_the_others_finish(db, store_runtime, monkeypatch):
    tid = tournament(db, store_runtime, house_only(db, store_runtime))
    victim = matches(db, tid)[2].id

    class Exploding(run.Referee):
        def run(self):
            if self.spec.match_id == f"t{tid}-m{victim}":
                raise RuntimeError("referee exploded")
            return super().run()

    with monkeypatch.context() as patch:
        patch.setattr(run, "Referee", Exploding)
        summary = run_tournament(db, store_runtime, tid, workers=1)

    # a platform error gives the match back for another attempt, up to the cap (3)
    assert summary.counts == {"done": 4, "retry": 2, "failed": 1}
    assert summary.status == {"pending": 0, "running": 0, "done": 4, "failed": 1}
    assert tournament_status(db, tid) == "running"  # not done while a match failed
    failed = next(m for m in matches(db, tid) if m.id == victim)
    assert (failed.status, failed.reason) == ("failed", "RuntimeError: referee exploded")
    assert failed.finished_at is not None
    assert_counted_once(db, tid, games=1)
    assert_sensible_standings(db, tid, games=1, deals=1)  # the four done matches

    # Failed matches stay failed on a plain re-run; retried, they are played again.
    assert run_tournament(db, store_runtime, tid, workers=1).counts == {}
    with db.session() as s:
        assert retry_failed(s, tid) == 1
    assert run_tournament(db, store_runtime, tid, workers=1).counts == {"done": 1}
    assert tournament_status(db, tid) == "done"
    assert [m.attempts for m in matches(db, tid) if m.id == victim] == [1]
    assert_counted_once(db, tid, games=1)


def test_a_corrupt_bot_archive_fails_the_matches_that_need_it(db, store_runtime, tmp_path):
    [name] = process_bots(db, store_runtime, tmp_path, "mallory")
    tid = tournament(db, store_runtime, [name, *house_only(db, store_runtime)[:4]])
    with db.session() as s:
        bot = s.scalar(select(TournamentEntry).where(TournamentEntry.entrant_index == 0))
        digest = bot.bot_version.sha256
        s.get(BotArchive, digest).data = b"not the archive any more"
    store_runtime.blobs.discard(digest)  # as on a worker that never ran it

    summary = run_tournament(db, store_runtime, tid, workers=1)
    assert summary.counts == {"failed": 4, "retry": 8, "done": 1}
    for m in matches(db, tid):
        if bot.bot_version_id in m.seats:
            assert m.status == "failed"
            assert m.reason == (
                f"StoreError: bot archive {digest} in the database is corrupt "
                "(its sha256 differs); upload the bot again"
            )
        else:
            assert m.status == "done"
    assert_counted_once(db, tid, games=1)


@on_postgres
def test_worker_processes_get_the_database_url_with_its_password(db_url, tmp_path, monkeypatch):
    """Trust authentication ignores passwords, so this checks what the workers are given."""
    db = Database(db_url.set(password="s3cret"))
    runtime = Runtime(Settings(db.url.render_as_string(hide_password=False), tmp_path))
    given: list[str] = []

    class InlinePool:
        """Stands in for the process pool: runs each match here with the URL it was given."""

        def __init__(self, workers, context, initializer, initargs):
            url, self.runtime, *_ = initargs
            given.append(url)
            self.db = Database(url)

        def submit(self, _fn, match_id):
            future = Future()
            future.set_result(run_match(self.db, self.runtime, match_id, "inline"))
            return future

        def shutdown(self, wait=True, cancel_futures=False):
            self.db.dispose()

    monkeypatch.setattr(executor, "ProcessPoolExecutor", InlinePool)
    tid = tournament(db, runtime, house_only(db, runtime))
    assert run_tournament(db, runtime, tid, workers=2).counts == {"done": 5}
    assert [make_url(url).password for url in given] == ["s3cret"]
    db.dispose()


# --------------------------------------------------------------------------- resuming


def cli_env(db: Database, runtime: Runtime) -> dict[str, str]:
    return {
        **os.environ,
        "ARENA_DATABASE_URL": db.url.render_as_string(hide_password=False),
        "ARENA_DATA_DIR": str(runtime.settings.data_dir),
        "ARENA_SANDBOX_MODE": "bwrap",
        "COLUMNS": "200",
    }


def done_count(db: Database, tournament_id: int) -> int:
    return sum(m.status == "done" for m in matches(db, tournament_id))


def processes_left(marker: Path, timeout: float = 10.0) -> list[str]:
    """The run's processes still alive after a short grace period for the kernel."""
    deadline = time.monotonic() + timeout
    while (left := processes_of(marker)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


def wait_for(check, timeout: float, what: str, detail: Callable[[], str] | None = None) -> None:
    """Poll ``check``; on timeout fail, with ``detail()`` (e.g. the workers' logs)."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            more = f"\n{detail()}" if detail is not None else ""
            pytest.fail(f"timed out after {timeout} s waiting for {what}{more}")
        time.sleep(0.05)


def playing_mid_match(db: Database, tournament_id: int, workers: int) -> bool:
    """A match is done, one is still to play, and every worker is well into a match: its
    bots are playing, not being started (bwrap has a short window at start-up in which a
    killed parent can leave the sandbox behind; see arena.sandbox.spawner.die_with)."""
    now = datetime.now(UTC)
    states = matches(db, tournament_id)
    running = [m.started_at for m in states if m.status == "running"]
    return (
        any(m.status == "done" for m in states)
        and any(m.status == "pending" for m in states)
        and len(running) == workers
        and all(now - _utc(started) > MID_MATCH for started in running)
    )


def _utc(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)  # SQLite: naive UTC


# Leases that two killed workers leave to expire, to be claimed again by another process,
# are a database subject: that case on both backends (a lease given back at Ctrl-C is one
# write, which tests/store covers on both).
@pytest.mark.parametrize(
    ("db_url", "how", "workers"),
    [
        ("sqlite", "sigint", 1),
        ("sqlite", "sigint", 2),
        ("sqlite", "sigint-twice", 2),
        ("sqlite", "sigkill", 2),
        ("postgres", "sigkill", 2),
    ],
    indirect=["db_url"],
)
def test_a_stopped_run_is_finished_by_running_again(db, runtime, tmp_path, how, workers):
    # Two bots that think 10 ms a move: every match lasts about a second.
    slow = process_bots(db, runtime, tmp_path, "bob", "carol", source=BAD_BOTS / "slow_random")
    total = 3 + workers  # room for one done, one per worker playing, one to go
    tid = tournament(db, runtime, [*slow, *HOUSE], games=1, deals=2, tables=total)
    command = [*arena_command(), "tournament", "run", str(tid), "--workers", str(workers)]
    env = cli_env(db, runtime) | {"ARENA_LEASE_SECONDS": "3"}

    first = subprocess.Popen(
        command,
        env=env,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group, as a shell job would have
    )
    try:
        wait_for(lambda: playing_mid_match(db, tid, workers), 120, "a match done, bots playing")
        os.killpg(first.pid, signal.SIGKILL if how == "sigkill" else signal.SIGINT)
        if how == "sigint-twice":  # once hung the run for good
            time.sleep(0.7)
            os.killpg(first.pid, signal.SIGINT)
        out, err = first.communicate(timeout=60)
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
            first.wait()
    text = (out + err).decode(errors="replace")
    if how != "sigkill":
        assert first.returncode == 1, text
        assert f"stopped: run `arena tournament run {tid}` again to finish it" in text
        assert "Traceback" not in text
    else:
        assert first.returncode == -signal.SIGKILL
    assert processes_left(tmp_path) == []  # bots, bwrap, workers: all gone

    stopped = {m.id: m for m in matches(db, tid)}
    done_before = {i for i, m in stopped.items() if m.status == "done"}
    assert 1 <= len(done_before) < total, "the run was not stopped in the middle"
    interrupted = {i for i, m in stopped.items() if m.status == "running"}
    assert all(m.status in ("done", "running", "pending") for m in stopped.values())
    if how == "sigkill":  # the leases of the killed workers are left to expire
        assert len(interrupted) == workers
    else:  # Ctrl-C: the matches being played are given back at once
        assert not interrupted
    assert_counted_once(db, tid, games=1)

    second = subprocess.run(
        command, env=env, cwd=tmp_path, capture_output=True, timeout=300, check=False
    )
    text = (second.stdout + second.stderr).decode(errors="replace")
    assert second.returncode == 0, text
    assert f"tournament {tid}: {total} done" in text
    assert processes_left(tmp_path) == []

    after = {m.id: m for m in matches(db, tid)}
    assert all(m.status == "done" for m in after.values())
    assert tournament_status(db, tid) == "done"
    for i, m in after.items():
        if i in done_before:  # not played again
            assert (m.attempts, m.finished_at, m.worker) == (
                1,
                stopped[i].finished_at,
                stopped[i].worker,
            )
        else:
            assert m.attempts == (2 if i in interrupted else 1)
    assert_counted_once(db, tid, games=1)
    assert_sensible_standings(db, tid, games=1, deals=2)
    for ref in ("bob@1.0", "carol@1.0", "house-heuristic", "house-random", "house-heuristic-2"):
        assert ref in text
