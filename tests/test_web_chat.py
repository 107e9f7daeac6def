"""A game's chat in the server (issue 27, item 5): the players' room and the
spectators' room, canned messages as codes, at most 140 characters, rate
limited, stored before it is sent (a reload, and another process on the
same PostgreSQL, show it), refused against the computer and in hotseat.
Each :class:`TestClient` is a browser with its own cookie."""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from websockets.sync.client import connect as ws_connect

from kamisado.web.edge.guard import LIMITS, RateLimiter
from kamisado.web.site.server import create_app
from tests.test_web_processes import create as create_on
from tests.test_web_processes import frame, servers, visit

#: the websockets a test opened: closed before its server stops
OPEN: list[Any] = []
#: every limit but the chat's (tests of the rooms send more than its burst
#: from one test address)
NO_CHAT_LIMIT = {name: lim for name, lim in LIMITS.items() if name != "chat"}


def close_all() -> None:
    while OPEN:
        ws = OPEN.pop()
        with contextlib.suppress(Exception):
            ws.__exit__(None, None, None)


@contextlib.contextmanager
def served(db: Path, limits: Any = None) -> Iterator[TestClient]:
    with TestClient(create_app(str(db), workers=0, limits=NO_CHAT_LIMIT if limits is None else limits)) as c:
        c.get("/")  # a player and its cookie
        try:
            yield c
        finally:
            close_all()


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with served(tmp_path / "games.db") as c:
        yield c


def browser(first: TestClient) -> TestClient:
    """Another browser on the same server."""
    other = TestClient(first.app)
    other.portal = first.portal
    other.get("/")
    return other


def create(client: TestClient, **body: Any) -> dict[str, Any]:
    r = client.post("/api/games", json=body)
    assert r.status_code == 200, r.text
    data: dict[str, Any] = r.json()
    return data


def until(ws: Any, pred: Callable[[dict[str, Any]], bool], limit: int = 20) -> dict[str, Any]:
    for _ in range(limit):
        msg: dict[str, Any] = ws.receive_json()
        if pred(msg):
            return msg
    raise AssertionError("no such frame")


def kind(name: str) -> Callable[[dict[str, Any]], bool]:
    return lambda m: m["type"] == name


def open_ws(client: TestClient, game: str, token: str | None = None) -> Any:
    ws = client.websocket_connect("/ws").__enter__()
    OPEN.append(ws)
    ws.send_json({"type": "join", "game": game, **({"token": token} if token else {})})
    return ws


def joined(client: TestClient, game: str, token: str | None = None) -> tuple[Any, dict[str, Any]]:
    """A websocket on the game: it and its state."""
    ws = open_ws(client, game, token)
    return ws, until(ws, kind("state"))


def history(client: TestClient, game: str) -> dict[str, Any]:
    """The chat a websocket is sent on joining the game (its room has messages)."""
    ws, _ = joined(client, game)
    msg = ws.receive_json()  # right after the state
    assert msg["type"] == "chat" and msg["replace"] is True
    return msg


def online_pair(client: TestClient, other: TestClient) -> tuple[str, Any, Any]:
    """An online game between two browsers (the first is Black), both joined."""
    g = create(client, online=True, seat="b")
    wb, _ = joined(client, g["id"])
    wg, st = joined(other, g["id"], g["tokens"]["g"])
    assert st["you"] == ["g"]
    return g["id"], wb, wg


def said(ws: Any) -> list[tuple[str | None, str | None, str | None]]:
    """The next chat frame's messages as (side, text, canned)."""
    msg = until(ws, kind("chat"))
    assert msg["replace"] is False
    return [(m["side"], m["text"], m["canned"]) for m in msg["messages"]]


def test_players_and_spectators_have_rooms_of_their_own(client: TestClient) -> None:
    ann, bob, cy = client, browser(client), browser(client)
    gid, wb, wg = online_pair(ann, bob)
    ws, st = joined(cy, gid)  # a spectator
    assert st["you"] == []
    wb.send_json({"type": "chat", "text": "  hi <b>there</b> "})
    assert said(wb) == [("b", "hi <b>there</b>", None)]  # trimmed, kept as written
    assert said(wg) == [("b", "hi <b>there</b>", None)]
    ws.send_json({"type": "chat", "canned": "good_luck"})
    assert said(ws) == [(None, None, "good_luck")]
    wg.send_json({"type": "chat", "canned": "thanks"})
    # the players' next message is Gold's: the spectator's never reached them
    assert said(wg) == [("g", None, "thanks")]
    assert said(wb) == [("g", None, "thanks")]
    ws.send_json({"type": "chat", "text": "nice"})
    assert said(ws) == [(None, "nice", None)]  # and the players' never reached the spectator
    # stored with the game: a reload is sent its room's messages, in order
    again = history(bob, gid)
    assert again["room"] == "players"
    assert [(m["side"], m["name"], m["text"], m["canned"]) for m in again["messages"]] == [
        ("b", "Black", "hi <b>there</b>", None), ("g", "Gold", None, "thanks")]
    watched = history(browser(client), gid)
    assert watched["room"] == "spectators" and [(m["text"], m["canned"]) for m in watched["messages"]] == [(None, "good_luck"), ("nice", None)]
    ids = [m["id"] for m in again["messages"]]
    assert ids == sorted(ids)


def test_a_join_reads_its_rooms_chat_once_while_the_game_is_in_memory(
    client: TestClient, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A game created here is not read (nobody can have written in it); a
    game loaded from the store is read by each room's first join while it
    is in memory; later joins are sent what was read, said and heard since,
    without a read."""
    hub = client.app.state.hub  # type: ignore[attr-defined]
    store = hub.store
    reads: list[str | None] = []
    real = store.chat_of_async

    async def counted(game_id: str, room: str | None = None, after: int = 0,
                      limit: int = 200) -> list[dict[str, Any]]:
        reads.append(room)
        return list(await real(game_id, room, after, limit))

    monkeypatch.setattr(store, "chat_of_async", counted)
    bob = browser(client)
    gid, wb, wg = online_pair(client, bob)
    wg.send_json({"type": "chat", "text": "hi"})  # answered once Gold's join is done
    assert said(wg) == [("g", "hi", None)]
    assert reads == []  # created by this process: neither join read it
    again = history(bob, gid)  # a reload: what was said since
    assert [(m["side"], m["text"]) for m in again["messages"]] == [("g", "hi")]
    ws, _ = joined(browser(client), gid)  # a spectator
    ws.send_json({"type": "chat", "canned": "hello"})
    assert said(ws) == [(None, None, "hello")]
    assert [m["canned"] for m in history(browser(client), gid)["messages"]] == ["hello"]
    assert reads == []
    close_all()  # nobody on the game: it leaves memory, and its next joins read it
    deadline = time.monotonic() + 10
    while gid in hub.games:  # (the server sees the connections close in its own time)
        assert time.monotonic() < deadline, "the game stayed in memory"
        time.sleep(0.01)
    assert [m["text"] for m in history(bob, gid)["messages"]] == ["hi"]
    assert [m["text"] for m in history(bob, gid)["messages"]] == ["hi"]
    assert reads == ["players"]  # once while the game is in memory
    assert [m["canned"] for m in history(browser(client), gid)["messages"]] == ["hello"]
    assert [m["canned"] for m in history(browser(client), gid)["messages"]] == ["hello"]
    assert reads == ["players", "spectators"]


def test_a_message_is_one_line_of_at_most_140_characters(client: TestClient) -> None:
    gid, wb, wg = online_pair(client, browser(client))
    longest = "é" * 139 + "🙂"  # characters, not bytes
    wb.send_json({"type": "chat", "text": longest})
    assert said(wb) == [("b", longest, None)]
    for bad, why in (({"text": "x" * 141}, "at most 140 characters, found 141"),
                     ({"text": "   "}, "empty"),
                     ({"text": "one\ntwo"}, "one line"),
                     ({"text": "hi", "canned": "hello"}, "either text or canned"),
                     ({}, "either text or canned"),
                     ({"canned": "bye"}, "one of hello, good_luck, good_game, thanks"),
                     ({"text": 7}, "expected text to be str")):
        wb.send_json({"type": "chat", **bad})
        err = until(wb, kind("error"))
        assert err["code"] == "malformed" and why in err["message"], (bad, err)
    store = client.app.state.hub.store
    assert [m["text"] for m in store.chat_of(gid)] == [longest]  # nothing else was stored


def test_a_message_is_text_a_person_can_see(client: TestClient) -> None:
    gid, wb, wg = online_pair(client, browser(client))
    seen = ["re\u0301sume\u0301 \u0645\u0631\u062d\u0628\u064b\u0627 \u05e9\u05b8\u05dc\u05d5\u05b9\u05dd",
            "\u0928\u092e\u0938\u094d\u0924\u0947 \u6c49\u5b57 \U0001f468\u200d\U0001f469\u200d\U0001f467 \U0001f44d\U0001f3fd \U0001f1ef\U0001f1f5"]
    for bad, rule in (("\u200b", "chat: a chat line needs a visible character"),
                      ("\ufeff", "chat: a chat line needs a visible character"),
                      ("\u200d\u2060\u00ad", "chat: a chat line needs a visible character"),
                      ("gg\u202e", "chat: no bidi controls (U+202E found)"),
                      ("a" + "\u0301" * 139, "chat: at most 3 combining marks on one character (U+0061 carries 139)")):
        wb.send_json({"type": "chat", "text": bad})
        wb.send_json({"type": "ping"})  # answered after the chat: a refusal is never waited for in vain
        got = [until(wb, lambda m: m["type"] in ("error", "chat", "pong"))]
        if got[0]["type"] != "pong":
            got.append(until(wb, kind("pong")))
        assert [(m["type"], m.get("code"), m.get("message")) for m in got] == [
            ("error", "malformed", rule), ("pong", None, None)], bad
    for text in seen:
        wb.send_json({"type": "chat", "text": text})
        assert said(wb) == [("b", text, None)]
        assert said(wg) == [("b", text, None)]  # the first frame the other seat gets: nothing refused reached it
    store = client.app.state.hub.store
    assert [m["text"] for m in store.chat_of(gid)] == seen  # nothing refused was stored


def test_chat_is_rate_limited_per_player(tmp_path: Path) -> None:
    now = [1000.0]
    limiter = RateLimiter(dict(LIMITS), lambda: now[0])
    with served(tmp_path / "games.db", limiter) as client:
        gid, wb, wg = online_pair(client, browser(client))
        burst = LIMITS["chat"].burst
        for i in range(burst):
            wb.send_json({"type": "chat", "text": f"m{i}"})
            assert said(wb) == [("b", f"m{i}", None)]
        wb.send_json({"type": "chat", "text": "one too many"})
        err = until(wb, kind("error"))
        assert err["code"] == "rate_limited" and err["message"].startswith("chat: ")
        now[0] += 1 / LIMITS["chat"].rate  # one more message's worth of time
        wb.send_json({"type": "chat", "canned": "hello"})
        assert said(wb) == [("b", None, "hello")]
        room = history(client, gid)
        assert [m["text"] or m["canned"] for m in room["messages"]] == [
            *(f"m{i}" for i in range(burst)), "hello"]


def test_no_chat_against_the_computer_or_in_hotseat(client: TestClient) -> None:
    for body in ({"black": "human", "gold": "beginner"}, {"online": True, "gold": "beginner", "seat": "b"},
                 {"black": "human", "gold": "human"}):
        g = create(client, **body)
        ws = open_ws(client, g["id"], g["tokens"].get("b"))
        until(ws, kind("state"))
        ws.send_json({"type": "chat", "canned": "hello"})
        err = until(ws, kind("error"))
        assert err["code"] == "no_chat" and err["message"].startswith("chat: "), body
    store = client.app.state.hub.store
    assert all(store.chat_of(row.id) == [] for row in store.list())


def test_chat_needs_a_game(client: TestClient) -> None:
    ws = client.websocket_connect("/ws").__enter__()
    OPEN.append(ws)
    ws.send_json({"type": "chat", "text": "anyone?"})
    assert ws.receive_json()["code"] == "not_joined"


def test_a_message_written_on_another_process_before_the_first_join_here(pg_url: str) -> None:
    """A game created on A but first joined on B, where Gold says something:
    A's first join (which reads no chat of a game it created, unless another
    process announced a message in it) still gets it, and so does a reload on A."""
    with servers(pg_url, 2) as (a, b):
        ann, bob = visit(a), visit(b)
        game = create_on(a, {"target": 1, "online": True})
        gid, tokens = game["id"], game["tokens"]
        with ws_connect(f"ws://{b}/ws", additional_headers={"Cookie": bob}) as wb:
            wb.send(json.dumps({"type": "join", "game": gid, "token": tokens["g"]}))
            frame(wb)
            wb.send(json.dumps({"type": "chat", "text": "first"}))
            assert [m["text"] for m in frame(wb, "chat")["messages"]] == ["first"]
            with ws_connect(f"ws://{a}/ws", additional_headers={"Cookie": ann}) as wa:
                wa.send(json.dumps({"type": "join", "game": gid, "token": tokens["b"]}))
                frame(wa)
                # in the history frame, or told just after it (A heard of it late)
                assert [m["text"] for m in frame(wa, "chat")["messages"]] == ["first"]
                with ws_connect(f"ws://{a}/ws", additional_headers={"Cookie": ann}) as again:
                    again.send(json.dumps({"type": "join", "game": gid}))
                    room = frame(again, "chat")
                    assert room["replace"] is True and [(m["side"], m["text"]) for m in room[
                        "messages"]] == [("g", "first")]


def test_a_message_reaches_a_player_on_another_process(pg_url: str) -> None:
    with servers(pg_url, 2) as (a, b):
        ann, bob = visit(a), visit(b)
        game = create_on(a, {"target": 1, "online": True})
        gid, tokens = game["id"], game["tokens"]
        with ws_connect(f"ws://{a}/ws", additional_headers={"Cookie": ann}) as wa, \
                ws_connect(f"ws://{b}/ws", additional_headers={"Cookie": bob}) as wb:
            wa.send(json.dumps({"type": "join", "game": gid, "token": tokens["b"]}))
            frame(wa)
            wb.send(json.dumps({"type": "join", "game": gid, "token": tokens["g"]}))
            frame(wb)
            wa.send(json.dumps({"type": "chat", "text": "from A"}))
            assert [m["text"] for m in frame(wa, "chat")["messages"]] == ["from A"]
            heard = frame(wb, "chat")  # stored by process A, told by the database
            assert heard["room"] == "players" and [(m["side"], m["text"]) for m in heard["messages"]] == [
                ("b", "from A")]
            wb.send(json.dumps({"type": "chat", "canned": "good_game"}))
            assert [m["canned"] for m in frame(wa, "chat")["messages"]] == ["good_game"]
            # a reload on A (which read the room on Black's join) is sent B's
            # message too: what A heard of is kept with what it read
            with ws_connect(f"ws://{a}/ws", additional_headers={"Cookie": ann}) as again:
                again.send(json.dumps({"type": "join", "game": gid}))
                room = frame(again, "chat")
                assert room["replace"] is True and [(m["side"], m["text"], m["canned"]) for m in room[
                    "messages"]] == [("b", "from A", None), ("g", None, "good_game")]


def test_unwritten_games_are_the_last_created_not_announced() -> None:
    """:class:`kamisado.web.play.chat.Unwritten`: the newest ``limit`` games
    created, less those another process may have written in."""
    from kamisado.web.play.chat import Unwritten

    ids = Unwritten(limit=2)
    for gid in ("a", "b", "c"):
        ids.add(gid)
    assert ("a" in ids, "b" in ids, "c" in ids) == (False, True, True)  # the oldest went
    ids.discard("b")  # announced while not in memory here
    ids.discard("zz")  # (never created here: nothing)
    assert ("b" in ids, "c" in ids) == (False, True)
    ids.clear()  # LISTEN lost: any may have been written in
    assert "c" not in ids
