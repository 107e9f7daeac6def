"""The connection's edge (issue 25, item 6), on a real server (uvicorn in a
thread): a request body must arrive within the time limit or the request
is refused (408, the connection closed); a client that leaves mid-request
or mid-answer is one line in the log, never a traceback."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from starlette.websockets import WebSocketDisconnect
from uvicorn.protocols.utils import ClientDisconnected
from websockets.sync.client import connect

from kamisado.web.basics.noise import Repeats
from kamisado.web.edge.edge import Edge
from kamisado.web.site.server import create_app
from kamisado.web.store.storage import Store

pytestmark = pytest.mark.timeout(120, method="thread")


@contextlib.contextmanager
def serving(app: Any) -> Iterator[int]:
    """``app`` served by uvicorn in a thread of this process (its log
    records reach pytest's ``caplog``): its port."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(app, log_config=None, ws="websockets-sansio", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        assert thread.is_alive(), "the server did not start"
        time.sleep(0.02)
    try:
        yield sock.getsockname()[1]
    finally:
        server.should_exit = True
        thread.join(30)
        sock.close()


def head(port: int, length: int, path: str = "/api/games") -> bytes:
    return (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {length}\r\n\r\n").encode()


def read_all(sock: socket.socket) -> bytes:
    """Everything until the server closes the connection."""
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


def read_kept(sock: socket.socket) -> bytes:
    """Everything until the server closes the connection, or resets it: a
    byte sent as the server answered and closed is never read there, so the
    server's kernel resets the connection; the answer, sent before the
    reset, is read here before it (Linux hands out what was received before
    the reset's error), and kept."""
    data = b""
    with contextlib.suppress(ConnectionResetError):
        while chunk := sock.recv(65536):
            data += chunk
    return data


@pytest.fixture
def slow_store(tmp_path: Path) -> Store:
    return Store(str(tmp_path / "games.db"))


def games(store: Store) -> int:
    return len(store.list(1000))


def test_a_body_slower_than_the_limit_is_refused_with_408(slow_store: Store) -> None:
    app = create_app(slow_store, workers=0, limits={}, body_timeout_s=0.5)
    body = json.dumps({"online": True, "black_name": "Ann"}).encode()
    with serving(app) as port:
        # 10 bytes of its 40, then nothing: refused, and the connection closed
        with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
            sock.sendall(head(port, len(body)) + body[:10])
            answer = read_all(sock)
        assert answer.startswith(b"HTTP/1.1 408 "), answer
        assert b"connection: close" in answer.lower()
        assert b"the request body did not arrive within 0.5 s" in answer
        # a body that trickles in, a byte at a time, each in time but the whole too late
        with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
            sock.sendall(head(port, len(body)))
            sent = 0
            while sent < len(body) - 1 and not select_readable(sock, 0.1):
                sock.sendall(body[sent:sent + 1])
                sent += 1
            trickled = read_kept(sock)
        assert trickled.startswith(b"HTTP/1.1 408 "), trickled
        assert games(slow_store) == 0  # nothing made of either
        # the whole body at once is taken
        with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
            sock.sendall(head(port, len(body)) + body)
            first = sock.recv(65536)
        assert first.startswith(b"HTTP/1.1 200 "), first
        assert games(slow_store) == 1


def select_readable(sock: socket.socket, wait: float) -> bool:
    import select

    return bool(select.select([sock], [], [], wait)[0])


def wait_for(check: Any) -> None:
    """Until ``check()`` (the server works in its own thread)."""
    deadline = time.monotonic() + 60
    while not check():
        assert time.monotonic() < deadline, "never happened"
        time.sleep(0.02)


def tracebacks(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.exc_info or "Exception in ASGI" in r.getMessage()]


def left_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if "a client left" in r.getMessage()]


def test_a_client_leaving_mid_body_is_one_line_without_a_traceback(
    slow_store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    app = create_app(slow_store, workers=0, limits={})
    with serving(app) as port:
        for _ in range(3):
            with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
                sock.sendall(head(port, 100) + b'{"online"')
        wait_for(lambda: left_lines(caplog))
        # the server goes on serving
        with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
            body = b"{}"
            sock.sendall(head(port, len(body)) + body)
            assert sock.recv(65536).startswith(b"HTTP/1.1 200 ")
    lines = left_lines(caplog)
    assert len(lines) == 1, lines  # the three in one minute: one line, then a count
    assert lines[0].startswith("a client left before its answer (POST /api/games from 127.0.0.1)"), lines
    assert tracebacks(caplog) == []


def test_websockets_reset_mid_answer_leave_no_traceback(
    slow_store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    app = create_app(slow_store, workers=0, limits={})
    with serving(app) as port:
        for _ in range(5):
            ws = connect(f"ws://127.0.0.1:{port}/ws", legacy=True)
            for _ in range(20):
                ws.send(json.dumps({"type": "create"}))
            ws.socket.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            ws.socket.close()  # a reset: no close frame, frames still to answer
        with connect(f"ws://127.0.0.1:{port}/ws") as ws:
            ws.send(json.dumps({"type": "ping"}))
            assert json.loads(ws.recv(timeout=60)) == {"type": "pong"}
    assert tracebacks(caplog) == []
    assert len(left_lines(caplog)) <= 1


def run_edge(app: Any, scope_type: str = "websocket", repeats: Repeats | None = None) -> list[Any]:
    sent: list[Any] = []

    async def receive() -> dict[str, Any]:
        return {"type": "websocket.connect"}

    async def send(message: Any) -> None:
        sent.append(message)

    scope = {"type": scope_type, "path": "/ws", "client": ("203.0.113.4", 5000), "headers": []}
    asyncio.run(Edge(app, repeats=repeats)(scope, receive, send))
    return sent


def test_the_edge_turns_a_client_gone_into_one_line_and_nothing_else(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    now = [0.0]
    repeats = Repeats(logging.getLogger("kamisado.web"), 60.0, lambda: now[0])
    for gone in (WebSocketDisconnect(1006), ClientDisconnected(), WebSocketDisconnect(1001)):
        async def app(scope: Any, receive: Any, send: Any, gone: Exception = gone) -> None:
            raise gone

        run_edge(app, repeats=repeats)
    assert left_lines(caplog) == [
        "a client left before its answer (websocket /ws from 203.0.113.4): WebSocketDisconnect: 1006"]
    now[0] = 61.0
    repeats.flush()
    assert left_lines(caplog)[1] == "a client left before its answer: 2 more times in 60 s (1 different; " \
        "last: websocket /ws from 203.0.113.4: WebSocketDisconnect: 1001)"
    assert tracebacks(caplog) == []

    async def broken(scope: Any, receive: Any, send: Any) -> None:
        raise RuntimeError("a real failure")

    with pytest.raises(RuntimeError, match="a real failure"):  # not hidden as a client leaving
        run_edge(broken)
