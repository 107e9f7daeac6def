"""``kamisado web``: play Kamisado in the browser.

Serves the game on http://127.0.0.1:8000/ (hotseat, against the computer,
computer against computer, online with invite links; saved games, records,
lessons).  See ``docs/web.md`` for the protocol and the storage schema.
"""

from __future__ import annotations

import argparse
import logging
import sys
import threading
import webbrowser

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """Run the web server (``kamisado web --help``)."""
    parser = argparse.ArgumentParser(
        prog="kamisado web", description="Play Kamisado in the browser."
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to serve on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one)")
    parser.add_argument(
        "--db",
        default=None,
        help="database: an SQLite file path, sqlite:///PATH or postgresql://USER@HOST/DB"
        " (default: games.sqlite3 in the user's data directory)",
    )
    parser.add_argument("--no-browser", action="store_true", help="do not open a browser")
    parser.add_argument(
        "--workers", type=int, default=None, help="processes for computer moves (default: CPUs)"
    )
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if not 0 <= args.port <= 65535:
        parser.error(f"expected a port 0-65535, found {args.port}")
    if args.workers is not None and args.workers < 1:
        parser.error(f"expected at least 1 worker, found {args.workers}")

    import uvicorn

    from kamisado.web.server import create_app
    from kamisado.web.storage import Store, database_url, default_database_url

    db = database_url(args.db) if args.db else default_database_url()
    try:
        Store(db).close()  # fail early, with a clear message, on a bad database
    except Exception as exc:
        print(f"kamisado web: cannot open database {db}: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    config = uvicorn.Config(
        create_app(db, workers=args.workers),
        host=args.host,
        port=args.port,
        log_level="warning",
        ws="websockets-sansio",
        ws_per_message_deflate=False,  # small frames: compressing costs more than it saves
        ws_max_size=65_536,
    )
    server = uvicorn.Server(config)

    def announce() -> None:
        while not server.started:
            if server.should_exit:
                return
            threading.Event().wait(0.05)
        port = args.port
        for s in server.servers:
            for sock in s.sockets:
                port = sock.getsockname()[1]
        host = "127.0.0.1" if args.host in ("0.0.0.0", "") else args.host
        url = f"http://{host}:{port}/"
        print(f"kamisado web: serving on {url} (database {db.split('@')[-1]})", flush=True)
        if not args.no_browser:
            webbrowser.open(url)

    threading.Thread(target=announce, daemon=True).start()
    server.run()
    return 0
