"""Ladders: a standing competition per ruleset, whose matches live in a tournament row of
kind "ladder"; matches remember when they were scheduled (a ladder's hourly cap counts them).

Revision ID: 0013_ladders
Revises: 0012_database_identity
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013_ladders"
down_revision = "0012_database_identity"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tournaments") as batch:
        batch.add_column(
            sa.Column("kind", sa.String(length=16), nullable=False, server_default="tournament")
        )
        batch.create_check_constraint(
            op.f("ck_tournaments_kind"), "kind IN ('tournament', 'ladder')"
        )
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("created_at", sa.DateTime(timezone=True), nullable=True))
    op.create_table(
        "ladders",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=32), nullable=False),
        sa.Column("paused", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("depth", sa.Integer(), nullable=False, server_default="8"),
        sa.Column("matches_per_hour", sa.Integer(), nullable=True),
        sa.Column("placement_matches", sa.Integer(), nullable=False, server_default="8"),
        sa.Column("settle_half_width", sa.Float(), nullable=False, server_default="50"),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_ladders_tournament_id_tournaments"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ladders")),
        sa.UniqueConstraint("name", name=op.f("uq_ladders_name")),
        sa.UniqueConstraint("tournament_id", name=op.f("uq_ladders_tournament_id")),
    )


def downgrade() -> None:
    op.drop_table("ladders")
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("created_at")
    with op.batch_alter_table("tournaments") as batch:
        batch.drop_constraint(op.f("ck_tournaments_kind"), type_="check")
        batch.drop_column("kind")
