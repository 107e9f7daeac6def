"""Moderation (issue 40, item 3): blocks, players' reports of players,
the moderators' audit log, and on ``players`` an account's roles, its mute
and its closing.  Every account stored before this revision is open, not
muted and has no role.

Revision ID: 0016
Revises: 0015
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("players", sa.Column("roles", sa.String(60), nullable=True))
    op.add_column("players", sa.Column("muted_until", sa.Float, nullable=True))
    op.add_column("players", sa.Column("closed", sa.Float, nullable=True))
    op.create_table(
        "blocks",
        sa.Column("blocker", sa.String(40), primary_key=True),
        sa.Column("blocked", sa.String(40), primary_key=True),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_index("blocks_blocked", "blocks", ["blocked"])
    op.create_table(
        "player_reports",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("reporter", sa.String(40), nullable=False),
        sa.Column("reported", sa.String(40), nullable=False),
        sa.Column("reason", sa.String(10), nullable=False),
        sa.Column("text", sa.String(2000), nullable=False),
        sa.Column("game", sa.String(40), nullable=True),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("state", sa.String(10), nullable=False),
        sa.Column("resolved_by", sa.String(80), nullable=True),
        sa.Column("resolved_at", sa.Float, nullable=True),
        sa.Column("note", sa.String(300), nullable=True),
    )
    op.create_index("player_reports_state", "player_reports", ["state", "created"])
    op.create_index("player_reports_reported", "player_reports", ["reported", "reporter", "state"])
    op.create_table(
        "mod_audit",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("at", sa.Float, nullable=False),
        sa.Column("actor", sa.String(80), nullable=False),
        sa.Column("actor_player", sa.String(40), nullable=True),
        sa.Column("action", sa.String(20), nullable=False),
        sa.Column("target", sa.String(40), nullable=True),
        sa.Column("reason", sa.String(300), nullable=True),
        sa.Column("detail", sa.String(200), nullable=True),
    )
    op.create_index("mod_audit_at", "mod_audit", ["at"])


def downgrade() -> None:
    op.drop_index("mod_audit_at", "mod_audit")
    op.drop_table("mod_audit")
    op.drop_index("player_reports_reported", "player_reports")
    op.drop_index("player_reports_state", "player_reports")
    op.drop_table("player_reports")
    op.drop_index("blocks_blocked", "blocks")
    op.drop_table("blocks")
    with op.batch_alter_table("players") as batch:
        batch.drop_column("closed")
        batch.drop_column("muted_until")
        batch.drop_column("roles")
