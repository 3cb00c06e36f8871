"""Match analyses: the master's verdict on one entrant's decisions in a finished match, asked
for by a user and worked out by a worker under a lease, as a match is played.

Revision ID: 0014_analyses
Revises: 0013_ladders
Create Date: 2026-12-09
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014_analyses"
down_revision = "0013_ladders"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "analyses",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("match_id", sa.Integer(), nullable=False),
        sa.Column("entrant", sa.Integer(), nullable=False),
        sa.Column("bot_version_id", sa.Integer(), nullable=False),
        sa.Column("samples", sa.Integer(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("progress_done", sa.Integer(), nullable=False),
        sa.Column("progress_total", sa.Integer(), nullable=True),
        sa.Column("requested_by", sa.Integer(), nullable=True),
        sa.Column("requested_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("worker", sa.String(length=128), nullable=True),
        sa.Column("attempt_token", sa.String(length=32), nullable=True),
        sa.Column("lease_expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("queued_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("decisions", sa.Integer(), nullable=True),
        sa.Column("mean_loss", sa.Float(), nullable=True),
        sa.Column("mean_loss_se", sa.Float(), nullable=True),
        sa.Column("call_loss", sa.Float(), nullable=True),
        sa.Column("card_loss", sa.Float(), nullable=True),
        sa.Column("inaccuracies", sa.Integer(), nullable=True),
        sa.Column("mistakes", sa.Integer(), nullable=True),
        sa.Column("blunders", sa.Integer(), nullable=True),
        sa.CheckConstraint(
            "status IN ('queued', 'running', 'done', 'failed')", name=op.f("ck_analyses_status")
        ),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["matches.id"],
            name=op.f("fk_analyses_match_id_matches"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["bot_version_id"],
            ["bot_versions.id"],
            name=op.f("fk_analyses_bot_version_id_bot_versions"),
        ),
        sa.ForeignKeyConstraint(
            ["requested_by"],
            ["users.id"],
            name=op.f("fk_analyses_requested_by_users"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_analyses")),
        sa.UniqueConstraint(
            "match_id",
            "entrant",
            "samples",
            "seed",
            name=op.f("uq_analyses_match_id_entrant_samples_seed"),
        ),
    )
    op.create_index(op.f("ix_analyses_bot_version_id"), "analyses", ["bot_version_id"])
    op.create_index(
        op.f("ix_analyses_requested_by_requested_at"), "analyses", ["requested_by", "requested_at"]
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_analyses_requested_by_requested_at"), table_name="analyses")
    op.drop_index(op.f("ix_analyses_bot_version_id"), table_name="analyses")
    op.drop_table("analyses")
