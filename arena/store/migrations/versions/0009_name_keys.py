"""Users and bots get the key their name reads as (arena.text.name_key), unique: no new name
may read as an existing one ("AliceBot" next to "alicebot", "h0use-random" next to
"house-random"). Existing names that already read alike keep working: the first (lowest
id) gets the key, the others NULL.

Revision ID: 0009_name_keys
Revises: 0008_same_owner
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from arena.text import name_key

revision = "0009_name_keys"
down_revision = "0008_same_owner"
branch_labels = None
depends_on = None

TABLES = ("users", "bots")


def upgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table) as batch:
            batch.add_column(sa.Column("name_key", sa.String(64), nullable=True))
        rows = sa.table(table, sa.column("id", sa.Integer), sa.column("name", sa.String))
        keyed = sa.table(table, sa.column("id", sa.Integer), sa.column("name_key", sa.String))
        conn = op.get_bind()
        seen: set[str] = set()
        for row_id, name in conn.execute(sa.select(rows.c.id, rows.c.name).order_by(rows.c.id)):
            key = name_key(name)[:64]
            if key in seen:
                continue  # an older name already reads so: this one keeps working, unkeyed
            seen.add(key)
            conn.execute(sa.update(keyed).where(keyed.c.id == row_id).values(name_key=key))
        with op.batch_alter_table(table) as batch:
            batch.create_unique_constraint(f"uq_{table}_name_key", ["name_key"])


def downgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table) as batch:
            batch.drop_constraint(f"uq_{table}_name_key", type_="unique")
            batch.drop_column("name_key")
