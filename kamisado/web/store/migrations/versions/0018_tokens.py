"""Personal API tokens (issue 42, item 2): ``tokens``, each kept as the
SHA-256 of the token (:mod:`kamisado.web.accounts.tokens`).

Revision ID: 0018
Revises: 0017
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tokens",
        sa.Column("id", sa.String(24), primary_key=True),
        sa.Column("player", sa.String(40), nullable=False),
        sa.Column("name", sa.String(60), nullable=False),
        sa.Column("scopes", sa.String(80), nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("last_used", sa.Float, nullable=True),
    )
    op.create_index("tokens_hash", "tokens", ["hash"], unique=True)
    op.create_index("tokens_player", "tokens", ["player"])


def downgrade() -> None:
    op.drop_index("tokens_player", "tokens")
    op.drop_index("tokens_hash", "tokens")
    op.drop_table("tokens")
