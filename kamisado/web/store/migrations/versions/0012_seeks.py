"""Quick pairing (issue 27, item 1): the lobby's seeks, one row a player
seeking a game at one speed, paired across processes through this table
(:mod:`kamisado.web.community.seeks`).

Revision ID: 0012
Revises: 0011
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "seeks",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("origin", sa.String(20), nullable=False),
        sa.Column("player", sa.String(40), nullable=False),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("registered", sa.Boolean, nullable=False),
        sa.Column("rating", sa.Integer, nullable=True),
        sa.Column("speed", sa.String(8), nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("created", sa.BigInteger, nullable=False),
        sa.Column("seen", sa.BigInteger, nullable=False),
    )
    op.create_index("seeks_origin", "seeks", ["origin"])
    op.create_index("seeks_speed", "seeks", ["speed", "rated"])


def downgrade() -> None:
    op.drop_index("seeks_speed", table_name="seeks")
    op.drop_index("seeks_origin", table_name="seeks")
    op.drop_table("seeks")
