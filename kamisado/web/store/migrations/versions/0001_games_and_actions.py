"""The schema before migrations: games and their actions.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "games",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("updated", sa.Float, nullable=False),
        sa.Column("target", sa.Integer, nullable=False),
        sa.Column("series", sa.Boolean, nullable=False),
        sa.Column("start_kpn", sa.String(200), nullable=False),
        sa.Column("black", sa.String(20), nullable=False),
        sa.Column("gold", sa.String(20), nullable=False),
        sa.Column("black_name", sa.String(80), nullable=False),
        sa.Column("gold_name", sa.String(80), nullable=False),
        sa.Column("black_token", sa.String(64), nullable=True),
        sa.Column("gold_token", sa.String(64), nullable=True),
        sa.Column("online", sa.Boolean, nullable=False),
        sa.Column("seed", sa.Integer, nullable=False),
        sa.Column("delay", sa.Float, nullable=False),
        sa.Column("state", sa.String(10), nullable=False),
        sa.Column("black_points", sa.Integer, nullable=False),
        sa.Column("gold_points", sa.Integer, nullable=False),
        sa.Column("actions", sa.Integer, nullable=False),
    )
    op.create_index("games_updated", "games", ["updated"])
    op.create_table(
        "actions",
        sa.Column("game_id", sa.String(40), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("token", sa.String(10), nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("actions")
    op.drop_index("games_updated", "games")
    op.drop_table("games")
