"""Server-side sessions and the sign-in lockout (issue 25, item 1).

``sessions``: one row a signed-in browser.  The signed cookie carries a
random session id; the row is keyed by that id's SHA-256 (``id``), with the
player it signs in, when it was made and last seen, and the browser's
user agent.  Signing out deletes the row, a session idle too long is
refused and deleted, and a password change deletes every other session of
the player.

``sign_in_failures``: failed sign-ins per account name (lower case, whether
or not the account exists), so that every process on one database counts
them alike: after a few, the name is locked for a time that doubles with
each further failure (:mod:`kamisado.web.accounts.sessions`).

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sessions",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("player", sa.String(40), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("last_seen", sa.Float, nullable=False),
        sa.Column("user_agent", sa.String(200), nullable=False),
    )
    op.create_index("sessions_player", "sessions", ["player"])
    op.create_index("sessions_last_seen", "sessions", ["last_seen"])
    op.create_table(
        "sign_in_failures",
        sa.Column("account", sa.String(30), primary_key=True),
        sa.Column("failures", sa.Integer, nullable=False),
        sa.Column("last_failure", sa.Float, nullable=False),
        sa.Column("locked_until", sa.Float, nullable=False),
    )
    op.create_index("sign_in_failures_last_failure", "sign_in_failures", ["last_failure"])


def downgrade() -> None:
    op.drop_index("sign_in_failures_last_failure", "sign_in_failures")
    op.drop_table("sign_in_failures")
    op.drop_index("sessions_last_seen", "sessions")
    op.drop_index("sessions_player", "sessions")
    op.drop_table("sessions")
