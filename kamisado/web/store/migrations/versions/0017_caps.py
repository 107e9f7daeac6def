"""Caps across processes (issue 40, item 5): the rate limits' buckets that
every process on one database shares (``rate_buckets``,
:mod:`kamisado.web.store.buckets`), and an index to count the direct
challenges waiting for one player (``challenges_to``).

Revision ID: 0017
Revises: 0016
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rate_buckets",
        sa.Column("name", sa.String(20), primary_key=True),
        sa.Column("key", sa.String(80), primary_key=True),
        sa.Column("tokens", sa.Float, nullable=False),
        sa.Column("stamp", sa.Float, nullable=False),
        sa.Column("taken", sa.Boolean, nullable=False),
    )
    op.create_index("rate_buckets_stamp", "rate_buckets", ["stamp"])
    op.create_index("challenges_to", "challenges", ["to_player"])


def downgrade() -> None:
    op.drop_index("challenges_to", "challenges")
    op.drop_index("rate_buckets_stamp", "rate_buckets")
    op.drop_table("rate_buckets")
