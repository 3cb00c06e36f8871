"""Tournaments remember whether their organiser allowed two bots of one owner at a table.

Revision ID: 0008_same_owner
Revises: 0007_retired_bots
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008_same_owner"
down_revision = "0007_retired_bots"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tournaments") as batch:
        batch.add_column(
            sa.Column("allow_same_owner", sa.Boolean(), nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    with op.batch_alter_table("tournaments") as batch:
        batch.drop_column("allow_same_owner")
