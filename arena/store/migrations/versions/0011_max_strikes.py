"""Tournaments keep their strike limit in a column of its own (it was kept in the clock's
JSON beside the referee's clock): existing rows' values move out of the clock, a clock
without one (a row written by hand) gives the referee's default of 3.

Revision ID: 0011_max_strikes
Revises: 0010_validation_turns
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011_max_strikes"
down_revision = "0010_validation_turns"
branch_labels = None
depends_on = None

DEFAULT = 3  # the referee's default strike limit when this migration was written

TOURNAMENTS = sa.table(
    "tournaments",
    sa.column("id", sa.Integer),
    sa.column("clock", sa.JSON),
    sa.column("max_strikes", sa.Integer),
)


def upgrade() -> None:
    with op.batch_alter_table("tournaments") as batch:
        batch.add_column(
            sa.Column("max_strikes", sa.Integer(), nullable=False, server_default=str(DEFAULT))
        )
    conn = op.get_bind()
    rows = conn.execute(sa.select(TOURNAMENTS.c.id, TOURNAMENTS.c.clock)).all()
    for row_id, clock in rows:
        if isinstance(clock, dict) and "max_strikes" in clock:
            strikes = clock.pop("max_strikes")
            update = sa.update(TOURNAMENTS).where(TOURNAMENTS.c.id == row_id)
            conn.execute(update.values(clock=clock, max_strikes=strikes))


def downgrade() -> None:
    conn = op.get_bind()
    rows = conn.execute(
        sa.select(TOURNAMENTS.c.id, TOURNAMENTS.c.clock, TOURNAMENTS.c.max_strikes)
    ).all()
    for row_id, clock, strikes in rows:
        update = sa.update(TOURNAMENTS).where(TOURNAMENTS.c.id == row_id)
        conn.execute(update.values(clock={**clock, "max_strikes": strikes}))
    with op.batch_alter_table("tournaments") as batch:
        batch.drop_column("max_strikes")
