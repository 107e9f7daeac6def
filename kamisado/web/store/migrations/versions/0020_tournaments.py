"""Tournaments on the site (issue 43): ``tournaments``, ``tournament_players``
and ``tournament_games`` (:mod:`kamisado.web.community.tournaments`).

Revision ID: 0020
Revises: 0019
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("clock_initial", sa.Float, nullable=True),
        sa.Column("clock_increment", sa.Float, nullable=True),
        sa.Column("clock_days", sa.Integer, nullable=True),
        sa.Column("target", sa.Integer, nullable=False),
        sa.Column("minutes", sa.Integer, nullable=True),
        sa.Column("rounds", sa.Integer, nullable=True),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("bots", sa.Boolean, nullable=False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("starts", sa.BigInteger, nullable=False),
        sa.Column("ends", sa.BigInteger, nullable=True),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("created", sa.BigInteger, nullable=False),
        sa.Column("created_by", sa.String(40), nullable=True),
        sa.Column("schedule", sa.String(80), nullable=True),
    )
    op.create_index("tournaments_status", "tournaments", ["status", "starts"])
    op.create_index("tournaments_schedule", "tournaments", ["schedule"], unique=True)
    op.create_table(
        "tournament_players",
        sa.Column("tournament", sa.String(40), primary_key=True),
        sa.Column("player", sa.String(40), primary_key=True),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("rating", sa.Integer, nullable=False),
        sa.Column("registered", sa.Boolean, nullable=False),
        sa.Column("score", sa.Integer, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("streak", sa.Integer, nullable=False),
        sa.Column("byes", sa.Integer, nullable=False),
        sa.Column("blacks", sa.Integer, nullable=False),
        sa.Column("active", sa.Boolean, nullable=False),
        sa.Column("last_opponent", sa.String(40), nullable=True),
        sa.Column("joined", sa.BigInteger, nullable=False),
    )
    op.create_index("tournament_players_player", "tournament_players", ["player"])
    op.create_table(
        "tournament_games",
        sa.Column("game", sa.String(40), primary_key=True),
        sa.Column("tournament", sa.String(40), nullable=False),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("black", sa.String(40), nullable=False),
        sa.Column("gold", sa.String(40), nullable=False),
        sa.Column("started", sa.BigInteger, nullable=False),
        sa.Column("ended", sa.BigInteger, nullable=True),
        sa.Column("winner", sa.String(1), nullable=True),
        sa.Column("black_score", sa.Integer, nullable=True),
        sa.Column("gold_score", sa.Integer, nullable=True),
        sa.Column("told", sa.Boolean, nullable=False),
    )
    op.create_index("tournament_games_tournament", "tournament_games", ["tournament", "ended"])


def downgrade() -> None:
    op.drop_index("tournament_games_tournament", "tournament_games")
    op.drop_table("tournament_games")
    op.drop_index("tournament_players_player", "tournament_players")
    op.drop_table("tournament_players")
    op.drop_index("tournaments_schedule", "tournaments")
    op.drop_index("tournaments_status", "tournaments")
    op.drop_table("tournaments")
