"""Live records: what a running match has played so far, for its page while it runs.

One row per running match, rewritten by the match job after every finished deal. Like
``record_result``, a write is guarded by the attempt token: it lands only while the writer's
lease is the match's current attempt, so a lost worker that carries on playing never
overwrites the progress of the attempt that took over. A reader only sees a row written by
the current attempt of a running match. The row is deleted with the result (in
``record_result``'s transaction) and when the match is given back or fails
(``arena.store.matches.drop_live_record``).
"""

from __future__ import annotations

import json
import zlib
from typing import Any

from sqlalchemy import exists, insert, literal, select, update
from sqlalchemy.orm import Session

from arena.store.db import rowcount
from arena.store.matches import Lease, held
from arena.store.models import LiveRecord, Match, utcnow


def save_live_record(s: Session, lease: Lease, record: dict[str, Any]) -> bool:
    """Store ``record`` (a match record of finished deals) as the match's progress; False,
    writing nothing, unless ``lease`` is the match's current attempt."""
    deals = sum(len(game["deals"]) for game in record["games"])
    data = zlib.compress(json.dumps(record, separators=(",", ":")).encode(), 6)
    values = {"attempt_token": lease.token, "deals": deals, "updated_at": utcnow(), "data": data}
    current = exists().where(held(lease))
    updated = s.execute(
        update(LiveRecord).where(LiveRecord.match_id == lease.match_id, current).values(values)
    )
    if rowcount(updated) == 1:
        return True
    columns = ["match_id", *values]
    row = select(Match.id, *(literal(v) for v in values.values())).where(held(lease))
    s.execute(insert(LiveRecord).from_select(columns, row))
    # psycopg reports no rowcount for INSERT ... SELECT; there was no row, so one was
    # inserted exactly when the lease is current (readers check the token anyway)
    return s.scalar(select(Match.id).where(held(lease))) is not None


def _current(match_id: int):
    """The row of a running match, written by its current attempt."""
    return (
        select(LiveRecord)
        .join(Match, Match.id == LiveRecord.match_id)
        .where(
            LiveRecord.match_id == match_id,
            Match.status == "running",
            Match.attempt_token == LiveRecord.attempt_token,
        )
    )


def live_record_state(s: Session, match_id: int) -> LiveRecord | None:
    """The current progress row without its data (for a poll); None if there is none."""
    return s.scalar(_current(match_id))


def load_live_record_json(s: Session, match_id: int) -> str | None:
    """The record of the finished deals of a running match as JSON text; None if none."""
    data = s.scalar(_current(match_id).with_only_columns(LiveRecord.data))
    return None if data is None else zlib.decompress(data).decode()
