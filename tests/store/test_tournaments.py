"""Tournament creation and the match lifecycle (claim, reset, fail, progress)."""

from __future__ import annotations

import threading
import time

import pytest
from sqlalchemy import func, select

from arena.store import (
    BlobStore,
    Database,
    Match,
    StoreError,
    Tournament,
    claim_match,
    claimable_matches,
    create_tournament,
    get_match,
    get_tournament,
    list_tournaments,
    mark_failed,
    pending_matches,
    progress,
    release_match,
    renew_lease,
    retry_failed,
    set_tournament_status,
)
from tests.store.conftest import CLOCK, RULES, SETTINGS, add_versions, make_tournament

TABLES = [(0, (0, 1, 2, 3), 100), (1, (4, 0, 1, 2), 101), (2, (3, 4, 0, 1), 102)]


def test_create_stores_entrants_and_seats_as_bot_version_ids(
    db: Database, blobs: BlobStore
) -> None:
    versions = add_versions(db, blobs, 5)
    ids = [v.id for v in versions]
    tournament = make_tournament(db, versions, TABLES)
    with db.session() as s:
        t = get_tournament(s, tournament.id)
        assert (t.name, t.status, t.seed, t.deals_per_game) == ("cup", "draft", 7, 5)
        assert t.ruleset == RULES and t.clock == CLOCK and t.max_strikes == 3
        assert [(e.entrant_index, e.bot_version_id) for e in t.entries] == list(enumerate(ids))
        matches = pending_matches(s, t.id)
    assert [(m.table_index, m.seats, m.seed) for m in matches] == [
        (0, ids[:4], 100),
        (1, [ids[4], ids[0], ids[1], ids[2]], 101),
        (2, [ids[3], ids[4], ids[0], ids[1]], 102),
    ]
    assert all(m.status == "pending" and m.attempts == 0 for m in matches)


def test_a_big_seed_survives(db: Database, blobs: BlobStore) -> None:
    versions = add_versions(db, blobs, 4)
    make_tournament(db, versions, [(0, (0, 1, 2, 3), 2**63 - 1)])
    with db.session() as s:
        assert s.scalar(select(Match.seed)) == 2**63 - 1


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"entries": []}, "at least one entrant"),
        ({"entries": "dup"}, "only once"),
        ({"tables": [(0, (0, 1, 2), 1)]}, "needs 4 different entrants"),
        ({"tables": [(0, (0, 1, 2, 2), 1)]}, "needs 4 different entrants"),
        ({"tables": [(0, (0, 1, 2, 9), 1)]}, r"entrant indices must be in 0\.\.3"),
        ({"tables": [(0, (0, 1, 2, 3), 1), (0, (0, 1, 2, 3), 2)]}, "must be distinct"),
        ({"tables": [(0, (0, 1, 2, 3), -1)]}, "seed must be"),
    ],
)
def test_bad_tournaments_are_refused_and_leave_nothing(
    db: Database, blobs: BlobStore, change: dict, message: str
) -> None:
    """The entrants and tables; the settings are checked where they are made
    (tests/tournaments/test_spec.py)."""
    versions = add_versions(db, blobs, 4)
    args = {
        "settings": {**SETTINGS, "ruleset": RULES, "clock": CLOCK},
        "entries": versions,
        "tables": [(0, (0, 1, 2, 3), 1)],
    }
    args.update(change)
    if args["entries"] == "dup":
        args["entries"] = [*versions, versions[0]]
    with pytest.raises(StoreError, match=message), db.session() as s:
        create_tournament(s, **args)
    with db.session() as s:
        assert s.scalar(select(func.count()).select_from(Tournament)) == 0


def test_only_valid_versions_can_enter(db: Database, blobs: BlobStore) -> None:
    versions = add_versions(db, blobs, 4, status="pending")
    with pytest.raises(StoreError, match=r"bot0@1.0 cannot enter: its status is pending"):
        make_tournament(db, versions)


def test_status_and_listing(db: Database, blobs: BlobStore) -> None:
    versions = add_versions(db, blobs, 4)
    first, second = make_tournament(db, versions), make_tournament(db, versions)
    with db.session() as s:
        assert set_tournament_status(s, first.id, "running").status == "running"
        with pytest.raises(StoreError, match="must be one of draft, running, done"):
            set_tournament_status(s, first.id, "paused")
        with pytest.raises(StoreError, match="no tournament with id 999"):
            get_tournament(s, 999)
        assert [t.id for t in list_tournaments(s)] == [second.id, first.id]


def _three_tables(db: Database, blobs: BlobStore) -> list[int]:
    tournament = make_tournament(db, add_versions(db, blobs, 5), TABLES)
    with db.session() as s:
        return [m.id for m in pending_matches(s, tournament.id)]


def test_claim_moves_pending_to_running_once(db: Database, blobs: BlobStore) -> None:
    first, second, _ = _three_tables(db, blobs)
    with db.session() as s:
        lease = claim_match(s, first, "w1")
        assert lease is not None and (lease.worker, lease.attempt) == ("w1", 1)
        assert claim_match(s, first, "w2") is None
    with db.session() as s:
        match = get_match(s, first)
        assert (match.status, match.worker, match.attempts) == ("running", "w1", 1)
        assert match.attempt_token == lease.token and match.lease_expires_at is not None
        assert match.started_at is not None
        tid = match.tournament_id
        assert [m.id for m in pending_matches(s, tid)] == [second, _]
        assert claimable_matches(s, tid) == [second, _]
        assert progress(s, tid) == {"pending": 2, "running": 1, "done": 0, "failed": 0}


def test_concurrent_claims_have_one_winner(db: Database, blobs: BlobStore) -> None:
    match_id = _three_tables(db, blobs)[0]
    barrier, wins = threading.Barrier(6), []

    def worker(name: str) -> None:
        barrier.wait()
        with db.session() as s:
            wins.append(claim_match(s, match_id, name) is not None)

    threads = [threading.Thread(target=worker, args=(f"w{i}",)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(wins) == [False] * 5 + [True]
    with db.session() as s:
        assert get_match(s, match_id).attempts == 1


def test_an_expired_lease_is_claimed_again_and_renewal_keeps_it(
    db: Database, blobs: BlobStore
) -> None:
    first, second, _ = _three_tables(db, blobs)
    with db.session() as s:
        lost = claim_match(s, first, "w1", lease_s=0.05)
        kept = claim_match(s, second, "w1", lease_s=0.05)
        tid = get_match(s, first).tournament_id
    with db.session() as s:
        assert renew_lease(s, kept, lease_s=30)
    time.sleep(0.1)
    with db.session() as s:
        assert claimable_matches(s, tid) == [first, _]
        assert claim_match(s, second, "w2") is None  # renewed: still w1's
        taken = claim_match(s, first, "w2")
    assert taken is not None and taken.attempt == 2
    with db.session() as s:
        assert not renew_lease(s, lost)  # the old attempt is over
        assert release_match(s, lost, "late error") is None


def test_attempts_are_capped_and_the_reason_kept(db: Database, blobs: BlobStore) -> None:
    first, second, _ = _three_tables(db, blobs)
    for attempt in range(1, 3):  # two workers lost in the middle of the first match
        with db.session() as s:
            assert claim_match(s, first, f"w{attempt}", lease_s=0.01, max_attempts=2)
        time.sleep(0.05)
    with db.session() as s:
        assert claim_match(s, first, "w3", max_attempts=2) is None
        lease = claim_match(s, second, "w1", max_attempts=2)
    with db.session() as s:
        assert release_match(s, lease, "RuntimeError: boom", max_attempts=2) == "pending"
        lease = claim_match(s, second, "w1", max_attempts=2)
        assert release_match(s, lease, "RuntimeError: boom again", max_attempts=2) == "failed"
    with db.session() as s:
        lost, failed = get_match(s, first), get_match(s, second)
        assert (lost.status, lost.reason) == (
            "failed",
            "gave up after 2 attempts; the last one (w2) stopped reporting",
        )
        assert (failed.status, failed.reason) == ("failed", "RuntimeError: boom again")
        assert retry_failed(s, lost.tournament_id) == 2
    with db.session() as s:
        assert claim_match(s, first, "w4", max_attempts=2).attempt == 1


def test_an_interrupted_attempt_is_given_back_uncounted(db: Database, blobs: BlobStore) -> None:
    first, *_ = _three_tables(db, blobs)
    with db.session() as s:
        lease = claim_match(s, first, "w1")
    with db.session() as s:
        assert release_match(s, lease, "interrupted", interrupted=True) == "pending"
    with db.session() as s:
        match = get_match(s, first)
        assert (match.status, match.attempts, match.reason) == ("pending", 0, None)


def test_mark_failed_keeps_the_reason_and_retry_puts_it_back(
    db: Database, blobs: BlobStore
) -> None:
    first, *_ = _three_tables(db, blobs)
    with db.session() as s:
        claim_match(s, first, "w1")
        assert mark_failed(s, first, "sandbox unavailable")
    with db.session() as s:
        match = get_match(s, first)
        assert (match.status, match.reason) == ("failed", "sandbox unavailable")
        assert progress(s, match.tournament_id)["failed"] == 1
        assert retry_failed(s, match.tournament_id) == 1
    with db.session() as s:
        assert get_match(s, first).status == "pending"
        with pytest.raises(StoreError, match="no match with id 999"):
            mark_failed(s, 999, "x")


def test_progress_of_an_empty_tournament(db: Database, blobs: BlobStore) -> None:
    tournament = make_tournament(db, add_versions(db, blobs, 4), tables=[])
    with db.session() as s:
        assert progress(s, tournament.id) == {"pending": 0, "running": 0, "done": 0, "failed": 0}
