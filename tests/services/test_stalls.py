"""``stalled_matches``: what ``arena tournament list`` flags, on SQLite and Postgres."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import update

from arena.store import BlobStore, Database, Match, add_bot_version
from arena.store.models import utcnow
from arena.tournaments.stalls import Stalls, stalled_matches
from tests.store.conftest import add_versions, make_tournament

LEASE_S = 60.0


def test_expired_leases_and_long_unclaimed_matches_by_queue(db: Database, tmp_path) -> None:
    blobs = BlobStore(tmp_path / "blobs")
    python = add_versions(db, blobs, 3)
    with db.session() as s:
        node = add_bot_version(
            s,
            blobs,
            b"node",
            {"name": "n", "version": "1", "command": ["node"], "runtime": "node20"},
            "valid",
        )
    tables = [(i, (0, 1, 2, 3), 11 + i) for i in range(5)]
    t = make_tournament(db, [*python, node], tables=tables)
    quiet = make_tournament(db, [*python, node])  # nothing sent: nothing stalled
    now = utcnow()
    old, recent = now - timedelta(seconds=2 * LEASE_S), now - timedelta(seconds=LEASE_S / 2)
    with db.session() as s:
        ids = [m.id for m in s.query(Match).filter_by(tournament_id=t.id).order_by(Match.id)]

        def set_(match_id: int, **values) -> None:
            s.execute(update(Match).where(Match.id == match_id).values(**values))

        set_(ids[0], status="running", lease_expires_at=now - timedelta(seconds=1))  # lost
        set_(ids[1], status="running", lease_expires_at=now + timedelta(seconds=30))  # playing
        set_(ids[2], queued_at=old)  # sent long ago, never claimed
        set_(ids[3], queued_at=recent)  # sent a moment ago
        set_(ids[4], status="done", queued_at=old)
    with db.session(read_only=True) as s:
        found = stalled_matches(s, now, LEASE_S)
    assert found == {t.id: Stalls(expired=1, waiting={"arena.node": 1})}
    assert quiet.id not in found and not Stalls()
