"""The lobby's open challenges in the database, for several processes on
one database (each process lists every process's challenges): one row per
challenge, with the process that holds its poster's connection (``origin``)
and when that process last said it lives (``seen``, ms).

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "challenges",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("origin", sa.String(20), nullable=False),
        sa.Column("player", sa.String(40), nullable=False),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("rating", sa.Integer, nullable=True),
        sa.Column("target", sa.Integer, nullable=False),
        sa.Column("series", sa.Boolean, nullable=False),
        sa.Column("clock_initial", sa.Float, nullable=True),
        sa.Column("clock_increment", sa.Float, nullable=True),
        sa.Column("clock_days", sa.Integer, nullable=True),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("color", sa.String(6), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("seen", sa.BigInteger, nullable=False),
    )
    op.create_index("challenges_origin", "challenges", ["origin"])


def downgrade() -> None:
    op.drop_index("challenges_origin", "challenges")
    op.drop_table("challenges")
