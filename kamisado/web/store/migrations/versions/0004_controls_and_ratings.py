"""Game controls and ratings: each game says whether it is rated
(``rated``), the offer pending in it (``offer``: ``takeback-b``,
``rematch-g``, ...) and the game its rematch made (``rematch``); a
``ratings`` table (one Glicko-2 rating per player and speed) and a
``rating_history`` table (one row per player and rated game: the rating
after it; its primary key is what makes a game's rating update happen
once).

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # plain ADD COLUMNs, also on SQLite: a batch that copied the table would
    # drop the old one, and with it (ON DELETE CASCADE) every stored action
    op.add_column("games", sa.Column("rated", sa.Boolean, nullable=False, server_default=sa.false()))
    op.add_column("games", sa.Column("offer", sa.String(12), nullable=True))
    op.add_column("games", sa.Column("rematch", sa.String(40), nullable=True))
    op.create_table(
        "ratings",
        sa.Column("player", sa.String(40), primary_key=True),
        sa.Column("speed", sa.String(16), primary_key=True),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("rd", sa.Float, nullable=False),
        sa.Column("vol", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("updated", sa.Float, nullable=False),
    )
    op.create_table(
        "rating_history",
        sa.Column("player", sa.String(40), primary_key=True),
        sa.Column("game_id", sa.String(40), primary_key=True),
        sa.Column("speed", sa.String(16), nullable=False),
        sa.Column("at", sa.Float, nullable=False),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("rd", sa.Float, nullable=False),
        sa.Column("change", sa.Float, nullable=False),
    )
    op.create_index("rating_history_player_at", "rating_history", ["player", "at"])


def downgrade() -> None:
    op.drop_index("rating_history_player_at", "rating_history")
    op.drop_table("rating_history")
    op.drop_table("ratings")
    # plain DROP COLUMNs (SQLite 3.35+): a batch copy would cascade-delete the actions
    op.drop_column("games", "rematch")
    op.drop_column("games", "offer")
    op.drop_column("games", "rated")
