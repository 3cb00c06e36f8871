"""Retired bots: an owner or organiser withdraws a bot from new tournaments; its matches,
ratings and versions stay.

Revision ID: 0007_retired_bots
Revises: 0006_pending_sweep
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007_retired_bots"
down_revision = "0006_pending_sweep"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("bots", sa.Column("retired_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("bots") as batch:
        batch.drop_column("retired_at")
