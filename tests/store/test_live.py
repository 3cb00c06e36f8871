"""Live records: only the current attempt writes, readers only trust its row, and the row
goes with the result, a give-back or a failure (SQLite and Postgres)."""

from __future__ import annotations

import json
import time

from sqlalchemy import func, select

from arena.store import (
    BlobStore,
    Database,
    Lease,
    LiveRecord,
    claim_match,
    live_record_state,
    load_live_record_json,
    mark_failed,
    pending_matches,
    record_result,
    release_match,
    save_live_record,
)
from tests.store.conftest import add_versions, make_result, make_tournament


def record(*deals: int) -> dict:
    """A record shaped like ``Referee.record_so_far``: deals finished in each game."""
    games = [{"deals": [{"index": d} for d in range(n)]} for n in deals]
    return {"format": "callbreak-match", "games": games, "partial": True}


def one_match(db: Database, blobs: BlobStore) -> int:
    tournament = make_tournament(db, add_versions(db, blobs, 4))
    with db.session() as s:
        return pending_matches(s, tournament.id)[0].id


def claim(db: Database, match_id: int, worker: str = "w1", lease_s: float = 60) -> Lease:
    with db.session() as s:
        lease = claim_match(s, match_id, worker, lease_s)
    assert lease is not None
    return lease


def save(db: Database, lease: Lease, rec: dict) -> bool:
    with db.session() as s:
        return save_live_record(s, lease, rec)


def shown(db: Database, match_id: int) -> dict | None:
    with db.session(read_only=True) as s:
        text = load_live_record_json(s, match_id)
    return None if text is None else json.loads(text)


def rows(db: Database) -> int:
    with db.session(read_only=True) as s:
        return s.scalar(select(func.count()).select_from(LiveRecord)) or 0


def test_the_current_attempt_writes_and_rewrites_its_progress(db, blobs):
    match_id = one_match(db, blobs)
    lease = claim(db, match_id)
    assert shown(db, match_id) is None  # nothing finished yet
    assert save(db, lease, record(1))
    assert save(db, lease, record(2, 1))
    assert shown(db, match_id) == record(2, 1)
    with db.session(read_only=True) as s:
        assert live_record_state(s, match_id).deals == 3
    assert rows(db) == 1


def test_a_stale_attempt_cannot_write_and_its_row_is_not_shown(db, blobs):
    match_id = one_match(db, blobs)
    lost = claim(db, match_id, "lost", lease_s=0.05)
    assert save(db, lost, record(1))
    time.sleep(0.1)
    current = claim(db, match_id, "new")  # took over the expired lease
    assert shown(db, match_id) is None  # the lost attempt's deals are not the new one's
    assert not save(db, lost, record(2))  # the lost worker plays on: refused
    assert save(db, current, record(1))
    assert not save(db, lost, record(2, 2))
    assert shown(db, match_id) == record(1)


def test_nothing_is_written_for_a_match_that_is_not_running(db, blobs):
    match_id = one_match(db, blobs)
    lease = claim(db, match_id)
    with db.session() as s:
        release_match(s, lease, "boom")
    assert not save(db, lease, record(1))
    assert rows(db) == 0


def test_the_result_replaces_the_live_record_in_one_transaction(db, blobs):
    match_id = one_match(db, blobs)
    lease = claim(db, match_id)
    save(db, lease, record(3))
    with db.session() as s:
        assert record_result(s, lease, make_result(), 1.0)
        assert s.scalar(select(func.count()).select_from(LiveRecord)) == 0
    assert rows(db) == 0 and shown(db, match_id) is None


def test_a_late_result_leaves_the_current_attempts_progress(db, blobs):
    match_id = one_match(db, blobs)
    lost = claim(db, match_id, "lost", lease_s=0.05)
    time.sleep(0.1)
    current = claim(db, match_id, "new")
    save(db, current, record(1))
    with db.session() as s:
        assert not record_result(s, lost, make_result(), 1.0)
    assert shown(db, match_id) == record(1)


def test_a_given_back_or_failed_match_loses_its_live_record(db, blobs):
    tables = [(i, (0, 1, 2, 3), 11 + i) for i in range(4)]
    tournament = make_tournament(db, add_versions(db, blobs, 4), tables)
    with db.session() as s:
        ids = [m.id for m in pending_matches(s, tournament.id)]
    endings = [
        lambda s, lease: release_match(s, lease, "platform error"),
        lambda s, lease: release_match(s, lease, "stop", interrupted=True),
        lambda s, lease: mark_failed(s, lease.match_id, "given up"),
    ]
    for match_id, end in zip(ids, endings, strict=False):
        lease = claim(db, match_id)
        assert save(db, lease, record(1))
        with db.session() as s:
            end(s, lease)
        assert rows(db) == 0
    # the last attempt's worker vanished: the next claim gives the match up
    with db.session() as s:
        lease = claim_match(s, ids[3], "lost", lease_s=0.05, max_attempts=1)
    assert save(db, lease, record(1))
    time.sleep(0.1)
    with db.session() as s:
        assert claim_match(s, ids[3], "next", max_attempts=1) is None
    assert rows(db) == 0
