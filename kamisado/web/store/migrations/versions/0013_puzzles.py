"""The puzzle trainer (issue 27, item 2): the puzzles, every attempt at one,
and each player's puzzle rating.

``puzzles`` holds the set of ``kamisado/data/puzzle_set.json`` (written by
``tools/make_puzzle_set.py``: the 40 puzzles of before, ``p01-w1`` ...,
and the solver-proven ones of real and self-play games), loaded here; each
puzzle has its kind, themes, the first moves the solver accepts, its
solution line, its source game and ply, and its Glicko-2 rating (the set's
difficulty to start with), which its rated attempts move.
``puzzle_attempts`` is one row an attempt (rated or not, in a streak or
not), ``puzzle_ratings`` a player's Glicko-2 puzzle rating.

Revision ID: 0013
Revises: 0012
"""

from __future__ import annotations

import json
from pathlib import Path

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None

#: The puzzle set this revision loads.
SET = Path(__file__).resolve().parents[4] / "data" / "puzzle_set.json"
#: A new puzzle's rating deviation and volatility (Glicko-2's start).
RD, VOL = 350.0, 0.06


def rows() -> list[dict[str, object]]:
    """The set's puzzles as rows of ``puzzles``."""
    doc = json.loads(SET.read_text(encoding="utf-8"))
    out: list[dict[str, object]] = []
    for p in doc["puzzles"]:
        fill = p.get("fill") or {}
        source = p["source"]
        out.append({
            "id": p["id"], "kind": p["kind"], "kpn": p["kpn"], "side": p["side"],
            "win_in": p.get("win_in"), "accepted": json.dumps(p["accepted"]),
            "solution": json.dumps(p["solution"]), "fill_left": fill.get("left"),
            "fill_right": fill.get("right"), "themes": " ".join(p["themes"]),
            "origin": source["origin"], "source_game": source["game"][:300],
            "source_ply": int(source["ply"]), "rating": float(p["rating"]),
            "initial": float(p["rating"]), "rd": RD, "vol": VOL, "attempts": 0, "solved": 0,
        })
    return out


def upgrade() -> None:
    puzzles = op.create_table(
        "puzzles",
        sa.Column("id", sa.String(20), primary_key=True),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("kpn", sa.String(200), nullable=False),
        sa.Column("side", sa.String(1), nullable=False),
        sa.Column("win_in", sa.Integer, nullable=True),
        sa.Column("accepted", sa.String(200), nullable=False),
        sa.Column("solution", sa.String(400), nullable=False),
        sa.Column("fill_left", sa.String(200), nullable=True),
        sa.Column("fill_right", sa.String(200), nullable=True),
        sa.Column("themes", sa.String(200), nullable=False),
        sa.Column("origin", sa.String(20), nullable=False),
        sa.Column("source_game", sa.String(300), nullable=False),
        sa.Column("source_ply", sa.Integer, nullable=False),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("initial", sa.Float, nullable=False),
        sa.Column("rd", sa.Float, nullable=False),
        sa.Column("vol", sa.Float, nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("solved", sa.Integer, nullable=False),
    )
    op.create_index("puzzles_rating", "puzzles", ["rating"])
    op.create_table(
        "puzzle_attempts",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("puzzle", sa.String(20), sa.ForeignKey("puzzles.id", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("player", sa.String(40), nullable=False),
        sa.Column("started", sa.Float, nullable=False),
        sa.Column("ended", sa.Float, nullable=True),
        sa.Column("state", sa.String(10), nullable=False),
        sa.Column("moves", sa.String(400), nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("streak", sa.String(40), nullable=True),
        sa.Column("change", sa.Float, nullable=True),
    )
    op.create_index("puzzle_attempts_player", "puzzle_attempts", ["player", "puzzle"])
    op.create_index("puzzle_attempts_streak", "puzzle_attempts", ["streak"])
    op.create_table(
        "puzzle_ratings",
        sa.Column("player", sa.String(40), primary_key=True),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("rd", sa.Float, nullable=False),
        sa.Column("vol", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("updated", sa.Float, nullable=False),
    )
    op.bulk_insert(puzzles, rows())


def downgrade() -> None:
    op.drop_table("puzzle_ratings")
    op.drop_index("puzzle_attempts_streak", "puzzle_attempts")
    op.drop_index("puzzle_attempts_player", "puzzle_attempts")
    op.drop_table("puzzle_attempts")
    op.drop_index("puzzles_rating", "puzzles")
    op.drop_table("puzzles")
