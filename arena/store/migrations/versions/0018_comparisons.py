"""Comparisons: a new version plays the one it would replace on the same deals (a
tournament row of kind "comparison"; "challenge": an owner's unrated match, in a row of
``challenges``; "validation":
a version's validation match, stored for its diagnosis); a bot's owner chooses when a new
version takes the ladder seat (``promotion``) and which version holds it
(``current_version_id``; NULL, as every bot has it here: the newest valid one, as until
now); a version remembers the one it was validated to replace (``replaces_id``).

Revision ID: 0018_comparisons
Revises: 0017_invites
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0018_comparisons"
down_revision = "0017_invites"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tournaments") as batch:
        batch.drop_constraint(op.f("ck_tournaments_kind"), type_="check")
        batch.create_check_constraint(
            op.f("ck_tournaments_kind"),
            "kind IN ('tournament', 'ladder', 'comparison', 'challenge', 'validation')",
        )
    with op.batch_alter_table("bots") as batch:
        batch.add_column(
            sa.Column("promotion", sa.String(length=16), nullable=False, server_default="now")
        )
        batch.add_column(sa.Column("current_version_id", sa.Integer(), nullable=True))
        batch.create_check_constraint(
            op.f("ck_bots_promotion"), "promotion IN ('now', 'if-not-worse', 'keep')"
        )
    with op.batch_alter_table("bot_versions") as batch:
        batch.add_column(sa.Column("replaces_id", sa.Integer(), nullable=True))
        batch.create_foreign_key(
            op.f("fk_bot_versions_replaces_id_bot_versions"),
            "bot_versions",
            ["replaces_id"],
            ["id"],
        )
    op.create_table(
        "comparisons",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("baseline_version_id", sa.Integer(), nullable=False),
        sa.Column("candidate_version_id", sa.Integer(), nullable=False),
        sa.Column("gate", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("pairs_cap", sa.Integer(), nullable=False),
        sa.Column("delta", sa.Float(), nullable=False),
        sa.Column("alpha", sa.Float(), nullable=False),
        sa.Column("beta", sa.Float(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("verdict", sa.String(length=16), nullable=True),
        sa.Column("summary", sa.JSON(), nullable=True),
        sa.Column("promoted", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("requested_by", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint("status IN ('running', 'done')", name=op.f("ck_comparisons_status")),
        sa.CheckConstraint(
            "verdict IN ('better', 'worse', 'not separated')", name=op.f("ck_comparisons_verdict")
        ),
        sa.ForeignKeyConstraint(
            ["bot_id"], ["bots.id"], name=op.f("fk_comparisons_bot_id_bots"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_comparisons_tournament_id_tournaments"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["baseline_version_id"],
            ["bot_versions.id"],
            name=op.f("fk_comparisons_baseline_version_id_bot_versions"),
        ),
        sa.ForeignKeyConstraint(
            ["candidate_version_id"],
            ["bot_versions.id"],
            name=op.f("fk_comparisons_candidate_version_id_bot_versions"),
        ),
        sa.ForeignKeyConstraint(
            ["requested_by"],
            ["users.id"],
            name=op.f("fk_comparisons_requested_by_users"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_comparisons")),
        sa.UniqueConstraint("tournament_id", name=op.f("uq_comparisons_tournament_id")),
    )
    op.create_index(op.f("ix_comparisons_bot_id"), "comparisons", ["bot_id"])
    op.create_index(
        op.f("ix_comparisons_candidate_version_id"), "comparisons", ["candidate_version_id"]
    )

    op.create_table(
        "challenges",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("bot_version_id", sa.Integer(), nullable=False),
        sa.Column("requested_by", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_challenges_tournament_id_tournaments"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["bot_version_id"],
            ["bot_versions.id"],
            name=op.f("fk_challenges_bot_version_id_bot_versions"),
        ),
        sa.ForeignKeyConstraint(
            ["requested_by"],
            ["users.id"],
            name=op.f("fk_challenges_requested_by_users"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_challenges")),
        sa.UniqueConstraint("tournament_id", name=op.f("uq_challenges_tournament_id")),
    )
    op.create_index(op.f("ix_challenges_bot_version_id"), "challenges", ["bot_version_id"])
    op.create_index(
        op.f("ix_challenges_requested_by_created_at"), "challenges", ["requested_by", "created_at"]
    )


def downgrade() -> None:
    op.drop_table("challenges")
    op.drop_index(op.f("ix_comparisons_candidate_version_id"), table_name="comparisons")
    op.drop_index(op.f("ix_comparisons_bot_id"), table_name="comparisons")
    op.drop_table("comparisons")
    with op.batch_alter_table("bot_versions") as batch:
        batch.drop_constraint(op.f("fk_bot_versions_replaces_id_bot_versions"), type_="foreignkey")
        batch.drop_column("replaces_id")
    with op.batch_alter_table("bots") as batch:
        batch.drop_constraint(op.f("ck_bots_promotion"), type_="check")
        batch.drop_column("current_version_id")
        batch.drop_column("promotion")
    op.execute("DELETE FROM tournaments WHERE kind IN ('comparison', 'challenge', 'validation')")
    with op.batch_alter_table("tournaments") as batch:
        batch.drop_constraint(op.f("ck_tournaments_kind"), type_="check")
        batch.create_check_constraint(
            op.f("ck_tournaments_kind"), "kind IN ('tournament', 'ladder')"
        )
