"""Submissions: one row per upload (the hourly limit counts them); validation logs are bot
logs without a match.

Revision ID: 0005_submissions
Revises: 0004
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_submissions"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "submissions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("bot_version_id", sa.Integer(), nullable=True),
        sa.Column("filename", sa.String(length=255), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name=op.f("fk_submissions_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["bot_version_id"],
            ["bot_versions.id"],
            name=op.f("fk_submissions_bot_version_id_bot_versions"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_submissions")),
    )
    op.create_index(
        op.f("ix_submissions_user_id_created_at"), "submissions", ["user_id", "created_at"]
    )
    op.create_index(op.f("ix_submissions_bot_version_id"), "submissions", ["bot_version_id"])
    with op.batch_alter_table("bot_logs") as batch:
        batch.alter_column("match_id", existing_type=sa.Integer(), nullable=True)


def downgrade() -> None:
    op.execute("DELETE FROM bot_logs WHERE match_id IS NULL")
    with op.batch_alter_table("bot_logs") as batch:
        batch.alter_column("match_id", existing_type=sa.Integer(), nullable=False)
    op.drop_index(op.f("ix_submissions_bot_version_id"), table_name="submissions")
    op.drop_index(op.f("ix_submissions_user_id_created_at"), table_name="submissions")
    op.drop_table("submissions")
