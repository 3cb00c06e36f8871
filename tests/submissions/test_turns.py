"""Validation turns on the workers (arena/submissions/turns.py): one validation per owner at
a time, a lost worker's turn lapsing, on both databases (the turn is a database lock)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from arena.store import BotVersion, Database, add_bot_version, create_user
from arena.store.blobs import BlobStore
from arena.store.models import utcnow
from arena.submissions.turns import end_turn, take_turn
from tests.support import both_databases

pytestmark = both_databases

LEASE = 600.0


def versions(db: Database, tmp_path: Path) -> dict[str, int]:
    """mallory's two pending versions, victor's one, and one the operator added."""
    blobs = BlobStore(tmp_path / "blobs")
    with db.session() as s:
        mallory = create_user(s, "mallory", "password1")
        victor = create_user(s, "victor", "password1")
        made = {
            label: add_bot_version(
                s, blobs, label.encode(), {"name": name, "version": "1"}, owner=owner
            ).id
            for label, name, owner in [
                ("m1", "slow-a", mallory),
                ("m2", "slow-b", mallory),
                ("v1", "plain", victor),
                ("op", "theirs", None),
            ]
        }
    return made


def take(db: Database, version_id: int, at=None) -> bool:
    with db.session() as s:
        return take_turn(s, version_id, at or utcnow(), LEASE)


def test_one_validation_per_owner_others_unhindered(db: Database, tmp_path: Path) -> None:
    v = versions(db, tmp_path)
    assert take(db, v["m1"])
    assert not take(db, v["m2"])  # mallory's second waits for her first
    assert take(db, v["v1"])  # victor's does not
    assert take(db, v["op"]) and take(db, v["op"])  # the operator's need no turn
    with db.session() as s:
        end_turn(s, v["m1"])
    assert take(db, v["m2"])


def test_a_lost_workers_turn_lapses_and_a_judged_version_holds_none(
    db: Database, tmp_path: Path
) -> None:
    v = versions(db, tmp_path)
    assert take(db, v["m1"])
    assert not take(db, v["m2"])
    assert take(db, v["m2"], at=utcnow() + timedelta(seconds=LEASE + 1))  # m1's worker died
    with db.session() as s:
        s.get(BotVersion, v["m2"]).status = "valid"  # judged, its turn not yet given back
    assert take(db, v["m1"])
