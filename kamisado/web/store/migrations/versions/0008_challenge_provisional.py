"""Whether a challenge's rating is provisional (issue 26, item 7): the lobby
shows a provisional rating with "?" as every other page does.  A challenge
stored before this revision reads as not provisional.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("challenges", sa.Column("provisional", sa.Boolean, nullable=False,
                                          server_default=sa.false()))


def downgrade() -> None:
    op.drop_column("challenges", "provisional")
