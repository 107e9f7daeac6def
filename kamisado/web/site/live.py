"""``kamisado web`` in a thread of this process: for the browser tests, the
screenshot tool, or a notebook.

The port stays the same across :meth:`LiveServer.stop` and
:meth:`LiveServer.start` (and so does the database), so a test can take the
server away from a page and give it back.

>>> import tempfile, urllib.request
>>> live = LiveServer(f"{tempfile.mkdtemp()}/games.sqlite3", workers=0)
>>> url = live.start()
>>> urllib.request.urlopen(url + "/api/engine").status
200
>>> live.stop()
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import uvicorn

from kamisado.web.site.ops import GracefulServer
from kamisado.web.site.server import create_app

__all__ = ["LiveServer"]


class LiveServer:
    """The web app on ``127.0.0.1`` (``port`` 0: a free one, kept after)."""

    def __init__(self, db: str | Path, port: int = 0, workers: int = 1) -> None:
        self.db, self.port, self.workers = str(db), port, workers
        self.srv: uvicorn.Server | None = None
        self.thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 20.0) -> str:
        """Serve (in a daemon thread); returns the URL once it listens."""
        app = create_app(self.db, workers=self.workers)
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning",
                                ws="websockets-sansio")
        srv = GracefulServer(config, app)  # stopped as SIGTERM stops kamisado web
        thread = threading.Thread(target=srv.run, name="kamisado-web", daemon=True)
        thread.start()
        deadline = time.monotonic() + timeout
        while not srv.started:
            if time.monotonic() > deadline or not thread.is_alive():
                raise RuntimeError("the server did not start")
            time.sleep(0.05)
        self.port = srv.servers[0].sockets[0].getsockname()[1]
        self.srv, self.thread = srv, thread
        return self.url

    def stop(self) -> None:
        """Stop serving, as ``kamisado web`` stops on SIGTERM (every page is
        told ``restarting``, open websockets are closed); :meth:`start`
        serves again."""
        if self.srv and self.thread:
            self.srv.should_exit = True
            self.thread.join(timeout=20)
        self.srv = self.thread = None
