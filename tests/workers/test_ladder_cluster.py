"""The standing ladder on a real cluster: Redis, Postgres, ``arena worker`` and
``arena beat`` processes, a live dashboard (``arena dashboard``, waitress), sandboxed bots.
Nobody organises anything: no tournament is created and no ``arena tournament`` or
``arena ladder run`` command runs.

- A bot uploaded on the web by its owner is validated by a worker, then placed, played and
  ranked by the workers that the beat's recovery (and each ladder match's end) keeps fed; a
  new version replaces the old one, and a retired bot gets no new match.
- A worker SIGKILLed mid-match costs a replay and nothing else: once its lease has run
  out the match is sent again (by the other workers: a busy ladder starves the beat's
  ticks), and every match is recorded once; so does one killed in a tournament's match
  while the ladder keeps every worker busy.
- A settled ladder rests while the beat ticks; ``arena ladder pause`` keeps a newcomer
  waiting and ``arena ladder resume`` has it placed.

Each test opens the pagat ladder itself before any process starts (as ``arena ladder open
--rules pagat --deals D --games-per-match G`` would on a fresh database; ``arena db
upgrade`` or the dashboard would open the default one), with one- or two-deal games, and
sets its placement quota, depth and settle width on the row: the same ladder with shorter
matches, so the file runs in minutes.
"""

from __future__ import annotations

import re
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import func, select

from arena.readmodels.ladder import LadderView, ladder_view
from arena.runtime import Runtime
from arena.store import BotVersion, Database, Match, Tournament, list_tournaments
from arena.store.models import Bot, Comparison, Ladder
from arena.store.tournaments import lock_tournament
from tests.cluster import Redis, Workers, cluster_env
from tests.ladders.test_ladder_run import (  # noqa: F401 (fresh_fits: an autouse fixture)
    NEVER_UNSURE,
    fresh_fits,
    open_pagat,
    statuses,
)
from tests.services.conftest import BAD_BOTS, sample_copy, valid_bot
from tests.services.test_executor import (
    HOUSE,
    arena_command,
    assert_counted_once,
    tournament_status,
)
from tests.submissions.live import live_dashboard, submit_cli
from tests.submissions.test_celery import token_for, unpacked
from tests.workers.test_celery import (
    create,
    finished,
    follow_cli,
    kill_a_playing_worker,
    wait_ready,
)
from tests.workers.test_celery_recovery import ONE_HOUR, start_beat, stop, worker_logs

KILL_LEASE_S = 6  # the kill test's lease: the replay waits for it to run out
POLL_S = 0.3  # between looks at the ladder (each fits its ratings when results arrived)
TICK = re.compile(r"Task arena\.recover\[[^\]]+\] succeeded")


def until(check: Callable[[], bool], timeout: float, what: str, workers: Workers) -> None:
    """Poll ``check`` every ``POLL_S``; on timeout fail with the processes' logs."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout} s waiting for {what}\n{workers.logs()}")
        time.sleep(POLL_S)


def view(db: Database) -> LadderView:
    with db.session(read_only=True) as s:
        return ladder_view(s, "pagat")


def ranked(db: Database) -> set[int]:
    return {e.bot_version_id for e in view(db).ranked}


def ladder_matches(db: Database, tid: int, after: int = 0) -> list[Match]:
    """The ladder's matches scheduled after match id ``after``, oldest first."""
    query = select(Match).where(Match.tournament_id == tid, Match.id > after)
    with db.session(read_only=True) as s:
        return list(s.scalars(query.order_by(Match.id)))


def played(db: Database, tid: int, version_id: int, after: int = 0) -> int:
    """Done matches (scheduled after match id ``after``) that seated ``version_id``."""
    return sum(m.status == "done" and version_id in m.seats for m in ladder_matches(db, tid, after))


def idle(db: Database, tid: int) -> bool:
    """Nothing pending or running."""
    return set(statuses(db, tid)) <= {"done"}


def cut(db: Database, tid: int) -> int:
    """The last match id scheduled so far, read under the tournament's lock: feeds take turns
    on that lock and read the entrants once they hold it, so every later match was chosen
    from the entrants as they are now (a feed under way when this is called ends first)."""
    with db.session() as s:
        lock_tournament(s, tid)
        return s.scalar(select(func.max(Match.id)).where(Match.tournament_id == tid)) or 0


def version_id(db: Database, bot: str, version: str) -> int:
    query = select(BotVersion.id).join(Bot).where(Bot.name == bot, BotVersion.version == version)
    with db.session(read_only=True) as s:
        return s.scalars(query).one()


def arena(db: Database, redis: Redis, root: Path, *args: str) -> str:
    """An operator's ``arena ARGS`` on the cluster's database; its output (it must succeed)."""
    result = subprocess.run(
        [*arena_command(), *args],
        env=cluster_env(db, redis, root / "operator"),
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, (result.stdout, result.stderr)
    return result.stdout


def ticks(root: Path) -> int:
    """The beat's recovery jobs the workers have finished so far."""
    return len(TICK.findall(worker_logs(root)))


def compared(db: Database) -> Comparison | None:
    """The gate's comparison, once it has its verdict."""
    with db.session(read_only=True) as s:
        return s.scalar(select(Comparison).where(Comparison.status == "done"))


def no_tournament(db: Database) -> None:
    """Nobody organised anything: the ladder's row is the only tournament row (but for the
    comparisons the platform started for new versions and their validation matches)."""
    with db.session(read_only=True) as s:
        assert list_tournaments(s) == []
        query = select(func.count()).where(Tournament.kind.not_in(("comparison", "validation")))
        assert s.scalar(query) == 1


def test_a_bot_uploaded_on_the_web_is_ranked_replaced_and_retired_with_no_organiser(
    cluster_db: Database, redis: Redis, workers: Workers, tmp_path: Path
) -> None:
    tid = open_pagat(cluster_db, deals=1, games=2, placement_matches=2, depth=3)
    alice, bob = token_for(cluster_db, "alice"), token_for(cluster_db, "bob")
    home = tmp_path / "home"
    home.mkdir()
    workers.env["ARENA_COMPARISON_PAIRS"] = "2"  # the gate's comparisons: 4 matches at most
    workers.start(concurrency=2)
    beat = start_beat(cluster_db, redis, tmp_path, {})
    try:
        wait_ready(workers, 1)
        with live_dashboard(cluster_db, tmp_path, ARENA_BROKER_URL=redis.url) as url:

            def upload(bot: str, version: str, token: str) -> int:
                """The owner's ``arena bot submit`` to the dashboard's API, waiting for the
                worker's verdict."""
                folder = sample_copy(tmp_path / f"{bot}-{version}", bot, "random", version)
                result = submit_cli(folder, url, home, token=token)
                assert result.returncode == 0, (result.stdout, result.stderr, workers.logs())
                lines = result.stdout.splitlines()
                assert any(line.endswith("is valid") for line in lines), result.stdout
                return version_id(cluster_db, bot, version)

            alpha1, beta = upload("alpha", "1.0", alice), upload("beta", "1.0", bob)

            def placed(*versions: int, after: int = 0) -> Callable[[], bool]:
                return lambda: (
                    all(played(cluster_db, tid, v, after) >= 2 for v in versions)
                    and set(versions) <= ranked(cluster_db)
                )

            until(placed(alpha1, beta), 180, "both bots placed and ranked", workers)
            no_tournament(cluster_db)

            alpha2 = upload("alpha", "2.0", alice)  # the new version replaces the old
            since = cut(cluster_db, tid)
            until(placed(alpha2, after=since), 180, "alpha 2.0 placed and ranked", workers)
            # and plays the old one on the same deals, sent to the workers by its validation
            until(lambda: compared(cluster_db) is not None, 180, "alpha 2.0 compared", workers)
            gate = compared(cluster_db)
            assert gate is not None
            assert (gate.baseline_version_id, gate.candidate_version_id) == (alpha1, alpha2)
            assert (
                gate.gate and gate.promoted and gate.verdict in ("better", "worse", "not separated")
            )
        assert alpha1 not in ranked(cluster_db)
        assert not any(alpha1 in m.seats for m in ladder_matches(cluster_db, tid, since))

        said = arena(cluster_db, redis, tmp_path, "bot", "retire", "beta")
        assert "beta retired" in said
        since = cut(cluster_db, tid)

        def three_more() -> bool:
            return sum(m.status == "done" for m in ladder_matches(cluster_db, tid, since)) >= 3

        until(three_more, 180, "three matches after beta's retirement", workers)
    finally:
        stop(beat)
        workers.stop_all()  # no result arrives while the results are counted
    after = ladder_matches(cluster_db, tid, since)
    assert not any(beta in m.seats for m in after)
    assert all(alpha2 in m.seats for m in after)  # the one contestant left: every table
    shown = view(cluster_db)
    assert beta not in {e.bot_version_id for e in shown.ranked + shown.placing}
    assert alpha2 in {e.bot_version_id for e in shown.ranked}
    no_tournament(cluster_db)
    assert_counted_once(cluster_db, tid, games=2)
    judged = re.findall(r"Task arena\.validate_bot\[[^\]]+\] succeeded", worker_logs(tmp_path))
    assert len(judged) >= 3 and unpacked(tmp_path / "server-data") == []  # not the dashboard
    assert "Traceback" not in (tmp_path / "dashboard.log").read_text(errors="replace")


def slowpoke(db: Database, runtime: Runtime, tmp_path: Path) -> int:
    """A valid bot that thinks 50 ms a move: a two-deal game lasts about 2 s."""
    slow = sample_copy(tmp_path / "src" / "slowpoke", "slowpoke", BAD_BOTS / "slow_random")
    source = (slow / "bot.py").read_text()
    assert "THINK_S = 0.01" in source
    (slow / "bot.py").write_text(source.replace("THINK_S = 0.01", "THINK_S = 0.05"))
    return valid_bot(db, runtime, slow).id


def started_by_the_beat(db: Database, tid: int, workers: Workers, beat) -> None:
    """Wait for the workers to be playing the ladder the beat fed, then stop the beat."""
    wait_ready(workers, len(workers.procs))

    def playing() -> bool:
        return any(m.status == "running" for m in ladder_matches(db, tid))

    until(playing, 120, "the ladder playing", workers)
    stop(beat)


def test_a_worker_killed_mid_ladder_match_costs_a_replay_and_no_result(
    cluster_db: Database, runtime: Runtime, redis: Redis, workers: Workers, tmp_path: Path
) -> None:
    """The broker's visibility timeout is an hour, so only a recovery can send the lost
    match again. The depth is twice the workers, as docs/ladder.md advises, so jobs always
    wait in the queue: the lost match must not wait for a queue that a playing ladder never
    drains. The beat starts the ladder and is stopped before the kill: while a ladder keeps
    every worker busy, the beat's recovery ticks expire unread (``Discarding revoked task``
    after each match in the workers' logs), so the workers must recover their ladder's lost
    matches themselves, after each match, once the lease has run out."""
    env = {"ARENA_LEASE_SECONDS": str(KILL_LEASE_S), "ARENA_VISIBILITY_TIMEOUT": ONE_HOUR}
    workers.env = env
    tid = open_pagat(cluster_db, deals=2, games=1, placement_matches=2, depth=4)
    slow = slowpoke(cluster_db, runtime, tmp_path)
    workers.start(), workers.start()
    beat = start_beat(cluster_db, redis, tmp_path, env)
    try:
        started_by_the_beat(cluster_db, tid, workers, beat)
        killed = kill_a_playing_worker(cluster_db, tid, workers)
        started = time.monotonic()

        def replayed() -> bool:
            return any(
                m.id in killed and m.status == "done" and m.attempts == 2
                for m in ladder_matches(cluster_db, tid)
            )

        until(replayed, 90, "the killed worker's match played again", workers)
        took = time.monotonic() - started
        with cluster_db.session() as s:  # no more matches: let those scheduled finish
            s.scalars(select(Ladder)).one().paused = True
        until(lambda: idle(cluster_db, tid), 120, "the scheduled matches played", workers)
    finally:
        stop(beat)  # (again: a failure before it stopped)
    print(f"\nthe killed match finished {took:.1f} s after the kill -9 (lease {KILL_LEASE_S} s)")
    after = ladder_matches(cluster_db, tid)
    assert {m.status for m in after} == {"done"}, [(m.id, m.status) for m in after]
    assert max(m.attempts for m in after) == 2  # one replay, of the killed match alone
    assert sum(m.attempts == 2 for m in after) == 1, [(m.id, m.attempts) for m in after]
    assert_counted_once(cluster_db, tid, games=1)  # 4 result rows and 1 replay per match
    assert slow in ranked(cluster_db)
    no_tournament(cluster_db)


def test_a_settled_ladder_rests_and_pause_and_resume_stop_and_start_it(
    cluster_db: Database, runtime: Runtime, redis: Redis, workers: Workers, tmp_path: Path
) -> None:
    tid = open_pagat(
        cluster_db, deals=1, games=1, placement_matches=2, depth=2, settle_half_width=NEVER_UNSURE
    )
    first = valid_bot(cluster_db, runtime, sample_copy(tmp_path / "first", "first")).id
    workers.start()
    beat = start_beat(cluster_db, redis, tmp_path, {})

    def rest_for_three_ticks() -> None:
        """Let the beat's recovery run three times more (a second apart at this lease)."""
        seen = ticks(tmp_path)
        until(lambda: ticks(tmp_path) >= seen + 3, 60, "three beat ticks", workers)

    try:
        wait_ready(workers, 1)
        # one match leaves it within the (huge) settle width: placed, and the ladder settles
        until(lambda: statuses(cluster_db, tid) == {"done": 1}, 120, "the placement", workers)
        assert view(cluster_db).state == "settled"
        rest_for_three_ticks()
        assert statuses(cluster_db, tid) == {"done": 1}  # settled: nothing more scheduled

        assert "paused True" in arena(cluster_db, redis, tmp_path, "ladder", "pause")
        second = valid_bot(cluster_db, runtime, sample_copy(tmp_path / "second", "second")).id
        rest_for_three_ticks()
        assert statuses(cluster_db, tid) == {"done": 1}  # paused: the newcomer waits
        paused = view(cluster_db)
        assert paused.state == "paused"
        assert [e.bot_version_id for e in paused.placing] == [second]

        assert "paused False" in arena(cluster_db, redis, tmp_path, "ladder", "resume")
        until(lambda: played(cluster_db, tid, second) == 1, 120, "the newcomer placed", workers)
        until(lambda: idle(cluster_db, tid), 60, "nothing left in flight", workers)
        rest_for_three_ticks()
    finally:
        stop(beat)
    assert statuses(cluster_db, tid) == {"done": 2}  # one placement each, and no more
    settled = view(cluster_db)
    assert settled.state == "settled"
    assert {first, second} <= {e.bot_version_id for e in settled.ranked}
    assert_counted_once(cluster_db, tid, games=1)
    no_tournament(cluster_db)


def test_a_tournament_match_lost_while_the_ladder_plays_is_played_again(
    cluster_db: Database, runtime: Runtime, redis: Redis, workers: Workers, tmp_path: Path
) -> None:
    """The everyday case: an organiser's tournament on the cluster while the ladder keeps
    every worker busy. Its worker is killed mid-match and there is no beat (its ticks would
    expire unread): the workers send the lost match again after their ladder matches, and
    the tournament ends with each match of both recorded once."""
    env = {"ARENA_LEASE_SECONDS": str(KILL_LEASE_S), "ARENA_VISIBILITY_TIMEOUT": ONE_HOUR}
    workers.env = env
    ladder = open_pagat(cluster_db, deals=2, games=1, placement_matches=2, depth=4)
    slowpoke(cluster_db, runtime, tmp_path)  # in the ladder, and in the tournament
    final = create(cluster_db, runtime, ["slowpoke", *HOUSE], games=1, deals=2)
    workers.start(), workers.start()
    beat = start_beat(cluster_db, redis, tmp_path, env)
    try:
        started_by_the_beat(cluster_db, ladder, workers, beat)
        finished(follow_cli(cluster_db, redis, tmp_path, final, "--detach"), workers)
        killed = kill_a_playing_worker(cluster_db, final, workers)

        def over() -> bool:
            return tournament_status(cluster_db, final) == "done"

        until(over, 120, "the tournament finished beside the ladder", workers)
        with cluster_db.session() as s:
            s.scalars(select(Ladder)).one().paused = True
        until(lambda: idle(cluster_db, ladder), 120, "the ladder's matches played", workers)
    finally:
        stop(beat)
    (match,) = ladder_matches(cluster_db, final)
    assert (match.id, match.status, match.attempts) == (*killed, "done", 2)
    assert_counted_once(cluster_db, final, games=1)
    assert {(m.status, m.attempts) for m in ladder_matches(cluster_db, ladder)} == {("done", 1)}
    assert_counted_once(cluster_db, ladder, games=1)
