"""Moderation over two server processes on one PostgreSQL (docs/web-moderation.md):
a block made through one process keeps the blocked player's direct
challenges and chat from the blocker on the other, and an account closed
through one process is signed out and refused on the other (the truth is
in the database)."""

from __future__ import annotations

import json
import secrets
import urllib.error
import urllib.request
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from kamisado.web.accounts import admin
from tests.test_web_processes import create, frame, two, visit  # noqa: F401 (two: the fixture)


def call(addr: str, method: str, path: str, cookie: str, body: dict[str, Any] | None = None,
         ) -> tuple[int, Any, str]:
    """A request with a cookie: its status, its JSON, and the cookie it sets (else the same)."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(f"http://{addr}{path}", data=data, method=method,
                                 headers={"Cookie": cookie, "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=20) as r:
            status, raw, headers = r.status, r.read(), r.headers
    except urllib.error.HTTPError as exc:
        status, raw, headers = exc.code, exc.read(), exc.headers
    got = headers.get("set-cookie")
    return status, json.loads(raw), got.split(";")[0] if got else cookie


def account(addr: str, name: str) -> tuple[str, str]:
    """A browser signed up as ``name`` (made unique: the database outlives
    the test) on ``addr``: its cookie and player id."""
    status, player, cookie = call(addr, "POST", "/api/signup", visit(addr),
                                  {"account": name, "password": "a long password", "name": name.title()})
    assert status == 200, player
    return cookie, player["id"]


def chat_texts(ws: Any) -> list[str]:
    return [m["text"] for m in frame(ws, "chat")["messages"]]


def test_a_block_made_on_one_process_holds_on_the_other(request: pytest.FixtureRequest) -> None:
    a, b = request.getfixturevalue("two")
    ann, ann_id = account(a, f"ann-{secrets.token_hex(4)}")
    bob, bob_id = account(b, f"bob-{secrets.token_hex(4)}")
    assert call(a, "POST", f"/api/players/{bob_id}/block", ann)[0] == 200
    with connect(f"ws://{a}/ws", additional_headers={"Cookie": ann}) as wa, \
            connect(f"ws://{b}/ws", additional_headers={"Cookie": bob}) as wb:
        wa.send(json.dumps({"type": "notices"}))
        frame(wa, "notices")
        wb.send(json.dumps({"type": "challenge", "to": ann_id}))
        hidden = frame(wb, "challenging")["challenge"]  # Bob is answered as ever
        assert call(b, "DELETE", f"/api/players/{bob_id}/block", ann)[0] == 200
        wb.send(json.dumps({"type": "challenge", "to": ann_id}))
        shown = frame(wb, "challenging")["challenge"]
        # the first challenge Ann's page on A is told of is the one made after the unblock
        assert frame(wa, "challenged")["challenge"]["id"] == shown["id"] != hidden["id"]


def test_a_blocked_players_chat_is_kept_from_the_blocker_on_every_process(
        request: pytest.FixtureRequest) -> None:
    a, b = request.getfixturevalue("two")
    ann, _ = account(a, f"ann-{secrets.token_hex(4)}")
    bob, bob_id = account(b, f"bob-{secrets.token_hex(4)}")
    status, game, ann = call(a, "POST", "/api/games", ann, {"online": True, "seat": "b"})
    assert status == 200, game
    gid = game["id"]
    with connect(f"ws://{a}/ws", additional_headers={"Cookie": ann}) as wa, \
            connect(f"ws://{b}/ws", additional_headers={"Cookie": ann}) as wa_b, \
            connect(f"ws://{b}/ws", additional_headers={"Cookie": bob}) as wb:
        wb.send(json.dumps({"type": "join", "game": gid, "token": game["tokens"]["g"]}))
        assert frame(wb)["you"] == ["g"]
        for ws in (wa, wa_b):
            ws.send(json.dumps({"type": "join", "game": gid}))
            assert frame(ws)["you"] == ["b"]
        assert call(a, "POST", f"/api/players/{bob_id}/block", ann)[0] == 200  # through A
        wb.send(json.dumps({"type": "chat", "text": "blocked"}))
        assert chat_texts(wb) == ["blocked"]  # stored and sent on B
        wa_b.send(json.dumps({"type": "chat", "text": "mine"}))
        assert chat_texts(wa_b) == ["mine"]  # Ann's page on B never got Bob's line
        assert chat_texts(wa) == ["mine"]  # nor her page on A (it hears of both, in order)
        with connect(f"ws://{b}/ws", additional_headers={"Cookie": ann}) as again:
            again.send(json.dumps({"type": "join", "game": gid}))
            got = frame(again, "chat")
            assert got["replace"] is True and [m["text"] for m in got["messages"]] == ["mine"]


def test_an_account_closed_on_one_process_is_signed_out_on_the_other(
        request: pytest.FixtureRequest, pg_url: str) -> None:
    a, b = request.getfixturevalue("two")
    mia_name, bob_name = f"mia-{secrets.token_hex(4)}", f"bob-{secrets.token_hex(4)}"
    mia, _ = account(a, mia_name)
    assert admin.main(["grant", mia_name, "moderator", "--db", pg_url]) == 0
    bob, bob_id = account(b, bob_name)
    assert call(b, "GET", "/api/me", bob)[1]["id"] == bob_id
    with connect(f"ws://{b}/ws", additional_headers={"Cookie": bob, "Origin": f"http://{b}"}) as ws:
        ws.send(json.dumps({"type": "ping"}))
        assert frame(ws, "pong")["type"] == "pong"  # bob's websocket on B, open
        status, done, _ = call(a, "POST", f"/api/mod/players/{bob_id}/close", mia, {"reason": "cheating"})
        assert status == 200 and done["sessions_ended"] == 1
        # B closes it at once (told on the lobby's channel), not at its next
        # look at the sessions 30 s on (WATCH_EVERY_S)
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                ws.recv(timeout=20)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
    _, again, _ = call(b, "GET", "/api/me", bob)  # the very next request on B
    assert again["signed_in"] is False and again["id"] != bob_id
    status, refused, _ = call(b, "POST", "/api/signin", visit(b), {"account": bob_name, "password": "a long password"})
    assert status == 403 and refused["error"] == "this account was closed by a moderator"
    _, log, _ = call(b, "GET", "/api/mod/audit", mia)
    assert [(r["actor"], r["action"], r["target"], r["reason"]) for r in log[:1]] == [
        (mia_name, "close", bob_id, "cheating")]
    assert create  # (the processes' kit)
