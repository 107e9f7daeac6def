"""Saved games: every action of every game, in SQLite or PostgreSQL.

The tables are :mod:`kamisado.web.store.schema` (the same on both databases; made
and changed only by the Alembic migrations in :mod:`kamisado.web.store.migrations`,
run when a store opens; see ``docs/web.md``), a game's row a
:class:`GameRow`.  The :class:`Store` runs every call on one code path per
database (:mod:`kamisado.web.store.database`): PostgreSQL straight on psycopg,
SQLite straight on :mod:`sqlite3` (a file, or an in-memory database on its
one connection); its statements are built with SQLAlchemy Core and compare
match states by name (:data:`kamisado.rules.match.OVER`).  The calls only
several processes on one database need (presence, the computer's leases,
the lobby, the announcements) are :class:`kamisado.web.store.sharing.SharedCalls`.

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
from dataclasses import asdict
from pathlib import Path
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlalchemy.sql.expression import ClauseElement

from kamisado.rules.match import OVER
from kamisado.web.basics.clocks import ClockState
from kamisado.web.store.database import (
    CONNECT_TIMEOUT_S,
    Checkpointer,
    Database,
    PostgreSQL,
    SQLite,
    sqlite_pragmas,
)
from kamisado.web.store.migrations import upgrade
from kamisado.web.store.moderation_calls import ModerationCalls
from kamisado.web.store.player_calls import PlayerCalls
from kamisado.web.store.schema import (
    GameRow,
    actions,
    challenges,
    games,
    metadata,
    players,
    presence,
    rating_history,
    ratings,
    settings,
)
from kamisado.web.store.sharing import CHANNEL, LOBBY_CHANNEL, PG_KEPT, SharedCalls
from kamisado.web.store.sharing import KEPT as SHARED_KEPT
from kamisado.web.store.side_calls import CHAT_KEPT, SideCalls
from kamisado.web.store.tournament_calls import TournamentCalls

__all__ = [
    "CHANNEL",
    "LOBBY_CHANNEL",
    "GameRow",
    "SQLiteInUse",
    "SequenceError",
    "Store",
    "actions",
    "challenges",
    "database_url",
    "default_database_url",
    "games",
    "lock_sqlite",
    "metadata",
    "new_id",
    "players",
    "presence",
    "rating_history",
    "ratings",
    "settings",
]

# built once: the statements of every action, compiled once per store
# (:meth:`kamisado.web.store.database.Database.keep`)
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
_GAME_ROW = games.select().where(games.c.id == sa.bindparam("gid"))
_TOKENS = (
    sa.select(actions.c.token)
    .where(actions.c.game_id == sa.bindparam("gid"), actions.c.seq >= sa.bindparam("since"))
    .order_by(actions.c.seq)
)
_ACTION_COUNT = sa.select(games.c.actions).where(games.c.id == sa.bindparam("gid"))


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
_PG_LOAD = _pg_load()
#: A new game's row, every column given (on the event loop: :meth:`Store.create_async`).
_INSERT_GAME = games.insert()
#: what readiness reads (``GET /readyz``): one row of the games, if any
_PING = sa.select(games.c.id).limit(1)
_GAME_FIELDS = [c.name for c in games.columns]
#: Ongoing games whose running clock's flag fell before ``now`` (looked up every second).
_OVERDUE = (
    sa.select(games.c.id)
    .where(games.c.clock_deadline < sa.bindparam("now"), games.c.state != OVER)
    .order_by(games.c.clock_deadline)
    .limit(sa.bindparam("limit"))
)
#: The ``settings`` rows of the clocks' outages (docs/web.md, "Clocks"):
#: when a server last reached the store (ms, renewed every second by each
#: server: :meth:`Store.keep_alive`), and when the clocks were last moved
#: forward over an outage (ms; ``0``: never).
ALIVE = "alive"
CLOCKS_MOVED = "clocks_moved"
_ALIVE_ROWS = (
    sa.select(settings.c.name, settings.c.value)
    .where(settings.c.name.in_([ALIVE, CLOCKS_MOVED]))
    .with_for_update()
)
_SET_SETTING = settings.update().where(settings.c.name == sa.bindparam("n")).values(value=sa.bindparam("v"))
_LAST = sa.bindparam("last", type_=sa.BigInteger)
_NOW = sa.bindparam("now", type_=sa.BigInteger)
#: The time a running clock could not be used since ``last`` (the outage's
#: start, or its own start when it began later) up to ``now``.
_AWAY = _NOW - sa.case((games.c.clock_since > _LAST, games.c.clock_since), else_=_LAST)
#: Every running clock moved forward over an outage from ``last`` to
#: ``now``: its ``since`` and its deadline by the time it was away.  A clock
#: whose flag had fallen before the outage began is left to fall.
_GIVE_BACK = (
    games.update()
    .where(games.c.clock_running.is_not(None), games.c.state != OVER,
           games.c.clock_deadline >= _LAST, games.c.clock_since < _NOW)
    .values(clock_since=games.c.clock_since + _AWAY, clock_deadline=games.c.clock_deadline + _AWAY)
)


_KEPT: tuple[ClauseElement, ...] = (
    _INSERT_ACTION, _UPDATE_GAME, _GAME_ROW, _TOKENS, _ACTION_COUNT, _PG_APPEND, _PG_LOAD, _OVERDUE,
    _INSERT_GAME, _PING, _ALIVE_ROWS, _SET_SETTING, _GIVE_BACK, *CHAT_KEPT, *SHARED_KEPT,
)


class SequenceError(Exception):
    """An action that is not the game's next one (or a game that is not stored)."""


def new_id(nbytes: int = 6) -> str:
    """A random URL-safe id (games) or, with more bytes, a secret token."""
    return secrets.token_urlsafe(nbytes)


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


#: Threads running the database calls of a server (:meth:`Store.call`), and
#: so the connections it holds at once (``KAMISADO_DB_THREADS`` sets it for
#: PostgreSQL).  Few: the calls are short (an action is one statement on
#: PostgreSQL), and every thread running Python code takes the GIL from the
#: event loop; measured on 2 cores, 8 threads stalled the loop for 50-150 ms
#: at times (the threads queueing for the GIL), 2 did not.  An SQLite file
#: takes one writer at a time but reads beside it (WAL); an in-memory
#: database is one connection, used by one thread.
DB_THREADS = {"postgresql": 2, "sqlite": 2, "memory": 1}

#: The newest schema, made once a process by the migrations in an in-memory
#: SQLite database (with the engine that made it, kept so its connection
#: stays open): a new SQLite database starts as a copy of it (sqlite3's
#: backup, a millisecond), which the migrations then find at their head,
#: instead of running every migration again (some 50 ms a database).
_schema: tuple[sqlite3.Connection, Engine] | None = None
_schema_lock = threading.Lock()


def _copy_schema(target: sqlite3.Connection) -> None:
    """Write the newest schema (and what the migrations load: the puzzles)
    into ``target``, a new, empty SQLite database, before anything else
    opens it; see :data:`_schema`."""
    global _schema
    with _schema_lock:
        if _schema is None:
            conn = sqlite3.connect(":memory:", check_same_thread=False)
            engine = sa.create_engine("sqlite://", creator=lambda: conn, poolclass=sa.pool.StaticPool)
            upgrade(engine)
            _schema = conn, engine
        _schema[0].backup(target)


def _new_sqlite_file(path: str) -> None:
    """Give a SQLite database file that does not exist yet (or is empty) the
    newest schema (:func:`_copy_schema`); an existing one is left alone (its
    migrations bring it up to date)."""
    if os.path.exists(path) and os.path.getsize(path) > 0:
        return
    target = sqlite3.connect(path)
    try:
        _copy_schema(target)
    finally:
        target.close()

T = TypeVar("T")


class Store(PlayerCalls, SideCalls, SharedCalls, ModerationCalls, TournamentCalls):
    """The game store over one database URL (see :func:`database_url`).

    Every call runs on the database's one code path
    (:mod:`kamisado.web.store.database`): PostgreSQL on psycopg, SQLite on
    :mod:`sqlite3`; an in-memory SQLite database (``sqlite://``) is one
    connection, which SQLAlchemy's :attr:`engine` (the migrations, the
    players' accounts) shares.

    ``shared``: whether several processes may serve this database (PostgreSQL;
    SQLite is one process's, see :func:`lock_sqlite`): then every change to
    a game is announced on :data:`CHANNEL` for the other processes, and
    ``origin`` (random, one per store) lets a process skip its own."""

    def __init__(self, url: str) -> None:
        self.url = database_url(url)
        self.shared = self.url.startswith("postgresql")
        self.origin = new_id(9)
        #: told how long each call took, ``(method, seconds)`` (the server's
        #: metrics: :meth:`kamisado.web.basics.metrics.Metrics.stored`)
        self.on_call: Callable[[str, float], None] | None = None
        self._checkpointer: Checkpointer | None = None
        #: whether the rows of :meth:`keep_alive` are known to be there
        self._alive_rows = False
        self._pg: PostgreSQL | None = None
        self._db: Database
        if self.url.startswith("sqlite"):
            memory = self.url in ("sqlite://", "sqlite:///:memory:")
            threads = DB_THREADS["memory" if memory else "sqlite"]
            if memory:
                # one connection, the store's and SQLAlchemy's (the default,
                # legacy, transaction control SQLAlchemy expects: the store
                # begins and ends its own transactions explicitly)
                conn = sqlite3.connect(":memory:", check_same_thread=False)
                _copy_schema(conn)
                sqlite_pragmas(conn)
                self.engine: Engine = sa.create_engine(
                    "sqlite://", creator=lambda: conn, poolclass=sa.pool.StaticPool)
                self._db = SQLite(self.engine.dialect, None, conn)
            else:
                self.engine = sa.create_engine(self.url, connect_args={"check_same_thread": False})
                sa.event.listen(self.engine, "connect", sqlite_pragmas)
                assert self.engine.url.database is not None
                _new_sqlite_file(self.engine.url.database)
                self._db = SQLite(self.engine.dialect, self.engine.url.database)
        else:
            threads = int(os.environ.get("KAMISADO_DB_THREADS", DB_THREADS["postgresql"]))
            # the migrations' and the players'
            self.engine = sa.create_engine(
                self.url, pool_size=threads, max_overflow=threads,
                connect_args={"connect_timeout": CONNECT_TIMEOUT_S},
            )
            self._db = self._pg = PostgreSQL(self.engine.dialect, self.listen_conninfo())
            # a kept connection the server ended meanwhile (a restart) is
            # replaced when taken, before a call is sent on it: the store's
            # own check (no round trip), in place of pool_pre_ping's SELECT 1
            sa.event.listen(self.engine, "checkout", self._pg_checkout)
        for stmt in _KEPT + (PG_KEPT if self._pg is not None else ()):
            self._db.keep(stmt)
        #: the threads of :meth:`call` (one per connection), made on first use
        self._thread_count = threads
        self._threads: ThreadPoolExecutor | None = None
        # the schema through its migrations: a database of an earlier version
        # is brought up to date, every game kept (kamisado.web.store.migrations)
        upgrade(self.engine)
        if self._pg is not None:  # the calls' connections, ready before the first call
            self._pg.warm(threads)
        database = self.engine.url.database
        if self.url.startswith("sqlite") and database and database != ":memory:":
            self._checkpointer = Checkpointer(database)
            self._checkpointer.start()

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
        start = time.perf_counter()
        try:
            return await loop.run_in_executor(self._threads, functools.partial(fn, *args, **kwargs))
        finally:
            if self.on_call is not None:
                self.on_call(getattr(fn, "__name__", "call"), time.perf_counter() - start)

    def _pg_checkout(self, dbapi_conn: Any, _record: Any, _proxy: Any) -> None:
        """SQLAlchemy's pool lends a connection: one found dead is replaced."""
        assert self._pg is not None
        if self._pg.stale(dbapi_conn):
            raise sa.exc.DisconnectionError("the connection was ended while it was kept")

    def _took(self, call: str, start: float) -> None:
        """Tell :attr:`on_call` how long a call on the event loop took."""
        if self.on_call is not None:
            self.on_call(call, time.perf_counter() - start)

    def listen_conninfo(self) -> str:
        """The libpq connection string of this database (for ``LISTEN``)."""
        return self.engine.url.set(drivername="postgresql").render_as_string(hide_password=False)

    def close(self) -> None:
        """Close every connection (and checkpoint an SQLite file), once the
        calls in the store's threads are done."""
        if self._threads is not None:
            self._threads.shutdown(wait=True)
            self._threads = None
        if self.shared:  # this process's connections end with it
            with contextlib.suppress(Exception), self._db.write() as tx:
                self.let_go_of_turns(tx)  # another process takes them over at once
                tx.run(presence.delete().where(presence.c.origin == self.origin))
                tx.run(challenges.delete().where(challenges.c.origin == self.origin))
                self.announce_lobby(tx, "changed")
        self._db.close()
        if self._checkpointer is not None:
            self._checkpointer.stopping.set()
            self._checkpointer.join(timeout=10)
            self._checkpointer = None
        self.engine.dispose()

    def create(self, row: GameRow, tokens: list[str] | None = None) -> None:
        """Insert a new game, with its first actions if given (committed on return)."""
        now = time.time()
        tokens = tokens or []
        with self._db.write() as tx:
            tx.run(games.insert().values(**{**asdict(row), "actions": len(tokens)}))
            if tokens:
                tx.run(_INSERT_ACTION,
                       [{"game_id": row.id, "seq": i, "token": t, "at": now} for i, t in enumerate(tokens)])

    async def create_async(self, row: GameRow, tokens: list[str] | None = None) -> None:
        """:meth:`create` from the event loop: a game with no actions yet on
        PostgreSQL is one statement on the loop's own connections (no
        thread hand-off); anything else in the store's threads."""
        if self._pg is None or tokens:
            await self.call(self.create, row, tokens)
            return
        start = time.perf_counter()
        try:
            await self._pg.rows_async(_INSERT_GAME, {**asdict(row), "actions": 0}, again=False)
        finally:
            self._took("create", start)

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
        the count moved on).  On PostgreSQL it is one statement
        (:func:`_pg_append`), announced; on SQLite the update and the
        insert, the write lock taken at once."""
        now = time.time()
        values = self._game_values(game_id, seq, now, state, points, clock, ended, to_act)
        if self._pg is not None:
            row = self._pg.first(_PG_APPEND, self._pg_append_values(values, token, now))
            if row is None or row[0] != 1:
                self._out_of_sequence(game_id, seq, self._action_count(game_id))
            return
        with self._db.write() as tx:
            if tx.run(_UPDATE_GAME, values).rowcount != 1:
                self._out_of_sequence(game_id, seq, tx.run(_ACTION_COUNT, {"gid": game_id}).scalar())
            tx.run(_INSERT_ACTION, {"game_id": game_id, "seq": seq, "token": token, "at": now})

    async def append_async(
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
        """:meth:`append` from the event loop: on PostgreSQL its one
        statement runs on the loop's own connections
        (:meth:`kamisado.web.store.database.PostgreSQL.first_async`, no thread
        hand-off); on SQLite in the store's threads (:meth:`call`).

        >>> import asyncio
        >>> store = Store("sqlite://")
        >>> store.create(GameRow.new("g3", target=1))
        >>> asyncio.run(store.append_async("g3", 0, "c1-c5", state="playing", points=(0, 0)))
        >>> store.load("g3")[1]
        ['c1-c5']
        """
        if self._pg is None:
            await self.call(self.append, game_id, seq, token, state=state, points=points,
                            clock=clock, ended=ended, to_act=to_act)
            return
        now = time.time()
        values = self._game_values(game_id, seq, now, state, points, clock, ended, to_act)
        start = time.perf_counter()
        try:
            row = await self._pg.first_async(_PG_APPEND, self._pg_append_values(values, token, now))
        finally:
            self._took("append", start)
        if row is None or row[0] != 1:
            count = await self.call(self._action_count, game_id)
            self._out_of_sequence(game_id, seq, count)

    def _pg_append_values(self, values: dict[str, Any], token: str, now: float) -> dict[str, Any]:
        """:data:`_PG_APPEND`'s values: the game's (:meth:`_game_values`),
        the action's, and the announcement's."""
        return {**values, "token": token, "at": now, "channel": CHANNEL,
                "payload": f"{self.origin} {values['gid']} state"}

    def _action_count(self, game_id: str) -> int | None:
        with self._db.read() as tx:
            count: int | None = tx.run(_ACTION_COUNT, {"gid": game_id}).scalar()
        return count

    @staticmethod
    def _out_of_sequence(game_id: str, seq: int, count: int | None) -> None:
        if count is None:
            raise SequenceError(f"action {seq} of game {game_id!r}: no such game")
        raise SequenceError(f"action {seq} of game {game_id!r}: the game has {count} actions")

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

    def load(self, game_id: str, since: int = 0) -> tuple[GameRow, list[str]] | None:
        """A game's row and its actions in order (from action ``since``:
        what a process holding the first ``since`` lacks), or ``None`` when
        unknown; row and actions of one snapshot."""
        if self._pg is not None:  # one statement: one round trip
            return self._pg_loaded(self._pg.first(_PG_LOAD, {"gid": game_id, "since": since}))
        with self._db.read() as tx:
            rows = tx.run(_GAME_ROW, {"gid": game_id}).mappings()
            if not rows:
                return None
            tokens = tx.run(_TOKENS, {"gid": game_id, "since": since}).scalars()
        return GameRow(**rows[0]), tokens

    async def load_async(self, game_id: str, since: int = 0) -> tuple[GameRow, list[str]] | None:
        """:meth:`load` from the event loop (PostgreSQL: its one statement on
        the loop's own connections; SQLite: in the store's threads)."""
        if self._pg is None:
            return await self.call(self.load, game_id, since)
        start = time.perf_counter()
        try:
            found = await self._pg.first_async(_PG_LOAD, {"gid": game_id, "since": since})
        finally:
            self._took("load", start)
        return self._pg_loaded(found)

    @staticmethod
    def _pg_loaded(found: tuple[Any, ...] | None) -> tuple[GameRow, list[str]] | None:
        """A game's row and actions from :data:`_PG_LOAD`'s row (``None``: no such game)."""
        if found is None:
            return None
        *fields, got = found
        return GameRow(**dict(zip(_GAME_FIELDS, fields, strict=True))), list(got or [])

    def ping(self) -> None:
        """Read from the database once (it answers: ``GET /readyz``)."""
        with self._db.read() as tx:
            tx.run(_PING)

    async def ping_async(self) -> None:
        """:meth:`ping` from the event loop (PostgreSQL: on the loop's own
        connections, so a database that does not answer holds none of the
        store's threads)."""
        if self._pg is None:
            await self.call(self.ping)
            return
        await self._pg.first_async(_PING, {})

    def overdue(self, now_ms: int, limit: int = 100) -> list[str]:
        """Games whose running clock's flag fell before ``now_ms`` (ms since
        the epoch), most overdue first: the server ends them on time."""
        with self._db.read() as tx:
            return tx.run(_OVERDUE, {"now": now_ms, "limit": limit}).scalars()

    def keep_alive(self, now_ms: int, outage_ms: int | None) -> tuple[int, int]:
        """Say that a server reaches the store at ``now_ms`` (each server
        does every second: the ``settings`` row :data:`ALIVE`), and give
        the players back the time of an outage.

        ``outage_ms``: the caller could not reach the store a while ago, or
        is starting up (``None``: neither).  Then, when no server has
        reached the store for longer than ``outage_ms`` (every server was
        stopped, or none could reach the store), nobody could move
        meanwhile: every running clock is moved forward by the time since
        (``since`` and its deadline, from the outage's start or from its
        own start when that came later), once, in this one transaction, and
        the other processes are told (``* clocks``).  Returns when the
        clocks were last moved forward (ms; 0: never: a process that saw a
        later one than it knew re-reads its games) and the time given back
        now (ms; 0: none, also when no clock was running)."""
        if not self._alive_rows:
            self.setting(ALIVE, lambda: str(now_ms))
            self.setting(CLOCKS_MOVED, lambda: "0")
            self._alive_rows = True
        given = 0
        with self._db.write() as tx:
            rows = dict(tx.run(_ALIVE_ROWS).rows)
            last, moved = int(rows[ALIVE]), int(rows[CLOCKS_MOVED])
            if (outage_ms is not None and now_ms - last > outage_ms
                    and tx.run(_GIVE_BACK, {"last": last, "now": now_ms}).rowcount):
                # (nothing to say, re-read or announce when no clock was running)
                given = now_ms - last
                moved = now_ms
                tx.run(_SET_SETTING, {"n": CLOCKS_MOVED, "v": str(moved)})
                self._announce(tx, "*", "clocks")
            if now_ms > last:
                tx.run(_SET_SETTING, {"n": ALIVE, "v": str(now_ms)})
        return moved, given

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
        with self._db.write() as tx:
            if tx.run(games.update().where(games.c.id == game_id, col.is_(None)).values(**values)).rowcount:
                self._announce(tx, game_id)
            holder: str | None = tx.run(sa.select(col).where(games.c.id == game_id)).scalar()
            return holder

    def set_offer(self, game_id: str, seq: int, offer: str | None) -> bool:
        """Store the offer pending in a game (``takeback-b``, ``rematch-g``;
        ``None``: none), only while the game is at action ``seq`` (an offer
        is about the game as its sender saw it).  Returns whether it was stored."""
        with self._db.write() as tx:
            done = tx.run(
                games.update().where(games.c.id == game_id, games.c.actions == seq).values(offer=offer)
            ).rowcount
            if done:
                self._announce(tx, game_id)
        return done == 1

    def set_clock(self, game_id: str, seq: int, clock: ClockState) -> bool:
        """Store a clock's state between actions (a computer-against-computer
        game pausing or going on), only while the game is at action ``seq``."""
        with self._db.write() as tx:
            done = tx.run(
                games.update()
                .where(games.c.id == game_id, games.c.actions == seq)
                .values(
                    black_ms=clock.b, gold_ms=clock.g, clock_running=clock.running,
                    clock_since=clock.since, clock_deadline=clock.deadline(),
                )
            ).rowcount
            if done:
                self._announce(tx, game_id)
        return done == 1

    def create_rematch(self, game_id: str, row: GameRow) -> str | None:
        """Store ``row`` as the rematch of game ``game_id``, at most once: in
        one transaction the old game takes the new id only while it has no
        rematch, and only then is the new game inserted.  Returns the
        rematch's id (``row.id``, or the one made first; ``None`` when there
        is no such game)."""
        with self._db.write() as tx:
            done = tx.run(
                games.update()
                .where(games.c.id == game_id, games.c.rematch.is_(None))
                .values(rematch=row.id, offer=None)
            ).rowcount
            if done == 1:
                tx.run(games.insert().values(**asdict(row)))
                self._announce(tx, game_id)
                return row.id
            made: str | None = tx.run(sa.select(games.c.rematch).where(games.c.id == game_id)).scalar()
            return made

    def computer_to_act(self, limit: int = 1000) -> list[str]:
        """Ongoing games between a person and the computer whose action the
        game waits for is the computer's (the server starts them thinking
        when it starts: the person may be waiting with their clock stopped)."""
        waits_b = sa.and_(games.c.to_act == "b", games.c.black != "human", games.c.gold == "human")
        waits_g = sa.and_(games.c.to_act == "g", games.c.gold != "human", games.c.black == "human")
        with self._db.read() as tx:
            return tx.run(
                sa.select(games.c.id)
                .where(games.c.state != OVER, sa.or_(waits_b, waits_g))
                .order_by(games.c.updated)
                .limit(limit)
            ).scalars()

    def list(self, limit: int = 50) -> list[GameRow]:
        """The most recently updated games, newest first."""
        return self._rows(games.select().order_by(games.c.updated.desc()).limit(limit))
