"""Recording results: one transaction, idempotent under retries and concurrent writers."""

from __future__ import annotations

import math
import multiprocessing
import threading
import time

import pytest
from sqlalchemy import func, select
from sqlalchemy.engine import URL
from sqlalchemy.exc import IntegrityError

from arena.referee.result import Fault
from arena.store import (
    BlobStore,
    Database,
    GameScore,
    Lease,
    MatchFault,
    Replay,
    StoreError,
    bot_logs,
    claim_match,
    game_rows,
    get_match,
    latest_rating_snapshot,
    load_replay,
    mark_failed,
    pending_matches,
    progress,
    record_result,
    save_rating_snapshot,
    unsandboxed_count,
)
from arena.store.results import MAX_LOG
from tests.store.conftest import add_versions, make_result, make_tournament


def _counts(db: Database) -> tuple[int, int, int]:
    with db.session() as s:
        return tuple(  # type: ignore[return-value]
            s.scalar(select(func.count()).select_from(model))
            for model in (GameScore, MatchFault, Replay)
        )


def _one_match(db: Database, blobs: BlobStore) -> tuple[int, list[int]]:
    """A pending match whose seats are 4 fresh bot versions; returns (match id, seats)."""
    tournament = make_tournament(db, add_versions(db, blobs, 4))
    with db.session() as s:
        match = pending_matches(s, tournament.id)[0]
        return match.id, match.seats


def _claim(db: Database, match_id: int, worker: str = "w1") -> Lease:
    with db.session() as s:
        lease = claim_match(s, match_id, worker)
    assert lease is not None
    return lease


def test_record_writes_games_faults_replay_and_finishes(db: Database, blobs: BlobStore) -> None:
    match_id, seats = _one_match(db, blobs)
    faults = [Fault(2, "timeout", "took 1.3 s", game=1, deal=3, decision=17)]
    result = make_result(faults=faults, record_size=1000)
    lease = _claim(db, match_id)
    with db.session() as s:
        assert record_result(s, lease, result, wall_seconds=12.5)
    with db.session() as s:
        match = get_match(s, match_id)
        assert (match.status, match.wall_seconds) == ("done", 12.5)
        assert match.finished_at is not None
        scores = s.scalars(select(GameScore).order_by(GameScore.game_index, GameScore.seat))
        game1 = [(r.bot_version_id, r.seat, r.points, r.calls_made) for r in scores][4:8]
        fault = s.scalar(select(MatchFault))
        assert load_replay(s, match_id) == result.record
    # game 1: entrant e sits in seat (e + 1) % 4, so seat 0 holds entrant 3
    assert game1 == [
        (seats[3], 0, 81, 4),
        (seats[0], 1, 121, 1),
        (seats[1], 2, 36, 2),
        (seats[2], 3, -39, 3),
    ]
    assert (fault.bot_version_id, fault.kind, fault.game, fault.deal, fault.decision) == (
        seats[2],
        "timeout",
        1,
        3,
        17,
    )
    assert _counts(db) == (16, 1, 1)


@pytest.mark.parametrize(
    ("sandbox", "unsafe"),
    [(["bwrap", "bwrap", "in-process", "in-process"], 0), (["rlimits", "bwrap", "bwrap", "x"], 1)],
)
def test_a_match_played_without_the_sandbox_is_marked(
    db: Database, blobs: BlobStore, sandbox: list[str], unsafe: int
) -> None:
    match_id, _ = _one_match(db, blobs)
    result = make_result()
    result.sandbox = sandbox
    with db.session() as s:
        tournament_id = get_match(s, match_id).tournament_id
        assert unsandboxed_count(s, tournament_id) == 0
        lease = claim_match(s, match_id, "w1")
        assert record_result(s, lease, result, wall_seconds=1.0)
    with db.session() as s:
        assert get_match(s, match_id).unsandboxed is bool(unsafe)
        assert unsandboxed_count(s, tournament_id) == unsafe


def test_a_second_record_writes_nothing(db: Database, blobs: BlobStore) -> None:
    match_id, _ = _one_match(db, blobs)
    lease = _claim(db, match_id)
    with db.session() as s:
        assert record_result(s, lease, make_result(), 1.0)
    with db.session() as s:
        assert not record_result(s, lease, make_result(points=(1, 2, 3, 4)), 2.0)
        assert not mark_failed(s, match_id, "late failure report")
        assert claim_match(s, match_id, "w2") is None
    assert _counts(db) == (16, 0, 1)
    with db.session() as s:
        match = get_match(s, match_id)
        assert (match.status, match.wall_seconds) == ("done", 1.0)


def test_a_concurrent_second_writer_waits_then_writes_nothing(
    db: Database, blobs: BlobStore
) -> None:
    """The first writer holds its transaction open; the second must block, then back off."""
    match_id, _ = _one_match(db, blobs)
    lease = _claim(db, match_id)
    first_wrote, outcome = threading.Event(), {}

    def second() -> None:
        first_wrote.wait()
        started = time.perf_counter()
        with db.session() as s:
            outcome["second"] = record_result(s, lease, make_result(), 1.0)
        outcome["waited"] = time.perf_counter() - started

    thread = threading.Thread(target=second)
    thread.start()
    with db.session() as s:
        outcome["first"] = record_result(s, lease, make_result(), 1.0)
        first_wrote.set()
        time.sleep(0.3)  # the second writer is now blocked on our lock
    thread.join()
    assert (outcome["first"], outcome["second"]) == (True, False)
    assert outcome["waited"] >= 0.2
    assert _counts(db) == (16, 0, 1)


def test_racing_writers_count_once(db: Database, blobs: BlobStore) -> None:
    match_id, _ = _one_match(db, blobs)
    lease = _claim(db, match_id)
    barrier, wrote = threading.Barrier(4), []

    def writer() -> None:
        barrier.wait()
        with db.session() as s:
            wrote.append(record_result(s, lease, make_result(), 1.0))

    threads = [threading.Thread(target=writer) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(wrote) == [False, False, False, True]
    assert _counts(db) == (16, 0, 1)


def _process_writer(url: str, leases: list[Lease], out: multiprocessing.Queue) -> None:
    db = Database(url)
    wrote = 0
    for lease in leases:
        with db.session() as s:
            wrote += record_result(s, lease, make_result(record_size=20_000), 1.0)
    db.dispose()
    out.put(wrote)


def test_writer_processes_record_each_match_once(db_url: URL, blobs: BlobStore) -> None:
    """The embedded executor: several processes writing the same database file."""
    db = Database(db_url)
    versions = add_versions(db, blobs, 4)
    tables = [(i, (0, 1, 2, 3), i) for i in range(12)]
    tournament = make_tournament(db, versions, tables)
    with db.session() as s:
        ids = [m.id for m in pending_matches(s, tournament.id)]
    ids = [_claim(db, i) for i in ids]
    context = multiprocessing.get_context("spawn")
    out = context.Queue()
    url = db_url.render_as_string(hide_password=False)
    orders = [ids, ids[::-1], ids[5:] + ids[:5]]
    procs = [context.Process(target=_process_writer, args=(url, o, out)) for o in orders]
    for p in procs:
        p.start()
    wrote = sum(out.get(timeout=120) for _ in procs)
    for p in procs:
        p.join(timeout=30)
    assert wrote == len(ids)
    assert _counts(db) == (16 * len(ids), 0, len(ids))
    with db.session() as s:
        assert progress(s, tournament.id)["done"] == len(ids)
    db.dispose()


def test_a_failure_midway_leaves_nothing_half_written(db: Database, blobs: BlobStore) -> None:
    match_id, _ = _one_match(db, blobs)
    broken = make_result(faults=[Fault(1, "timeout", "ok"), Fault(1, None, "no kind")])  # type: ignore[arg-type]
    lease = _claim(db, match_id)
    with pytest.raises(IntegrityError), db.session() as s:
        record_result(s, lease, broken, 1.0)  # game rows go in, then a fault row fails
    assert _counts(db) == (0, 0, 0)
    with db.session() as s:
        assert get_match(s, match_id).status == "running"
        assert record_result(s, lease, make_result(), 1.0)  # the retry succeeds
    assert _counts(db) == (16, 0, 1)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda r: r.players.pop(), "4 players expected"),
        (lambda r: r.games.append(r.games[0]), "game indices repeat"),
        (lambda r: r.faults.append(Fault(4, "timeout", "x")), "entrant outside 0-3"),
    ],
)
def test_malformed_results_are_refused(db: Database, blobs: BlobStore, mutate, message) -> None:
    match_id, _ = _one_match(db, blobs)
    lease = _claim(db, match_id)
    result = make_result()
    mutate(result)
    with pytest.raises(StoreError, match=message), db.session() as s:
        record_result(s, lease, result, 1.0)
    with pytest.raises(StoreError, match="finite duration"), db.session() as s:
        record_result(s, lease, make_result(), math.nan)
    assert _counts(db) == (0, 0, 0)


def test_unknown_matches_and_missing_replays(db: Database, blobs: BlobStore) -> None:
    match_id, _ = _one_match(db, blobs)
    with db.session() as s:
        with pytest.raises(StoreError, match="no match with id 999"):
            record_result(s, Lease(999, "x" * 32, "w", 1), make_result(), 1.0)
        with pytest.raises(StoreError, match="has no replay yet"):
            load_replay(s, match_id)
        with pytest.raises(StoreError, match="no match with id 999"):
            load_replay(s, 999)


def test_game_rows_feed_the_ratings(db: Database, blobs: BlobStore) -> None:
    versions = add_versions(db, blobs, 5)
    tables = [(0, (0, 1, 2, 3), 1), (1, (4, 3, 2, 1), 2), (2, (0, 1, 2, 4), 3)]
    tournament = make_tournament(db, versions, tables)
    with db.session() as s:
        first, second, _unplayed = [m.id for m in pending_matches(s, tournament.id)]
    faults = [
        Fault(0, "start_failed", "no handshake"),
        Fault(0, "forfeit", "no handshake"),  # the consequence, not one more fault
        Fault(0, "illegal", "bad card", game=0, deal=1, decision=3),
        Fault(1, "timeout", "slow", game=1, deal=0, decision=9),
    ]
    leases = {m: _claim(db, m) for m in (first, second)}
    with db.session() as s:  # recorded out of order: rows still come back by match id
        record_result(s, leases[second], make_result(games=2, faults=faults), 1.0)
        record_result(s, leases[first], make_result(games=2), 1.0)
    with db.session(read_only=True) as s:
        rows = game_rows(s, tournament.id)
    ids = [v.id for v in versions]
    assert rows.keys == [(first, 0), (first, 1), (second, 0), (second, 1)]
    assert rows.groups == [first, first, second, second]
    assert rows.games[0] == {ids[0]: 120, ids[1]: 35, ids[2]: -40, ids[3]: 80}
    assert rows.games[3] == {ids[4]: 121, ids[3]: 36, ids[2]: -39, ids[1]: 81}
    assert len(rows.lines) == 16
    by_key = {(ln.match_id, ln.game_index, ln.bot_version_id): ln for ln in rows.lines}
    assert by_key[(second, 0, ids[4])].faults == 2  # start-up fault counts in game 0
    assert by_key[(second, 1, ids[3])].faults == 1
    assert sum(ln.faults for ln in rows.lines) == 3
    line = by_key[(first, 1, ids[2])]
    assert (line.points, line.deals, line.calls_made) == (-39, 5, 3)


def test_rating_snapshots_keep_the_latest_and_store_open_bounds_as_null(
    db: Database, blobs: BlobStore
) -> None:
    tournament = make_tournament(db, add_versions(db, blobs, 4))
    with db.session() as s:
        assert latest_rating_snapshot(s, tournament.id) is None
        save_rating_snapshot(s, tournament.id, {"ratings": {"1": {"elo": 1500.0}}})
        save_rating_snapshot(
            s, tournament.id, {"ratings": {1: {"elo": 1612.5, "ci": [1500.0, math.inf]}}}
        )
    with db.session() as s:
        latest = latest_rating_snapshot(s, tournament.id)
        assert latest.payload == {"ratings": {"1": {"elo": 1612.5, "ci": [1500.0, None]}}}
        with pytest.raises(StoreError, match="no tournament with id 999"):
            save_rating_snapshot(s, 999, {})


def test_record_without_update_returning(
    db: Database, blobs: BlobStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Old SQLite (< 3.35) has no UPDATE ... RETURNING: the two-statement path is the same."""
    monkeypatch.setattr(db.engine.dialect, "update_returning", False)
    match_id, _ = _one_match(db, blobs)
    lease = _claim(db, match_id)
    with db.session() as s:
        assert record_result(s, lease, make_result(), 1.0)
    with db.session() as s:
        assert not record_result(s, lease, make_result(), 1.0)
    assert _counts(db) == (16, 0, 1)


def test_a_late_result_from_an_expired_attempt_is_discarded_and_counted(
    db: Database, blobs: BlobStore
) -> None:
    match_id, _ = _one_match(db, blobs)
    with db.session() as s:
        old = claim_match(s, match_id, "w1", lease_s=0.05)
    time.sleep(0.1)  # w1 went silent: its lease ran out
    new = _claim(db, match_id, "w2")
    assert (new.attempt, old.attempt) == (2, 1)
    with db.session() as s:
        assert not record_result(s, old, make_result(points=(9, 9, 9, 9)), 1.0)
    with db.session() as s:
        assert get_match(s, match_id).late_results == 1
        assert record_result(s, new, make_result(), 2.0, logs={0: "hello\n", 2: "x" * 100_000})
    with db.session() as s:
        match = get_match(s, match_id)
        assert (match.status, match.worker, match.wall_seconds) == ("done", "w2", 2.0)
        assert not record_result(s, old, make_result(), 1.0)
        logs = bot_logs(s, match_id)
    assert _counts(db) == (16, 0, 1)
    seats = match.seats
    assert logs == {seats[0]: "hello\n", seats[2]: "x" * MAX_LOG}
