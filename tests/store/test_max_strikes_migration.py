"""Migration 0011_max_strikes: a tournament stored with its strike limit in the clock's JSON
(the old shape) gets it in a column of its own, and loads as the same spec; downgrading
puts it back."""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from sqlalchemy.engine import URL

from arena.game import PAGAT
from arena.referee import Clock
from arena.store import Database, Tournament, engine_for, upgrade
from arena.store.migrate import current_revision, downgrade
from arena.tournaments.spec import TournamentSpec

BEFORE = "0010_validation_turns"
CLOCK = {"decision_ms": 300, "bank_ms": 2000, "startup_ms": 9000}
TOURNAMENTS = sa.table(
    "tournaments",
    sa.column("id", sa.Integer),
    sa.column("name", sa.String),
    sa.column("ruleset", sa.JSON),
    sa.column("clock", sa.JSON),
    sa.column("deals_per_game", sa.Integer),
    sa.column("games_per_match", sa.Integer),
    sa.column("seed", sa.BigInteger),
    sa.column("status", sa.String),
    sa.column("created_at", sa.DateTime(timezone=True)),
)


def _clocks(url: URL) -> dict[str, dict]:
    engine = engine_for(url)
    with engine.connect() as conn:
        rows = conn.execute(sa.select(TOURNAMENTS.c.name, TOURNAMENTS.c.clock)).all()
    engine.dispose()
    return dict(rows)


def test_an_old_row_with_max_strikes_in_its_clock_still_loads(db_url: URL) -> None:
    downgrade(db_url, BEFORE)
    engine = engine_for(db_url)
    old = {"ruleset": PAGAT.to_dict(), "deals_per_game": 5, "games_per_match": 4, "seed": 7}
    old |= {"status": "done", "created_at": datetime(2026, 11, 1, tzinfo=UTC)}
    with engine.begin() as conn:
        conn.execute(
            sa.insert(TOURNAMENTS),
            [
                {**old, "name": "strict", "clock": {**CLOCK, "max_strikes": 1}},
                {**old, "name": "by hand", "clock": CLOCK},  # none: the referee's default
            ],
        )
    engine.dispose()

    upgrade(db_url)  # through 0011, and to the head the models describe
    assert current_revision(db_url) != BEFORE
    assert _clocks(db_url) == {"strict": CLOCK, "by hand": CLOCK}
    db = Database(db_url)
    with db.session(read_only=True) as s:
        rows = {t.name: t for t in s.scalars(sa.select(Tournament))}
        specs = {name: TournamentSpec.from_row(t) for name, t in rows.items()}
    db.dispose()
    assert {name: t.max_strikes for name, t in rows.items()} == {"strict": 1, "by hand": 3}
    assert specs["strict"] == TournamentSpec(
        name="strict",
        rules=PAGAT,
        clock=Clock(**CLOCK),
        max_strikes=1,
        seed=7,
        rating_model="bradley-terry",  # what a row from before the rating_model column has
    )
    assert specs["by hand"].max_strikes == 3

    downgrade(db_url, BEFORE)  # back into the clock, as the old code reads it
    assert _clocks(db_url) == {
        "strict": {**CLOCK, "max_strikes": 1},
        "by hand": {**CLOCK, "max_strikes": 3},
    }
    upgrade(db_url)  # the next test finds the schema at the head
