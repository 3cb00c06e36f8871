"""Hindsights: the decision-level fair-play audit's judging of each finished match with a
bot that is not a house bot, queued as the match is recorded and worked out by a worker
under a lease, as an analysis is.

Revision ID: 0015_hindsights
Revises: 0014_analyses
Create Date: 2026-12-10
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015_hindsights"
down_revision = "0014_analyses"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "hindsights",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("match_id", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("worker", sa.String(length=128), nullable=True),
        sa.Column("attempt_token", sa.String(length=32), nullable=True),
        sa.Column("lease_expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("queued_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("cpu_seconds", sa.Float(), nullable=True),
        sa.Column("telling", sa.Integer(), nullable=True),
        sa.CheckConstraint(
            "status IN ('queued', 'running', 'done', 'failed')", name=op.f("ck_hindsights_status")
        ),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["matches.id"],
            name=op.f("fk_hindsights_match_id_matches"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_hindsights")),
        sa.UniqueConstraint("match_id", name=op.f("uq_hindsights_match_id")),
    )
    op.create_index(op.f("ix_hindsights_status"), "hindsights", ["status"])


def downgrade() -> None:
    op.drop_index(op.f("ix_hindsights_status"), table_name="hindsights")
    op.drop_table("hindsights")
