"""Running ``kamisado web`` as a service (``kamisado/web/site/ops.py``,
``kamisado/web/basics/metrics.py``): health and readiness checks, the Prometheus
metrics and who may read them, JSON logs, and the graceful stop on SIGTERM
(every page told, what is being stored stored, nothing stored after)."""

from __future__ import annotations

import contextlib
import http.client
import json
import logging
import math
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from prometheus_client.parser import text_string_to_metric_families
from starlette.testclient import TestClient
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from kamisado.web.site.ops import GracefulServer, JsonFormatter, parse_allow
from kamisado.web.site.server import create_app
from kamisado.web.store.storage import Store
from tests.conftest import Cluster, stop_process

# a regression here blocks in a receive: fail it in bounded time instead
pytestmark = pytest.mark.timeout(120)


def samples(text: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """The samples of a Prometheus exposition, by name and labels."""
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def value(found: dict[tuple[str, frozenset[tuple[str, str]]], float], name: str, **labels: str) -> float:
    return found[(name, frozenset(labels.items()))]


def state(ws: Any) -> dict[str, Any]:
    msg: dict[str, Any] = ws.receive_json()
    assert msg["type"] == "state", msg
    return msg


# -- health and readiness ----------------------------------------------------------------


class DownStore(Store):
    """A store whose database stops answering on demand (``down``)."""

    down = False

    def ping(self) -> None:
        if self.down:
            raise OSError("connection refused")
        super().ping()


def test_healthz_answers_while_the_process_lives_and_readyz_asks_the_database(tmp_path: Path) -> None:
    store = DownStore(str(tmp_path / "games.db"))
    with TestClient(create_app(store, workers=0)) as client:
        assert (client.get("/healthz").status_code, client.get("/healthz").text) == (200, "ok\n")
        r = client.get("/readyz")
        assert (r.status_code, r.json()) == (200, {"ready": True, "database": "ok"})
        store.down = True
        r = client.get("/readyz")
        assert r.status_code == 503
        assert r.json() == {"ready": False, "reason": "database: connection refused",
                            "database": "connection refused"}
        assert client.get("/healthz").status_code == 200  # alive, only not ready
        store.down = False
        assert client.get("/readyz").status_code == 200


def test_readyz_follows_a_real_postgresql_stopped_and_started(own_pg: Cluster) -> None:
    with TestClient(create_app(own_pg.url, workers=0)) as client:
        assert client.get("/readyz").json() == {"ready": True, "database": "ok"}
        own_pg.stop()
        r = client.get("/readyz")
        assert r.status_code == 503 and r.json()["reason"].startswith("database: "), r.text
        assert client.get("/healthz").status_code == 200
        own_pg.start()
        deadline = time.monotonic() + 30
        while client.get("/readyz").status_code != 200:
            assert time.monotonic() < deadline, "still not ready after PostgreSQL came back"
            time.sleep(0.2)


@pytest.fixture
def own_redis() -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """A Redis of this test's own (it is stopped mid-test)."""
    path = shutil.which("redis-server")
    if path is None:
        if os.environ.get("KAMISADO_REQUIRE_REDIS"):
            pytest.fail("redis-server is required here")
        pytest.skip("redis-server is not available")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with tempfile.TemporaryDirectory(prefix="kamisado-redis-ops-") as folder:
        proc = subprocess.Popen(
            [path, "--save", "", "--appendonly", "no", "--port", str(port), "--bind", "127.0.0.1",
             "--dir", folder], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 10
            while True:
                with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1) as c:
                    c.sendall(b"PING\r\n")
                    if c.recv(16).startswith(b"+PONG"):
                        break
                assert time.monotonic() < deadline and proc.poll() is None, "redis-server did not start"
                time.sleep(0.05)
            yield proc, f"redis://127.0.0.1:{port}/0"
        finally:
            stop_process(proc)


def test_readyz_names_a_job_queue_that_does_not_answer(
    tmp_path: Path, own_redis: tuple[subprocess.Popen[bytes], str]
) -> None:
    pytest.importorskip("arq")
    proc, url = own_redis
    app = create_app(str(tmp_path / "games.db"), queue=url)
    with TestClient(app, client=("127.0.0.1", 1)) as client:
        r = client.get("/readyz")
        assert (r.status_code, r.json()) == (200, {"ready": True, "database": "ok", "queue": "ok"})
        found = samples(client.get("/metrics").text)
        assert value(found, "kamisado_queue_depth", queue="moves") == 0  # the queue's, in Redis
        stop_process(proc)
        r = client.get("/readyz")
        assert r.status_code == 503, r.text
        body = r.json()
        assert body["database"] == "ok" and body["reason"].startswith("queue: the job queue at redis://")
        found = samples(client.get("/metrics").text)  # still served; the depth is not known
        assert math.isnan(value(found, "kamisado_queue_depth", queue="moves"))


# -- metrics ---------------------------------------------------------------------------------


def test_metrics_are_served_only_to_the_addresses_allowed(tmp_path: Path) -> None:
    app = create_app(str(tmp_path / "games.db"), workers=0)  # localhost by default
    with TestClient(app, client=("127.0.0.1", 40000)) as local:
        r = local.get("/metrics")
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
        assert "kamisado_websockets_open" in r.text
    with TestClient(app, client=("::1", 40000)) as local6:
        assert local6.get("/metrics").status_code == 200
    with TestClient(app, client=("203.0.113.9", 40000)) as outside:
        r = outside.get("/metrics")
        assert r.status_code == 403 and "--metrics-allow" in r.json()["error"]
        assert "kamisado_" not in r.text
    app = create_app(str(tmp_path / "games.db"), workers=0, metrics_allow=parse_allow("10.0.0.0/8"))
    with TestClient(app, client=("10.20.30.40", 40000)) as inside:
        assert inside.get("/metrics").status_code == 200
    with TestClient(app, client=("127.0.0.1", 40000)) as local:
        assert local.get("/metrics").status_code == 403


@pytest.mark.parametrize("given", ["10.0.0.300", "localhost,,nowhere", ""])
def test_a_bad_metrics_allow_is_one_line(given: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "kamisado.cli", "web", "--no-browser", "--metrics-allow", given],
        capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("kamisado web: --metrics-allow: expected"), lines


def test_metrics_count_what_the_server_did(tmp_path: Path) -> None:
    import gc

    with TestClient(create_app(str(tmp_path / "games.db"), workers=1), client=("127.0.0.1", 1)) as client:
        g = client.post("/api/games", json={"target": 1}).json()
        c = client.post("/api/games", json={"target": 1, "gold": "beginner"}).json()
        with client.websocket_connect("/ws") as ws, client.websocket_connect("/ws") as other:
            ws.send_json({"type": "join", "game": g["id"], "token": g["tokens"]["b"]})
            state(ws)
            for seq, move in enumerate(["c1-c5", "b8-b3", "d1-g4"]):
                ws.send_json({"type": "move", "move": move, "seq": seq})
                assert state(ws)["seq"] == seq + 1
            ws.send_json({"type": "move", "move": "a1-a8", "seq": 3})  # refused: not counted
            assert ws.receive_json()["code"] == "illegal"
            ws.send_json({"type": "takeback", "action": "offer"})
            assert state(ws)["seq"] == 4
            ws.send_json({"type": "resign", "seq": 4})
            assert state(ws)["state"] == "over"
            other.send_json({"type": "join", "game": c["id"], "token": c["tokens"]["b"]})
            state(other)
            other.send_json({"type": "move", "move": "c1-c5", "seq": 0})
            assert state(other)["seq"] == 1
            while state(other)["seq"] < 2:  # the computer answers
                pass
            gc.collect()  # a full collection in the server's process, timed
            found = samples(client.get("/metrics").text)
            assert value(found, "kamisado_websockets_open") == 2
            assert value(found, "kamisado_games_held") == 2
        assert value(found, "kamisado_actions_total", kind="move") == 5  # 3 + Black's + the computer's
        assert value(found, "kamisado_actions_total", kind="takeback") == 1
        assert value(found, "kamisado_actions_total", kind="resign") == 1
        assert value(found, "kamisado_actions_total", kind="flag") == 0
        assert value(found, "kamisado_move_seconds_count") == 4  # the moves sent and acknowledged
        assert value(found, "kamisado_move_seconds_sum") > 0
        assert value(found, "kamisado_store_call_seconds_count", call="append") == 7
        assert value(found, "kamisado_store_call_seconds_count", call="create") == 2
        assert value(found, "kamisado_think_seconds_count") == 1
        assert value(found, "kamisado_queue_depth", queue="moves") == 0
        assert value(found, "kamisado_gc_pause_seconds_count", generation="2") >= 1
        deadline = time.monotonic() + 30
        while value(found, "kamisado_event_loop_lag_seconds_count") < 1:  # measured every 0.5 s
            assert time.monotonic() < deadline
            time.sleep(0.1)
            found = samples(client.get("/metrics").text)
        found = samples(client.get("/metrics").text)
        assert value(found, "kamisado_websockets_open") == 0 and value(found, "kamisado_games_held") == 0
        assert "process_cpu_seconds_total" in {name for name, _ in found}


def test_a_flag_is_counted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kamisado.web.basics import clocks

    now = [1_700_000_000_000]
    monkeypatch.setattr(clocks, "now_ms", lambda: now[0])
    with TestClient(create_app(str(tmp_path / "games.db"), workers=0), client=("127.0.0.1", 1)) as client:
        g = client.post("/api/games", json={"target": 1, "clock": {"initial": 30, "increment": 0}}).json()
        with client.websocket_connect("/ws") as ws:
            ws.send_json({"type": "join", "game": g["id"], "token": g["tokens"]["b"]})
            state(ws)
            ws.send_json({"type": "move", "move": "c1-c5", "seq": 0})
            state(ws)
            now[0] += 30_001  # Gold's time runs out
            assert state(ws)["ended"] == {"reason": "time", "winner": "b"}
        found = samples(client.get("/metrics").text)
        assert value(found, "kamisado_actions_total", kind="flag") == 1
        assert value(found, "kamisado_flags_fallen_total") == 1


# -- logs -----------------------------------------------------------------------------------------


def test_json_logs_are_one_object_a_line_with_the_exception() -> None:
    formatter = JsonFormatter()
    try:
        raise ValueError("the reason \ud800")
    except ValueError:
        record = logging.getLogger("kamisado.web").makeRecord(
            "kamisado.web", logging.ERROR, __file__, 1, "game %s failed", ("g1",), sys.exc_info())
    line = formatter.format(record)
    assert "\n" not in line
    got = json.loads(line)
    assert set(got) == {"time", "level", "logger", "message", "exception"}
    assert (got["level"], got["logger"], got["message"]) == ("ERROR", "kamisado.web", "game g1 failed")
    assert got["exception"].startswith("Traceback") and "ValueError: the reason" in got["exception"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", got["time"])


# -- the graceful stop ------------------------------------------------------------------------------


class HeldStore(Store):
    """A store whose next action waits (``hold``) until the test lets it go."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.hold = False
        self.entered = threading.Event()
        self.release = threading.Event()

    def append(self, *args: Any, **kwargs: Any) -> None:
        if self.hold:
            self.entered.set()
            assert self.release.wait(60)
        super().append(*args, **kwargs)


def post(base: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    req = urllib.request.Request(base + path, data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"}, method="POST")
    answer: dict[str, Any] = json.loads(urllib.request.urlopen(req, timeout=10).read())
    return answer


def recv(ws: Any) -> dict[str, Any]:
    msg: dict[str, Any] = json.loads(ws.recv(timeout=20))
    return msg


def test_sigterm_tells_every_page_stores_what_it_was_storing_and_nothing_more(tmp_path: Path) -> None:
    db = str(tmp_path / "games.db")
    store = HeldStore(db)
    app = create_app(store, workers=0)
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", ws="websockets-sansio")
    server = GracefulServer(config, app)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive()
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    base = f"http://127.0.0.1:{port}"
    try:
        g1, g2 = post(base, "/api/games", {"target": 1}), post(base, "/api/games", {"target": 1})
        kept = http.client.HTTPConnection("127.0.0.1", port, timeout=10)  # a keep-alive connection
        kept.request("GET", "/healthz")
        assert kept.getresponse().read() == b"ok\n"
        with connect(f"ws://127.0.0.1:{port}/ws") as ws1, connect(f"ws://127.0.0.1:{port}/ws") as ws2:
            for ws, g in ((ws1, g1), (ws2, g2)):
                ws.send(json.dumps({"type": "join", "game": g["id"], "token": g["tokens"]["b"]}))
                assert recv(ws)["type"] == "state"
            store.hold = True
            ws1.send(json.dumps({"type": "move", "move": "c1-c5", "seq": 0}))
            assert store.entered.wait(20)  # game 1's move is being stored
            server.handle_exit(signal.SIGTERM, None)  # what the signal does
            assert recv(ws1) == {"type": "restarting"}
            assert recv(ws2) == {"type": "restarting"}
            with pytest.raises(OSError):  # no longer accepting
                socket.create_connection(("127.0.0.1", port), timeout=5).close()
            kept.request("GET", "/readyz")
            answer = kept.getresponse()
            assert answer.status == 503 and json.loads(answer.read())["reason"].startswith("restarting")
            ws2.send(json.dumps({"type": "move", "move": "c1-c5", "seq": 0}))  # too late: refused
            refused = recv(ws2)
            assert (refused["type"], refused["code"]) == ("error", "restarting"), refused
            assert thread.is_alive()  # waiting for game 1's move
            store.release.set()
            got = recv(ws1)  # stored, then announced
            assert (got["type"], got["seq"]) == ("state", 1)
            for ws in (ws1, ws2):
                with pytest.raises(ConnectionClosed) as closed:
                    recv(ws)
                assert closed.value.rcvd is not None and closed.value.rcvd.code == 1012
        thread.join(30)
        assert not thread.is_alive()
    finally:
        store.release.set()
        if thread.is_alive():
            server.should_exit = True
            thread.join(30)
    after = Store(db)
    try:
        assert after.load(g1["id"])[1] == ["c1-c5"]  # type: ignore[index]
        assert after.load(g2["id"])[1] == []  # type: ignore[index]
    finally:
        after.close()


def start_server(db: Path, *more: str) -> tuple[subprocess.Popen[str], str]:
    """``kamisado web`` on a free port (JSON logs on standard error)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "kamisado.cli", "web", "--port", "0", "--no-browser", "--db", str(db),
         "--workers", "1", *more],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    for line in proc.stdout:
        found = re.search(r"serving on http://([\d.]+:\d+)/", line)
        if found:
            return proc, found.group(1)
    stop_process(proc)
    raise AssertionError(f"the server did not start: {proc.stderr.read() if proc.stderr else ''}")


def test_a_real_sigterm_with_json_logs_and_metrics_refused_to_localhost(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    proc, addr = start_server(db, "--log-format", "json", "--metrics-allow", "10.0.0.0/8")
    moves = ["c1-c5", "b8-b3", "d1-g4"]
    try:
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"http://{addr}/metrics", timeout=10)
        assert refused.value.code == 403
        assert urllib.request.urlopen(f"http://{addr}/readyz", timeout=10).status == 200
        with socket.create_connection(tuple(addr.split(":")), timeout=10) as raw:  # type: ignore[arg-type]
            raw.sendall(b"NOT HTTP\r\n\r\n")  # uvicorn logs a warning: as JSON too
            raw.recv(1024)
        g = post(f"http://{addr}", "/api/games", {"target": 3})
        with connect(f"ws://{addr}/ws") as player, connect(f"ws://{addr}/ws") as watcher:
            player.send(json.dumps({"type": "join", "game": g["id"], "token": g["tokens"]["b"]}))
            watcher.send(json.dumps({"type": "join", "game": g["id"]}))
            assert recv(player)["type"] == recv(watcher)["type"] == "state"
            for seq, move in enumerate(moves):
                player.send(json.dumps({"type": "move", "move": move, "seq": seq}))
                while recv(player)["seq"] != seq + 1:
                    pass
            proc.send_signal(signal.SIGTERM)
            for ws in (player, watcher):
                while (msg := recv(ws))["type"] != "restarting":
                    assert msg["type"] == "state"
                with pytest.raises(ConnectionClosed) as closed:
                    recv(ws)
                assert closed.value.rcvd is not None and closed.value.rcvd.code == 1012
        proc.wait(timeout=30)
        # once stopped, uvicorn raises the signal again: the process ends as one SIGTERM ended
        assert proc.returncode == -signal.SIGTERM, proc.returncode
        assert proc.stderr is not None
        logs = [json.loads(line) for line in proc.stderr.read().splitlines() if line.startswith("{")]
    finally:
        stop_process(proc)
    assert any(r["logger"] == "uvicorn.error" and r["level"] == "WARNING" for r in logs), logs
    stopping = [r for r in logs if "stopping" in r["message"]]
    assert stopping and stopping[0]["message"].endswith("2 websocket(s) told the server restarts")
    assert stopping[0]["level"] == "INFO" and stopping[0]["logger"] == "kamisado.web"
    proc, addr = start_server(db)  # back: every move acknowledged before the stop is there
    try:
        with connect(f"ws://{addr}/ws") as ws:
            ws.send(json.dumps({"type": "join", "game": g["id"]}))
            st = recv(ws)
        assert st["seq"] == len(moves)
        assert [e["move"] for e in st["rounds"][0]["entries"]] == moves
    finally:
        stop_process(proc)
