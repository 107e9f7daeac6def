"""The store's faults, one test for each kind (issue 40, item 6): a
connection the database ended while it was kept (a restart) is never a 503,
on any path; a programming error is a 500 with its traceback logged (an
error frame on a websocket, which stays open), never "the store cannot be
read"; a database that is really down is still a 503."""

from __future__ import annotations

import json
import logging
import urllib.error
import urllib.request
from typing import Any

import pytest
from starlette.testclient import TestClient

from kamisado.web.site.server import create_app
from kamisado.web.store.storage import GameRow, Store, new_id
from tests.conftest import Cluster
from tests.test_web_edge import serving

psycopg = pytest.importorskip("psycopg")

pytestmark = pytest.mark.timeout(120, method="thread")

STORE_DOWN = {"error": "the store cannot be read; try again", "code": "unavailable"}


def recv(ws: Any, kind: str) -> dict[str, Any]:
    msg: dict[str, Any] = ws.receive_json()
    assert msg["type"] == kind, msg
    return msg


def end_every_connection(url: str) -> int:
    """End every other connection to the database (the server's
    ``pg_terminate_backend``, as a restart does), waiting until each
    server process is gone; how many there were."""
    with psycopg.connect(url, autocommit=True) as killer:
        rows = killer.execute(
            "SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()").fetchall()
    assert all(ok for (ok,) in rows), rows
    return len(rows)


def test_connections_the_database_ended_are_replaced_on_every_path(pg_url: str) -> None:
    with TestClient(create_app(pg_url, workers=0)) as client:
        me = client.get("/api/me").json()  # the players' pool (SQLAlchemy's)
        made = client.post("/api/games", json={"target": 1}).json()  # the event loop's connections
        store: Store = client.app.state.hub.store  # type: ignore[attr-defined]
        kept = new_id()
        store.create(GameRow.new(kept))  # (the threads' connections) a game no process holds
        assert client.get("/api/games").status_code == 200
        assert end_every_connection(pg_url) >= 3
        # each path's next call goes on a new connection: none answers 503
        assert client.get("/api/me").json() == me
        assert [g["id"] for g in client.get("/api/games").json()] == [made["id"]]  # a thread's read
        assert client.get(f"/api/players/{me['id']}").status_code == 200
        assert client.get("/readyz").json() == {"ready": True, "database": "ok"}
        end_every_connection(pg_url)
        with client.websocket_connect("/ws") as ws:  # a game loaded from the store on the event loop
            ws.send_json({"type": "join", "game": kept})
            assert recv(ws, "state")["seq"] == 0
        end_every_connection(pg_url)
        assert client.post("/api/games", json={"target": 1}).status_code == 200  # a write, nothing sent before


@pytest.fixture
def buggy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two store calls with a bug: each raises ``TypeError``."""

    def bug(*_args: Any, **_kwargs: Any) -> Any:
        raise TypeError("a bug in the store's call")

    monkeypatch.setattr(Store, "games_of", bug)
    monkeypatch.setattr(Store, "load_async", bug)


def test_a_programming_error_in_a_store_call_is_a_500_with_its_traceback_logged(
        buggy: None, caplog: pytest.LogCaptureFixture) -> None:
    with serving(create_app("sqlite://", workers=0)) as port:
        base = f"http://127.0.0.1:{port}"
        cookie = urllib.request.urlopen(f"{base}/api/me", timeout=30).headers["set-cookie"].split(";")[0]
        with pytest.raises(urllib.error.HTTPError) as failed:
            urllib.request.urlopen(urllib.request.Request(f"{base}/api/games", headers={"Cookie": cookie}),
                                   timeout=30)
        assert failed.value.code == 500, failed.value.read()
        assert failed.value.read() != json.dumps(STORE_DOWN).encode()
    logged = [r for r in caplog.records if r.exc_info and isinstance(r.exc_info[1], TypeError)]
    assert logged and logged[0].levelno == logging.ERROR, caplog.text
    assert "Traceback" in caplog.text and "a bug in the store's call" in caplog.text


def test_a_programming_error_on_a_websocket_is_an_error_frame_and_the_connection_serves_on(
        buggy: None, caplog: pytest.LogCaptureFixture) -> None:
    with TestClient(create_app("sqlite://", workers=0)) as client, client.websocket_connect("/ws") as ws:
        ws.send_json({"type": "join", "game": "nosuchgame"})
        error = recv(ws, "error")
        assert error["code"] == "server", error  # not "storage"
        ws.send_json({"type": "ping"})
        recv(ws, "pong")
    assert any(r.exc_info and isinstance(r.exc_info[1], TypeError) for r in caplog.records), caplog.text


def test_a_database_really_down_is_still_a_503(own_pg: Cluster) -> None:
    with TestClient(create_app(own_pg.url, workers=0)) as client:
        assert client.get("/api/me").status_code == 200
        gid = client.post("/api/games", json={"target": 1}).json()["id"]
        own_pg.stop()
        r = client.get("/api/games")
        assert (r.status_code, r.json()) == (503, STORE_DOWN)
        r = client.get("/api/me")
        assert (r.status_code, r.json()) == (503, STORE_DOWN)
        client.app.state.hub.games.pop(gid, None)  # type: ignore[attr-defined]  (read from the store)
        with client.websocket_connect("/ws") as ws:
            ws.send_json({"type": "join", "game": gid})
            assert recv(ws, "error")["code"] == "storage"


def test_a_bug_reading_an_uploads_player_is_a_500_not_store_down(monkeypatch: pytest.MonkeyPatch) -> None:
    from kamisado.web.site import pages

    async def bug(*_args: Any, **_kwargs: Any) -> Any:
        raise TypeError("a bug in reading the player")

    monkeypatch.setattr(pages, "player_in_thread", bug)
    with TestClient(create_app("sqlite://", workers=0), raise_server_exceptions=False) as client:
        r = client.post("/api/records", content=b"not a record", headers={"Content-Type": "text/plain"})
    assert r.status_code == 500, r.text
