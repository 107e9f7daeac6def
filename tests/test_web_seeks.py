"""Quick pairing and the lobby's counts (docs/web.md, "Quick pairing"):
over a real server (Starlette's test client, its websocket and its SQLite
database), and over two server processes on one PostgreSQL."""

from __future__ import annotations

import contextlib
import json
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest
from starlette.testclient import TestClient
from websockets.sync.client import connect as ws_connect

from kamisado.web.community.seeks import RANGE_STEP_MS, SEEK_TTL_MS, pair_up, rating_range
from kamisado.web.site.server import create_app
from kamisado.web.store.schema import players, ratings, seeks
from tests.test_web_controls import (
    browser,
    close_all,
    connect,
    error,
    me,
    sign_up,
    state,
    until,
)
from tests.test_web_processes import frame, servers, visit


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(str(tmp_path / "games.db"), workers=0)) as c:
        c.get("/")  # a player and its cookie
        try:
            yield c
        finally:
            close_all()


def seek(c: TestClient, speed: str, rated: bool = False) -> Any:
    """A websocket of ``c``'s player seeking a game; its ``seeking`` answer checked."""
    ws = connect(c)
    ws.send_json({"type": "seek", "speed": speed, "rated": rated})
    got = until(ws, lambda m: m["type"] == "seeking")["seek"]
    assert got["speed"] == speed and got["rated"] is rated
    return ws


def started(ws: Any) -> str:
    game: str = until(ws, lambda m: m["type"] == "started")["game"]
    return game


def lobby_of(c: TestClient) -> Any:
    return c.app.state.lobby  # type: ignore[attr-defined]


def match(c: TestClient) -> int:
    """Run a pairing pass on the server now: the games it made."""
    made: int = c.portal.call(lobby_of(c).seeks.match)  # type: ignore[union-attr]
    return made


def seek_rows(c: TestClient) -> list[dict[str, Any]]:
    engine = c.app.state.hub.store.engine  # type: ignore[attr-defined]
    with engine.begin() as conn:
        return [dict(r) for r in conn.execute(seeks.select().order_by(seeks.c.created)).mappings()]


def rows_until(c: TestClient, n: int) -> list[dict[str, Any]]:
    """The seeks once there are ``n`` (a closed websocket's seek goes when
    the server has seen it close)."""
    deadline = time.monotonic() + 10
    while True:
        rows = seek_rows(c)
        if len(rows) == n or time.monotonic() > deadline:
            return rows
        time.sleep(0.02)


def rate(c: TestClient, player: str, rating: float, speed: str = "realtime") -> None:
    engine = c.app.state.hub.store.engine  # type: ignore[attr-defined]
    with engine.begin() as conn:
        conn.execute(ratings.insert().values(player=player, speed=speed, rating=rating, rd=60.0,
                                             vol=0.06, games=20, updated=time.time()))


def test_the_rating_range_widens_and_the_nearest_rating_is_paired() -> None:
    assert [rating_range(ms) for ms in (0, 4_999, 5_000, 10_000, 40_000, 10**7)] == [100, 100, 150, 200, 500, 500]

    def row(i: str, player: str, rating: int, created: int = 0, speed: str = "3+2") -> dict[str, Any]:
        return {"id": i, "player": player, "rating": rating, "created": created, "speed": speed, "rated": True}

    # the oldest seek picks the nearest rating; a player is paired once
    rows = [row("a", "p1", 1500), row("b", "p2", 1590), row("c", "p3", 1520), row("d", "p1", 1510)]
    assert [(x["id"], y["id"]) for x, y in pair_up(rows, 0)] == [("a", "c")]
    # another speed, or casual against rated, never
    assert pair_up([row("a", "p1", 1500), row("b", "p2", 1500, speed="5+3")], 0) == []
    assert pair_up([row("a", "p1", 1500), {**row("b", "p2", 1500), "rated": False}], 0) == []


def test_two_compatible_seeks_start_a_game_for_both(client: TestClient) -> None:
    bob = browser(client)
    ann_id, bob_id = me(client), me(bob)
    wa = seek(client, "3+2")
    wb = seek(bob, "3+2")
    game = started(wb)
    assert started(wa) == game
    st_a = state(_join(client, game))
    st_b = state(_join(bob, game))
    assert sorted(st_a["you"] + st_b["you"]) == ["b", "g"]  # one seat each, bound to its player
    assert st_a["clock"]["control"] == {"initial": 180.0, "increment": 2.0} and st_a["target"] == 1
    assert st_a["online_game"] and st_a["rated"] is False
    assert {st_a["seats"][s]["player"] for s in "bg"} == {ann_id, bob_id}
    assert rows_until(client, 0) == []  # both seeks taken (a paired row goes once its player was told)


def _join(c: TestClient, game: str) -> Any:
    ws = connect(c)
    ws.send_json({"type": "join", "game": game})
    return ws


def test_other_speeds_or_rated_against_casual_do_not_pair(client: TestClient) -> None:
    bob, cy, di = browser(client), browser(client), browser(client)
    sign_up(cy, "cyril")
    sign_up(di, "diana")
    seek(client, "3+2")
    seek(bob, "5+3")
    wc = seek(cy, "3+2", rated=True)
    assert match(client) == 0 and len(seek_rows(client)) == 3
    wd = seek(di, "3+2", rated=True)  # both rated, both 1500: paired
    game = started(wd)
    assert started(wc) == game
    assert state(_join(cy, game))["rated"] is True
    assert sorted(r["speed"] for r in seek_rows(client) if r["game"] is None) == ["3+2", "5+3"]


def test_a_rated_seek_needs_an_account_and_a_known_speed(client: TestClient) -> None:
    ws = connect(client)
    ws.send_json({"type": "seek", "speed": "3+2", "rated": True})
    assert error(ws)["code"] == "account_needed"
    ws.send_json({"type": "seek", "speed": "4+4"})
    bad = error(ws)
    assert bad["code"] == "malformed" and "1+0, 3+2, 5+3, 10+5, 15+10, 1d, 3d" in bad["message"]
    assert seek_rows(client) == []


def test_the_rating_range_widens_with_the_time_waited(client: TestClient) -> None:
    now = [1_800_000_000_000]
    lobby_of(client).seeks.clock = lambda: now[0]
    bob = browser(client)
    sign_up(client, "annie")
    sign_up(bob, "bobby")
    rate(client, me(client), 1500.0)
    rate(bob, me(bob), 1700.0)
    wa = seek(client, "5+3", rated=True)
    wb = seek(bob, "5+3", rated=True)
    assert [r["rating"] for r in seek_rows(client)] == [1500, 1700]
    assert match(client) == 0  # 200 apart, ±100 at first
    now[0] += 2 * RANGE_STEP_MS - 1  # ±150
    assert match(client) == 0 and len(seek_rows(client)) == 2
    now[0] += 1  # ±200 after 10 s
    match(client)  # (or the server's own pass, which runs every second)
    assert started(wa) == started(wb)
    assert rows_until(client, 0) == []


def test_a_player_never_pairs_with_themself_and_a_cancelled_or_closed_seek_goes(client: TestClient) -> None:
    bob = browser(client)
    wa = seek(client, "10+5")
    seek(client, "10+5")  # Ann's second tab
    assert match(client) == 0 and len(seek_rows(client)) == 2
    wa.send_json({"type": "unseek"})
    assert until(wa, lambda m: m["type"] == "seeking")["seek"] is None
    assert len(seek_rows(client)) == 1
    with client.websocket_connect("/ws") as gone:  # a seek whose connection closes
        gone.send_json({"type": "seek", "speed": "1d"})
        until(gone, lambda m: m["type"] == "seeking")
        assert len(seek_rows(client)) == 2
    assert [r["speed"] for r in rows_until(client, 1)] == ["10+5"]
    # a seek again replaces the connection's seek; Bob pairs with Ann's other tab
    wa.send_json({"type": "seek", "speed": "15+10"})
    until(wa, lambda m: m["type"] == "seeking")
    wa.send_json({"type": "seek", "speed": "3d"})
    until(wa, lambda m: m["type"] == "seeking")
    assert sorted(r["speed"] for r in seek_rows(client)) == ["10+5", "3d"]
    wb = seek(bob, "3d")
    game = started(wb)
    assert started(wa) == game
    assert state(_join(bob, game))["clock"]["control"] == {"days": 3}
    # Ann is in a game now: her other seek went with it
    assert rows_until(client, 0) == []


def test_a_seek_of_a_process_that_died_is_ignored_and_cleaned(client: TestClient) -> None:
    engine = client.app.state.hub.store.engine  # type: ignore[attr-defined]
    now = int(time.time() * 1000)
    with engine.begin() as conn:
        conn.execute(players.insert().values(id="p-ghost", name="Ghost", created=0, last_seen=0))
        conn.execute(seeks.insert().values(id="s-ghost", origin="dead", player="p-ghost", name="Ghost",
                                           registered=False, rating=None, speed="1+0", rated=False,
                                           created=now - SEEK_TTL_MS - 5_000, seen=now - SEEK_TTL_MS - 1))
    ws = seek(client, "1+0")
    ws.send_json({"type": "ping"})  # answered once the seek's pairing pass is done
    until(ws, lambda m: m["type"] == "pong")
    assert [r["player"] for r in seek_rows(client)] == [me(client)]  # the ghost's is gone, unpaired


def test_the_lobby_counts_players_online_games_in_play_and_a_game_to_watch(client: TestClient) -> None:
    bob, cy = browser(client), browser(client)
    watcher = connect(cy)
    watcher.send_json({"type": "lobby", "watch": True})
    counts = until(watcher, lambda m: m["type"] == "lobby_counts")
    assert (counts["online"], counts["playing"], counts["top"]) == (1, 0, None)
    wa, wb = seek(client, "3+2"), seek(bob, "3+2")
    game = started(wa)
    started(wb)
    watcher.send_json({"type": "lobby", "watch": True})
    counts = until(watcher, lambda m: m["type"] == "lobby_counts")
    assert (counts["online"], counts["playing"]) == (3, 1)
    assert counts["top"]["game"] == game and len(counts["top"]["names"]) == 2
    assert client.get("/api/lobby").json() == {k: v for k, v in counts.items() if k != "type"}
    # a game against the computer is not "in play" between people
    client.post("/api/games", json={"black": "human", "gold": "club"})
    watcher.send_json({"type": "lobby", "watch": True})
    assert until(watcher, lambda m: m["type"] == "lobby_counts")["playing"] == 1


# -- two processes on one PostgreSQL ------------------------------------------------


@contextlib.contextmanager
def database_of_its_own(pg_url: str) -> Iterator[str]:
    """A database of its own on the test PostgreSQL (the counts are of the
    whole database), dropped afterwards: its URL."""
    import psycopg
    from psycopg import errors, sql

    parts = urlsplit(pg_url)
    name = f"kamisado_seeks_{uuid.uuid4().hex[:10]}"
    admin = urlunsplit(parts._replace(path="/postgres"))
    deadline = time.monotonic() + 60
    while True:
        try:
            with psycopg.connect(admin, autocommit=True) as conn:
                conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
            break
        except errors.ObjectInUse:  # another session copies template1 just now
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
    try:
        yield urlunsplit(parts._replace(path=f"/{name}"))
    finally:
        with psycopg.connect(admin, autocommit=True) as conn, contextlib.suppress(Exception):
            conn.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(name)))


@pytest.fixture
def own_pg(pg_url: str) -> Iterator[str]:
    with database_of_its_own(pg_url) as url:
        yield url


def _seek_ws(stack: contextlib.ExitStack, addr: str, cookie: str, speed: str) -> Any:
    """A websocket on ``addr`` seeking a game at ``speed`` (closed with ``stack``)."""
    ws = stack.enter_context(ws_connect(f"ws://{addr}/ws", additional_headers={"Cookie": cookie}))
    ws.send(json.dumps({"type": "seek", "speed": speed}))
    return ws


def test_seeks_on_two_processes_pair_exactly_once_and_the_counts_are_of_both(own_pg: str) -> None:
    with servers(own_pg, 2) as (a, b), contextlib.ExitStack() as stack:
        cookies = [visit(a if i % 2 == 0 else b) for i in range(12)]
        socks = [_seek_ws(stack, a if i % 2 == 0 else b, c, "1+0") for i, c in enumerate(cookies)]
        games: dict[str, int] = {}
        for ws in socks:
            game = frame(ws, "started")["game"]
            games[game] = games.get(game, 0) + 1
        # 12 seekers, 6 games, each exactly two players; nobody got a second game
        assert sorted(games.values()) == [2] * 6
        for ws in socks:
            ws.send(json.dumps({"type": "ping"}))
            while (msg := json.loads(ws.recv(timeout=10)))["type"] != "pong":
                assert msg["type"] != "started"
        # a seek on A pairs with one on B
        ann, bob = visit(a), visit(b)
        wa = _seek_ws(stack, a, ann, "15+10")
        assert frame(wa, "seeking")["seek"]["speed"] == "15+10"
        wb = _seek_ws(stack, b, bob, "15+10")
        cross = frame(wb, "started")["game"]
        assert frame(wa, "started")["game"] == cross
        # the counts are of both processes: 14 players online (A: 7, B: 7), 7 games
        for addr, cookie in ((a, ann), (b, bob)):
            with ws_connect(f"ws://{addr}/ws", additional_headers={"Cookie": cookie}) as ws:
                ws.send(json.dumps({"type": "lobby", "watch": True}))
                counts = frame(ws, "lobby_counts")
                assert (counts["online"], counts["playing"]) == (14, 7)
                assert counts["top"]["game"] in {*games, cross}
