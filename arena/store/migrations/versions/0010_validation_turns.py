"""Bot versions remember until when a worker holds their owner's validation turn: workers
validate one version per owner at a time, so one user's uploads cannot occupy them all.

Revision ID: 0010_validation_turns
Revises: 0009_name_keys
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010_validation_turns"
down_revision = "0009_name_keys"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("bot_versions") as batch:
        batch.add_column(sa.Column("validating_until", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("bot_versions") as batch:
        batch.drop_column("validating_until")
