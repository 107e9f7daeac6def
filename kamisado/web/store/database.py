"""The store's connections: one code path per database, straight on its driver.

:class:`kamisado.web.store.storage.Store` runs every call on one of these: a
:class:`PostgreSQL` (psycopg 3, autocommit connections lent to one call at
a time) or an :class:`SQLite` (:mod:`sqlite3`, a connection per thread on
a file, or the one connection of an in-memory database).  The statements
are built with SQLAlchemy Core (:mod:`kamisado.web.store.schema`) and compiled
for the database here, once for the statements of every action; they run
on the driver itself, without SQLAlchemy's execution layer, whose Python
(about 0.3 ms a call) the store's threads would otherwise compete with the
event loop for the GIL over.  SQLAlchemy's engine is kept only for the
migrations and the players' accounts (:mod:`kamisado.web.accounts.players`).

A call runs in a transaction (:meth:`Database.write`, :meth:`Database.read`)
that hands out a :class:`Tx`: ``tx.run(statement, values)`` is a
:class:`Result` with the rows and the count of rows changed.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import select
import sqlite3
import threading
from collections.abc import Callable, Iterator
from typing import Any, cast

import sqlalchemy as sa
from sqlalchemy.engine import Dialect
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.expression import ClauseElement

__all__ = [
    "ASYNC_CONNECTIONS",
    "CONNECT_TIMEOUT_S",
    "Checkpointer",
    "Database",
    "IntegrityErrors",
    "PostgreSQL",
    "Result",
    "SQLite",
    "StoreErrors",
    "Tx",
    "sqlite_pragmas",
]

#: PostgreSQL: how many connections the event loop's own calls (the hot
#: path: moves, new games, loads, presence) hold at most at once
#: (``KAMISADO_DB_ASYNC`` sets it).  Each waits on the database's commit,
#: so more of them commit together: measured on 2 cores at 300 games, 4
#: gave a round-trip p99 of 60 ms, 8 of 42 ms.
ASYNC_CONNECTIONS = 8

#: Seconds to wait for a PostgreSQL connection before the call fails (a
#: database that is down fails what needs it quickly, see ``docs/web.md``).
CONNECT_TIMEOUT_S = 5


def _integrity_errors() -> tuple[type[Exception], ...]:
    errors: list[type[Exception]] = [sqlite3.IntegrityError]
    with contextlib.suppress(ImportError):
        import psycopg

        errors.append(psycopg.IntegrityError)
    return tuple(errors)


#: What the drivers raise when a statement breaks a key (a duplicate row).
IntegrityErrors = _integrity_errors()


def _store_errors() -> tuple[type[BaseException], ...]:
    errors: list[type[BaseException]] = [sqlite3.Error, sa.exc.DBAPIError, sa.exc.TimeoutError, OSError]
    with contextlib.suppress(ImportError):
        import psycopg

        errors.append(psycopg.Error)
    return tuple(errors)


#: What a store call raises when the database fails it (down, unreachable,
#: a timeout, a refused statement: the drivers' errors, SQLAlchemy's, an
#: ``OSError`` of the connection or the disk): the errors a caller answers "the store
#: cannot be read; try again" (503) or logs and goes on with.  Anything else
#: (a ``TypeError``, a ``KeyError``...) is a bug, answered 500 with its
#: traceback logged, never "store down".
#:
#: >>> import sqlite3
#: >>> isinstance(sqlite3.OperationalError("database is locked"), StoreErrors)
#: True
#: >>> isinstance(TypeError("a bug"), StoreErrors)
#: False
StoreErrors: tuple[type[BaseException], ...] = _store_errors()


def _readable(fd: int) -> bool:
    """Whether a socket has something to read now (no waiting)."""
    if hasattr(select, "poll"):  # any descriptor, however high (select's stop at 1024)
        poller = select.poll()
        poller.register(fd, select.POLLIN | select.POLLPRI)
        return bool(poller.poll(0))
    return bool(select.select([fd], [], [], 0)[0])  # pragma: no cover (Windows)


class Result:
    """A statement's answer: its rows (with their column names) and the
    number of rows it changed."""

    __slots__ = ("names", "rowcount", "rows")

    def __init__(self, names: list[str], rows: list[tuple[Any, ...]], rowcount: int) -> None:
        self.names, self.rows, self.rowcount = names, rows, rowcount

    def first(self) -> tuple[Any, ...] | None:
        """The first row (``None``: no row)."""
        return self.rows[0] if self.rows else None

    def scalar(self) -> Any:
        """The first column of the first row (``None``: no row)."""
        return self.rows[0][0] if self.rows else None

    def scalars(self) -> list[Any]:
        """The first column of every row."""
        return [row[0] for row in self.rows]

    def mappings(self) -> list[dict[str, Any]]:
        """Every row as a dict, by column name."""
        return [dict(zip(self.names, row, strict=True)) for row in self.rows]


#: A statement compiled for one database: its SQL, the order of its
#: parameters (positional drivers; ``None``: by name), the values it holds,
#: and which of its result columns are booleans.
_Compiled = tuple[str, list[str] | None, dict[str, Any], list[int]]


class Tx:
    """A transaction on one of the store's connections (``cursor``).

    ``renew`` (reads outside a transaction, PostgreSQL): a cursor on a new
    connection, in place of one that broke; a ``SELECT`` that fails because
    its connection broke (the server restarted, the connection was ended)
    is run once more there (:meth:`Database.broke` says which failures)."""

    def __init__(self, db: Database, cursor: Any, renew: Callable[[], Any] | None = None) -> None:
        self.db, self.cursor, self.renew = db, cursor, renew

    def run(self, stmt: ClauseElement, values: dict[str, Any] | list[dict[str, Any]] | None = None) -> Result:
        """Run ``stmt`` with ``values`` (a list: once for each); its answer."""
        sql, order, fixed, booleans = self.db.compiled(stmt)
        cur = self.cursor
        try:
            self._execute(cur, sql, order, fixed, values)
        except StoreErrors as exc:
            if self.renew is None or not getattr(stmt, "is_select", False) or not self.db.broke(exc, cur):
                raise
            cur = self.cursor = self.renew()
            self.renew = None  # once
            self._execute(cur, sql, order, fixed, values)
        rows: list[tuple[Any, ...]] = []
        names: list[str] = []
        if cur.description is not None:
            names = [d[0] for d in cur.description]
            rows = [tuple(r) for r in cur.fetchall()]
            if booleans and self.db.ints_for_booleans:  # SQLite keeps booleans as 0 and 1
                rows = [tuple(bool(v) if i in booleans and v is not None else v for i, v in enumerate(r))
                        for r in rows]
        return Result(names, rows, cur.rowcount)

    def _execute(self, cur: Any, sql: str, order: list[str] | None, fixed: dict[str, Any],
                 values: dict[str, Any] | list[dict[str, Any]] | None) -> None:
        if isinstance(values, list):
            cur.executemany(sql, [self.db.params(order, fixed, v) for v in values])
        else:
            cur.execute(sql, self.db.params(order, fixed, values or {}))


class Database:
    """The connections of a store to its database, closed by :meth:`close`,
    and its statements, compiled for it."""

    #: whether the driver answers a boolean column with 0 and 1 (SQLite)
    ints_for_booleans = False

    def __init__(self, dialect: Dialect) -> None:
        self.dialect = dialect
        #: every connection opened (closed by :meth:`close`)
        self.opened: list[Any] = []
        self.lock = threading.Lock()
        #: the statements compiled once (constants of the store's), by id:
        #: each kept with its statement, so the id stays its own
        self._kept: dict[int, tuple[ClauseElement, _Compiled]] = {}

    def keep(self, stmt: ClauseElement) -> ClauseElement:
        """Compile a statement that is run again and again once (it is kept,
        and so its compiled form); returns it."""
        self._kept[id(stmt)] = (stmt, self._compile(stmt))
        return stmt

    def compiled(self, stmt: ClauseElement) -> _Compiled:
        """``stmt`` compiled for this database (a kept statement's once)."""
        kept = self._kept.get(id(stmt))
        if kept is not None and kept[0] is stmt:
            return kept[1]
        return self._compile(stmt)

    def _compile(self, stmt: ClauseElement) -> _Compiled:
        c = cast(SQLCompiler, stmt.compile(dialect=self.dialect, compile_kwargs={"render_postcompile": True}))
        order = list(c.positiontup) if c.positional and c.positiontup is not None else None
        columns = getattr(stmt, "selected_columns", None)
        if columns is None:
            columns = getattr(stmt, "exported_columns", None) or []
        booleans = [i for i, col in enumerate(columns) if isinstance(getattr(col, "type", None), sa.Boolean)]
        return str(c), order, dict(c.construct_params(_check=False)), booleans

    @staticmethod
    def params(order: list[str] | None, fixed: dict[str, Any], values: dict[str, Any]) -> Any:
        """The parameters of one execution: ``values`` over the statement's own."""
        merged = {**fixed, **values}
        return merged if order is None else [merged[name] for name in order]

    def close(self) -> None:
        """Close every connection opened."""
        with self.lock:
            for conn in self.opened:
                with contextlib.suppress(Exception):
                    conn.close()
            self.opened.clear()

    def broke(self, exc: BaseException, cursor: Any) -> bool:
        """Whether ``exc``, raised by a statement on ``cursor``, is its
        connection breaking (nothing of the database's refusing it)."""
        return False

    def write(self) -> contextlib.AbstractContextManager[Tx]:
        """A transaction that changes the database (committed on leaving,
        rolled back on an exception)."""
        raise NotImplementedError

    def read(self) -> contextlib.AbstractContextManager[Tx]:
        """Reads of one snapshot (or, for a single statement, as it is)."""
        raise NotImplementedError


class PostgreSQL(Database):
    """PostgreSQL on psycopg 3: autocommit connections (a single statement is
    its own transaction: no BEGIN, no COMMIT), each lent to one call at a
    time and kept for the next (:meth:`warm` opens them ahead), dropped
    when it fails.  :meth:`first` of a statement that is safe to run twice
    (an action is stored only as its game's next one; a read) is tried
    once more on a new connection when it fails on one opened before (the
    server restarted meanwhile); any other call fails once, and the next
    one opens a new connection."""

    def __init__(self, dialect: Dialect, conninfo: str) -> None:
        super().__init__(dialect)
        self.conninfo = conninfo
        import psycopg

        self.driver = psycopg
        #: the connections no call holds now
        self.idle: list[Any] = []
        #: the event loop's own connections (:meth:`first_async`), those no
        #: call holds now, the loop they belong to, and how many may be open
        self.async_idle: list[Any] = []
        self.async_loop: asyncio.AbstractEventLoop | None = None
        self.async_slots: asyncio.Semaphore | None = None
        self.async_limit = int(os.environ.get("KAMISADO_DB_ASYNC", ASYNC_CONNECTIONS))

    def _open(self) -> Any:
        conn = self.driver.connect(self.conninfo, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S)
        with self.lock:
            self.opened.append(conn)
        return conn

    def warm(self, n: int) -> None:
        """Open ``n`` connections ahead of the first calls (a connection
        made on a call's way costs it a round trip to a new server process)."""
        for _ in range(n):
            conn = self._open()
            with self.lock:
                self.idle.append(conn)

    def stale(self, conn: Any) -> bool:
        """Whether an idle connection kept for the next call (sync or
        async) is known to be dead without a round trip: closed or broken,
        or its socket readable: an idle connection that listens to nothing
        is sent nothing unless the server ended it (a restart, an
        ``pg_terminate_backend``), whose last words wait there.  One
        ``poll`` of the socket, made on every connection taken for a call,
        so a call is not sent on a connection that died while it was kept."""
        if conn.closed or conn.broken:
            return True
        try:
            return _readable(conn.pgconn.socket)
        except (self.driver.Error, OSError, ValueError):  # no socket any more
            return True

    def _drop(self, conn: Any) -> None:
        """Close a connection that failed (no call takes it again)."""
        with contextlib.suppress(self.driver.Error, OSError):
            if isinstance(conn, self.driver.AsyncConnection):
                conn.pgconn.finish()  # (its close() is a coroutine)
            else:
                conn.close()
        with self.lock, contextlib.suppress(ValueError):
            self.opened.remove(conn)

    def _take(self) -> tuple[Any, bool]:
        """A connection for one call, and whether it is new: a kept one that
        is not :meth:`stale` (the stale ones are closed), or a new one."""
        while True:
            with self.lock:
                conn: Any = self.idle.pop() if self.idle else None
            if conn is None:
                return self._open(), True
            if not self.stale(conn):
                return conn, False
            self._drop(conn)

    def _give_back(self, conn: Any) -> None:
        """Keep a connection a call is done with for the next (unless it broke)."""
        if conn.closed or conn.broken:
            self._drop(conn)
        else:
            with self.lock:
                self.idle.append(conn)

    def broke(self, exc: BaseException, cursor: Any) -> bool:
        conn = cursor.connection
        return isinstance(exc, self.driver.OperationalError) and bool(conn.closed or conn.broken)

    @contextlib.contextmanager
    def _lent(self) -> Iterator[tuple[Any, bool]]:
        """A connection for one call (:meth:`_take`); given back after it,
        unless it failed (then it is closed)."""
        conn, fresh = self._take()
        try:
            yield conn, fresh
        except self.driver.OperationalError:
            self._drop(conn)
            raise
        finally:
            if not conn.closed:
                self._give_back(conn)

    def first(self, stmt: ClauseElement, values: dict[str, Any]) -> tuple[Any, ...] | None:
        """The first row of a single statement that is safe to run again
        (see the class), in autocommit."""
        while True:
            again = False
            try:
                with self._lent() as (conn, fresh), conn.cursor() as cur:
                    again = not fresh
                    return Tx(self, cur).run(stmt, values).first()
            except self.driver.OperationalError:
                if not again:
                    raise

    async def first_async(
        self, stmt: ClauseElement, values: dict[str, Any], *, again: bool = True
    ) -> tuple[Any, ...] | None:
        """The first row of :meth:`rows_async`."""
        rows = await self.rows_async(stmt, values, again=again)
        return rows[0] if rows else None

    async def rows_async(
        self, stmt: ClauseElement, values: dict[str, Any], *, again: bool = True
    ) -> list[tuple[Any, ...]]:
        """The rows of a single statement in autocommit, run on the event
        loop on psycopg's async connections (at most :attr:`async_limit` at
        once): no thread to hand the call to and back, and no thread taking
        the GIL from the loop.  The statements of the hot path are compiled
        ahead (:meth:`Database.keep`), so the loop runs no SQLAlchemy.  A
        statement that is safe to run twice (``again``) is retried once on
        a new connection when it fails on one opened before, as
        :meth:`first` is."""
        sql, order, fixed, _ = self.compiled(stmt)
        params = self.params(order, fixed, values)
        loop = asyncio.get_running_loop()
        if self.async_loop is not loop or self.async_slots is None:  # connections serve one loop
            self._drop_async()
            self.async_loop, self.async_slots = loop, asyncio.Semaphore(self.async_limit)
        async with self.async_slots:
            while True:
                conn: Any = self.async_idle.pop() if self.async_idle else None
                while conn is not None and self.stale(conn):  # ended while kept: never sent on
                    self._drop(conn)
                    conn = self.async_idle.pop() if self.async_idle else None
                fresh = conn is None
                if fresh:
                    conn = await self.driver.AsyncConnection.connect(
                        self.conninfo, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S)
                    with self.lock:
                        self.opened.append(conn)
                try:
                    cur = await conn.execute(sql, params)
                    rows: list[tuple[Any, ...]] = await cur.fetchall() if cur.description else []
                except self.driver.OperationalError:
                    self._drop(conn)
                    if fresh or not again:
                        raise
                    continue
                except self.driver.Error:
                    if conn.broken or conn.closed:
                        self._drop(conn)
                    else:  # a refusal of the statement: the connection serves on
                        self.async_idle.append(conn)
                    raise
                except BaseException:  # cancelled mid-statement: the connection is not reused
                    self._drop(conn)
                    raise
                self.async_idle.append(conn)
                return rows

    def _drop_async(self) -> None:
        """Close the event loop's connections (another loop takes over)."""
        for conn in self.async_idle:
            conn.pgconn.finish()
        self.async_idle.clear()

    def close(self) -> None:
        with self.lock:
            for conn in self.opened:
                with contextlib.suppress(Exception):
                    if isinstance(conn, self.driver.AsyncConnection):
                        conn.pgconn.finish()  # (its close() is a coroutine)
                    else:
                        conn.close()
            self.opened.clear()
        self.async_idle.clear()

    @contextlib.contextmanager
    def _on(self, transaction: bool) -> Iterator[Tx]:
        """A call on a connection of :meth:`_take`: a transaction whose BEGIN
        fails on a kept connection (it broke, nothing was sent) begins on a
        new one; reads outside a transaction are :class:`Tx` ``renew``-able."""
        held: list[Any] = []  # the connection the call holds now

        def renew() -> Any:
            self._drop(held[0])
            held[0] = self._open()
            return held[0].cursor()

        try:
            with contextlib.ExitStack() as stack:
                conn, fresh = self._take()
                held.append(conn)
                if transaction:
                    try:
                        stack.enter_context(conn.transaction())
                    except self.driver.OperationalError:
                        if fresh:
                            raise
                        self._drop(conn)
                        conn = held[0] = self._open()
                        stack.enter_context(conn.transaction())
                yield Tx(self, stack.enter_context(conn.cursor()), None if transaction else renew)
        except self.driver.OperationalError:
            if held:
                self._drop(held[0])
            raise
        finally:
            if held and not held[0].closed:
                self._give_back(held[0])

    @contextlib.contextmanager
    def write(self) -> Iterator[Tx]:
        with self._on(True) as tx:
            yield tx

    @contextlib.contextmanager
    def read(self) -> Iterator[Tx]:
        with self._on(False) as tx:
            yield tx


def sqlite_pragmas(dbapi_conn: Any, _record: Any = None) -> None:
    """The store's settings of an SQLite connection."""
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


class SQLite(Database):
    """SQLite on :mod:`sqlite3`: on a file, a connection per thread with the
    store's pragmas; a change takes the write lock at once (``BEGIN
    IMMEDIATE``, waiting up to the busy timeout in its thread), reads beside
    it (WAL).  An in-memory database (``path`` ``None``) is one connection,
    shared (:attr:`shared_conn`: SQLAlchemy's engine uses it too, for the
    migrations and the players), one transaction at a time; it lives as
    long as the store (it is opened in the default, legacy, transaction
    control SQLAlchemy expects; the store's transactions are begun and
    ended explicitly all the same)."""

    ints_for_booleans = True

    def __init__(self, dialect: Dialect, path: str | None, conn: sqlite3.Connection | None = None) -> None:
        super().__init__(dialect)
        self.path = path
        #: each thread's connection to the file
        self.local = threading.local()
        #: the in-memory database's one connection (``path`` ``None``)
        self.shared_conn = conn
        if path is None:
            assert conn is not None, "an in-memory database needs its one connection"
            self._keep_conn(conn)
        #: one transaction at a time on the in-memory database's one connection
        self.turn = threading.RLock()

    def _keep_conn(self, conn: sqlite3.Connection) -> sqlite3.Connection:
        self.local.conn = conn
        with self.lock:
            self.opened.append(conn)
        return conn

    def _conn(self) -> sqlite3.Connection:
        if self.shared_conn is not None:
            return self.shared_conn
        conn: sqlite3.Connection | None = getattr(self.local, "conn", None)
        if conn is None:
            assert self.path is not None
            conn = self._keep_conn(sqlite3.connect(self.path, isolation_level=None, check_same_thread=False))
            sqlite_pragmas(conn)
        return conn

    @contextlib.contextmanager
    def _transaction(self, begin: str) -> Iterator[Tx]:
        with self.turn if self.shared_conn is not None else contextlib.nullcontext():
            conn = self._conn()
            conn.execute(begin)
            try:
                yield Tx(self, conn.cursor())
            except BaseException:
                if conn.in_transaction:
                    with contextlib.suppress(sqlite3.Error):
                        conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    @contextlib.contextmanager
    def write(self) -> Iterator[Tx]:
        with self._transaction("BEGIN IMMEDIATE") as tx:
            yield tx

    @contextlib.contextmanager
    def read(self) -> Iterator[Tx]:
        with self._transaction("BEGIN") as tx:
            yield tx


class Checkpointer(threading.Thread):
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
