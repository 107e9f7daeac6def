"""Saved games: every action of every game, in SQLite or PostgreSQL.

The schema (SQLAlchemy Core, the same tables on both databases; made and
changed only by the Alembic migrations in :mod:`kamisado.web.migrations`,
run when a store opens; see ``docs/web.md``):

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

A game is rebuilt by replaying its actions through :class:`Match`, so the
rules decide everything and nothing derived can disagree.  Each action is
committed (its own transaction) before the server acknowledges it, and only
as the game's next one: ``seq`` must equal the game's action count, so a
game can neither fork nor have a gap.  SQLite runs in WAL mode with
``synchronous=FULL``: a committed move survives a killed process and a power
cut alike.

>>> store = Store("sqlite://")
>>> store.create(GameRow.new("g1", target=3, black="human", gold="club"))
>>> store.append("g1", 0, "c1-c5", state="playing", points=(0, 0))
>>> store.load("g1")[1]
['c1-c5']
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from kamisado.rules.match import PLAYING
from kamisado.rules.position import START_KPN, start_kpn
from kamisado.web.clocks import ClockState, TimeControl
from kamisado.web.migrations import upgrade
from kamisado.web.ratings import Rating, rate_game

__all__ = [
    "CHANNEL",
    "LOBBY_CHANNEL",
    "GameRow",
    "SQLiteInUse",
    "SequenceError",
    "Store",
    "database_url",
    "default_database_url",
    "lock_sqlite",
    "new_id",
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


# built once: the statements of every move (SQLAlchemy caches their compiled form)
_INSERT_ACTION = actions.insert()
_UPDATE_GAME = (
    games.update()
    .where(games.c.id == sa.bindparam("gid"), games.c.actions == sa.bindparam("seq"))
    .values(
        updated=sa.bindparam("updated"),
        state=sa.bindparam("state"),
        black_points=sa.bindparam("black_points"),
        gold_points=sa.bindparam("gold_points"),
        actions=sa.bindparam("actions"),
        black_ms=sa.bindparam("black_ms"),
        gold_ms=sa.bindparam("gold_ms"),
        clock_running=sa.bindparam("clock_running"),
        clock_since=sa.bindparam("clock_since"),
        clock_deadline=sa.bindparam("clock_deadline"),
        ended=sa.bindparam("ended"),
        to_act=sa.bindparam("to_act"),
        offer=None,  # every action ends the offer pending
        thinker=None,  # and the lease on the computer's move
        think_until=None,
    )
)


def _pg_append() -> sa.Select[Any]:
    """Action ``seq`` of a game stored on PostgreSQL in one statement, so
    one round trip and its own transaction: the game's row updated
    (guarded by its count, as :data:`_UPDATE_GAME`), the action inserted
    only when it was, and the change announced (``pg_notify``) only then.
    Selects ``stored`` (1, or 0 when the count had moved on)."""
    g = _UPDATE_GAME.returning(games.c.id).cte("g")
    a = (
        actions.insert()
        .from_select(
            ["game_id", "seq", "token", "at"],
            sa.select(g.c.id, sa.bindparam("seq", type_=sa.Integer), sa.bindparam("token", type_=sa.String),
                      sa.bindparam("at", type_=sa.Float)),
        )
        .returning(actions.c.seq)
        .cte("a")
    )
    told = sa.select(sa.func.pg_notify(sa.bindparam("channel", type_=sa.String),
                                       sa.bindparam("payload", type_=sa.String))).select_from(g).subquery()
    return sa.select(
        sa.select(sa.func.count()).select_from(a).scalar_subquery().label("stored"),
        sa.select(sa.func.count()).select_from(told).scalar_subquery().label("told"),
    )


def _pg_load() -> sa.Select[Any]:
    """A game's row and its actions from ``since`` on PostgreSQL in one
    statement: one round trip, and row and actions of one snapshot."""
    tokens = (
        sa.select(actions.c.token)
        .where(actions.c.game_id == games.c.id, actions.c.seq >= sa.bindparam("since", type_=sa.Integer))
        .order_by(actions.c.seq)
        .scalar_subquery()
    )
    return sa.select(games, sa.func.array(tokens).label("_tokens")).where(games.c.id == sa.bindparam("gid"))


_PG_APPEND = _pg_append()
#: A new game's row on PostgreSQL (:meth:`Store.create` of a game with no actions yet)
_PG_CREATE = games.insert().values({c.name: sa.bindparam(c.name, type_=c.type) for c in games.columns})
#: :meth:`Store.presence_elsewhere` on PostgreSQL
_PG_PRESENCE = (
    sa.select(presence.c.side, sa.func.max(presence.c.seen))
    .where(presence.c.game_id == sa.bindparam("gid", type_=sa.String),
           presence.c.origin != sa.bindparam("origin", type_=sa.String))
    .group_by(presence.c.side)
)
#: :meth:`Store.set_presence` on PostgreSQL in one statement (its own
#: transaction): the seats held are written (``seen`` renewed), this
#: process's other rows of those games deleted, and each game announced
_PG_SET_PRESENCE = sa.text("""
WITH held AS (
    SELECT g AS game_id, s AS side
    FROM unnest(CAST(:held_games AS text[]), CAST(:held_sides AS text[])) AS t(g, s)
), gone AS (
    DELETE FROM presence AS p
    WHERE p.origin = CAST(:origin AS text) AND p.game_id = ANY(CAST(:ids AS text[]))
      AND NOT EXISTS (SELECT 1 FROM held AS h WHERE h.game_id = p.game_id AND h.side = p.side)
), added AS (
    INSERT INTO presence (game_id, side, origin, seen)
    SELECT game_id, side, CAST(:origin AS text), CAST(:seen AS bigint) FROM held
    ON CONFLICT (game_id, side, origin) DO UPDATE SET seen = EXCLUDED.seen
)
SELECT count(pg_notify(CAST(:channel AS text), CAST(:origin AS text) || ' ' || n.id || ' presence'))
FROM unnest(CAST(:ids AS text[])) WITH ORDINALITY AS n(id, k)
""")
_GAME_FIELDS = [c.name for c in games.columns]
_BOOLEAN_FIELDS = [c.name for c in games.columns if isinstance(c.type, sa.Boolean)]
_PG_LOAD = _pg_load()


class _PerThread:
    """Database connections of the store's own, one per thread (``local.conn``),
    closed together by :meth:`close`."""

    def __init__(self) -> None:
        self.local = threading.local()
        self.opened: list[Any] = []
        self.lock = threading.Lock()

    def keep(self, conn: Any) -> Any:
        """Make ``conn`` this thread's connection (closed by :meth:`close`)."""
        self.local.conn = conn
        with self.lock:
            self.opened.append(conn)
        return conn

    def close(self) -> None:
        """Close every connection opened (each thread's)."""
        with self.lock:
            for conn in self.opened:
                with contextlib.suppress(Exception):
                    conn.close()
            self.opened.clear()


class _Direct(_PerThread):
    """The hot path's statements (:data:`_PG_APPEND`, :data:`_PG_LOAD`, and
    for each new game or connection :data:`_PG_CREATE`, :data:`_PG_PRESENCE`
    and :data:`_PG_SET_PRESENCE`) run
    straight on psycopg, compiled once: SQLAlchemy's execution layer costs
    about 0.25 ms of CPU a call (1 ms an insert of a game), three times the
    statement's own.  Each
    thread has an autocommit connection of its own, opened on first use and
    dropped when it fails; a call that fails on a connection opened before
    (the server restarted meanwhile) is tried once more on a new one: safe,
    since an action is stored only as its game's next one (a retry of one
    stored after all finds the count moved on)."""

    def __init__(self, engine: Engine) -> None:
        super().__init__()
        self.engine = engine
        self.sql: dict[int, tuple[str, dict[str, Any]]] = {}
        for stmt in (_PG_APPEND, _PG_LOAD, _PG_CREATE, _PG_PRESENCE, _PG_SET_PRESENCE):
            compiled = stmt.compile(dialect=engine.dialect)
            fixed = {k: v for k, v in compiled.construct_params(_check=False).items() if k.startswith("param_")}
            self.sql[id(stmt)] = (str(compiled), fixed)

    def first(self, stmt: sa.Select[Any], values: dict[str, Any]) -> tuple[Any, ...] | None:
        """The first row of ``stmt`` with ``values``."""
        rows = self.run(stmt, values, 1)
        return rows[0] if rows else None

    def run(self, stmt: Any, values: dict[str, Any], fetch: int = -1, retry: bool = True) -> list[tuple[Any, ...]]:
        """Run ``stmt`` with ``values``: its first ``fetch`` rows (``-1``: all;
        ``0``: none, a statement that returns none).  ``retry=False``: not
        tried again on a new connection (a statement that is not safe twice)."""
        sql, fixed = self.sql[id(stmt)]
        while True:
            conn: Any = getattr(self.local, "conn", None)
            fresh = conn is None or conn.closed
            if fresh:
                conn = self.keep(self.engine.dialect.dbapi.connect(  # type: ignore[union-attr]
                    self.engine.url.set(drivername="postgresql").render_as_string(hide_password=False),
                    autocommit=True, connect_timeout=CONNECT_TIMEOUT_S))
            try:
                with conn.cursor() as cur:
                    cur.execute(sql, {**fixed, **values})
                    if not fetch:
                        return []
                    rows: list[tuple[Any, ...]] = cur.fetchall() if fetch < 0 else cur.fetchmany(fetch)
                    return rows
            except Exception as exc:
                with contextlib.suppress(Exception):
                    conn.close()
                self.local.conn = None
                if (fresh or not retry
                        or not isinstance(exc, self.engine.dialect.dbapi.OperationalError)):  # type: ignore[union-attr]
                    raise


class _DirectSQLite(_PerThread):
    """The hot path on an SQLite file (an action, a game read) straight on
    :mod:`sqlite3`, its statements compiled once by SQLAlchemy: the
    execution layer's Python (0.3 ms a call) is what the store's thread
    then competes with the event loop for the GIL over, and under load it
    made every action wait its turn for it.  One connection per thread,
    with the store's pragmas; an action takes the write lock at once
    (``BEGIN IMMEDIATE``, waiting up to the busy timeout in its thread)."""

    def __init__(self, engine: Engine, path: str) -> None:
        super().__init__()
        self.path = path

        def compiled(stmt: Any) -> tuple[str, list[str], dict[str, Any]]:
            c = stmt.compile(dialect=engine.dialect)
            return str(c), list(c.positiontup or []), dict(c.construct_params(_check=False))

        self.update = compiled(_UPDATE_GAME)
        self.insert = compiled(actions.insert().values(
            game_id=sa.bindparam("game_id"), seq=sa.bindparam("seq"), token=sa.bindparam("token"),
            at=sa.bindparam("at")))
        self.row = compiled(games.select().where(games.c.id == sa.bindparam("gid")))
        self.tokens = compiled(
            sa.select(actions.c.token)
            .where(actions.c.game_id == sa.bindparam("gid"), actions.c.seq >= sa.bindparam("since"))
            .order_by(actions.c.seq))

    def _conn(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self.local, "conn", None)
        if conn is None:
            conn = self.keep(sqlite3.connect(self.path, isolation_level=None, check_same_thread=False))
            _sqlite_pragmas(conn, None)
        return conn

    @staticmethod
    def _params(stmt: tuple[str, list[str], dict[str, Any]], values: dict[str, Any]) -> list[Any]:
        _, order, fixed = stmt
        return [values[name] if name in values else fixed[name] for name in order]

    def append(self, values: dict[str, Any], action: dict[str, Any]) -> int | None:
        """Store an action in one transaction: ``None`` when stored, else
        the game's action count (``-1``: no such game), nothing stored."""
        conn = self._conn()
        conn.execute("BEGIN IMMEDIATE")
        try:
            updated = conn.execute(self.update[0], self._params(self.update, values)).rowcount
            if updated != 1:
                found = conn.execute("SELECT actions FROM games WHERE id = ?", (values["gid"],)).fetchone()
                conn.execute("ROLLBACK")
                return -1 if found is None else int(found[0])
            conn.execute(self.insert[0], self._params(self.insert, action))
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
            raise
        return None

    def load(self, game_id: str, since: int) -> tuple[dict[str, Any], list[str]] | None:
        """A game's row and its actions from ``since``, of one snapshot."""
        conn = self._conn()
        conn.execute("BEGIN")
        try:
            cur = conn.execute(self.row[0], self._params(self.row, {"gid": game_id}))
            row = cur.fetchone()
            if row is None:
                return None
            names = [d[0] for d in cur.description]
            got = conn.execute(self.tokens[0], self._params(self.tokens, {"gid": game_id, "since": since}))
            tokens = [t for (t,) in got]
        finally:
            conn.execute("COMMIT")
        return dict(zip(names, row, strict=True)), tokens


class SequenceError(Exception):
    """An action that is not the game's next one (or a game that is not stored)."""


def new_id(nbytes: int = 6) -> str:
    """A random URL-safe id (games) or, with more bytes, a secret token."""
    return secrets.token_urlsafe(nbytes)


@dataclass(slots=True)
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


def database_url(url_or_path: str) -> str:
    """The SQLAlchemy URL for ``--db``: a URL, or a path to an SQLite file.

    ``postgresql://`` and ``postgres://`` are mapped to psycopg 3.

    >>> database_url("postgresql://u@localhost/kamisado")
    'postgresql+psycopg://u@localhost/kamisado'
    >>> database_url("/tmp/games.db")
    'sqlite:////tmp/games.db'
    """
    for prefix in ("postgresql://", "postgres://"):
        if url_or_path.startswith(prefix):
            return "postgresql+psycopg://" + url_or_path[len(prefix) :]
    if "://" in url_or_path:
        return url_or_path
    return "sqlite:///" + str(Path(url_or_path).expanduser().absolute())


def default_database_url() -> str:
    """An SQLite file in the user's data directory (created when missing)."""
    import platformdirs

    folder = Path(platformdirs.user_data_dir("kamisado"))
    folder.mkdir(parents=True, exist_ok=True)
    return database_url(str(folder / "games.sqlite3"))


class SQLiteInUse(Exception):
    """Another process serves the same SQLite file."""


def lock_sqlite(url: str) -> Any:
    """For an SQLite file URL, hold an exclusive lock on ``FILE.lock`` for as
    long as the returned file stays open (the whole life of a server): one
    process per SQLite file, since the games in memory are each process's
    own (several processes need PostgreSQL).  ``None`` for any other
    database.  Raises :class:`SQLiteInUse` naming the process that holds it.
    The lock is the kernel's (``flock``): it goes when the holder dies,
    even on ``kill -9``."""
    import fcntl
    import os

    parsed = sa.engine.make_url(url)
    if parsed.get_backend_name() != "sqlite" or not parsed.database or parsed.database == ":memory:":
        return None
    path = Path(parsed.database).expanduser().absolute()
    handle = open(f"{path}.lock", "a+", encoding="ascii")  # noqa: SIM115 (held open on purpose)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.seek(0)
        holder = handle.read().strip() or "another process"
        handle.close()
        raise SQLiteInUse(
            f"the SQLite database {path} is in use by another kamisado web (process {holder});"
            " one process per SQLite file: stop it, choose another --db, or use PostgreSQL"
            " for several processes"
        ) from None
    handle.seek(0)
    handle.truncate()
    handle.write(str(os.getpid()))
    handle.flush()
    return handle


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    # FULL: the write-ahead log is synced at every commit, so an acknowledged
    # move survives a power cut, not only a killed process (docs/web.md has
    # what it costs)
    cur.execute("PRAGMA synchronous=FULL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA busy_timeout=5000")
    # checkpoints (which write and sync the database file) run in a thread of
    # their own, never inside the commit of a move
    cur.execute("PRAGMA wal_autocheckpoint=0")
    cur.close()


class _Checkpointer(threading.Thread):
    """Moves the SQLite write-ahead log into the database file every second."""

    def __init__(self, path: str) -> None:
        super().__init__(name="kamisado-wal-checkpoint", daemon=True)
        self.path = path
        self.stopping = threading.Event()

    def run(self) -> None:
        conn = sqlite3.connect(self.path, check_same_thread=False)
        try:
            while not self.stopping.wait(1.0):
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
            with contextlib.suppress(sqlite3.Error):
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            conn.close()


#: The PostgreSQL channel on which every change to a game is announced
#: (``NOTIFY``, sent with the change's own transaction, so delivered only
#: once it is committed): the payload is ``"ORIGIN GAME_ID KIND"``,
#: ``ORIGIN`` the :attr:`Store.origin` of the store that wrote it, ``KIND``
#: ``state`` (the game's row or actions) or ``presence`` (who is connected).
CHANNEL = "kamisado_games"
#: The channel of the lobby's changes: ``"ORIGIN changed"`` (the list
#: changed) or ``"ORIGIN started CHALLENGE GAME"`` (a challenge was accepted:
#: the process holding its poster's connection sends it ``started``).
LOBBY_CHANNEL = "kamisado_lobby"
_NOTIFY = sa.text("SELECT pg_notify(:channel, :payload)")
#: Threads running the database calls of a server (:meth:`Store.call`), and
#: so the connections it holds at once (``KAMISADO_DB_THREADS`` sets it for
#: PostgreSQL).  Few: the calls are short (an action is one statement on
#: PostgreSQL), and every thread running Python code takes the GIL from the
#: event loop; measured on 2 cores, 8 threads stalled the loop for 50-150 ms
#: at times (the threads queueing for the GIL), 2 did not.  An SQLite file
#: takes one writer at a time but reads beside it (WAL); an in-memory
#: database is one connection, used by one thread.
DB_THREADS = {"postgresql": 2, "sqlite": 2, "memory": 1}
#: Seconds to wait for a PostgreSQL connection before the call fails (a
#: database that is down fails what needs it quickly, see ``docs/web.md``).
CONNECT_TIMEOUT_S = 5

T = TypeVar("T")


class Store:
    """The game store over one database URL (see :func:`database_url`).

    ``shared``: whether several processes may serve this database (PostgreSQL;
    SQLite is one process's, see :func:`lock_sqlite`): then every change to
    a game is announced on :data:`CHANNEL` for the other processes, and
    ``origin`` (random, one per store) lets a process skip its own."""

    def __init__(self, url: str) -> None:
        self.url = database_url(url)
        self.shared = self.url.startswith("postgresql")
        self.origin = new_id(9)
        if self.url.startswith("sqlite"):
            memory = self.url in ("sqlite://", "sqlite:///:memory:")
            threads = DB_THREADS["memory" if memory else "sqlite"]
            self.engine: Engine = sa.create_engine(
                self.url,
                connect_args={"check_same_thread": False},
                poolclass=sa.pool.StaticPool if memory else None,
            )
            sa.event.listen(self.engine, "connect", _sqlite_pragmas)
        else:
            threads = int(os.environ.get("KAMISADO_DB_THREADS", DB_THREADS["postgresql"]))
            # no ping before each use (a round trip a call): a connection the
            # server dropped fails its call once, and the pool is renewed
            self.engine = sa.create_engine(
                self.url, pool_size=threads, max_overflow=threads,
                connect_args={"connect_timeout": CONNECT_TIMEOUT_S},
            )
        #: the hot path on PostgreSQL, straight on psycopg in autocommit (a
        #: single statement is its own transaction: no BEGIN, no COMMIT)
        self._direct = _Direct(self.engine) if self.shared else None
        #: the threads of :meth:`call` (one per pooled connection), made on first use
        self._thread_count = threads
        self._threads: ThreadPoolExecutor | None = None
        # the schema through its migrations: a database of an earlier version
        # is brought up to date, every game kept (kamisado.web.migrations)
        upgrade(self.engine)
        self._checkpointer: _Checkpointer | None = None
        #: the hot path on an SQLite file, straight on sqlite3
        self._lite: _DirectSQLite | None = None
        database = self.engine.url.database
        if self.url.startswith("sqlite") and database and database != ":memory:":
            self._checkpointer = _Checkpointer(database)
            self._checkpointer.start()
            self._lite = _DirectSQLite(self.engine, database)

    async def call(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        """Run ``fn(*args, **kwargs)`` (a method of this store, or anything
        else that uses its database) in one of the store's threads: the
        server's event loop never waits on the database, so a slow or
        unreachable database delays only what needs it.

        >>> import asyncio
        >>> store = Store("sqlite://")
        >>> store.create(GameRow.new("g2", target=1))
        >>> asyncio.run(store.call(store.load, "g2"))[1]
        []
        """
        if self._threads is None:
            self._threads = ThreadPoolExecutor(self._thread_count, thread_name_prefix="kamisado-db")
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._threads, functools.partial(fn, *args, **kwargs))

    def _announce(self, conn: sa.Connection, game_id: str, kind: str = "state") -> None:
        """Announce a change to a game to the other processes (PostgreSQL:
        delivered when the transaction commits; nothing on SQLite):
        ``kind`` ``state`` (its row or actions) or ``presence``."""
        if self.shared:
            conn.execute(_NOTIFY, {"channel": CHANNEL, "payload": f"{self.origin} {game_id} {kind}"})

    def listen_conninfo(self) -> str:
        """The libpq connection string of this database (for ``LISTEN``)."""
        return self.engine.url.set(drivername="postgresql").render_as_string(hide_password=False)

    def close(self) -> None:
        """Close every pooled connection (and checkpoint an SQLite file),
        once the calls in the store's threads are done."""
        if self._threads is not None:
            self._threads.shutdown(wait=True)
            self._threads = None
        if self.shared:  # this process's connections end with it
            with contextlib.suppress(Exception), self.engine.begin() as conn:
                conn.execute(presence.delete().where(presence.c.origin == self.origin))
                conn.execute(challenges.delete().where(challenges.c.origin == self.origin))
                self.announce_lobby(conn, "changed")
        if self._lite is not None:
            self._lite.close()
        if self._checkpointer is not None:
            self._checkpointer.stopping.set()
            self._checkpointer.join(timeout=10)
            self._checkpointer = None
        if self._direct is not None:
            self._direct.close()
        self.engine.dispose()

    def create(self, row: GameRow, tokens: list[str] | None = None) -> None:
        """Insert a new game, with its first actions if given (committed on return)."""
        now = time.time()
        tokens = tokens or []
        if self._direct is not None and not tokens:  # one statement, committed on return
            self._direct.run(_PG_CREATE, {**asdict(row), "actions": 0}, 0, retry=False)
            return
        with self.engine.begin() as conn:
            conn.execute(games.insert().values(**{**asdict(row), "actions": len(tokens)}))
            if tokens:
                conn.execute(
                    actions.insert(),
                    [{"game_id": row.id, "seq": i, "token": t, "at": now} for i, t in enumerate(tokens)],
                )

    def append(
        self,
        game_id: str,
        seq: int,
        token: str,
        *,
        state: str,
        points: tuple[int, int],
        clock: ClockState | None = None,
        ended: str | None = None,
        to_act: str | None = None,
    ) -> None:
        """Store action ``seq`` of a game and the state it reached, in one
        committed transaction.  ``seq`` must be the game's next one (its
        action count): anything else raises :class:`SequenceError` and
        stores nothing, so a game can neither fork nor have a gap.  The
        game's row is updated first, guarded by its count, which also makes
        two writers of the same ``seq`` wait for each other (the loser finds
        the count moved on)."""
        now = time.time()
        if self.shared:
            self._append_pg(game_id, seq, token, now, state, points, clock, ended, to_act)
            return
        if self._lite is not None:
            count = self._lite.append(
                self._game_values(game_id, seq, now, state, points, clock, ended, to_act),
                {"game_id": game_id, "seq": seq, "token": token, "at": now})
            if count == -1:
                raise SequenceError(f"action {seq} of game {game_id!r}: no such game")
            if count is not None:
                raise SequenceError(f"action {seq} of game {game_id!r}: the game has {count} actions")
            return
        with self.engine.begin() as conn:
            updated = conn.execute(
                _UPDATE_GAME, self._game_values(game_id, seq, now, state, points, clock, ended, to_act))
            if updated.rowcount != 1:
                count = conn.execute(
                    sa.select(games.c.actions).where(games.c.id == game_id)
                ).scalar()
                if count is None:
                    raise SequenceError(f"action {seq} of game {game_id!r}: no such game")
                raise SequenceError(
                    f"action {seq} of game {game_id!r}: the game has {count} actions"
                )
            conn.execute(
                _INSERT_ACTION, {"game_id": game_id, "seq": seq, "token": token, "at": now}
            )
            self._announce(conn, game_id)

    @staticmethod
    def _game_values(
        game_id: str, seq: int, now: float, state: str, points: tuple[int, int],
        clock: ClockState | None, ended: str | None, to_act: str | None,
    ) -> dict[str, Any]:
        return {
            "gid": game_id,
            "seq": seq,
            "updated": now,
            "state": state,
            "black_points": points[0],
            "gold_points": points[1],
            "actions": seq + 1,
            "black_ms": None if clock is None else clock.b,
            "gold_ms": None if clock is None else clock.g,
            "clock_running": None if clock is None else clock.running,
            "clock_since": None if clock is None else clock.since,
            "clock_deadline": None if clock is None else clock.deadline(),
            "ended": ended,
            "to_act": to_act,
        }

    def _append_pg(
        self, game_id: str, seq: int, token: str, now: float, state: str, points: tuple[int, int],
        clock: ClockState | None, ended: str | None, to_act: str | None,
    ) -> None:
        """:meth:`append` on PostgreSQL: one statement (:func:`_pg_append`)."""
        values = self._game_values(game_id, seq, now, state, points, clock, ended, to_act)
        values.update(token=token, at=now, channel=CHANNEL, payload=f"{self.origin} {game_id} state")
        assert self._direct is not None
        row = self._direct.first(_PG_APPEND, values)
        if row is None or row[0] != 1:
            with self.engine.connect() as conn:
                count = conn.execute(sa.select(games.c.actions).where(games.c.id == game_id)).scalar()
            if count is None:
                raise SequenceError(f"action {seq} of game {game_id!r}: no such game")
            raise SequenceError(f"action {seq} of game {game_id!r}: the game has {count} actions")

    def load(self, game_id: str, since: int = 0) -> tuple[GameRow, list[str]] | None:
        """A game's row and its actions in order (from action ``since``:
        what a process holding the first ``since`` lacks), or ``None`` when
        unknown."""
        if self.shared:  # one statement: one round trip, one snapshot
            assert self._direct is not None
            found = self._direct.first(_PG_LOAD, {"gid": game_id, "since": since})
            if found is None:
                return None
            *fields, got = found
            return GameRow(**dict(zip(_GAME_FIELDS, fields, strict=True))), list(got or [])
        if self._lite is not None:
            lite = self._lite.load(game_id, since)
            if lite is None:
                return None
            stored, got_tokens = lite
            for name in _BOOLEAN_FIELDS:  # stored as 0 and 1
                stored[name] = bool(stored[name])
            return GameRow(**stored), got_tokens
        with self.engine.connect() as conn:
            row = conn.execute(games.select().where(games.c.id == game_id)).mappings().first()
            if row is None:
                return None
            tokens = conn.execute(
                sa.select(actions.c.token)
                .where(actions.c.game_id == game_id, actions.c.seq >= since)
                .order_by(actions.c.seq)
            ).scalars()
            return GameRow(**dict(row)), list(tokens)

    def overdue(self, now_ms: int, limit: int = 100) -> list[str]:
        """Games whose running clock's flag fell before ``now_ms`` (ms since
        the epoch), most overdue first: the server ends them on time."""
        with self.engine.connect() as conn:
            return list(conn.execute(
                sa.select(games.c.id)
                .where(games.c.clock_deadline < now_ms, games.c.state != "over")
                .order_by(games.c.clock_deadline)
                .limit(limit)
            ).scalars())

    def claim(self, game_id: str, side: int, player: str, name: str = "") -> str | None:
        """Bind an unclaimed seat (``side`` 0 Black, 1 Gold) to ``player``, at
        most once: the row is updated only while the seat has no player, so
        of two claims at once one wins.  ``name``, when given, becomes the
        seat's name if it has none.  Returns the seat's player afterwards
        (``player`` when the claim won, else whoever holds it)."""
        column = ("black_player", "gold_player")[side]
        seat_name = ("black_name", "gold_name")[side]
        col = games.c[column]
        values: dict[str, Any] = {column: player}
        if name:
            values[seat_name] = sa.case((games.c[seat_name] == "", name), else_=games.c[seat_name])
        with self.engine.begin() as conn:
            if conn.execute(games.update().where(games.c.id == game_id, col.is_(None)).values(**values)).rowcount:
                self._announce(conn, game_id)
            holder: str | None = conn.execute(
                sa.select(col).where(games.c.id == game_id)
            ).scalar()
            return holder

    def set_offer(self, game_id: str, seq: int, offer: str | None) -> bool:
        """Store the offer pending in a game (``takeback-b``, ``rematch-g``;
        ``None``: none), only while the game is at action ``seq`` (an offer
        is about the game as its sender saw it).  Returns whether it was stored."""
        with self.engine.begin() as conn:
            done = conn.execute(
                games.update()
                .where(games.c.id == game_id, games.c.actions == seq)
                .values(offer=offer)
            ).rowcount
            if done:
                self._announce(conn, game_id)
        return done == 1

    def set_clock(self, game_id: str, seq: int, clock: ClockState) -> bool:
        """Store a clock's state between actions (a computer-against-computer
        game pausing or going on), only while the game is at action ``seq``."""
        with self.engine.begin() as conn:
            done = conn.execute(
                games.update()
                .where(games.c.id == game_id, games.c.actions == seq)
                .values(
                    black_ms=clock.b, gold_ms=clock.g, clock_running=clock.running,
                    clock_since=clock.since, clock_deadline=clock.deadline(),
                )
            ).rowcount
            if done:
                self._announce(conn, game_id)
        return done == 1

    def create_rematch(self, game_id: str, row: GameRow) -> str | None:
        """Store ``row`` as the rematch of game ``game_id``, at most once: in
        one transaction the old game takes the new id only while it has no
        rematch, and only then is the new game inserted.  Returns the
        rematch's id (``row.id``, or the one made first; ``None`` when there
        is no such game)."""
        with self.engine.begin() as conn:
            done = conn.execute(
                games.update()
                .where(games.c.id == game_id, games.c.rematch.is_(None))
                .values(rematch=row.id, offer=None)
            ).rowcount
            if done == 1:
                conn.execute(games.insert().values(**asdict(row)))
                self._announce(conn, game_id)
                return row.id
            made: str | None = conn.execute(
                sa.select(games.c.rematch).where(games.c.id == game_id)
            ).scalar()
            return made

    def take_turn(self, game_id: str, seq: int, until_ms: int, now_ms: int) -> bool:
        """Take the lease on the computer's move at action ``seq`` of a game
        until ``until_ms``: granted when nobody holds it, this store holds
        it, or its holder's lease ran out (a process that died thinking).
        Every action clears it.  Always granted on a database only one
        process serves (SQLite).  A lease granted is announced, so the
        other processes show the computer thinking."""
        if not self.shared:
            return True
        free = sa.or_(games.c.thinker.is_(None), games.c.thinker == self.origin,
                      games.c.think_until < now_ms)
        with self.engine.begin() as conn:
            done = conn.execute(
                games.update()
                .where(games.c.id == game_id, games.c.actions == seq, free)
                .values(thinker=self.origin, think_until=until_ms)
            ).rowcount
            if done == 1:
                self._announce(conn, game_id)
        return done == 1

    def set_presence(self, held: dict[str, tuple[bool, bool]], now_ms: int) -> None:
        """Say which seats of some games this process has connections
        holding (``game id -> (black held, gold held)``; shared databases
        only), in one transaction (one statement: :data:`_PG_SET_PRESENCE`),
        and announce each change."""
        if self._direct is None or not held:
            return
        pairs = [(game_id, "bg"[s]) for game_id, sides in held.items() for s in (0, 1) if sides[s]]
        self._direct.run(_PG_SET_PRESENCE, {
            "held_games": [g for g, _ in pairs], "held_sides": [side for _, side in pairs],
            "ids": list(held), "origin": self.origin, "seen": now_ms, "channel": CHANNEL}, 1)

    def renew_presence(self, now_ms: int) -> None:
        """Renew this process's presence rows and challenges (it lives)."""
        if not self.shared:
            return
        with self.engine.begin() as conn:
            conn.execute(presence.update().where(presence.c.origin == self.origin).values(seen=now_ms))
            conn.execute(challenges.update().where(challenges.c.origin == self.origin).values(seen=now_ms))

    # -- the lobby (several processes) ------------------------------------------

    def announce_lobby(self, conn: sa.Connection, what: str) -> None:
        """Announce a change of the lobby to the other processes."""
        conn.execute(_NOTIFY, {"channel": LOBBY_CHANNEL, "payload": f"{self.origin} {what}"})

    def add_challenge(self, row: dict[str, Any]) -> None:
        """Store a challenge this process holds the poster's connection of."""
        with self.engine.begin() as conn:
            conn.execute(challenges.insert().values(origin=self.origin, **row))
            self.announce_lobby(conn, "changed")

    def remove_challenges(self, ids: list[str]) -> None:
        """Withdraw challenges (their poster left, or took them back)."""
        if not ids:
            return
        with self.engine.begin() as conn:
            conn.execute(challenges.delete().where(challenges.c.id.in_(ids)))
            self.announce_lobby(conn, "changed")

    def take_challenge(self, challenge_id: str) -> dict[str, Any] | None:
        """Take a challenge out of the lobby to accept it, at most once over
        every process (``DELETE ... RETURNING``); ``None`` when it is gone."""
        with self.engine.begin() as conn:
            row = conn.execute(
                challenges.delete().where(challenges.c.id == challenge_id).returning(*challenges.c)
            ).mappings().first()
            if row is not None:
                self.announce_lobby(conn, "changed")
            return None if row is None else dict(row)

    def started(self, challenge_id: str, game_id: str) -> None:
        """Tell the process holding a challenge's poster that it was accepted."""
        with self.engine.begin() as conn:
            self.announce_lobby(conn, f"started {challenge_id} {game_id}")

    def open_challenges(self, since_ms: int) -> list[dict[str, Any]]:
        """Every process's challenges whose process renewed them since
        ``since_ms`` (a dead process's age out), oldest first."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                challenges.select().where(challenges.c.seen >= since_ms).order_by(challenges.c.created)
            ).mappings()
            return [dict(r) for r in rows]

    def presence_elsewhere_of(self, game_ids: list[str]) -> dict[str, dict[str, int]]:
        """:meth:`presence_elsewhere` of many games in one query."""
        if not self.shared or not game_ids:
            return {}
        out: dict[str, dict[str, int]] = {}
        with self.engine.connect() as conn:
            rows = conn.execute(
                sa.select(presence.c.game_id, presence.c.side, sa.func.max(presence.c.seen))
                .where(presence.c.game_id.in_(game_ids), presence.c.origin != self.origin)
                .group_by(presence.c.game_id, presence.c.side)
            ).all()
        for game_id, side, seen in rows:
            out.setdefault(game_id, {})[side] = int(seen)
        return out

    def presence_elsewhere(self, game_id: str) -> dict[str, int]:
        """When each seat of a game was last seen held through another
        process: side letter -> ms (renewed while that process lives)."""
        if self._direct is None:
            return {}
        rows = self._direct.run(_PG_PRESENCE, {"gid": game_id, "origin": self.origin})
        return {side: int(seen) for side, seen in rows}

    def computer_to_act(self, limit: int = 1000) -> list[str]:
        """Ongoing games between a person and the computer whose action the
        game waits for is the computer's (the server starts them thinking
        when it starts: the person may be waiting with their clock stopped)."""
        waits_b = sa.and_(games.c.to_act == "b", games.c.black != "human", games.c.gold == "human")
        waits_g = sa.and_(games.c.to_act == "g", games.c.gold != "human", games.c.black == "human")
        with self.engine.connect() as conn:
            return list(conn.execute(
                sa.select(games.c.id)
                .where(games.c.state != "over", sa.or_(waits_b, waits_g))
                .order_by(games.c.updated)
                .limit(limit)
            ).scalars())

    # -- ratings ---------------------------------------------------------------

    def ratings_of(self, player_ids: list[str], speed: str) -> dict[str, Rating]:
        """The ratings of some players for a speed (a player with no rated
        game yet is not in the answer: it starts at ``Rating()``)."""
        if not player_ids:
            return {}
        with self.engine.connect() as conn:
            rows = conn.execute(
                ratings.select().where(ratings.c.player.in_(player_ids), ratings.c.speed == speed)
            ).mappings()
            return {r["player"]: Rating(r["rating"], r["rd"], r["vol"], r["games"]) for r in rows}

    def player_ratings(self, player: str) -> dict[str, Rating]:
        """A player's rating for each speed it has played rated games at."""
        with self.engine.connect() as conn:
            rows = conn.execute(ratings.select().where(ratings.c.player == player)).mappings()
            return {r["speed"]: Rating(r["rating"], r["rd"], r["vol"], r["games"]) for r in rows}

    def rating_history(self, player: str, limit: int = 500) -> list[dict[str, Any]]:
        """A player's rating after each rated game, oldest first:
        ``{"speed", "at", "rating", "rd", "change", "game"}``."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                rating_history.select()
                .where(rating_history.c.player == player)
                .order_by(rating_history.c.at.desc())
                .limit(limit)
            ).mappings()
            out = [
                {"speed": r["speed"], "at": r["at"], "rating": r["rating"], "rd": r["rd"],
                 "change": r["change"], "game": r["game_id"]}
                for r in rows
            ]
        return out[::-1]

    def rating_changes(self, game_id: str) -> dict[str, tuple[float, float]]:
        """How a rated game changed its players' ratings: player -> (rating
        after, change); empty until it was rated."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                rating_history.select().where(rating_history.c.game_id == game_id)
            ).mappings()
            return {r["player"]: (r["rating"], r["change"]) for r in rows}

    def rate(self, game_id: str, speed: str, winner: str, loser: str) -> bool:
        """Update two players' ratings for a rated game ``winner`` won, in one
        transaction, at most once per game: the history rows' key
        ``(player, game_id)`` refuses a second update (then nothing changes
        and ``False`` is returned)."""
        now = time.time()
        try:
            with self.engine.begin() as conn:
                rows = conn.execute(
                    ratings.select().where(
                        ratings.c.player.in_([winner, loser]), ratings.c.speed == speed
                    ).with_for_update()
                ).mappings()
                before = {r["player"]: Rating(r["rating"], r["rd"], r["vol"], r["games"]) for r in rows}
                old_w, old_l = before.get(winner, Rating()), before.get(loser, Rating())
                new_w, new_l = rate_game(old_w, old_l)
                for player, old, new in ((winner, old_w, new_w), (loser, old_l, new_l)):
                    conn.execute(rating_history.insert().values(
                        player=player, game_id=game_id, speed=speed, at=now,
                        rating=new.rating, rd=new.rd, change=new.rating - old.rating,
                    ))
                    values = {"rating": new.rating, "rd": new.rd, "vol": new.vol,
                              "games": new.games, "updated": now}
                    if player in before:
                        conn.execute(ratings.update().where(
                            ratings.c.player == player, ratings.c.speed == speed).values(**values))
                    else:
                        conn.execute(ratings.insert().values(player=player, speed=speed, **values))
        except sa.exc.IntegrityError:
            return False  # rated already (by this server or another)
        return True

    def games_public(self, player: str, limit: int = 50) -> list[GameRow]:
        """A player's online games (what its player page shows), newest first."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                games.select()
                .where(sa.or_(games.c.black_player == player, games.c.gold_player == player),
                       games.c.online.is_(True))
                .order_by(games.c.updated.desc())
                .limit(limit)
            ).mappings()
            return [GameRow(**dict(r)) for r in rows]

    def games_of(self, player: str, limit: int = 200) -> list[GameRow]:
        """The games a player holds a seat of, most recently updated first."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                games.select()
                .where(sa.or_(games.c.black_player == player, games.c.gold_player == player))
                .order_by(games.c.updated.desc())
                .limit(limit)
            ).mappings()
            return [GameRow(**dict(r)) for r in rows]

    def live(self, limit: int = 50) -> list[GameRow]:
        """Ongoing games (not over), most recently updated first."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                games.select()
                .where(games.c.state != "over")
                .order_by(games.c.updated.desc())
                .limit(limit)
            ).mappings()
            return [GameRow(**dict(r)) for r in rows]

    def move_games(self, old: str, new: str) -> int:
        """Give every seat ``old`` holds to ``new`` (a player signing in
        brings the games played anonymously); returns the seats moved."""
        moved = 0
        with self.engine.begin() as conn:
            for col in (games.c.black_player, games.c.gold_player):
                moved += conn.execute(
                    games.update().where(col == old).values({col.name: new})
                ).rowcount
        return moved

    def setting(self, name: str, make: Callable[[], str]) -> str:
        """A stored setting; made by ``make`` and stored when missing (when
        two servers make it at once, the first stored wins)."""
        query = sa.select(settings.c.value).where(settings.c.name == name)
        with self.engine.connect() as conn:
            value: str | None = conn.execute(query).scalar()
        if value is not None:
            return value
        with contextlib.suppress(sa.exc.IntegrityError), self.engine.begin() as conn:
            conn.execute(settings.insert().values(name=name, value=make()))
        with self.engine.connect() as conn:
            stored: str = conn.execute(query).scalar_one()
            return stored

    def list(self, limit: int = 50) -> list[GameRow]:
        """The most recently updated games, newest first."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                games.select().order_by(games.c.updated.desc()).limit(limit)
            ).mappings()
            return [GameRow(**dict(r)) for r in rows]
