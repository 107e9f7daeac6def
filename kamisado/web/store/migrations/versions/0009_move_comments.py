"""The moves' comments of an uploaded record (issue 28, item 4): a record's
``{+0.35/12 1.234s b=1:58.766 g=2:00.000}`` after a move is kept with the
game, served back in its record and its steps.  A game stored before this
revision has none.

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("games", sa.Column("comments", sa.Text, nullable=True))


def downgrade() -> None:
    op.drop_column("games", "comments")
