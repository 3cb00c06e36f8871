"""Uploads per user per hour, counted in the database so the limit holds across web
processes and machines.

Each upload takes a slot (a ``submissions`` row) before its bytes are read; the user's row is
locked while counting (``SELECT ... FOR UPDATE`` on Postgres; SQLite writers are serialised
by ``BEGIN IMMEDIATE``), so two uploads at once cannot both take the last slot. Refused uploads
keep their slot: hammering the server with bad archives costs the same as good ones.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from arena.store import Submission, User
from arena.store.models import as_utc
from arena.submissions.errors import SubmissionError

WINDOW = timedelta(hours=1)


def take_slot(s: Session, user_id: int, filename: str, limit: int, now: datetime) -> Submission:
    """A new submission row for ``user_id``, or a 429 when the last hour's ``limit`` is used."""
    user = s.scalar(select(User).where(User.id == user_id).with_for_update())
    if user is None:
        raise SubmissionError(f"no user with id {user_id}", 403)
    used = s.execute(
        select(func.count())
        .select_from(Submission)
        .where(Submission.user_id == user_id, Submission.created_at > now - WINDOW)
    ).scalar_one()
    if used >= limit:
        oldest = s.execute(
            select(func.min(Submission.created_at)).where(
                Submission.user_id == user_id, Submission.created_at > now - WINDOW
            )
        ).scalar_one()
        wait = _minutes_until(oldest + WINDOW, now)
        raise SubmissionError(
            f"{limit} uploads per hour is the limit; try again in {wait} minute(s)", 429
        )
    row = Submission(user_id=user_id, filename=filename[:255], created_at=now)
    s.add(row)
    s.flush()
    return row


def _minutes_until(when: datetime, now: datetime) -> int:
    return max(1, -int(-(as_utc(when) - now).total_seconds() // 60))
