"""Limits, the Origin rule and the security headers (kamisado/web/edge/guard.py)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from kamisado.web.edge.guard import LIMITS, Limit, RateLimiter, limits_from_env
from kamisado.web.site.analysis import AnalysisSlots
from kamisado.web.site.server import create_app
from tests.waiting import until

FOREIGN = {"Origin": "http://evil.example"}
OURS = {"Origin": "http://testserver"}


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def stored(client: TestClient) -> list[Any]:
    """Every game in the server's store (rows), newest first."""
    rows: list[Any] = client.app.state.hub.store.list(1000)  # type: ignore[attr-defined]
    return rows


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def client(tmp_path: Path, clock: Clock) -> Iterator[TestClient]:
    app = create_app(str(tmp_path / "games.db"), workers=0, limits=RateLimiter(LIMITS, clock))
    with TestClient(app) as c:
        yield c


def recv(ws: Any, kind: str) -> dict[str, Any]:
    msg: dict[str, Any] = ws.receive_json()
    assert msg["type"] == kind, msg
    return msg


# -- headers ---------------------------------------------------------------------


@pytest.mark.parametrize("url", ["/", "/api/levels", "/static/js/main.js", "/api/games/nope/steps", "/missing"])
def test_every_response_has_the_security_headers(client: TestClient, url: str) -> None:
    r = client.get(url)
    csp = r.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
    assert "base-uri 'none'" in csp and "form-action 'self'" in csp
    assert "unsafe-inline" not in csp
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["referrer-policy"] == "same-origin"
    assert r.headers["x-frame-options"] == "DENY"


def test_the_page_has_no_inline_script_or_style_that_the_policy_blocks(client: TestClient) -> None:
    html = client.get("/").text
    assert " style=" not in html and "<style" not in html and " onclick=" not in html
    # the only inline script is a JSON data block, which is never run
    import re

    for attrs in re.findall(r"<script([^>]*)>", html):
        assert 'type="application/json"' in attrs or "src=" in attrs, attrs


# -- the Origin rule --------------------------------------------------------------


def test_a_foreign_origin_cannot_create_games(client: TestClient) -> None:
    r = client.post("/api/games", content='{"target": 1}', headers={**FOREIGN, "Content-Type": "text/plain"})
    assert r.status_code == 403 and "another site" in r.json()["error"]
    r = client.post("/api/games", json={"target": 1}, headers=FOREIGN)
    assert r.status_code == 403
    r = client.post("/api/records", content="[Black]", headers=FOREIGN)
    assert r.status_code == 403
    # no Origin, but the browser says it comes from another site
    r = client.post("/api/games", json={"target": 1}, headers={"Sec-Fetch-Site": "cross-site"})
    assert r.status_code == 403
    assert stored(client) == []  # nothing was created
    # reading is not refused (the headers keep other sites from reading the answers)
    assert client.get("/api/levels", headers=FOREIGN).status_code == 200


def test_the_same_origin_and_clients_without_one_may_create(client: TestClient) -> None:
    assert client.post("/api/games", json={"target": 1}, headers=OURS).status_code == 200
    r = client.post("/api/games", json={"target": 1}, headers={**OURS, "Sec-Fetch-Site": "same-origin"})
    assert r.status_code == 200
    assert client.post("/api/games", json={"target": 1}).status_code == 200  # curl, the load bench
    assert len(stored(client)) == 3


def test_a_websocket_from_a_foreign_origin_is_refused(client: TestClient) -> None:
    with pytest.raises(WebSocketDisconnect) as exc, client.websocket_connect("/ws", headers=FOREIGN):
        pass
    assert exc.value.code == 1008
    for headers in (OURS, {}):
        with client.websocket_connect("/ws", headers=headers) as ws:
            ws.send_json({"type": "ping"})
            recv(ws, "pong")


def test_allowed_origins(tmp_path: Path) -> None:
    app = create_app(str(tmp_path / "g.db"), workers=0, allow_origins=("http://evil.example",))
    with TestClient(app) as c:
        assert c.post("/api/games", json={"target": 1}, headers=FOREIGN).status_code == 200
        assert c.post("/api/games", json={"target": 1}, headers={"Origin": "null"}).status_code == 403


# -- the HTTP limits ---------------------------------------------------------------


def test_creating_games_is_limited_per_address(client: TestClient, clock: Clock) -> None:
    burst = LIMITS["create"].burst
    for _ in range(burst):
        assert client.post("/api/games", json={"target": 1}).status_code == 200
    r = client.post("/api/games", json={"target": 1})
    assert r.status_code == 429
    assert r.json()["error"] == (
        "too many games created: at most 20 at once, then 10 a minute; try again in 6 s"
    )
    assert r.headers["retry-after"] == "6" and r.json()["limit"] == "create"
    assert r.headers["x-content-type-options"] == "nosniff"
    # the websocket's create frame takes from the same limit
    with client.websocket_connect("/ws") as ws:
        ws.send_json({"type": "create", "target": 1})
        assert recv(ws, "error")["code"] == "rate_limited"
        ws.send_json({"type": "ping"})
        recv(ws, "pong")  # the connection stays
        clock.now += 6
        ws.send_json({"type": "create", "target": 1})
        recv(ws, "created")
    assert client.post("/api/games", json={"target": 1}).status_code == 429
    clock.now += 6
    assert client.post("/api/games", json={"target": 1}).status_code == 200
    assert len(stored(client)) == burst + 2


def test_a_player_is_limited_wherever_they_connect_from(client: TestClient, clock: Clock) -> None:
    client.get("/")  # a player: its cookie
    cookie = dict(client.cookies)
    burst = LIMITS["create"].burst
    for i in range(burst):  # from ever new addresses, with the same player
        elsewhere = TestClient(client.app, client=(f"198.51.100.{i + 1}", 4000), cookies=cookie)
        elsewhere.portal = client.portal
        assert elsewhere.post("/api/games", json={"target": 1}).status_code == 200
    elsewhere = TestClient(client.app, client=("198.51.100.200", 4000), cookies=cookie)
    elsewhere.portal = client.portal
    r = elsewhere.post("/api/games", json={"target": 1})
    assert r.status_code == 429 and r.json()["limit"] == "create" and r.json()["code"] == "rate_limited"
    with elsewhere.websocket_connect("/ws") as ws:  # the lobby's challenges too
        ws.send_json({"type": "challenge", "target": 1})
        assert recv(ws, "error")["code"] == "rate_limited"
    # another player at that address is not slowed by it
    other = TestClient(client.app, client=("198.51.100.201", 4000))
    other.portal = client.portal
    other.get("/")
    assert other.post("/api/games", json={"target": 1}).status_code == 200


def test_uploads_and_analysis_are_limited_and_others_are_not_slowed(client: TestClient) -> None:
    for _ in range(LIMITS["record"].burst):
        assert client.post("/api/records", content="not a record").status_code == 400
    r = client.post("/api/records", content="not a record")
    assert r.status_code == 429 and "records uploaded" in r.json()["error"] and r.json()["code"] == "rate_limited"
    for _ in range(LIMITS["analysis"].burst):  # a bad position: refused, but counted
        assert client.get("/api/analyse", params={"kpn": "x"}).status_code == 400
    r = client.get("/api/reply", params={"kpn": "x"})
    assert r.status_code == 429 and "analysis requests" in r.json()["error"]
    assert r.headers["retry-after"] == "1"
    # a game's review is analysis too (an unknown game: refused by the limit first)
    assert client.get("/api/games/nosuchgame/review").status_code == 429
    for _ in range(LIMITS["position"].burst):
        client.get("/api/position", params={"kpn": "x"})
    assert client.get("/api/position", params={"kpn": "x"}).status_code == 429
    # another address is not slowed (this route needs nothing of the lifespan)
    other = TestClient(client.app, client=("198.51.100.7", 4000))
    assert other.get("/api/position", params={"kpn": "x"}).status_code == 400
    # a request that takes from no limit is never refused
    assert client.get("/api/levels").status_code == 200


def test_limits_can_be_turned_off() -> None:
    assert limits_from_env({"KAMISADO_WEB_LIMITS": "off"}) == {}
    rl = RateLimiter({})
    assert all(rl.take("create", "addr:x") == 0.0 for _ in range(1000)) and len(rl) == 0


def test_idle_buckets_are_forgotten() -> None:
    clock = Clock()
    rl = RateLimiter(LIMITS, clock)
    for i in range(1000):
        rl.take("create", f"addr:10.0.{i // 256}.{i % 256}")
    assert len(rl) == 1000
    clock.now += 3600  # an hour later each is full again
    for i in range(200):
        rl.take("position", f"addr:10.1.0.{i}")
    assert len(rl) == 200  # the idle ones went, a few at each request
    rl = RateLimiter(LIMITS, clock, max_keys=50)
    for i in range(500):
        rl.take("create", f"addr:{i}")
    assert len(rl) == 50


# -- websocket frames ---------------------------------------------------------------


def small_frames(tmp_path: Path, clock: Clock) -> TestClient:
    limits = {
        "frame": Limit("frame", 1.0, 3, "websocket frames"),
        "flood": Limit("flood", 10.0, 30, "websocket frames"),
    }
    return TestClient(create_app(str(tmp_path / "g.db"), workers=0, limits=RateLimiter(limits, clock)))


def test_frames_over_the_limit_get_an_error_and_are_dropped(tmp_path: Path, clock: Clock) -> None:
    with small_frames(tmp_path, clock) as c, c.websocket_connect("/ws") as ws:
        for _ in range(3):
            ws.send_json({"type": "ping"})
            recv(ws, "pong")
        ws.send_json({"type": "ping"})
        err = recv(ws, "error")
        assert err["code"] == "rate_limited" and "websocket frames" in err["message"]
        assert "try again in 1 s" in err["message"]
        clock.now += 1.0
        ws.send_json({"type": "ping"})
        recv(ws, "pong")  # the connection stayed


def test_a_connection_flooding_far_past_the_limit_is_closed(tmp_path: Path, clock: Clock) -> None:
    with small_frames(tmp_path, clock) as c, c.websocket_connect("/ws") as ws:
        for _ in range(40):
            ws.send_json({"type": "ping"})
        kinds = []
        with pytest.raises(WebSocketDisconnect) as exc:
            while True:
                kinds.append(ws.receive_json()["type"])
        assert exc.value.code == 1008
        assert kinds.count("pong") == 3 and kinds.count("error") == 28  # 27 dropped, then the close


# -- the computer: fairness and unwatched games ---------------------------------------


def test_analysis_leaves_a_worker_for_computer_moves(tmp_path: Path) -> None:
    app = create_app(str(tmp_path / "g.db"), workers=2, limits={})
    fig3 = "o1upyrgn/8/8/1P5b/6B1/7O/8/NGRY1U2 b n 1 0 0"
    with TestClient(app) as client:
        assert client.app.state.analysis.slots == 1  # type: ignore[attr-defined]
        g = client.post("/api/games", json={"target": 1, "gold": "beginner"}).json()
        with client.websocket_connect("/ws") as ws:
            ws.send_json({"type": "join", "game": g["id"], "token": g["tokens"]["b"]})
            recv(ws, "state")
            # warm both workers up (the first job in a fresh process imports the engine)
            client.get("/api/reply", params={"kpn": fig3})
            start = "obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 1 0 0"
            answers: list[int] = []
            answered: list[float] = []

            def ask() -> None:
                # the start: not proved at once (fig3 is, in milliseconds), so each job takes its 1.5 s
                answers.append(client.get("/api/analyse", params={"kpn": start, "ms": 1500}).status_code)
                answered.append(time.monotonic())

            threads = [threading.Thread(target=ask) for _ in range(3)]
            for t in threads:
                t.start()
            slots = client.app.state.analysis  # type: ignore[attr-defined]
            until(lambda: slots.semaphore.locked() and slots.waiting == 2, "the analysis queue is full")
            sent_at = time.monotonic()
            ws.send_json({"type": "move", "move": "c1-c5"})
            assert recv(ws, "state")["seq"] == 1
            st = recv(ws, "state")
            replied = time.monotonic()
            assert st["seq"] == 2 and st["last"]["side"] == "g"
            for t in threads:
                t.join(30)
            assert answers == [200, 200, 200]
            # not behind the analysis: the reply came before the first of its 1.5 s jobs ended
            assert replied < min(answered), (sent_at, replied, answered)


def test_too_many_waiting_analysis_jobs_are_refused() -> None:
    import asyncio

    async def run() -> bool:
        slots = AnalysisSlots(1)
        await slots.semaphore.acquire()
        slots.waiting = 4
        return slots.busy()

    assert asyncio.run(run())


def test_a_computer_game_nobody_watches_pauses(tmp_path: Path) -> None:
    app = create_app(str(tmp_path / "g.db"), workers=1, limits={})
    body = {"black": "beginner", "gold": "beginner", "target": 15, "delay": 0.1}
    with TestClient(app) as client:
        g = client.post("/api/games", json=body).json()
        hub = client.app.state.hub  # type: ignore[attr-defined]

        def actions() -> int:
            return int(next(r.actions for r in stored(client) if r.id == g["id"]))

        # time is measured by a game of the same kind that is watched: no
        # sleep, and on a loaded machine both go slower alike
        control = client.post("/api/games", json=body).json()

        def watch_control(moves: int) -> None:
            with client.websocket_connect("/ws") as cw:
                cw.send_json({"type": "join", "game": control["id"]})
                first = recv(cw, "state")["seq"]
                while recv(cw, "state")["seq"] < first + moves:
                    pass

        watch_control(4)
        assert actions() == 0 and g["id"] not in hub.games  # nobody came: it never started
        with client.websocket_connect("/ws") as ws:
            ws.send_json({"type": "join", "game": g["id"]})
            while recv(ws, "state")["seq"] < 4:
                pass
        # the move being thought about when the watcher left is stored, then the game is dropped
        until(lambda: g["id"] not in hub.games, "the unwatched game is dropped")
        left_at = actions()
        watch_control(10)  # ten moves' worth of delay
        assert actions() == left_at and g["id"] not in hub.games
        with client.websocket_connect("/ws") as ws:
            ws.send_json({"type": "join", "game": g["id"]})
            while recv(ws, "state")["seq"] < left_at + 3:
                pass


def test_sign_in_attempts_are_limited(tmp_path: Path, clock: Clock) -> None:
    """Each attempt hashes a password (argon2id): guessing is slowed per address."""
    # the limiter's clock stands still: on a loaded machine twelve hashes may
    # take longer than the 6 s that give a token back
    app = create_app(str(tmp_path / "games.db"), workers=0, limits=RateLimiter(LIMITS, clock))
    with TestClient(app) as client:
        # a name each time: one name is locked after 5 failures (test_web_sessions.py)
        codes = [
            client.post("/api/signin", json={"account": f"nobody{i}", "password": "wrong-guess"}).status_code
            for i in range(12)
        ]
        assert codes[:10] == [401] * 10
        assert codes[10:] == [429, 429]
