"""Builds: a version whose manifest names a ``build`` command keeps the archive of its built
folder (``artifact_sha256``, in ``bot_archives`` like every archive) and its build's log.

Revision ID: 0016_builds
Revises: 0015_hindsights
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016_builds"
down_revision = "0015_hindsights"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("bot_versions") as batch:
        batch.add_column(sa.Column("artifact_sha256", sa.String(length=64), nullable=True))
        batch.add_column(sa.Column("build_log", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("bot_versions") as batch:
        batch.drop_column("build_log")
        batch.drop_column("artifact_sha256")
