"""Players and their seats: a ``players`` table (an anonymous player a
browser is given in a signed cookie, or an account with a name and an
argon2id hash); each game's seats name the player who holds them
(``black_player``, ``gold_player``: null while a seat is unclaimed, its
token then the one-time claim), whose action the game waits for
(``to_act``, so a player's games list their turn first), and a
``settings`` table (the cookie's signing secret when none is given).

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

GAME_COLUMNS = (
    ("black_player", sa.String(40)),
    ("gold_player", sa.String(40)),
    ("to_act", sa.String(1)),
)


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("last_seen", sa.Float, nullable=False),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("account", sa.String(30), nullable=True),
        sa.Column("password_hash", sa.String(200), nullable=True),
    )
    op.create_index("players_account", "players", ["account"], unique=True)
    op.create_table(
        "settings",
        sa.Column("name", sa.String(40), primary_key=True),
        sa.Column("value", sa.String(200), nullable=False),
    )
    with op.batch_alter_table("games") as batch:
        for name, kind in GAME_COLUMNS:
            batch.add_column(sa.Column(name, kind, nullable=True))
    op.create_index("games_black_player", "games", ["black_player"])
    op.create_index("games_gold_player", "games", ["gold_player"])


def downgrade() -> None:
    op.drop_index("games_gold_player", "games")
    op.drop_index("games_black_player", "games")
    with op.batch_alter_table("games") as batch:
        for name, _ in reversed(GAME_COLUMNS):
            batch.drop_column(name)
    op.drop_table("settings")
    op.drop_index("players_account", "players")
    op.drop_table("players")
