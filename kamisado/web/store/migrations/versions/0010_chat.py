"""A game's chat (issue 27, item 5): one row a message, of the players' room
or the spectators' room, stored before anyone is sent it.  A message is
free text (at most 140 characters) or a canned message's code (``hello``,
``good_luck``, ``good_game``, ``thanks``), which each reader's page says in
its own language.  A game deleted takes its chat with it.

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "chat",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("game_id", sa.String(40), sa.ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
        sa.Column("room", sa.String(10), nullable=False),
        sa.Column("at", sa.Float, nullable=False),
        sa.Column("player", sa.String(40), nullable=True),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("side", sa.String(1), nullable=True),
        sa.Column("text", sa.String(600), nullable=True),
        sa.Column("canned", sa.String(20), nullable=True),
    )
    op.create_index("chat_game", "chat", ["game_id", "id"])


def downgrade() -> None:
    op.drop_index("chat_game", "chat")
    op.drop_table("chat")
