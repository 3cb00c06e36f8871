"""The database's identity: one row holding a random id drawn here, which every job sent to
the workers carries, so that a worker on another database refuses it.

Revision ID: 0012_database_identity
Revises: 0011_max_strikes
Create Date: 2026-12-04
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision = "0012_database_identity"
down_revision = "0011_max_strikes"
branch_labels = None
depends_on = None


def upgrade() -> None:
    table = op.create_table(
        "installation",
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("identity", sa.String(length=32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("id = 1", name=op.f("ck_installation_one_row")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_installation")),
    )
    op.bulk_insert(
        table, [{"id": 1, "identity": uuid.uuid4().hex, "created_at": datetime.now(UTC)}]
    )


def downgrade() -> None:
    op.drop_table("installation")
