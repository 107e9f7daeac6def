"""The database's tables, in SQLAlchemy Core: the same tables on SQLite and PostgreSQL.

Made and changed only by the Alembic migrations in
:mod:`kamisado.web.store.migrations`, run when a store opens (see ``docs/web.md``):

``games``
    one row a game: id, creation and update times, the match (target,
    series, round 1's start KPN), each seat (``human`` or a computer level,
    a name, the secret token), the computer's seed and delay, and the
    state reached (``playing``/``fill``/``over``, points, number of actions),
    and the moves' comments of an uploaded record.
``actions``
    one row an action: ``(game_id, seq)`` with ``seq`` from 0, and the
    token: a move in square form (``c1-c5``) or a fill (``left``/``right``).
``players``
    one row a player (:mod:`kamisado.web.accounts.players`): anonymous, or with an
    account and an argon2id hash; a game's seats name the players holding
    them (``black_player``, ``gold_player``; null while unclaimed).
``settings``
    named values: the generated key that signs the players' cookies.
``sessions``, ``sign_in_failures``
    the signed-in browsers (server-side sessions), and failed sign-ins per
    account name (the lockout).
``tokens``
    personal API tokens, by the SHA-256 of each (revision 0018;
    :mod:`kamisado.web.accounts.tokens`).
``tournaments``, ``tournament_players``, ``tournament_games``
    the site's Arena and Swiss events, their players and their games
    (revision 0019; :mod:`kamisado.web.community.tournaments`).
``ratings``, ``rating_history``
    each player's rating per speed, and its rating after each rated game.
``chat``
    a game's chat messages, the players' room and the spectators' room
    (revision 0010; :mod:`kamisado.web.play.chat`).
``puzzles``, ``puzzle_attempts``, ``puzzle_ratings``
    the puzzle trainer's set, every attempt at a puzzle, and each
    player's puzzle rating (revision 0013; :mod:`kamisado.web.site.puzzles`).
``reports``
    a game's report (revision 0014; :mod:`kamisado.web.play.reports`): asked,
    in progress or done.
``presence``, ``challenges``
    who is connected through which process, and the lobby's challenges
    (only when several processes share a PostgreSQL database).
``seeks``
    the lobby's quick pairing: who seeks a game at which speed (revision
    0012; :mod:`kamisado.web.community.seeks`).
``blocks``, ``player_reports``, ``mod_audit``
    moderation (revision 0016; :mod:`kamisado.web.accounts.moderation`): who
    blocks whom, players' reports of players (not a game's report), and
    every moderator's action; ``players`` then says an account's roles,
    until when it is muted, and since when it is closed.

A row of ``games`` is read and written as a :class:`GameRow`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa

from kamisado.rules.board import START_KPN, start_kpn
from kamisado.rules.match import PLAYING
from kamisado.web.basics.clocks import ClockState, TimeControl

__all__ = [
    "GameRow",
    "actions",
    "blocks",
    "challenges",
    "chat",
    "games",
    "metadata",
    "mod_audit",
    "player_reports",
    "players",
    "presence",
    "puzzle_attempts",
    "puzzle_ratings",
    "puzzles",
    "rate_buckets",
    "rating_history",
    "ratings",
    "reports",
    "seeks",
    "sessions",
    "settings",
    "sign_in_failures",
    "tokens",
    "tournament_games",
    "tournament_players",
    "tournaments",
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
    # the moves' comments of an uploaded record (revision 0009): JSON, each
    # comment's text by the index of its move among the actions played
    # (``{"0": "+0.35/12 1.234s"}``); null for a game with none
    sa.Column("comments", sa.Text, nullable=True),
    sa.Index("games_updated", "updated"),
    sa.Index("games_clock_deadline", "clock_deadline"),
    sa.Index("games_black_player", "black_player"),
    sa.Index("games_gold_player", "gold_player"),
)

#: Players (revision 0003): anonymous (a browser's cookie names one) or with
#: an account (``account``: the sign-in name in lower case, unique; an
#: argon2id hash of the password).  See :mod:`kamisado.web.accounts.players`.
players = sa.Table(
    "players",
    metadata,
    sa.Column("id", sa.String(40), primary_key=True),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("last_seen", sa.Float, nullable=False),
    sa.Column("name", sa.String(40), nullable=False),
    sa.Column("account", sa.String(30), nullable=True),
    sa.Column("password_hash", sa.String(200), nullable=True),
    # moderation (revision 0016): the account's roles (space-separated:
    # ``moderator``), until when it is muted (seconds), since when it is
    # closed (``NULL``: open)
    sa.Column("roles", sa.String(60), nullable=True),
    sa.Column("muted_until", sa.Float, nullable=True),
    sa.Column("closed", sa.Float, nullable=True),
    # revision 0019: a bot account (issue 42: ``POST /api/bot/upgrade``)
    sa.Column("bot", sa.Boolean, nullable=False, server_default=sa.false()),
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

#: Signed-in browsers (revision 0007): the cookie carries a random session
#: id, the row is keyed by its SHA-256 (``id``); see :mod:`kamisado.web.accounts.sessions`.
sessions = sa.Table(
    "sessions",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("player", sa.String(40), nullable=False),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("last_seen", sa.Float, nullable=False),
    sa.Column("user_agent", sa.String(200), nullable=False),
    sa.Index("sessions_player", "player"),
    sa.Index("sessions_last_seen", "last_seen"),
)

#: Personal API tokens (revision 0018): only the SHA-256 of a token is kept
#: (``hash``); ``scopes`` space-separated; ``last_used`` written at most once
#: a minute.  See :mod:`kamisado.web.accounts.tokens`.
tokens = sa.Table(
    "tokens",
    metadata,
    sa.Column("id", sa.String(24), primary_key=True),
    sa.Column("player", sa.String(40), nullable=False),
    sa.Column("name", sa.String(60), nullable=False),
    sa.Column("scopes", sa.String(80), nullable=False),
    sa.Column("hash", sa.String(64), nullable=False),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("last_used", sa.Float, nullable=True),
    sa.Index("tokens_hash", "hash", unique=True),
    sa.Index("tokens_player", "player"),
)

#: Failed sign-ins per account name (revision 0007), for the lockout every
#: process on the database shares (:mod:`kamisado.web.accounts.sessions`).
sign_in_failures = sa.Table(
    "sign_in_failures",
    metadata,
    sa.Column("account", sa.String(30), primary_key=True),
    sa.Column("failures", sa.Integer, nullable=False),
    sa.Column("last_failure", sa.Float, nullable=False),
    sa.Column("locked_until", sa.Float, nullable=False),
    sa.Index("sign_in_failures_last_failure", "last_failure"),
)

#: Ratings (revision 0004): one Glicko-2 rating per player and speed
#: (:mod:`kamisado.web.basics.ratings`).
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
#: when several processes share it (:mod:`kamisado.web.community.lobby`).
challenges = sa.Table(
    "challenges",
    metadata,
    sa.Column("id", sa.String(40), primary_key=True),
    sa.Column("origin", sa.String(20), nullable=False),
    sa.Column("player", sa.String(40), nullable=False),
    sa.Column("name", sa.String(80), nullable=False),
    sa.Column("rating", sa.Integer, nullable=True),
    # revision 0008: the rating is provisional (shown with "?")
    sa.Column("provisional", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("target", sa.Integer, nullable=False),
    sa.Column("series", sa.Boolean, nullable=False),
    sa.Column("clock_initial", sa.Float, nullable=True),
    sa.Column("clock_increment", sa.Float, nullable=True),
    sa.Column("clock_days", sa.Integer, nullable=True),
    sa.Column("rated", sa.Boolean, nullable=False),
    sa.Column("color", sa.String(6), nullable=False),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("seen", sa.BigInteger, nullable=False),
    # revision 0011: a direct challenge's one player (``NULL``: open to all)
    sa.Column("to_player", sa.String(40), nullable=True),
    sa.Index("challenges_origin", "origin"),
    # revision 0016: the direct challenges waiting for one player are counted
    sa.Index("challenges_to", "to_player"),
    # revision 0019: the challenger is a bot (shown BOT)
    sa.Column("bot", sa.Boolean, nullable=False, server_default=sa.false()),
)

#: Quick pairing (revision 0012): one row a seek, a player seeking a game
#: at one speed (``1+0`` ... ``15+10``, ``1d``, ``3d``), rated or casual;
#: ``created`` and ``seen`` in ms (``seen`` renewed while the seeking
#: process lives).  Two compatible rows are taken in one transaction
#: (:mod:`kamisado.web.community.seeks`), on SQLite and on PostgreSQL alike; a
#: paired row says its ``game`` (revision 0015) until its player is told.
seeks = sa.Table(
    "seeks",
    metadata,
    sa.Column("id", sa.String(40), primary_key=True),
    sa.Column("origin", sa.String(20), nullable=False),
    sa.Column("player", sa.String(40), nullable=False),
    sa.Column("name", sa.String(80), nullable=False),
    sa.Column("registered", sa.Boolean, nullable=False),
    sa.Column("rating", sa.Integer, nullable=True),
    sa.Column("speed", sa.String(8), nullable=False),
    sa.Column("rated", sa.Boolean, nullable=False),
    sa.Column("created", sa.BigInteger, nullable=False),
    sa.Column("seen", sa.BigInteger, nullable=False),
    # revision 0015: the game the seek was paired into (``NULL``: not paired
    # yet); a paired row stays until its player has been told
    sa.Column("game", sa.String(40), nullable=True),
    sa.Index("seeks_origin", "origin"),
    sa.Index("seeks_speed", "speed", "rated"),
    sa.Index("seeks_player", "player"),
)

#: Tournaments on the site (revision 0019, :mod:`kamisado.web.community.tournaments`):
#: one row an event, an Arena (``minutes`` long) or a Swiss (``rounds``);
#: its ``status`` ``created``, ``started`` or ``finished``; ``starts`` and
#: ``ends`` in ms (a Swiss's ``ends`` is set when its last round ended);
#: ``round`` the Swiss round paired last; ``schedule`` the scheduler's key
#: of a recurring event (one event a key: :mod:`kamisado.web.community.schedule`).
tournaments = sa.Table(
    "tournaments",
    metadata,
    sa.Column("id", sa.String(40), primary_key=True),
    sa.Column("kind", sa.String(8), nullable=False),
    sa.Column("name", sa.String(80), nullable=False),
    sa.Column("clock_initial", sa.Float, nullable=True),
    sa.Column("clock_increment", sa.Float, nullable=True),
    sa.Column("clock_days", sa.Integer, nullable=True),
    sa.Column("target", sa.Integer, nullable=False),
    sa.Column("minutes", sa.Integer, nullable=True),
    sa.Column("rounds", sa.Integer, nullable=True),
    sa.Column("rated", sa.Boolean, nullable=False),
    sa.Column("bots", sa.Boolean, nullable=False),
    sa.Column("status", sa.String(10), nullable=False),
    sa.Column("starts", sa.BigInteger, nullable=False),
    sa.Column("ends", sa.BigInteger, nullable=True),
    sa.Column("round", sa.Integer, nullable=False),
    sa.Column("created", sa.BigInteger, nullable=False),
    sa.Column("created_by", sa.String(40), nullable=True),
    sa.Column("schedule", sa.String(80), nullable=True),
    sa.Index("tournaments_status", "status", "starts"),
    sa.Index("tournaments_schedule", "schedule", unique=True),
)

#: A tournament's players (revision 0019): the ``score`` (Arena: 2 a win,
#: doubled on a streak; Swiss: 1 a win or a bye), the games played, the
#: Arena ``streak`` (wins in a row), the Swiss ``byes`` and ``blacks``
#: (games as Black, for the colours' balance), whether the player is
#: ``active`` (not withdrawn or paused: paired only then), the rating at
#: joining, and the opponent of the last game (no immediate rematch).
tournament_players = sa.Table(
    "tournament_players",
    metadata,
    sa.Column("tournament", sa.String(40), primary_key=True),
    sa.Column("player", sa.String(40), primary_key=True),
    sa.Column("name", sa.String(80), nullable=False),
    sa.Column("rating", sa.Integer, nullable=False),
    sa.Column("registered", sa.Boolean, nullable=False),
    sa.Column("score", sa.Integer, nullable=False),
    sa.Column("games", sa.Integer, nullable=False),
    sa.Column("streak", sa.Integer, nullable=False),
    sa.Column("byes", sa.Integer, nullable=False),
    sa.Column("blacks", sa.Integer, nullable=False),
    sa.Column("active", sa.Boolean, nullable=False),
    sa.Column("last_opponent", sa.String(40), nullable=True),
    sa.Column("joined", sa.BigInteger, nullable=False),
    sa.Index("tournament_players_player", "player"),
)

#: A tournament's games (revision 0019): the pairing (``round``: the Swiss
#: round, 0 in an Arena), when it started, and once its end was counted
#: (``ended``, ms) the ``winner`` (``b``/``g``, ``NULL``: none) and the
#: points it gave each side; ``told`` once its players were sent ``started``.
tournament_games = sa.Table(
    "tournament_games",
    metadata,
    sa.Column("game", sa.String(40), primary_key=True),
    sa.Column("tournament", sa.String(40), nullable=False),
    sa.Column("round", sa.Integer, nullable=False),
    sa.Column("black", sa.String(40), nullable=False),
    sa.Column("gold", sa.String(40), nullable=False),
    sa.Column("started", sa.BigInteger, nullable=False),
    sa.Column("ended", sa.BigInteger, nullable=True),
    sa.Column("winner", sa.String(1), nullable=True),
    sa.Column("black_score", sa.Integer, nullable=True),
    sa.Column("gold_score", sa.Integer, nullable=True),
    sa.Column("told", sa.Boolean, nullable=False),
    sa.Index("tournament_games_tournament", "tournament", "ended"),
)

#: The rate limits' token buckets that every process on one database
#: shares (revision 0016, PostgreSQL: :mod:`kamisado.web.store.buckets`):
#: one row a (limit, key), ``tokens`` left at ``stamp`` (seconds of the
#: limiter's wall clock), ``taken`` whether the last take got its token.
#: A bucket idle for long is full again, as good as none, and is deleted.
rate_buckets = sa.Table(
    "rate_buckets",
    metadata,
    sa.Column("name", sa.String(20), primary_key=True),
    sa.Column("key", sa.String(80), primary_key=True),
    sa.Column("tokens", sa.Float, nullable=False),
    sa.Column("stamp", sa.Float, nullable=False),
    sa.Column("taken", sa.Boolean, nullable=False),
    sa.Index("rate_buckets_stamp", "stamp"),
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


#: A game's chat (revision 0010): one row a message, in the players' room
#: (``players``, ``side`` the writer's seat) or the spectators' room
#: (``spectators``); ``text`` (at most 140 characters) or ``canned``, a
#: canned message's code (:mod:`kamisado.web.play.chat`).
chat = sa.Table(
    "chat",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("game_id", sa.String(40), sa.ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
    sa.Column("room", sa.String(10), nullable=False),
    sa.Column("at", sa.Float, nullable=False),
    sa.Column("player", sa.String(40), nullable=True),
    sa.Column("name", sa.String(80), nullable=False),
    sa.Column("side", sa.String(1), nullable=True),
    sa.Column("text", sa.String(600), nullable=True),
    sa.Column("canned", sa.String(20), nullable=True),
    sa.Index("chat_game", "game_id", "id"),
)


#: The puzzle trainer's puzzles (revision 0013, loaded from
#: ``kamisado/data/puzzle_set.json``): the position, the side to solve, the
#: bound (``win_in``: moves of both sides; ``NULL``: one move to find), the
#: accepted first moves and the solution line (JSON lists), a fill's two
#: next-round starts, themes (space-separated), the source game and ply, and
#: the puzzle's Glicko-2 rating (``initial``: the set's difficulty).
puzzles = sa.Table(
    "puzzles",
    metadata,
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
    sa.Index("puzzles_rating", "rating"),
)

#: One row an attempt at a puzzle (revision 0013): who, when, how far
#: (``state``: ``playing``, ``solved`` or ``failed``; ``moves``: the line
#: played, both sides, space-separated), whether it counts for the ratings,
#: the streak it belongs to, and the player's rating change it made; at
#: most one rated attempt of a player at a puzzle (revision 0015).
puzzle_attempts = sa.Table(
    "puzzle_attempts",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("puzzle", sa.String(20), sa.ForeignKey("puzzles.id", ondelete="CASCADE"), nullable=False),
    sa.Column("player", sa.String(40), nullable=False),
    sa.Column("started", sa.Float, nullable=False),
    sa.Column("ended", sa.Float, nullable=True),
    sa.Column("state", sa.String(10), nullable=False),
    sa.Column("moves", sa.String(400), nullable=False),
    sa.Column("rated", sa.Boolean, nullable=False),
    sa.Column("streak", sa.String(40), nullable=True),
    sa.Column("change", sa.Float, nullable=True),
    sa.Index("puzzle_attempts_player", "player", "puzzle"),
    sa.Index("puzzle_attempts_streak", "streak"),
    # revision 0015: at most one rated attempt of a player at a puzzle
    sa.Index("puzzle_attempts_rated", "player", "puzzle", unique=True,
             sqlite_where=sa.text("rated"), postgresql_where=sa.text("rated")),
)

#: A player's Glicko-2 puzzle rating (revision 0013; signed-in players only).
puzzle_ratings = sa.Table(
    "puzzle_ratings",
    metadata,
    sa.Column("player", sa.String(40), primary_key=True),
    sa.Column("rating", sa.Float, nullable=False),
    sa.Column("rd", sa.Float, nullable=False),
    sa.Column("vol", sa.Float, nullable=False),
    sa.Column("games", sa.Integer, nullable=False),
    sa.Column("updated", sa.Float, nullable=False),
)


#: A game's report (revision 0014, :mod:`kamisado.web.play.reports`): ``state``
#: ``queued``/``running``/``done``/``failed``; ``auto`` when a rated game's
#: end asked for it (a click's go first); ``done`` of ``total`` positions
#: looked at, ``looks`` those looks (JSON); ``owner`` and ``lease`` (ms) the
#: process working on it; ``report`` the report (JSON) once done.
reports = sa.Table(
    "reports",
    metadata,
    sa.Column("game_id", sa.String(40), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
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
    sa.Index("reports_state", "state", "auto", "asked"),
)


#: Who blocks whom (revision 0016): the blocked player's direct challenges
#: and chat never reach the blocker, and quick pairing never pairs the two.
blocks = sa.Table(
    "blocks",
    metadata,
    sa.Column("blocker", sa.String(40), primary_key=True),
    sa.Column("blocked", sa.String(40), primary_key=True),
    sa.Column("at", sa.Float, nullable=False),
    sa.Index("blocks_blocked", "blocked"),
)

#: A player's report of another player (revision 0016; named apart from a
#: game's analysis ``reports``): the reason (``abuse``, ``cheat``, ``spam``,
#: ``other``), the text, the game it is about; ``state`` ``open`` until a
#: moderator resolves it (who, when, the note).
player_reports = sa.Table(
    "player_reports",
    metadata,
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
    sa.Index("player_reports_state", "state", "created"),
    sa.Index("player_reports_reported", "reported", "reporter", "state"),
)

#: Every moderator action (revision 0016), from the site or the command
#: line: when, who (``actor``: the moderator's account, or ``cli:USER``;
#: ``actor_player`` their player id), what (``grant``, ``mute``, ``close``...),
#: on whom (a player id), why, and what else it says (a role, an hour).
mod_audit = sa.Table(
    "mod_audit",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("at", sa.Float, nullable=False),
    sa.Column("actor", sa.String(80), nullable=False),
    sa.Column("actor_player", sa.String(40), nullable=True),
    sa.Column("action", sa.String(20), nullable=False),
    sa.Column("target", sa.String(40), nullable=True),
    sa.Column("reason", sa.String(300), nullable=True),
    sa.Column("detail", sa.String(200), nullable=True),
    sa.Index("mod_audit_at", "at"),
)


@dataclass
class GameRow:
    """One row of ``games``."""

    id: str
    target: int = 1
    series: bool = False
    start_kpn: str = START_KPN
    black: str = "human"
    gold: str = "human"
    black_name: str = ""
    gold_name: str = ""
    black_token: str | None = None
    gold_token: str | None = None
    online: bool = False
    seed: int = 0
    delay: float = 0.0
    state: str = PLAYING
    black_points: int = 0
    gold_points: int = 0
    actions: int = 0
    created: float = field(default_factory=time.time)
    updated: float = field(default_factory=time.time)
    clock_initial: float | None = None
    clock_increment: float | None = None
    clock_days: int | None = None
    black_ms: int | None = None
    gold_ms: int | None = None
    clock_running: str | None = None
    clock_since: int | None = None
    clock_deadline: int | None = None
    ended: str | None = None
    black_player: str | None = None
    gold_player: str | None = None
    to_act: str | None = None
    rated: bool = False
    offer: str | None = None
    rematch: str | None = None
    thinker: str | None = None
    think_until: int | None = None
    comments: str | None = None

    @property
    def owners(self) -> tuple[str | None, str | None]:
        """The players holding each seat (``None``: unclaimed, or a computer)."""
        return (self.black_player, self.gold_player)

    @property
    def control(self) -> TimeControl | None:
        """The game's time control (``None``: untimed)."""
        if self.clock_days:
            return TimeControl(days=self.clock_days)
        if self.clock_initial is None:
            return None
        return TimeControl(self.clock_initial, self.clock_increment or 0.0)

    @property
    def clock(self) -> ClockState | None:
        """The clock as stored with the last action (``None``: untimed)."""
        control = self.control
        if control is None:
            return None
        if self.black_ms is None or self.gold_ms is None:
            return ClockState.start(control)
        return ClockState(control, self.black_ms, self.gold_ms, self.clock_running, self.clock_since or 0)

    def set_clock(self, clock: ClockState | None) -> None:
        """Keep a clock's state in the row (written with the next action)."""
        if clock is None:
            return
        self.black_ms, self.gold_ms = clock.b, clock.g
        self.clock_running, self.clock_since, self.clock_deadline = (
            clock.running, clock.since, clock.deadline())

    @classmethod
    def new(cls, id: str, **fields: Any) -> GameRow:
        """A new game row; the start KPN follows the match type unless given."""
        row = cls(id, **fields)
        if "start_kpn" not in fields:
            target = 1 if row.series else row.target
            row.start_kpn = start_kpn(target)
        return row
