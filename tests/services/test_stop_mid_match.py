"""An organiser's stop reaches a match already being played, with no signal to deliver: a
Celery worker's pool process learns of it from the database, gives the match back at its
next decision (not counted as an attempt, marked unsent so the next start sends it again),
and closes its bots. A run started afterwards is another run: its matches play on."""

from __future__ import annotations

import socket
import threading

from sqlalchemy import func, select

from arena.store.models import GameScore, LiveRecord, Replay, TournamentRun, utcnow
from arena.tournaments.background import stop_run
from arena.tournaments.dispatch import matches_to_send
from arena.tournaments.run import play_until_stopped
from tests.services.conftest import BAD_BOTS, sample_copy, valid_bot
from tests.services.test_executor import (
    HOUSE,
    matches,
    processes_left,
    tournament,
    wait_for,
)


def slow_bots(db, runtime, tmp_path) -> list[str]:
    """Two bots that think 50 ms a move: a match of 2 games of 5 deals lasts over 10 s."""
    for name in ("bob", "carol"):
        path = sample_copy(tmp_path / "src" / name, name, BAD_BOTS / "slow_random")
        source = (path / "bot.py").read_text()
        assert "THINK_S = 0.01" in source
        (path / "bot.py").write_text(source.replace("THINK_S = 0.01", "THINK_S = 0.05"))
        valid_bot(db, runtime, path)
    return ["bob", "carol"]


def _start_celery_run(db, tid: int) -> None:
    """What the dashboard's start does to the database with a broker: the matches marked
    sent, and the run recorded as started now."""
    matches_to_send(db, tid)
    with db.session() as s:
        run = s.get(TournamentRun, tid) or TournamentRun(tournament_id=tid)
        run.backend, run.host, run.pid = "celery", socket.gethostname(), None
        run.started_at, run.stopped_at = utcnow(), None
        s.add(run)


def _one_deal_played(db, match_id: int) -> bool:
    with db.session(read_only=True) as s:
        return s.get(LiveRecord, match_id) is not None


def test_a_dashboard_stop_gives_back_the_match_being_played(db, runtime, tmp_path):
    slow = slow_bots(db, runtime, tmp_path)
    tid = tournament(db, runtime, [*slow, *HOUSE[:2]], games=2, deals=5, tables=1)
    (match_id,) = [m.id for m in matches(db, tid)]
    _start_celery_run(db, tid)

    def organiser() -> None:
        wait_for(lambda: _one_deal_played(db, match_id), 60, "a deal played")
        stop_run(db, tid)

    stopper = threading.Thread(target=organiser)
    stopper.start()
    status = play_until_stopped(db, runtime, match_id, "worker-under-test:1")
    stopper.join()

    assert status == "stopped"
    (match,) = matches(db, tid)
    assert (match.status, match.attempts, match.queued_at, match.attempt_token) == (
        "pending",
        0,
        None,
        None,
    )
    with db.session(read_only=True) as s:
        for table in (GameScore, Replay):  # nothing of the abandoned match was recorded
            assert s.scalar(select(func.count()).select_from(table)) == 0
        assert s.get(LiveRecord, match_id) is None
    assert processes_left(tmp_path) == []  # the bots were closed, not left playing
    assert [job.match_id for job in matches_to_send(db, tid)] == [
        match_id
    ]  # the next start sends it


def test_a_stop_of_an_earlier_run_does_not_reach_the_next_one(db, runtime, tmp_path):
    slow = slow_bots(db, runtime, tmp_path)
    tid = tournament(db, runtime, [*slow, *HOUSE[:2]], games=1, deals=1, tables=1)
    (match_id,) = [m.id for m in matches(db, tid)]
    _start_celery_run(db, tid)
    stop_run(db, tid)  # stopped before any worker took the match...
    _start_celery_run(db, tid)  # ...and started again: this run's match plays to the end

    assert play_until_stopped(db, runtime, match_id, "worker-under-test:1") == "done"
    (match,) = matches(db, tid)
    assert (match.status, match.attempts) == ("done", 1)
