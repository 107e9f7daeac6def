"""Slow clients (issue 40, item 1), on a real server (uvicorn in a thread
with the protocols of :mod:`kamisado.web.edge.doors`): a request head that
does not come in time closes its connection, a request whose head came is
never cut, and the caps per address and in all refuse cleanly while
others are still answered."""

from __future__ import annotations

import asyncio
import contextlib
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from websockets.sync.client import connect

from kamisado.web.edge.doors import DoorLimits, Doors, protocols

pytestmark = pytest.mark.timeout(120, method="thread")

#: How long a test waits for what the server must do (generous: CI under load).
DEADLINE_S = 30.0


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """``/slow`` answers after a second (longer than the tests' head
    timeouts); a POST once its whole body came; any other at once; a
    websocket echoes."""
    if scope["type"] == "lifespan":
        while (message := await receive())["type"] != "lifespan.shutdown":
            await send({"type": message["type"] + ".complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    if scope["type"] == "websocket":
        await receive()
        await send({"type": "websocket.accept"})
        while (message := await receive())["type"] == "websocket.receive":
            await send({"type": "websocket.send", "text": message.get("text") or ""})
        return
    while scope["method"] == "POST" and (await receive()).get("more_body"):
        pass
    if scope["path"] == "/slow":
        await asyncio.sleep(1.0)  # the request takes its time: the head timeout must not cut it
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
    await send({"type": "http.response.body", "body": b"ok"})


@contextlib.contextmanager
def serving(limits: DoorLimits) -> Iterator[tuple[int, Doors]]:
    """``app`` served with ``limits`` at the door: its port and doors."""
    doors = Doors(limits)
    http, ws = protocols(doors)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(app, log_config=None, http=http, ws=ws, lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + DEADLINE_S
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    try:
        yield sock.getsockname()[1], doors
    finally:
        server.should_exit = True
        thread.join(30)
        sock.close()


def opened(port: int, source: str = "127.0.0.1") -> socket.socket:
    sock = socket.socket()
    sock.bind((source, 0))
    sock.settimeout(DEADLINE_S)
    sock.connect(("127.0.0.1", port))
    return sock


def until_closed(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (a reset
    counts as closed); fails after :data:`DEADLINE_S`."""
    data = b""
    try:
        while chunk := sock.recv(65536):
            data += chunk
    except ConnectionResetError:
        pass
    return data


def answer(sock: socket.socket, path: str = "/") -> bytes:
    """One request on a kept-alive connection: its whole answer."""
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    data = b""
    while not data.endswith(b"\r\n\r\nok"):
        chunk = sock.recv(65536)
        assert chunk, f"closed after {data!r}"
        data += chunk
    return data


def wait_for(condition: Any) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while not condition():
        assert time.monotonic() < deadline, "the server never got there"
        time.sleep(0.01)


def test_a_slow_head_is_closed_with_408_and_a_silent_connection_without_a_word() -> None:
    with serving(DoorLimits(head_timeout=0.2, per_address=0)) as (port, doors):
        slow, silent = opened(port), opened(port)
        slow.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-a: b")
        assert until_closed(slow).startswith(b"HTTP/1.1 408 ")
        assert until_closed(silent) == b""
        wait_for(lambda: len(doors) == 0)


def test_a_head_trickled_a_byte_at_a_time_is_closed_all_the_same() -> None:
    """Each byte that comes does not restart the clock (slowloris)."""
    with serving(DoorLimits(head_timeout=0.5, per_address=0)) as (port, doors):
        sock = opened(port)
        sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-a: ")
        deadline = time.monotonic() + DEADLINE_S
        with pytest.raises(OSError):  # the server closed it: a send fails (reset, broken pipe)
            while time.monotonic() < deadline:
                sock.sendall(b"b")
                time.sleep(0.02)  # the client's pace, not a wait for the server


def test_a_kept_alive_connection_is_not_cut_mid_request_but_its_next_head_is_timed() -> None:
    with serving(DoorLimits(head_timeout=0.3, per_address=0)) as (port, doors):
        sock = opened(port)
        assert answer(sock, "/slow").startswith(b"HTTP/1.1 200 ")  # took 1 s > 0.3 s: not cut
        assert answer(sock, "/").startswith(b"HTTP/1.1 200 ")  # the same connection, kept alive
        sock.sendall(b"GET / HTTP/1.1\r\nHost")  # the next head stops half-way
        assert until_closed(sock).startswith(b"HTTP/1.1 408 ")


def test_a_websocket_is_never_timed_out_and_leaves_the_count_when_it_closes() -> None:
    with serving(DoorLimits(head_timeout=0.2, per_address=0)) as (port, doors), \
            connect(f"ws://127.0.0.1:{port}/ws", open_timeout=DEADLINE_S) as websocket:
        silent = opened(port)
        assert until_closed(silent) == b""  # the head timeout went by
        websocket.send("still here")
        assert websocket.recv(timeout=DEADLINE_S) == "still here"
        wait_for(lambda: len(doors) == 1)
        silent.close()
    wait_for(lambda: len(doors) == 0)


def test_one_address_is_capped_while_another_is_answered() -> None:
    with serving(DoorLimits(head_timeout=60.0, per_address=3)) as (port, doors):
        held = [opened(port) for _ in range(3)]
        wait_for(lambda: len(doors) == 3)
        refused = until_closed(opened(port))
        assert refused.startswith(b"HTTP/1.1 503 ") and b"connection: close" in refused
        assert b"too many connections from this address" in refused
        other = opened(port, "127.0.0.2")
        assert answer(other).startswith(b"HTTP/1.1 200 ")
        held[0].close()  # one leaves: the address gets a place again
        wait_for(lambda: len(doors) == 3)
        held[0] = opened(port)
        assert answer(held[0]).startswith(b"HTTP/1.1 200 ")
        for sock in [*held, other]:
            sock.close()


def test_a_proxy_is_not_capped_per_address() -> None:
    with serving(DoorLimits(head_timeout=60.0, per_address=1, exempt=("127.0.0.0/8",))) as (port, doors):
        held, second = opened(port), opened(port)
        assert answer(second).startswith(b"HTTP/1.1 200 ")
        held.close()
        second.close()


def test_at_the_cap_the_longest_waiting_head_makes_room_else_the_new_one_is_refused() -> None:
    with serving(DoorLimits(head_timeout=60.0, per_address=0, total=2)) as (port, doors):
        first = opened(port)
        wait_for(lambda: doors.waiting() == 1)
        second = opened(port)
        wait_for(lambda: doors.waiting() == 2)
        fresh = opened(port, "127.0.0.3")
        assert answer(fresh).startswith(b"HTTP/1.1 200 ")  # /healthz from elsewhere gets through
        assert until_closed(first) == b""  # it waited longest
        fresh.close()
        wait_for(lambda: len(doors) == 1)
        # both places busy: a websocket, and a request whose body is under way
        with connect(f"ws://127.0.0.1:{port}/ws", open_timeout=DEADLINE_S):
            second.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n")
            wait_for(lambda: len(doors) == 2 and doors.waiting() == 0)
            refused = until_closed(opened(port))
            assert refused.startswith(b"HTTP/1.1 503 ") and b"too many connections" in refused
            second.sendall(b"0123456789")  # its body comes: answered, not cut
            assert second.recv(65536).startswith(b"HTTP/1.1 200 ")
        first.close()
        second.close()


def test_kamisado_web_closes_slow_heads_and_caps_an_address(tmp_path: Path) -> None:
    """The options reach the server: ``kamisado web`` itself (a subprocess)."""
    argv = [sys.executable, "-m", "kamisado.cli", "web", "--port", "0", "--no-browser", "--workers", "1",
            "--db", str(tmp_path / "g.sqlite3"), "--header-timeout", "300ms",
            "--connections-per-address", "2", "--max-connections", "50"]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert proc.stdout is not None
        port = next(int(found.group(1)) for line in proc.stdout
                    if (found := re.search(r"serving on http://[\d.]+:(\d+)/", line)))
        slow, held = opened(port), opened(port)
        slow.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-a: b")
        refused = until_closed(opened(port))
        assert refused.startswith(b"HTTP/1.1 503 ") and b"too many connections from this address" in refused
        assert answer_healthz(opened(port, "127.0.0.2")).startswith(b"HTTP/1.1 200 ")
        assert until_closed(slow).startswith(b"HTTP/1.1 408 ")
        assert until_closed(held) == b""
    finally:
        proc.terminate()
        proc.communicate(timeout=60)


def answer_healthz(sock: socket.socket) -> bytes:
    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    return until_closed(sock)


@pytest.mark.parametrize("option", ["--header-timeout", "--connections-per-address", "--max-connections"])
def test_the_options_are_checked(option: str) -> None:
    result = subprocess.run([sys.executable, "-m", "kamisado.cli", "web", "--no-browser", option, "-1"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.strip().splitlines()[-1].endswith(f"{option}: expected 0 or more, found -1")
