"""This database's identity: a random id stored once in it (table ``installation``, written by
migration ``database_identity``), so that a job can say which database it was sent for and a
worker on another one can tell (``workers.identity``)."""

from __future__ import annotations

import uuid

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from arena.store.models import Installation


def new_identity() -> str:
    """A fresh random id: 32 hex digits."""
    return uuid.uuid4().hex


def database_identity(s: Session) -> str:
    """The identity of the database ``s`` is on; drawn and stored on first use if its row is
    gone (emptied tables), the first writer winning a race."""
    found = s.scalar(select(Installation.identity).where(Installation.id == 1))
    if found is not None:
        return found
    try:
        with s.begin_nested():
            s.add(Installation(id=1, identity=new_identity()))
    except IntegrityError:  # another process stored one first: that one it is
        pass
    return s.scalars(select(Installation.identity).where(Installation.id == 1)).one()
