"""``kamisado web``: play Kamisado in the browser.

Serves the game on http://127.0.0.1:8000/ (hotseat, against the computer,
computer against computer, online with invite links; saved games, records,
lessons).  See ``docs/web.md`` for the protocol and the storage schema.
"""

from __future__ import annotations

import argparse
import errno
import signal
import socket
import sys
import threading
import webbrowser
from typing import Any

from kamisado.args import needs_extra, take_early_signals

__all__ = ["main"]

DB_HELP = """\
database: a path to an SQLite file (created when missing; its folder must
exist), an SQLite URL (sqlite:///games.db is relative to the current folder,
four slashes sqlite:////home/me/games.db absolute) or a PostgreSQL URL
postgresql://USER[:PASSWORD]@HOST[:PORT]/DB (needs the postgres extra:
.venv/bin/pip install -e '.[postgres]' in the clone); default: games.sqlite3 in the user's data folder"""


class _Failure(Exception):
    """A reason ``kamisado web`` cannot start: one line, exit status 2."""


def _reason(exc: BaseException) -> str:
    """One line saying why: the driver's own message when SQLAlchemy wraps it."""
    orig = getattr(exc, "orig", None)
    text = str(orig if orig is not None else exc).strip() or type(exc).__name__
    return " ".join(text.split())


def _database(arg: str | None) -> str:
    """The database URL for ``--db``, checked by opening it once."""
    import sqlalchemy as sa

    from kamisado.web.store.storage import Store, database_url, default_database_url

    try:
        url = database_url(arg) if arg else default_database_url()
    except OSError as exc:
        folder = exc.filename or "the user's data folder"
        raise _Failure(
            f"cannot create the data folder {folder} ({exc.strerror or exc});"
            " choose a database with --db PATH"
        ) from None
    try:
        shown = sa.engine.make_url(url).render_as_string(hide_password=True)
    except sa.exc.ArgumentError:
        raise _Failure(f"--db: expected an SQLite path or a database URL, found {arg!r}") from None
    try:
        Store(url).close()  # fail early, with a clear message, on a bad database
    except ImportError as exc:
        if (exc.name or "").startswith("psycopg"):
            raise _Failure(needs_extra("a PostgreSQL --db", "postgres")) from None
        raise _Failure(f"cannot open database {shown}: {_reason(exc)}") from None
    except Exception as exc:
        hint = ""
        if url.startswith("sqlite") and "unable to open" in str(exc):
            hint = " (does its folder exist?)"
        raise _Failure(f"cannot open database {shown}: {_reason(exc)}{hint}") from None
    return url


def _queue(url: str) -> None:
    """Check that the job queue's Redis at ``url`` can be reached."""
    import asyncio

    from kamisado.web.work.jobs import (
        JobError,
        connect,
        disconnect,
        queue_missing,
        redis_settings,
    )

    try:
        redis_settings(url)
    except ImportError as exc:
        if queue_missing(exc):
            raise _Failure(needs_extra("--queue", "queue")) from None
        raise
    except ValueError as exc:
        raise _Failure(f"--queue: {exc}") from None

    async def check() -> None:
        redis = await connect(url)
        await disconnect(redis)

    try:
        asyncio.run(check())
    except ImportError as exc:
        if queue_missing(exc):
            raise _Failure(needs_extra("--queue", "queue")) from None
        raise
    except JobError as exc:
        raise _Failure(str(exc)) from None


def _listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port``, or a clear reason it cannot be."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise _Failure(
                f"port {port} on {host} is in use; choose another with --port"
                " (--port 0 picks a free one)"
            ) from None
        raise _Failure(f"cannot listen on {host} port {port}: {exc.strerror or exc}") from None
    sock.set_inheritable(True)
    return sock


def main_restore(argv: list[str] | None = None) -> int:
    """Run ``kamisado restore``: :func:`kamisado.web.store.backup.main_restore`,
    refusing a backup with a game that does not replay through the rules
    (:func:`kamisado.web.play.state.replay_games`)."""
    from kamisado.web.play.state import replay_games
    from kamisado.web.store.backup import main_restore as restore

    return restore(argv, check=replay_games)


def main(argv: list[str] | None = None) -> int:
    """Run the web server (``kamisado web --help``).

    Every error is one line on standard error, exit status 2.
    """
    import math

    from kamisado.args import Parser, duration, duration_help

    parser = Parser(
        prog="kamisado web",
        description="Play Kamisado in the browser.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to serve on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one)")
    parser.add_argument("--db", default=None, metavar="PATH_OR_URL", help=DB_HELP)
    parser.add_argument("--no-browser", action="store_true", help="do not open a browser")
    parser.add_argument(
        "--workers", type=int, default=None, help="processes for computer moves (default: CPUs)"
    )
    parser.add_argument(
        "--queue", default=None, metavar="URL",
        help="a job queue for computer moves and analysis, redis://HOST[:PORT][/DB]: the"
        " kamisado worker processes serving it think, and this process runs no pool"
        " (see docs/deploy.md)",
    )
    parser.add_argument(
        "--secret", default=None, metavar="KEY",
        help="the key that signs the players' cookies (default: KAMISADO_SECRET, else one"
        " generated once and kept in the database)",
    )
    parser.add_argument(
        "--session-days", type=duration("d", None, 36500), default=30.0, metavar="TIME",
        help="a signed-in session unused this long is over: the browser is signed out; in"
        f" {duration_help('d')} (default 30 days, at most 36500)",
    )
    parser.add_argument(
        "--metrics-allow", default="localhost", metavar="LIST", type=_allow,
        help="the addresses and networks GET /metrics answers, separated by commas"
        " (default localhost: 127.0.0.0/8 and ::1); any other gets 403",
    )
    parser.add_argument(
        "--log-format", choices=("text", "json"), default="text",
        help="the logs on standard error: text (default) or json, one JSON object a line"
        " (time, level, logger, message, exception) for log collectors",
    )
    parser.add_argument(
        "--public-url", default=None, metavar="URL",
        help="the address people use, https://HOST[:PORT] behind a reverse proxy: the share"
        " page's links are built from it (never from the Host header); https makes the cookie"
        " Secure and adds Strict-Transport-Security (see docs/deploy.md)",
    )
    parser.add_argument(
        "--forwarded-allow-ips", default=None, metavar="LIST",
        help="the reverse proxies (IP addresses or networks, comma-separated, or *) whose"
        " X-Forwarded-For and X-Forwarded-Proto are believed; default: none, not even localhost",
    )
    parser.add_argument(
        "--ws-per-address", type=int, default=32, metavar="N",
        help="websockets open at once from one address, at most (default 32; 0: no cap)",
    )
    parser.add_argument(
        "--ws-per-player", type=int, default=16, metavar="N",
        help="websockets open at once for one player (its cookie), at most (default 16; 0: no cap)",
    )
    parser.add_argument(
        "--ws-keep-out", type=duration("s", -math.inf), default=60.0, metavar="TIME",
        help="a client closed for flooding frames is refused new websockets this long, in"
        f" {duration_help('s')} (default 60 s; 0: not at all)",
    )
    parser.add_argument(
        "--header-timeout", type=duration("s", -math.inf), default=10.0, metavar="TIME",
        help="a connection that has not sent a whole request head this long after it opened"
        f" (or after the last answer) is closed, in {duration_help('s')} (default 10 s; 0: never)",
    )
    parser.add_argument(
        "--connections-per-address", type=int, default=256, metavar="N",
        help="connections open at once from one address, at most; more are answered 503"
        " (default 256; 0: no cap; the proxies of --forwarded-allow-ips are not capped so)",
    )
    parser.add_argument(
        "--max-connections", type=int, default=None, metavar="N",
        help="connections open at once, at most: at the cap the one that has waited longest"
        " for its request head is closed, or else the new one answered 503 (default: the"
        " file-descriptor limit less a reserve of a tenth, at least 100; 0: no cap)",
    )
    parser.add_argument(
        "--tournaments", default=None, metavar="hourly|FILE",
        help="make recurring tournaments: 'hourly' (an hourly 3+2 Arena, a daily Swiss) or a"
        " schedule file's (docs/web-tournaments.md)",
    )
    parser.add_argument(
        "--proof-store", default=None, metavar="PATH_OR_URL",
        help="a match proof store (kamisado solve-match --store): the computer's perfect plays"
        " from it and the review says 'proven' where it covers the game (docs/match-proof.md)",
    )
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if args.proof_store is not None:
        _proof_store(parser, args.proof_store)
    from kamisado.web.community.schedule import load_schedule

    try:
        args.tournaments = None if args.tournaments is None else load_schedule(args.tournaments)
    except (OSError, ValueError) as exc:
        parser.error(f"--tournaments: {exc}")
    for name in ("ws_per_address", "ws_per_player", "ws_keep_out", "header_timeout",
                 "connections_per_address", "max_connections"):
        if getattr(args, name) is None:
            continue
        if not getattr(args, name) >= 0:
            option = "--" + name.replace("_", "-")
            parser.error(f"{option}: expected 0 or more, found {getattr(args, name):g}")
    from kamisado.web.edge.public import PublicSite, forwarded_hosts

    try:
        PublicSite.from_url(args.public_url)
    except ValueError as exc:
        parser.error(f"--public-url: {exc}")
    if args.forwarded_allow_ips is not None:
        try:
            forwarded_hosts(args.forwarded_allow_ips)
        except ValueError as exc:
            parser.error(f"--forwarded-allow-ips: {exc}")
    if not 0 <= args.port <= 65535:
        parser.error(f"expected a port 0-65535, found {args.port}")
    if args.workers is not None and args.workers < 1:
        parser.error(f"expected at least 1 worker, found {args.workers}")
    from kamisado.web.store.storage import SQLiteInUse, lock_sqlite

    try:
        db = _database(args.db)
        try:
            lock = lock_sqlite(db)  # one process per SQLite file, held while serving
        except SQLiteInUse as exc:
            raise _Failure(str(exc)) from None
        if args.queue is not None:
            _queue(args.queue)
        sock = _listen(args.host, args.port)
    except _Failure as exc:
        return _fail(str(exc))
    try:
        status = _serve(args, db, sock)
    finally:
        if lock is not None:
            lock.close()
    if status == -signal.SIGTERM:  # as before: ended by the SIGTERM, once shut down
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.raise_signal(signal.SIGTERM)
    return status


def _proof_store(parser: argparse.ArgumentParser, where: str) -> None:
    """``--proof-store``: the store must be there (nothing is made); the
    server's pool workers find it in :data:`~kamisado.web.work.worker.PROOF_STORE_ENV`."""
    from kamisado.web.work.worker import use_proof_store

    try:
        use_proof_store(where)
    except ValueError as exc:
        parser.error(f"--proof-store: {exc}")


def _allow(text: str) -> tuple[Any, ...]:
    """``--metrics-allow``: the networks (:func:`kamisado.web.site.ops.parse_allow`)."""
    from kamisado.web.site.ops import parse_allow

    try:
        return parse_allow(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _fail(message: str) -> int:
    print(f"kamisado web: {message}", file=sys.stderr)
    return 2


def _serve(args: argparse.Namespace, db: str, sock: socket.socket) -> int:
    import uvicorn

    from kamisado.web.edge.doors import DoorLimits, Doors, default_total, protocols
    from kamisado.web.edge.guard import SocketLimits
    from kamisado.web.edge.public import forwarded_hosts
    from kamisado.web.site.ops import GracefulServer, configure_logging
    from kamisado.web.site.server import create_app

    log_config = configure_logging(args.log_format)
    sockets = SocketLimits(args.ws_per_address, args.ws_per_player, args.ws_keep_out)
    app = create_app(db, workers=args.workers, secret=args.secret, queue=args.queue,
                     session_idle=args.session_days * 24 * 3600, metrics_allow=args.metrics_allow,
                     public_url=args.public_url, forwarded_allow_ips=args.forwarded_allow_ips,
                     sockets=sockets, tournaments=args.tournaments)
    proxies = () if args.forwarded_allow_ips is None else tuple(forwarded_hosts(args.forwarded_allow_ips))
    doors = Doors(DoorLimits(
        head_timeout=args.header_timeout, per_address=args.connections_per_address,
        total=default_total() if args.max_connections is None else args.max_connections, exempt=proxies))
    http, ws = protocols(doors)  # slow heads closed, connections capped (kamisado.web.edge.doors)
    config = uvicorn.Config(
        app,
        http=http,
        host=args.host,
        port=args.port,
        log_config=log_config,
        log_level="warning",
        # the app believes forwarded headers only from --forwarded-allow-ips (uvicorn's
        # own default believes localhost's, and any client on the machine could name any address)
        proxy_headers=False,
        loop="auto",  # uvloop (a dependency; not on Windows): a cheaper event loop
        ws=ws,  # uvicorn's "websockets-sansio", counted by the doors
        ws_per_message_deflate=False,  # small frames: compressing costs more than it saves
        ws_max_size=65_536,
    )
    # SIGTERM: stop accepting, tell every page the server restarts, store what
    # is being stored, then stop (kamisado.web.site.ops)
    server = GracefulServer(config, app)

    def announce() -> None:
        while not server.started:
            if server.should_exit:
                return
            threading.Event().wait(0.05)
        port = sock.getsockname()[1]
        host = "127.0.0.1" if args.host in ("0.0.0.0", "") else args.host
        url = f"http://{host}:{port}/"
        print(f"kamisado web: serving on {url} (database {db.split('@')[-1]})", flush=True)
        if not args.no_browser and not _open_browser(url):
            print(f"kamisado web: no browser could be opened; open {url} in one", flush=True)

    if threading.current_thread() is threading.main_thread():
        # Ctrl-C (SIGINT) and SIGTERM stop the server the same graceful way
        # from here on, even when this process was started with SIGINT
        # ignored; those that came while it started (kamisado.args.note_early_signals)
        # stop it now.  uvicorn puts these handlers back once it has shut down.
        for number in (signal.SIGINT, signal.SIGTERM):
            signal.signal(number, server.handle_exit)
        for came in take_early_signals():
            server.handle_exit(came, None)
    if not server.should_exit:
        threading.Thread(target=announce, daemon=True).start()
        server.run(sockets=[sock])
    return _stop_status(server.stopped_by)


def _stop_status(stopped_by: int | None) -> int:
    """The exit status after a stop by the signal ``stopped_by`` (None: none):
    130 for Ctrl-C (SIGINT), as the shells give; ``-SIGTERM`` for SIGTERM
    (:func:`main` then ends the process by it, as uvicorn does); else 0.

    >>> _stop_status(signal.SIGINT), _stop_status(signal.SIGTERM) == -signal.SIGTERM, _stop_status(None)
    (130, True, 0)
    """
    if stopped_by == signal.SIGINT:
        return 128 + signal.SIGINT
    if stopped_by == signal.SIGTERM:
        return -signal.SIGTERM
    return 0


def _open_browser(url: str) -> bool:
    """Open ``url`` in the user's browser; whether one was started
    (:func:`webbrowser.open`: False, or an error, where there is none, e.g.
    with no display or a ``BROWSER`` command that fails).

    >>> import os
    >>> os.environ["BROWSER"] = "false"  # doctest: +SKIP
    >>> _open_browser("http://127.0.0.1:8000/")  # doctest: +SKIP
    False
    """
    try:
        return bool(webbrowser.open(url))
    except (webbrowser.Error, OSError):
        return False
