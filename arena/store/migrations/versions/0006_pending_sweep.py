"""Pending sweep: when a version's latest validation was started, so a sweep can restart
the ones that never finished (and claim each in one conditional UPDATE).

Revision ID: 0006_pending_sweep
Revises: 0005_accounts
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006_pending_sweep"
down_revision = "0005_accounts"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "bot_versions",
        sa.Column("validation_started_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.execute("UPDATE bot_versions SET validation_started_at = created_at")


def downgrade() -> None:
    with op.batch_alter_table("bot_versions") as batch:
        batch.drop_column("validation_started_at")
