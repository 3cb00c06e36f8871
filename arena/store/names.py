"""Names as people read them: a new user or bot name may not read as an existing one."""

from __future__ import annotations

import re

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.store.errors import StoreError
from arena.store.models import Bot, User
from arena.text import name_key

# New user names: what bot names may hold, so that no script's look-alikes slip past the key
USER_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


def refuse_lookalike(s: Session, table: type[Bot] | type[User], what: str, name: str) -> None:
    """Refuse a new ``name`` that reads as an existing one (``arena.text.name_key``)."""
    other = s.scalar(select(table.name).where(table.name_key == name_key(name)))
    if other is not None:
        raise StoreError(
            f"the {what} name {name!r} reads as the existing {what} {other!r} (names are "
            "compared ignoring case, '.', '_', '-' and look-alike characters); pick another"
        )
