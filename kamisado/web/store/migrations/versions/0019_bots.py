"""Bot accounts (issue 42, item 3): ``players.bot``, set once by ``POST
/api/bot/upgrade`` (:mod:`kamisado.web.bots.accounts`), and
``challenges.bot``, the challenger's mark shown in the lobby.

Revision ID: 0019
Revises: 0018
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("players", sa.Column("bot", sa.Boolean, nullable=False, server_default=sa.false()))
    op.add_column("challenges", sa.Column("bot", sa.Boolean, nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("challenges") as batch:
        batch.drop_column("bot")
    with op.batch_alter_table("players") as batch:
        batch.drop_column("bot")
