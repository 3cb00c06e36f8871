"""Match leases, bot archives in the database, bot logs with the match result.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30

Archives that an earlier version kept only on disk (``$ARENA_DATA_DIR/blobs``) are copied
into ``bot_archives`` when the upgrade runs where that folder is; a version whose archive is
found nowhere stays listed, and a match needing it fails with a clear reason.
"""

from __future__ import annotations

import hashlib

import sqlalchemy as sa
from alembic import op

from arena.config import Settings

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("attempt_token", sa.String(length=32), nullable=True))
        batch.add_column(sa.Column("lease_expires_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(
            sa.Column("late_results", sa.Integer(), nullable=False, server_default="0")
        )
        batch.add_column(sa.Column("queued_at", sa.DateTime(timezone=True), nullable=True))
    op.create_table(
        "bot_archives",
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("size", sa.BigInteger(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.PrimaryKeyConstraint("sha256", name=op.f("pk_bot_archives")),
    )
    op.create_table(
        "bot_logs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("match_id", sa.Integer(), nullable=False),
        sa.Column("bot_version_id", sa.Integer(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["bot_version_id"],
            ["bot_versions.id"],
            name=op.f("fk_bot_logs_bot_version_id_bot_versions"),
        ),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["matches.id"],
            name=op.f("fk_bot_logs_match_id_matches"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_bot_logs")),
        sa.UniqueConstraint(
            "match_id", "bot_version_id", name=op.f("uq_bot_logs_match_id_bot_version_id")
        ),
    )
    op.create_index(op.f("ix_bot_logs_bot_version_id"), "bot_logs", ["bot_version_id"])
    _copy_disk_archives()


def _copy_disk_archives() -> None:
    """Archives of existing versions from this machine's blob folder into the table."""
    root = Settings.from_env().data_dir / "blobs"
    conn = op.get_bind()
    archives = sa.table("bot_archives", sa.column("sha256"), sa.column("size"), sa.column("data"))
    for (digest,) in conn.execute(sa.text("SELECT sha256 FROM bot_versions")):
        path = root / digest[:2] / digest
        if path.is_file() and hashlib.sha256(data := path.read_bytes()).hexdigest() == digest:
            conn.execute(archives.insert().values(sha256=digest, size=len(data), data=data))


def downgrade() -> None:
    op.drop_index(op.f("ix_bot_logs_bot_version_id"), table_name="bot_logs")
    op.drop_table("bot_logs")
    op.drop_table("bot_archives")
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("queued_at")
        batch.drop_column("late_results")
        batch.drop_column("lease_expires_at")
        batch.drop_column("attempt_token")
