"""Tournaments name their rating model and keep a budget of adaptive extra matches.

Existing tournaments were rated by Bradley-Terry and keep it.

Revision ID: 0005_ratings
Revises: 0005_author
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_ratings"
down_revision = "0005_author"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tournaments") as batch:
        batch.add_column(
            sa.Column(
                "rating_model", sa.String(length=32), nullable=False, server_default="bradley-terry"
            )
        )
        batch.add_column(
            sa.Column("adaptive_matches", sa.Integer(), nullable=False, server_default="0")
        )
        batch.add_column(sa.Column("adaptive_top", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tournaments") as batch:
        batch.drop_column("adaptive_top")
        batch.drop_column("adaptive_matches")
        batch.drop_column("rating_model")
