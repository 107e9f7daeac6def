"""No races (issue 38, item 3): a paired seek says where it went, and a
player has at most one rated attempt at a puzzle.

- ``seeks.game``: the game a seek was paired into, written in the pairing's
  own transaction (the row is kept, not deleted, until its player has been
  told: :mod:`kamisado.web.community.seeks`); ``seeks_player`` finds a player's.
- ``puzzle_attempts_rated``: a unique index on ``(player, puzzle)`` of the
  rated attempts (a partial index, ``WHERE rated``), so that two starts at
  once on two processes cannot both be rated (:mod:`kamisado.web.site.puzzles`).
  Attempts rated twice before it (the race it closes) keep their first
  rated attempt; the later ones become unrated (what they changed stays).

Revision ID: 0015
Revises: 0014
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("seeks") as batch:
        batch.add_column(sa.Column("game", sa.String(40), nullable=True))
    op.create_index("seeks_player", "seeks", ["player"])
    # a second rated attempt of a player at a puzzle (the race) is unrated
    op.execute(sa.text(
        "UPDATE puzzle_attempts SET rated = :no WHERE rated = :yes AND id > ("
        "SELECT MIN(first.id) FROM puzzle_attempts AS first WHERE first.rated = :yes"
        " AND first.player = puzzle_attempts.player AND first.puzzle = puzzle_attempts.puzzle)"
    ).bindparams(yes=True, no=False))
    op.create_index("puzzle_attempts_rated", "puzzle_attempts", ["player", "puzzle"], unique=True,
                    sqlite_where=sa.text("rated"), postgresql_where=sa.text("rated"))


def downgrade() -> None:
    op.drop_index("puzzle_attempts_rated", "puzzle_attempts")
    op.drop_index("seeks_player", "seeks")
    with op.batch_alter_table("seeks") as batch:
        batch.drop_column("game")
