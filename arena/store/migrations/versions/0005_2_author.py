"""Bot identity from the files (tree_sha256), and the history of rejected uploads that a fixed
upload replaced under the same version number.

Revision ID: 0005_author
Revises: 0005_submissions
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_author"
down_revision = "0005_submissions"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Existing rows keep NULL: the store computes their tree from the archive when a new
    # upload of the same name@version needs it (arena.store.bots).
    with op.batch_alter_table("bot_versions") as batch:
        batch.add_column(sa.Column("tree_sha256", sa.String(length=64), nullable=True))
        batch.create_index(batch.f("ix_bot_versions_tree_sha256"), ["tree_sha256"], unique=False)
    op.create_table(
        "bot_rejections",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("bot_version_id", sa.Integer(), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("uploaded_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("replaced_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["bot_version_id"],
            ["bot_versions.id"],
            name=op.f("fk_bot_rejections_bot_version_id_bot_versions"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_bot_rejections")),
    )
    op.create_index(op.f("ix_bot_rejections_bot_version_id"), "bot_rejections", ["bot_version_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_bot_rejections_bot_version_id"), table_name="bot_rejections")
    op.drop_table("bot_rejections")
    with op.batch_alter_table("bot_versions") as batch:
        batch.drop_index(batch.f("ix_bot_versions_tree_sha256"))
        batch.drop_column("tree_sha256")
