"""Direct challenges (issue 27, item 4): a challenge may name the one
player it is for (``to_player``); such a challenge is not listed in the
lobby, only shown to that player.  A challenge stored before this revision
is an open one (``NULL``).

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("challenges", sa.Column("to_player", sa.String(40), nullable=True))


def downgrade() -> None:
    op.drop_column("challenges", "to_player")
