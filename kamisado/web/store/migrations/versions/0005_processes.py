"""Several processes on one database: who is thinking about a game's next
computer move (``games.thinker``, the store's origin, and ``think_until``,
ms: a lease, so one process thinks and a dead one's turn is taken over once
it runs out), and who is connected to which seat through which process
(``presence``: one row per game, seat and process, ``seen`` renewed while
the process lives).

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # plain ADD COLUMNs (a table copy on SQLite would cascade-delete the actions)
    op.add_column("games", sa.Column("thinker", sa.String(20), nullable=True))
    op.add_column("games", sa.Column("think_until", sa.BigInteger, nullable=True))
    op.create_table(
        "presence",
        sa.Column("game_id", sa.String(40), primary_key=True),
        sa.Column("side", sa.String(1), primary_key=True),
        sa.Column("origin", sa.String(20), primary_key=True),
        sa.Column("seen", sa.BigInteger, nullable=False),
    )
    op.create_index("presence_origin", "presence", ["origin"])


def downgrade() -> None:
    op.drop_index("presence_origin", "presence")
    op.drop_table("presence")
    op.drop_column("games", "think_until")
    op.drop_column("games", "thinker")
