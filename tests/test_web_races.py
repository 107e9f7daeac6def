"""No races in the web server (issue 38, item 3): a join and an eviction, a
pairing whose process died, two starts of one puzzle at once."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import websockets
from websockets.asyncio.client import connect as ws_connect

from kamisado.web.basics.messages import CreateMsg, JoinMsg, MoveMsg
from kamisado.web.play import game as web_game
from kamisado.web.play import games as web_games
from kamisado.web.play import seats as web_seats
from kamisado.web.play.game import Conn, Game
from kamisado.web.store.storage import Store
from tests.test_web_controls import browser, close_all, connect, me, open_ws, state, until
from tests.test_web_processes import servers, visit
from tests.test_web_seeks import database_of_its_own


@pytest.fixture
def own_db(pg_url: str) -> Iterator[str]:
    """A PostgreSQL database of the test's own: its URL."""
    with database_of_its_own(pg_url) as url:
        yield url


# -- (a) a game is not let go of while a join of it is under way -------------------------


class Frames:
    """What a connection was sent (its frames, parsed)."""

    def __init__(self) -> None:
        self.got: list[dict[str, Any]] = []

    async def send_text(self, text: str) -> None:
        self.got.append(json.loads(text))

    def states(self) -> list[dict[str, Any]]:
        return [f for f in self.got if f["type"] == "state"]


def test_a_game_is_not_evicted_while_a_spectator_joins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = Store(str(tmp_path / "g.db"))
    hub = web_games.Hub(store, None)
    real_seats_for = web_seats.seats_for
    paused = asyncio.Event()  # the spectator's join is inside seats_for
    go_on = asyncio.Event()

    async def seats_for(game: Game, conn: Conn, token: str | None) -> Any:
        if conn.player == "spectator":
            paused.set()
            await go_on.wait()
        return await real_seats_for(game, conn, token)

    monkeypatch.setattr(web_game, "seats_for", seats_for)

    async def run() -> None:
        game, tokens = await hub.create(CreateMsg(online=True))
        gid = game.row.id
        black_frames, watcher_frames = Frames(), Frames()
        black = Conn(black_frames.send_text, player="pb")
        await hub.join(black, JoinMsg(gid, tokens["b"]))
        watcher = Conn(watcher_frames.send_text, player="spectator")
        joining = asyncio.get_running_loop().create_task(hub.join(watcher, JoinMsg(gid)))
        await asyncio.wait_for(paused.wait(), 30)
        held = hub.games[gid]
        assert held.joining == 1 and not held.conns - {black}
        hub.leave(black)  # the only connection goes: the race's eviction
        go_on.set()
        await asyncio.wait_for(joining, 30)
        assert watcher.game is held and hub.games[gid] is held and held.joining == 0
        back = Conn(black_frames.send_text, player="pb")  # the player comes back: the same object
        await hub.join(back, JoinMsg(gid, tokens["b"]))
        assert back.game is held and hub.games[gid] is held
        before = len(watcher_frames.states())
        move = str(held.match.legal_moves()[0])
        await held.act(back, MoveMsg(move, held.seq))
        later = watcher_frames.states()[before:]
        assert later and later[-1]["seq"] == 1, "the spectator missed the move"
        hub.leave(back)
        hub.leave(watcher)
        assert gid not in hub.games  # nobody uses it any more: let go of
        await hub.close()

    try:
        asyncio.run(run())
    finally:
        store.close()


# -- (c) two starts of one puzzle at once, one on each process -----------------------------


def _two_starts_at_once(one: Any, other: Any, puzzles: list[str]) -> list[list[dict[str, Any]]]:
    """Start each puzzle twice at once, through ``one`` and ``other`` (two
    clients of the same player): each puzzle's two answers."""
    barrier = threading.Barrier(2)

    def start(client: Any, puzzle: str) -> dict[str, Any]:
        barrier.wait(timeout=60)
        r = client.post(f"/api/puzzles/{puzzle}/attempts")
        assert r.status_code == 200, r.text
        got: dict[str, Any] = r.json()
        return got

    out = []
    with ThreadPoolExecutor(2) as pool:
        for puzzle in puzzles:
            pair = [pool.submit(start, one, puzzle), pool.submit(start, other, puzzle)]
            out.append([f.result(timeout=60) for f in pair])
    return out


def _one_rated_attempt_each(answers: list[list[dict[str, Any]]]) -> None:
    for pair in answers:
        rated = {a["attempt"] for a in pair if a["rated"]}
        assert len(rated) == 1, pair  # one rated attempt, whichever start stored it
        assert all(a["attempt"] in rated for a in pair), pair  # the other start got it back


class Web:
    """A browser's calls to one server process (its player's cookie)."""

    def __init__(self, addr: str, cookie: str) -> None:
        self.addr, self.cookie = addr, cookie

    def call(self, path: str, body: dict[str, Any] | None = None) -> tuple[int, Any, str | None]:
        """The status, the JSON answer and the cookie it set (if any)."""
        req = urllib.request.Request(
            f"http://{self.addr}{path}", method="GET" if body is None else "POST",
            data=None if body is None else json.dumps(body).encode(),
            headers={"Cookie": self.cookie, "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return r.status, json.loads(r.read()), r.headers.get("set-cookie")
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read() or b"null"), None

    def post(self, path: str) -> Any:
        status, answer, _ = self.call(path, {})
        return SimpleNamespace(status_code=status, text=str(answer), json=lambda: answer)


def test_two_starts_of_a_puzzle_on_two_processes_are_rated_once(own_db: str) -> None:
    with servers(own_db, 2) as (a, b):
        cookie = visit(a)
        status, answer, signed_in = Web(a, cookie).call(
            "/api/signup", {"account": "racer", "password": "a long password"})
        assert status == 200, answer
        cookie = (signed_in or cookie).split(";")[0]
        one, other = Web(a, cookie), Web(b, cookie)
        puzzles = [p["id"] for p in one.call("/api/puzzles?limit=20")[1]["puzzles"]]
        assert len(puzzles) == 20
        _one_rated_attempt_each(_two_starts_at_once(one, other, puzzles))
        mine = other.call("/api/me/puzzles")[1]
        assert mine["signed_in"] is True and mine["rating"] is None  # no start cost rating
    import psycopg

    with psycopg.connect(own_db) as conn:
        counts = conn.execute("SELECT puzzle, count(*) FROM puzzle_attempts WHERE rated GROUP BY puzzle").fetchall()
    assert sorted(counts) == sorted((p, 1) for p in puzzles)


def test_two_starts_of_a_puzzle_at_once_on_sqlite_are_rated_once(tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    from kamisado.web.site.server import create_app

    with TestClient(create_app(str(tmp_path / "games.db"), workers=0, limits={})) as c:
        c.get("/")
        r = c.post("/api/signup", json={"account": "racer", "password": "a long password"})
        assert r.status_code == 200, r.text
        puzzles = [p["id"] for p in c.get("/api/puzzles", params={"limit": 10}).json()["puzzles"]][:10]
        _one_rated_attempt_each(_two_starts_at_once(c, c, puzzles))
        assert c.get("/api/me/puzzles").json()["rating"] is None


# -- (b) a pairing whose process died is never lost ------------------------------------------


def _server(db: str) -> tuple[subprocess.Popen[str], str, list[str]]:
    """A ``kamisado web`` process on ``db``, its per-address limits off (every
    seeker comes from 127.0.0.1): the process, its address, and its output
    (read by a thread, so a full pipe never stops it)."""
    env = {**os.environ, "KAMISADO_WEB_LIMITS": "off"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "kamisado.cli", "web", "--port", "0", "--no-browser", "--db", db,
         "--workers", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    assert proc.stdout is not None
    out: list[str] = []
    for line in proc.stdout:
        out.append(line)
        found = re.search(r"serving on http://([\d.]+:\d+)/", line)
        if found:
            threading.Thread(target=lambda: out.extend(proc.stdout or ()), daemon=True).start()
            return proc, found.group(1), out
    proc.kill()
    raise AssertionError(f"the server did not start: {proc.wait()}\n{''.join(out)}")


async def _frames_until(ws: Any, done: Any, deadline: float) -> list[dict[str, Any]]:
    """The frames of ``ws`` until one ``done`` accepts, the connection
    closes, or ``deadline`` (monotonic) passes."""
    got: list[dict[str, Any]] = []
    while (left := deadline - time.monotonic()) > 0:
        try:
            msg = json.loads(await asyncio.wait_for(ws.recv(), left))
        except (TimeoutError, websockets.ConnectionClosed):
            break
        got.append(msg)
        if done(msg):
            break
    return got


async def _told_on_reconnect(addr: str, cookie: str) -> set[str]:
    """The games a player's new lobby connection is told of (``started``)
    before the ``pong`` of a ``ping`` sent after its ``lobby`` ``watch``."""
    async with ws_connect(f"ws://{addr}/ws", additional_headers={"Cookie": cookie}) as ws:
        await ws.send(json.dumps({"type": "lobby", "watch": True}))
        await ws.send(json.dumps({"type": "ping"}))
        frames = await _frames_until(ws, lambda m: m["type"] == "pong", time.monotonic() + 30)
        assert frames and frames[-1]["type"] == "pong", frames
        return {m["game"] for m in frames if m["type"] == "started"}


def test_a_pairing_whose_process_was_killed_is_learnt_on_reconnect(own_db: str) -> None:
    import psycopg

    players = 80
    procs: list[subprocess.Popen[str]] = []
    try:
        a_proc, a, _ = _server(own_db)
        procs.append(a_proc)
        b_proc, b, _ = _server(own_db)
        procs.append(b_proc)
        cookies = [visit(a if i % 2 == 0 else b) for i in range(players)]
        on_a = [i % 2 == 0 for i in range(players)]

        async def burst() -> dict[int, set[str]]:
            """Every player seeks at once; process A is killed (-9) in the
            middle of a pass (a pass answers ``seeking`` to its new seeks
            just after its commit, before its ``started`` and its news):
            the games each seeker was told of, on its first connection."""
            told: dict[int, set[str]] = {i: set() for i in range(players)}
            first = asyncio.Event()
            go = asyncio.Event()
            ready = stored = 0
            all_ready = asyncio.Event()

            async def seeker(i: int) -> None:
                nonlocal ready, stored
                addr = a if on_a[i] else b
                async with ws_connect(f"ws://{addr}/ws", additional_headers={"Cookie": cookies[i]},
                                      open_timeout=60) as ws:
                    ready += 1
                    if ready == players:
                        all_ready.set()
                    await go.wait()
                    await ws.send(json.dumps({"type": "seek", "speed": "1+0"}))

                    def started(msg: dict[str, Any]) -> bool:
                        nonlocal stored
                        if msg["type"] == "seeking" and on_a[i]:
                            stored += 1  # said by a pass of A's once it committed
                            if stored == players // 8:
                                first.set()
                        if msg["type"] != "started":
                            return False
                        told[i].add(msg["game"])
                        return True

                    # process B's seekers: paired by A (its news lost) or by B
                    # with one of A's seeks left behind; told within a few passes
                    await _frames_until(ws, started, time.monotonic() + 30)

            tasks = [asyncio.get_running_loop().create_task(seeker(i)) for i in range(players)]
            await asyncio.wait_for(all_ready.wait(), 60)
            go.set()
            await asyncio.wait_for(first.wait(), 60)
            a_proc.kill()  # mid-burst: its pass committed games it may never have told of
            await asyncio.gather(*tasks)
            return told

        told = asyncio.run(burst())
        assert a_proc.wait(timeout=30) == -signal.SIGKILL
        with psycopg.connect(own_db) as conn:
            rows = conn.execute("SELECT id, black_player, gold_player FROM games").fetchall()
        game_of = {p: gid for gid, *seats in rows for p in seats}
        assert len(game_of) == 2 * len(rows)  # one game a player, each between two of them

        async def reconnect() -> dict[int, set[str]]:
            got = await asyncio.gather(*(_told_on_reconnect(b, c) for c in cookies))
            return dict(enumerate(got))

        again = asyncio.run(reconnect())
        ids = [me_of(b, c) for c in cookies]
        lost = [(i, game_of[p]) for i, p in enumerate(ids)
                if p in game_of and game_of[p] not in told[i] | again[i]]
        assert not lost, f"{len(lost)} paired players never learnt their game: {lost}"
        assert len(rows) >= players // 4  # a burst: most were paired
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in procs:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=20)
            if proc.poll() is None:
                proc.kill()
                proc.wait(timeout=20)


def me_of(addr: str, cookie: str) -> str:
    """A cookie's player id."""
    status, answer, _ = Web(addr, cookie).call("/api/me")
    assert status == 200, answer
    player: str = answer["id"]
    return player


def _lobby_frames(c: Any) -> list[dict[str, Any]]:
    """What a new lobby connection of ``c``'s player is sent before the
    ``pong`` of a ``ping`` sent after its ``lobby`` ``watch``."""
    ws = connect(c)
    ws.send_json({"type": "lobby", "watch": True})
    ws.send_json({"type": "ping"})
    frames = [until(ws, lambda m: True)]
    while frames[-1]["type"] != "pong":
        frames.append(until(ws, lambda m: True))
    return frames


def test_a_pairing_stored_and_never_told_is_told_once_on_the_next_lobby_connection(tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    from kamisado.web.community.seeks import pair_up
    from kamisado.web.site.server import create_app

    with TestClient(create_app(str(tmp_path / "games.db"), workers=0)) as ann:
        try:
            ann.get("/")
            bob = browser(ann)
            hub, lobby = ann.app.state.hub, ann.app.state.lobby  # type: ignore[attr-defined]
            lobby.seeks.hub = hub
            now = lobby.seeks.clock()
            rows = [{"id": f"s{i}", "player": me(c), "name": "", "registered": False, "rating": None,
                     "speed": "3+2", "rated": False, "created": now, "seen": now}
                    for i, c in enumerate((ann, bob))]
            # a pass of a process that then died: the game and both rows stored, nobody told
            pairs, _, made, _ = hub.store.pair_seeks(now, now - 30_000, rows, pair_up, lobby.seeks._games_of)
            assert len(pairs) == len(made) == 1
            game = made[0].id
            for c in (ann, bob):
                told = [f["game"] for f in _lobby_frames(c) if f["type"] == "started"]
                assert told == [game]
                st = state(open_ws(c, game))
                assert len(st["you"]) == 1  # the player's own seat of it
            deadline = time.monotonic() + 30
            while hub.store.paired_seeks(me(ann)) or hub.store.paired_seeks(me(bob)):
                assert time.monotonic() < deadline, "the told rows were not deleted"
                time.sleep(0.02)
            for c in (ann, bob):  # told once: not again
                assert [f for f in _lobby_frames(c) if f["type"] == "started"] == []
        finally:
            close_all()
