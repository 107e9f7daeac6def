"""``kamisado backup FILE`` and ``kamisado restore FILE``: the SQLite database of
``kamisado web`` copied whole, while the server plays.

A backup is SQLite's online backup API (:meth:`sqlite3.Connection.backup`,
every page in one step): a snapshot of one moment, consistent while a server
writes (the server's WAL lets the copy read beside its commits), written to
a temporary file beside ``FILE``, checked (``PRAGMA integrity_check``),
synced, and only then renamed to ``FILE``: a backup that fails leaves no
half-written ``FILE``.  The copy is one file (journal mode ``DELETE``), the
schema's revision in it.

A restore copies ``FILE`` into the database the same way, after checking
it: an SQLite database of ``kamisado web`` (its tables and its schema
revision, one this version knows), whole (``integrity_check``), and every
game in it replays through the rules (``kamisado restore`` checks that with
:func:`kamisado.web.play.state.replay_games`, passed in as ``check``).  It holds
the database's lock while it writes (:func:`kamisado.web.store.storage.lock_sqlite`),
so it refuses a database that a running ``kamisado web`` holds, and no
server starts on it meanwhile; a database that holds games is replaced only
with ``--force``.  The server brings a restored database of an older
version up to date when it opens it (its migrations).

PostgreSQL is backed up with its own tools, ``pg_dump`` and ``pg_restore``
(docs/deploy.md): both commands say so.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

__all__ = ["BackupError", "Checker", "Summary", "backup", "main_backup", "main_restore", "restore", "summary"]

PG_HINT = ("the database is PostgreSQL: back it up with pg_dump and restore it with pg_restore"
           " (docs/deploy.md, \"Backups\")")


class BackupError(Exception):
    """Why a backup or a restore cannot be made: one line."""


#: Reads a backup (its open connection, its path) and raises :class:`BackupError` to refuse it.
Checker = Callable[[sqlite3.Connection, Path], None]


@dataclass(frozen=True)
class Summary:
    """What a database holds: its games, their actions, its schema revision."""

    games: int
    actions: int
    revision: str

    def __str__(self) -> str:
        return f"{_count(self.games, 'game')}, {_count(self.actions, 'action')} (schema {self.revision})"


def _count(n: int, thing: str) -> str:
    """``1 game``, ``2 games``."""
    return f"{n} {thing}{'' if n == 1 else 's'}"


def _connect(path: Path) -> sqlite3.Connection:
    """A connection to an existing SQLite file (never made when missing)."""
    if not path.is_file():
        raise BackupError(f"no database at {path}")
    try:
        conn = sqlite3.connect(f"file:{path}?mode=rw", uri=True, timeout=5)
        conn.execute("PRAGMA busy_timeout = 5000")
    except sqlite3.Error as exc:
        raise BackupError(f"cannot open {path}: {exc}") from None
    return conn


def summary(conn: sqlite3.Connection, path: Path, check: bool = True) -> Summary:
    """What the kamisado database on ``conn`` holds; :class:`BackupError`
    when it is not one, or (``check``: ``PRAGMA integrity_check``) not whole."""
    try:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.DatabaseError as exc:
        raise BackupError(f"{path} is not an SQLite database ({exc})") from None
    if not {"games", "actions", "alembic_version"} <= tables:
        raise BackupError(f"{path} is not a kamisado web database (no games, actions and"
                          " alembic_version tables)")
    found = conn.execute("PRAGMA integrity_check").fetchall() if check else [("ok",)]
    if found != [("ok",)]:
        raise BackupError(f"{path} is damaged: {'; '.join(str(row[0]) for row in found[:3])}")
    revision = conn.execute("SELECT version_num FROM alembic_version").fetchone()
    games = conn.execute("SELECT count(*) FROM games").fetchone()[0]
    actions = conn.execute("SELECT count(*) FROM actions").fetchone()[0]
    return Summary(games, actions, revision[0] if revision else "none")


def _sqlite_path(url: str) -> Path:
    """The file of an SQLite database URL; :class:`BackupError` for any other."""
    import sqlalchemy as sa

    try:
        parsed = sa.engine.make_url(url)
    except sa.exc.ArgumentError:
        raise BackupError(f"--db: expected an SQLite path or URL, found {url!r}") from None
    if parsed.get_backend_name() == "postgresql":
        raise BackupError(PG_HINT)
    if parsed.get_backend_name() != "sqlite" or not parsed.database or parsed.database == ":memory:":
        raise BackupError(f"--db: expected an SQLite file, found {parsed.render_as_string()}")
    return Path(parsed.database).expanduser().absolute()


def _sync_folder(folder: Path) -> None:
    with contextlib.suppress(OSError):  # not every system syncs a folder
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def backup(db: Path, out: Path) -> Summary:
    """Copy the database ``db`` to ``out`` (see the module); what the copy holds."""
    db, out = db.absolute(), out.absolute()
    if out.exists() and out.resolve() == db.resolve():
        raise BackupError(f"{out} is the database itself; choose another file")
    if not out.parent.is_dir():
        raise BackupError(f"cannot write {out}: no folder {out.parent}")
    source = _connect(db)
    try:
        summary(source, db, check=False)  # a kamisado database (the copy is checked whole)
        fd, name = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".part", dir=out.parent)
        os.close(fd)
        tmp = Path(name)
        try:
            copy = sqlite3.connect(tmp)
            try:
                source.backup(copy)  # every page in one step: one moment's snapshot
                copy.execute("PRAGMA journal_mode = DELETE")  # one file
                got = summary(copy, out)
            finally:
                copy.close()
            with open(tmp, "rb") as f:
                os.fsync(f.fileno())
            os.replace(tmp, out)
            _sync_folder(out.parent)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
    except sqlite3.Error as exc:
        raise BackupError(f"cannot back up {db} to {out}: {exc}") from None
    except OSError as exc:
        raise BackupError(f"cannot write {out}: {exc.strerror or exc}") from None
    finally:
        source.close()
    return got


def restore(backup_file: Path, db: Path, force: bool = False, check: Checker | None = None) -> Summary:
    """Copy the backup ``backup_file`` into the database ``db`` (see the
    module); what the database then holds.  ``check`` reads the backup first
    and raises :class:`BackupError` to refuse it, before anything is written
    (``kamisado restore`` passes :func:`kamisado.web.play.state.replay_games`)."""
    from kamisado.web.store.migrations import revisions
    from kamisado.web.store.storage import SQLiteInUse, database_url, lock_sqlite

    backup_file, db = backup_file.absolute(), db.absolute()
    if db.exists() and backup_file.resolve() == db.resolve():
        raise BackupError(f"{backup_file} is the database itself")
    source = _connect(backup_file)
    try:
        got = summary(source, backup_file)
        if got.revision not in revisions():
            raise BackupError(f"{backup_file} was written by a newer kamisado (schema {got.revision});"
                              " upgrade kamisado first")
        if check is not None:
            check(source, backup_file)
        if not db.parent.is_dir():
            raise BackupError(f"cannot write {db}: no folder {db.parent}")
        try:
            lock = lock_sqlite(database_url(str(db)))  # no server on it, and none starts meanwhile
        except SQLiteInUse as exc:
            raise BackupError(f"{exc}; restore refuses to replace a database a server holds") from None
        try:
            target = sqlite3.connect(db, timeout=5)
            try:
                if not force:
                    held = _games_in(target)
                    if held:
                        raise BackupError(f"{db} holds {_count(held, 'game')}; --force replaces it"
                                          " with the backup")
                source.backup(target)
                restored = summary(target, db)
            finally:
                target.close()
        finally:
            if lock is not None:
                lock.close()
    except sqlite3.Error as exc:
        raise BackupError(f"cannot restore {backup_file} into {db}: {exc}") from None
    except OSError as exc:
        raise BackupError(f"cannot write {db}: {exc.strerror or exc}") from None
    finally:
        source.close()
    return restored


def _games_in(conn: sqlite3.Connection) -> int:
    """How many games a database holds (0 for an empty file or one without games)."""
    try:
        count: int = conn.execute("SELECT count(*) FROM games").fetchone()[0]
    except sqlite3.DatabaseError:
        tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if tables:
            raise BackupError("the database is not a kamisado web database; --force replaces it") from None
        return 0
    return count


DB_HELP = ("the database: an SQLite file path or sqlite:/// URL (default: games.sqlite3 in the"
           " user's data folder, as kamisado web)")


def _database(arg: str | None) -> Path:
    from kamisado.web.store.storage import database_url, default_database_url

    try:
        url = database_url(arg) if arg else default_database_url()
    except OSError as exc:
        raise BackupError(f"no database: cannot reach the user's data folder ({exc.strerror or exc})"
                          ) from None
    return _sqlite_path(url)


def main_backup(argv: list[str] | None = None) -> int:
    """``kamisado backup FILE [--db PATH_OR_URL]``."""
    from kamisado.args import Parser

    parser = Parser(prog="kamisado backup",
                    description="Copy kamisado web's SQLite database to FILE, while the server plays.")
    parser.add_argument("file", metavar="FILE", help="the backup to write (replaced when it exists)")
    parser.add_argument("--db", default=None, metavar="PATH_OR_URL", help=DB_HELP)
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    try:
        db = _database(args.db)
        got = backup(db, Path(args.file).expanduser())
    except BackupError as exc:
        print(f"kamisado backup: {exc}", file=sys.stderr)
        return 2
    print(f"kamisado backup: {args.file}: {got}")
    return 0


def main_restore(argv: list[str] | None = None, check: Checker | None = None) -> int:
    """``kamisado restore FILE [--db PATH_OR_URL] [--force]``."""
    from kamisado.args import Parser

    parser = Parser(prog="kamisado restore",
                    description="Copy a backup made by kamisado backup into kamisado web's SQLite"
                    " database (never one a running server holds).")
    parser.add_argument("file", metavar="FILE", help="the backup to restore")
    parser.add_argument("--db", default=None, metavar="PATH_OR_URL", help=DB_HELP)
    parser.add_argument("--force", action="store_true",
                        help="replace a database that holds games")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    try:
        db = _database(args.db)
        got = restore(Path(args.file).expanduser(), db, force=args.force, check=check)
    except BackupError as exc:
        print(f"kamisado restore: {exc}", file=sys.stderr)
        return 2
    print(f"kamisado restore: {db}: {got}")
    return 0
