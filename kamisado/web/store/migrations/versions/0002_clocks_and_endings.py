"""Clocks and how a game ended: the time control, each side's time left as
of the last action and since when, the running side's deadline (indexed:
the server looks for overdue games), and the ending (resignation, time,
abort) when a match stops before its points decide it.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

COLUMNS = (
    ("clock_initial", sa.Float),
    ("clock_increment", sa.Float),
    ("clock_days", sa.Integer),
    ("black_ms", sa.BigInteger),
    ("gold_ms", sa.BigInteger),
    ("clock_running", sa.String(1)),
    ("clock_since", sa.BigInteger),
    ("clock_deadline", sa.BigInteger),
    ("ended", sa.String(20)),
)


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        for name, kind in COLUMNS:
            batch.add_column(sa.Column(name, kind, nullable=True))
    op.create_index("games_clock_deadline", "games", ["clock_deadline"])


def downgrade() -> None:
    op.drop_index("games_clock_deadline", "games")
    with op.batch_alter_table("games") as batch:
        for name, _ in reversed(COLUMNS):
            batch.drop_column(name)
