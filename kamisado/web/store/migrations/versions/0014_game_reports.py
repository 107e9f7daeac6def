"""Game reports (issue 27, item 3): one row a game whose report was asked
for (a click, or a rated game's end), with its state (``queued``,
``running``, ``done``, ``failed``), its progress (positions looked at of
``total``, the looks so far kept as JSON so a report taken over goes on
where it stopped), the lease of the process working on it, and the report
itself (JSON, :mod:`kamisado.engine.report`).  A game deleted takes its
report with it.

Revision ID: 0014
Revises: 0013
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "reports",
        sa.Column("game_id", sa.String(40), sa.ForeignKey("games.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("state", sa.String(10), nullable=False),
        sa.Column("auto", sa.Boolean, nullable=False),
        sa.Column("asked", sa.Float, nullable=False),
        sa.Column("done", sa.Integer, nullable=False),
        sa.Column("total", sa.Integer, nullable=False),
        sa.Column("owner", sa.String(20), nullable=True),
        sa.Column("lease", sa.BigInteger, nullable=True),
        sa.Column("looks", sa.Text, nullable=True),
        sa.Column("report", sa.Text, nullable=True),
        sa.Column("finished", sa.Float, nullable=True),
        sa.Column("error", sa.String(200), nullable=True),
    )
    op.create_index("reports_state", "reports", ["state", "auto", "asked"])


def downgrade() -> None:
    op.drop_index("reports_state", "reports")
    op.drop_table("reports")
