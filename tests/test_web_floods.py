"""Websocket floods (kamisado/web/edge/guard.py ``Sockets``, kamisado/web/site/websocket.py):
caps on websockets per address and per player, a frame budget shared by all
of an address's connections, and a flooder kept out a while."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient, WebSocketDenialResponse
from starlette.websockets import WebSocketDisconnect
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from kamisado.web.edge.guard import (
    LIMITS,
    SOCKET_LIMITS,
    Limit,
    RateLimiter,
    SocketLimits,
    Sockets,
)
from kamisado.web.site.server import create_app


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def recv(ws: Any, kind: str) -> dict[str, Any]:
    msg: dict[str, Any] = ws.receive_json()
    assert msg["type"] == kind, msg
    return msg


def app_with(tmp_path: Path, clock: Clock, caps: SocketLimits, small: bool = False) -> TestClient:
    """A server whose limiter runs on ``clock``, with the caps ``caps`` and
    (``small``) frame limits small enough to reach in a test."""
    limits = dict(LIMITS)
    if small:
        limits["frame"] = Limit("frame", 1.0, 3, "websocket frames")
        limits["flood"] = Limit("flood", 10.0, 30, "websocket frames")
    limiter = RateLimiter(limits, clock, sockets=caps)
    return TestClient(create_app(str(tmp_path / "g.db"), workers=0, limits=limiter))


def elsewhere(client: TestClient, host: str, cookies: Any = None) -> TestClient:
    """Another client (address ``host``) of the same running app."""
    other = TestClient(client.app, client=(host, 4000), cookies=cookies)
    other.portal = client.portal
    return other


def refused_upgrade(client: TestClient) -> WebSocketDenialResponse:
    with pytest.raises(WebSocketDenialResponse) as exc, client.websocket_connect("/ws"):
        pass
    return exc.value


# -- the caps ------------------------------------------------------------------------


def test_websockets_are_capped_per_address(tmp_path: Path) -> None:
    clock = Clock()
    with app_with(tmp_path, clock, SocketLimits(per_address=3, per_player=0)) as client, \
            client.websocket_connect("/ws") as one, client.websocket_connect("/ws") as two:
        sockets = client.app.state.limiter.sockets  # type: ignore[attr-defined]
        with client.websocket_connect("/ws") as three:
            for ws in (one, two, three):
                ws.send_json({"type": "ping"})
                recv(ws, "pong")
            r = refused_upgrade(client)
            assert r.status_code == 429 and r.headers["retry-after"] == "5"
            assert r.json() == {"error": "too many websockets: at most 3 at once from one address", "code": "rate_limited",
                                "limit": "websocket", "retry_after": 5}
            assert r.headers["x-content-type-options"] == "nosniff"
            # another address is not refused
            with elsewhere(client, "198.51.100.7").websocket_connect("/ws") as ws:
                ws.send_json({"type": "ping"})
                recv(ws, "pong")
            assert sockets.open("addr:testclient") == 3 and sockets.open("addr:198.51.100.7") == 0
        assert sockets.open("addr:testclient") == 2  # one went: one more may come
        with client.websocket_connect("/ws") as ws:
            ws.send_json({"type": "ping"})
            recv(ws, "pong")
            assert refused_upgrade(client).status_code == 429


def test_websockets_are_capped_per_player_wherever_they_come_from(tmp_path: Path) -> None:
    clock = Clock()
    with app_with(tmp_path, clock, SocketLimits(per_address=100, per_player=2)) as client:
        client.get("/")  # a player: its cookie
        cookie = dict(client.cookies)
        with elsewhere(client, "198.51.100.1", cookie).websocket_connect("/ws") as one, \
                elsewhere(client, "198.51.100.2", cookie).websocket_connect("/ws") as two:
            for ws in (one, two):
                ws.send_json({"type": "ping"})
                recv(ws, "pong")
            r = refused_upgrade(elsewhere(client, "198.51.100.3", cookie))
            assert r.status_code == 429 and "at most 2 at once for one player" in r.json()["error"]
            # another player at that address is let in
            other = elsewhere(client, "198.51.100.3")
            other.get("/")
            with other.websocket_connect("/ws") as ws:
                ws.send_json({"type": "ping"})
                recv(ws, "pong")


# -- frames ----------------------------------------------------------------------------


def test_the_frame_budget_is_shared_by_an_address_connections(tmp_path: Path) -> None:
    clock = Clock()
    with app_with(tmp_path, clock, SocketLimits(), small=True) as client, \
            client.websocket_connect("/ws") as one, client.websocket_connect("/ws") as two:
        # a burst of 3 for the address, however many connections share it
        for ws in (one, two, one):
            ws.send_json({"type": "ping"})
            recv(ws, "pong")
        two.send_json({"type": "ping"})
        err = recv(two, "error")
        assert err["code"] == "rate_limited" and "the frame was dropped" in err["message"]
        one.send_json({"type": "ping"})
        assert recv(one, "error")["code"] == "rate_limited"
        # another address has a budget of its own
        with elsewhere(client, "198.51.100.9").websocket_connect("/ws") as ws:
            ws.send_json({"type": "ping"})
            recv(ws, "pong")
        clock.now += 1.0  # one more frame's worth
        two.send_json({"type": "ping"})
        recv(two, "pong")
        one.send_json({"type": "ping"})
        assert recv(one, "error")["code"] == "rate_limited"


def test_a_flooder_is_closed_and_kept_out(tmp_path: Path) -> None:
    clock = Clock()
    caps = SocketLimits(per_address=10, per_player=10, keep_out=30, hold=0)
    with app_with(tmp_path, clock, caps, small=True) as client:
        client.get("/")  # the flooder has a player too
        cookie = dict(client.cookies)
        with client.websocket_connect("/ws") as quiet, client.websocket_connect("/ws") as flooder:
            for _ in range(40):
                flooder.send_json({"type": "ping"})
            kinds = []
            with pytest.raises(WebSocketDisconnect) as exc:
                while True:
                    kinds.append(flooder.receive_json()["type"])
            assert exc.value.code == 1008
            assert kinds.count("pong") == 3 and kinds.count("error") == 28  # 27 dropped, then the close
            # the address's other connection is closed at its next frame
            clock.now += 5
            quiet.send_json({"type": "ping"})
            err = recv(quiet, "error")
            assert err["code"] == "rate_limited" and "kept out" in err["message"]
            with pytest.raises(WebSocketDisconnect) as exc:
                quiet.receive_json()
            assert exc.value.code == 1008
        # a new websocket from the address is refused on the upgrade, saying how long
        r = refused_upgrade(client)
        assert r.status_code == 429 and r.headers["retry-after"] == "25"
        assert r.json()["error"] == "kept out after a flood of websocket frames; try again in 25 s"
        # so is the flooder's player from another address; another client there is not
        assert refused_upgrade(elsewhere(client, "198.51.100.4", cookie)).status_code == 429
        with elsewhere(client, "198.51.100.4").websocket_connect("/ws") as ws:
            ws.send_json({"type": "ping"})
            recv(ws, "pong")
        clock.now += 25  # the time is up
        with client.websocket_connect("/ws") as ws:
            ws.send_json({"type": "ping"})
            recv(ws, "pong")


def test_a_kept_out_client_waits_for_its_refusal_unless_it_goes(tmp_path: Path) -> None:
    clock = Clock()
    caps = SocketLimits(keep_out=30, hold=0.05)
    with app_with(tmp_path, clock, caps) as client:
        sockets = client.app.state.limiter.sockets  # type: ignore[attr-defined]
        sockets.keep_out(["addr:testclient"])
        r = refused_upgrade(client)  # answered after the hold
        assert r.status_code == 429 and r.headers["retry-after"] == "30"
        assert sockets._held == {}
        # a client that gives up while held gets no answer, and is no longer counted
        scope = {"type": "websocket", "path": "/ws", "raw_path": b"/ws", "query_string": b"",
                 "headers": [], "client": ("testclient", 1), "server": ("testserver", 80),
                 "scheme": "ws", "subprotocols": [], "extensions": {"websocket.http.response": {}}}
        incoming = [{"type": "websocket.connect"}, {"type": "websocket.disconnect", "code": 1006}]
        sent: list[Any] = []

        async def receive() -> Any:
            return incoming.pop(0)

        async def send(message: Any) -> None:
            sent.append(message)

        client.portal.call(client.app, scope, receive, send)  # type: ignore[union-attr]
        assert sent == [] and incoming == [] and sockets._held == {}
        # when a key has HOLD_PER_KEY refusals held, the next is answered at once;
        # so is any once MAX_HELD are held in all
        assert [sockets.hold(["addr:x"]) for _ in range(2)] == [0.0, 0.0]  # (not kept out)
        sockets.keep_out(["addr:x"])
        held = [sockets.hold(["addr:x"]) for _ in range(sockets.HOLD_PER_KEY + 1)]
        assert held == [0.05] * sockets.HOLD_PER_KEY + [0.0]
        others = [f"addr:10.0.{i // 256}.{i % 256}" for i in range(sockets.MAX_HELD)]
        sockets.keep_out(others)
        held = [sockets.hold([key]) for key in others]
        assert held.count(0.05) == sockets.MAX_HELD - sockets.HOLD_PER_KEY and held[-1] == 0.0
        sockets.unhold(["addr:x"])
        assert sockets.hold([others[-1]]) == 0.05


def test_without_a_keep_out_a_flooder_may_come_back_at_once(tmp_path: Path) -> None:
    clock = Clock()
    with app_with(tmp_path, clock, SocketLimits(keep_out=0), small=True) as client:
        with client.websocket_connect("/ws") as flooder:
            for _ in range(40):
                flooder.send_json({"type": "ping"})
            with pytest.raises(WebSocketDisconnect) as exc:
                while True:
                    flooder.receive_json()
            assert exc.value.code == 1008
        clock.now += 3  # the flood bucket has refilled a little: a few frames go through
        with client.websocket_connect("/ws") as ws:
            ws.send_json({"type": "ping"})
            recv(ws, "pong")


# -- the state stays bounded, the defaults -------------------------------------------------


def test_the_counts_and_the_kept_out_stay_bounded() -> None:
    clock = Clock()
    socks = Sockets(SocketLimits(per_address=2, keep_out=10), clock)
    keys = [f"addr:10.0.0.{i}" for i in range(50)]
    for key in keys:
        assert socks.admit([key]) is None
    for key in keys:
        socks.release([key])
    assert socks._open == {}  # nobody open: nothing kept
    socks.MAX_KEPT_OUT = 20  # (an instance's own bound)
    for i, key in enumerate(keys):
        clock.now = 1000.0 + i
        socks.keep_out([key])
    assert len(socks._out) == 20
    assert socks.kept_out([keys[-1]]) == 10.0 and socks.kept_out([keys[0]]) == 0.0  # the oldest went
    clock.now += 10
    assert socks.kept_out(keys) == 0.0 and socks._out == {}  # the ended are forgotten as they are asked


def test_the_server_has_caps_by_default_and_none_with_the_limits_off(tmp_path: Path) -> None:
    app = create_app(str(tmp_path / "a.db"), workers=0, limits=LIMITS)
    assert app.state.limiter.sockets.limits == SOCKET_LIMITS == SocketLimits(32, 16, 60.0)
    app = create_app(str(tmp_path / "b.db"), workers=0, limits=LIMITS, sockets=SocketLimits(4, 2, 9))
    assert app.state.limiter.sockets.limits == SocketLimits(4, 2, 9)
    assert create_app(str(tmp_path / "c.db"), workers=0, limits={}).state.limiter.sockets is None
    with pytest.raises(ValueError, match="0 or more"):
        SocketLimits(per_address=-1)


# -- a real server ------------------------------------------------------------------------


def start(tmp_path: Path, *args: str) -> tuple[subprocess.Popen[str], int]:
    env = {k: v for k, v in os.environ.items() if k != "KAMISADO_WEB_LIMITS"}  # the limits on
    proc = subprocess.Popen(
        [sys.executable, "-m", "kamisado.cli", "web", "--port", "0", "--no-browser", "--workers", "1",
         "--db", str(tmp_path / "g.db"), *args],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        found = re.search(r"serving on http://[\d.]+:(\d+)/", line)
        if found:
            return proc, int(found.group(1))
    proc.kill()
    raise AssertionError(f"the server did not start: {proc.wait()}")


@pytest.fixture
def capped(tmp_path: Path) -> Iterator[int]:
    """A real server allowing 2 websockets an address: its port."""
    proc, port = start(tmp_path, "--ws-per-address", "2", "--ws-per-player", "0")
    try:
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_a_real_server_answers_a_websocket_over_the_cap_with_429(capped: int) -> None:
    url = f"ws://127.0.0.1:{capped}/ws"
    with connect(url) as one, connect(url) as two:
        for ws in (one, two):
            ws.send('{"type": "ping"}')
            assert '"pong"' in str(ws.recv(timeout=10))
        with pytest.raises(InvalidStatus) as exc:
            connect(url, open_timeout=10)
        response = exc.value.response
        assert response.status_code == 429 and response.headers["Retry-After"] == "5"
        assert b"at most 2 at once from one address" in response.body
        # another address (all of 127/8 is this machine) has caps of its own
        with connect(url, source_address=("127.0.0.2", 0)) as other:
            other.send('{"type": "ping"}')
            assert '"pong"' in str(other.recv(timeout=10))


def test_the_options_are_checked() -> None:
    for option in ("--ws-per-address", "--ws-per-player", "--ws-keep-out"):
        result = subprocess.run(
            [sys.executable, "-m", "kamisado.cli", "web", "--no-browser", option, "-1"],
            capture_output=True, text=True, timeout=60,
        )
        assert result.returncode == 2 and result.stdout == ""
        assert result.stderr.strip().splitlines()[-1].endswith(f"{option}: expected 0 or more, found -1")
