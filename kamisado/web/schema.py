"""The database's tables, in SQLAlchemy Core: the same tables on SQLite and PostgreSQL.

Made and changed only by the Alembic migrations in
:mod:`kamisado.web.migrations`, run when a store opens (see ``docs/web.md``):

``games``
    one row a game: id, creation and update times, the match (target,
    series, round 1's start KPN), each seat (``human`` or a computer level,
    a name, the secret token), the computer's seed and delay, and the
    state reached (``playing``/``fill``/``over``, points, number of actions).
``actions``
    one row an action: ``(game_id, seq)`` with ``seq`` from 0, and the
    token: a move in square form (``c1-c5``) or a fill (``left``/``right``).
``players``
    one row a player (:mod:`kamisado.web.players`): anonymous, or with an
    account and an argon2id hash; a game's seats name the players holding
    them (``black_player``, ``gold_player``; null while unclaimed).
``settings``
    named values: the generated key that signs the players' cookies.
``ratings``, ``rating_history``
    each player's rating per speed, and its rating after each rated game.
``presence``, ``challenges``
    who is connected through which process, and the lobby's challenges
    (only when several processes share a PostgreSQL database).
"""

from __future__ import annotations

import sqlalchemy as sa

__all__ = [
    "actions",
    "challenges",
    "games",
    "metadata",
    "players",
    "presence",
    "rating_history",
    "ratings",
    "settings",
]

metadata = sa.MetaData()

games = sa.Table(
    "games",
    metadata,
    sa.Column("id", sa.String(40), primary_key=True),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("updated", sa.Float, nullable=False),
    sa.Column("target", sa.Integer, nullable=False),
    sa.Column("series", sa.Boolean, nullable=False),
    sa.Column("start_kpn", sa.String(200), nullable=False),
    sa.Column("black", sa.String(20), nullable=False),
    sa.Column("gold", sa.String(20), nullable=False),
    sa.Column("black_name", sa.String(80), nullable=False),
    sa.Column("gold_name", sa.String(80), nullable=False),
    sa.Column("black_token", sa.String(64), nullable=True),
    sa.Column("gold_token", sa.String(64), nullable=True),
    sa.Column("online", sa.Boolean, nullable=False),
    sa.Column("seed", sa.Integer, nullable=False),
    sa.Column("delay", sa.Float, nullable=False),
    sa.Column("state", sa.String(10), nullable=False),
    sa.Column("black_points", sa.Integer, nullable=False),
    sa.Column("gold_points", sa.Integer, nullable=False),
    sa.Column("actions", sa.Integer, nullable=False),
    # the clock (revision 0002): the control, each side's time left as of the
    # last action (ms), whose clock runs since when, and when its flag falls
    sa.Column("clock_initial", sa.Float, nullable=True),
    sa.Column("clock_increment", sa.Float, nullable=True),
    sa.Column("clock_days", sa.Integer, nullable=True),
    sa.Column("black_ms", sa.BigInteger, nullable=True),
    sa.Column("gold_ms", sa.BigInteger, nullable=True),
    sa.Column("clock_running", sa.String(1), nullable=True),
    sa.Column("clock_since", sa.BigInteger, nullable=True),
    sa.Column("clock_deadline", sa.BigInteger, nullable=True),
    # how a match ended before its points decided it: resignation, time, abort
    sa.Column("ended", sa.String(20), nullable=True),
    # the players holding the seats (revision 0003): null while a seat is
    # unclaimed (its token is then the one-time claim), and whose action the
    # game waits for ("b"/"g"; null when over, or not known for a game
    # stored before revision 0003)
    sa.Column("black_player", sa.String(40), nullable=True),
    sa.Column("gold_player", sa.String(40), nullable=True),
    sa.Column("to_act", sa.String(1), nullable=True),
    # game controls and ratings (revision 0004): whether the game is rated,
    # the offer pending in it (``takeback-b``, ``rematch-g``; cleared by every
    # action), and the game its rematch made
    sa.Column("rated", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("offer", sa.String(12), nullable=True),
    sa.Column("rematch", sa.String(40), nullable=True),
    # several processes (revision 0005): the lease on the next computer move
    # (the thinking store's origin, until when in ms; cleared by every action)
    sa.Column("thinker", sa.String(20), nullable=True),
    sa.Column("think_until", sa.BigInteger, nullable=True),
    sa.Index("games_updated", "updated"),
    sa.Index("games_clock_deadline", "clock_deadline"),
    sa.Index("games_black_player", "black_player"),
    sa.Index("games_gold_player", "gold_player"),
)

#: Players (revision 0003): anonymous (a browser's cookie names one) or with
#: an account (``account``: the sign-in name in lower case, unique; an
#: argon2id hash of the password).  See :mod:`kamisado.web.players`.
players = sa.Table(
    "players",
    metadata,
    sa.Column("id", sa.String(40), primary_key=True),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("last_seen", sa.Float, nullable=False),
    sa.Column("name", sa.String(40), nullable=False),
    sa.Column("account", sa.String(30), nullable=True),
    sa.Column("password_hash", sa.String(200), nullable=True),
    sa.Index("players_account", "account", unique=True),
)

#: Server settings by name (revision 0003): ``session_secret``, the key
#: that signs the players' cookies when none is given.
settings = sa.Table(
    "settings",
    metadata,
    sa.Column("name", sa.String(40), primary_key=True),
    sa.Column("value", sa.String(200), nullable=False),
)

#: Ratings (revision 0004): one Glicko-2 rating per player and speed
#: (:mod:`kamisado.web.ratings`).
ratings = sa.Table(
    "ratings",
    metadata,
    sa.Column("player", sa.String(40), primary_key=True),
    sa.Column("speed", sa.String(16), primary_key=True),
    sa.Column("rating", sa.Float, nullable=False),
    sa.Column("rd", sa.Float, nullable=False),
    sa.Column("vol", sa.Float, nullable=False),
    sa.Column("games", sa.Integer, nullable=False),
    sa.Column("updated", sa.Float, nullable=False),
)

#: One row per player and rated game: the rating after the game.  Its key
#: ``(player, game_id)`` makes a game's rating update happen at most once.
rating_history = sa.Table(
    "rating_history",
    metadata,
    sa.Column("player", sa.String(40), primary_key=True),
    sa.Column("game_id", sa.String(40), primary_key=True),
    sa.Column("speed", sa.String(16), nullable=False),
    sa.Column("at", sa.Float, nullable=False),
    sa.Column("rating", sa.Float, nullable=False),
    sa.Column("rd", sa.Float, nullable=False),
    sa.Column("change", sa.Float, nullable=False),
    sa.Index("rating_history_player_at", "player", "at"),
)

#: Who is connected to which seat through which process (revision 0005):
#: ``seen`` (ms) is renewed while the process lives, so a dead process's
#: rows age out.  Used only when several processes share the database.
presence = sa.Table(
    "presence",
    metadata,
    sa.Column("game_id", sa.String(40), primary_key=True),
    sa.Column("side", sa.String(1), primary_key=True),
    sa.Column("origin", sa.String(20), primary_key=True),
    sa.Column("seen", sa.BigInteger, nullable=False),
    sa.Index("presence_origin", "origin"),
)

#: The lobby's open challenges (revision 0006), kept in the database only
#: when several processes share it (:mod:`kamisado.web.lobby`).
challenges = sa.Table(
    "challenges",
    metadata,
    sa.Column("id", sa.String(40), primary_key=True),
    sa.Column("origin", sa.String(20), nullable=False),
    sa.Column("player", sa.String(40), nullable=False),
    sa.Column("name", sa.String(80), nullable=False),
    sa.Column("rating", sa.Integer, nullable=True),
    sa.Column("target", sa.Integer, nullable=False),
    sa.Column("series", sa.Boolean, nullable=False),
    sa.Column("clock_initial", sa.Float, nullable=True),
    sa.Column("clock_increment", sa.Float, nullable=True),
    sa.Column("clock_days", sa.Integer, nullable=True),
    sa.Column("rated", sa.Boolean, nullable=False),
    sa.Column("color", sa.String(6), nullable=False),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("seen", sa.BigInteger, nullable=False),
    sa.Index("challenges_origin", "origin"),
)

actions = sa.Table(
    "actions",
    metadata,
    sa.Column(
        "game_id", sa.String(40), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    ),
    sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("token", sa.String(10), nullable=False),
    sa.Column("at", sa.Float, nullable=False),
)
