"""A store that fails mid-game: no game in memory is ever ahead of the store.

A move the store cannot take is refused with a ``storage`` error and every
connection stays on the stored state (a join to a game that cannot be read
is closed, code 1013, to rejoin later); once the store is back the game goes
on from what it holds, and the players, a new spectator and a restarted
server agree on it.  First with a store that fails on demand, then with a real
PostgreSQL server (a throwaway cluster of the test's own, on its own port)
stopped and started mid-game.
"""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect as ws_connect

from kamisado.web.play import computer as web_computer
from kamisado.web.play.game import REJOIN
from kamisado.web.site.server import create_app
from kamisado.web.store.storage import GameRow, Store
from tests.conftest import Cluster, stop_process

# a regression here blocks in a receive: fail it in bounded time instead
pytestmark = pytest.mark.timeout(120, method="thread")

OPENING = ["c1-c5", "b8-b3", "d1-g4"]  # Black, Gold, Black: then Gold to move, at seq 3


class FlakyStore(Store):
    """A store that fails on demand: ``down`` (every call fails),
    ``writes_fail`` (every action fails), ``fail_seq`` (the action with this
    seq fails so many times), ``lost_answer`` (an action is committed, then
    its answer is lost)."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.down = False
        self.writes_fail = False
        self.lost_answer = False
        self.fail_seq: dict[int, int] = {}

    def _check(self) -> None:
        if self.down:
            raise OSError("the database is down")

    def create(self, row: GameRow, tokens: list[str] | None = None) -> None:
        self._check()
        super().create(row, tokens)

    def append(
        self, game_id: str, seq: int, token: str, *, state: str, points: tuple[int, int],
        **more: Any,
    ) -> None:
        self._check()
        if self.writes_fail:
            raise OSError("disk full")
        if self.fail_seq.get(seq):
            self.fail_seq[seq] -= 1
            raise OSError("disk full, for a while")
        super().append(game_id, seq, token, state=state, points=points, **more)
        if self.lost_answer:
            raise OSError("connection lost after the commit")

    def load(self, game_id: str, since: int = 0) -> tuple[GameRow, list[str]] | None:
        self._check()
        return super().load(game_id, since)

    def keep_alive(self, now_ms: int, outage_ms: int | None) -> tuple[int, int]:
        self._check()
        return super().keep_alive(now_ms, outage_ms)

    def list(self, limit: int = 50) -> list[GameRow]:
        self._check()
        return super().list(limit)

    def games_of(self, player: str, limit: int = 200) -> list[GameRow]:
        self._check()
        return super().games_of(player, limit)


# -- helpers (Starlette's test client) -----------------------------------------------


def recv(ws: Any, kind: str = "state") -> dict[str, Any]:
    msg: dict[str, Any] = ws.receive_json()
    assert msg["type"] == kind, msg
    return msg


def join(ws: Any, gid: str, token: str | None = None) -> dict[str, Any]:
    ws.send_json({"type": "join", "game": gid, "token": token})
    return recv(ws)


def closed_for_storage(ws: Any) -> None:
    """The connection gets a ``storage`` error, then is closed to rejoin."""
    assert recv(ws, "error")["code"] == "storage"
    with pytest.raises(WebSocketDisconnect) as exc:
        ws.receive_json()
    assert exc.value.code == REJOIN


def nothing_pending(ws: Any) -> None:
    """No frame is waiting for this connection (the pong comes first)."""
    ws.send_json({"type": "ping"})
    recv(ws, "pong")


def moves(st: dict[str, Any]) -> list[str]:
    """The legal moves of a state frame, the shortest first (none ends the round)."""
    found = [f"{frm}-{to}" for frm, tos in st["legal"].items() for to in tos]
    return sorted(found, key=lambda m: (abs(int(m[-1]) - int(m[1])), m))


class Table:
    """An online game with Black, Gold and a spectator connected (in that
    order); they must all agree on the game's state when they join."""

    def __init__(self, client: TestClient, gid: str, tokens: dict[str, str]) -> None:
        self.gid, self.tokens = gid, tokens
        self.stack = contextlib.ExitStack()
        self.black = self.stack.enter_context(client.websocket_connect("/ws"))
        self.gold = self.stack.enter_context(client.websocket_connect("/ws"))
        self.watcher = self.stack.enter_context(client.websocket_connect("/ws"))
        joined = [join(self.black, gid, tokens["b"]), join(self.gold, gid, tokens["g"])]
        recv(self.black)  # Gold came online
        joined.append(join(self.watcher, gid))
        assert len({(st["seq"], st["kpn"]) for st in joined}) == 1, joined
        self.state = joined[-1]

    @classmethod
    def new(cls, client: TestClient) -> Table:
        g = client.post("/api/games", json={"target": 3, "online": True}).json()
        return cls(client, g["id"], g["tokens"])

    @property
    def all(self) -> tuple[Any, Any, Any]:
        return self.black, self.gold, self.watcher

    @property
    def mover(self) -> Any:
        return self.black if self.state["to_act"] == "b" else self.gold

    def play(self, move: str) -> dict[str, Any]:
        """The side to move plays ``move``; every connection sees the same state."""
        self.mover.send_json({"type": "move", "move": move, "seq": self.state["seq"]})
        return self.seen()

    def seen(self) -> dict[str, Any]:
        """The next state frame of every connection: all the same."""
        frames = [recv(ws) for ws in self.all]
        assert len({json.dumps({**f, "you": None}) for f in frames}) == 1
        self.state = frames[-1]
        return self.state

    def close(self) -> None:
        self.stack.close()


@pytest.fixture
def flaky(tmp_path: Path) -> Iterator[tuple[TestClient, FlakyStore, str]]:
    url = str(tmp_path / "games.sqlite3")
    store = FlakyStore(url)
    with TestClient(create_app(store, workers=0)) as client:
        yield client, store, url


def opened(client: TestClient) -> Table:
    """A new game, three moves in: Gold to move at seq 3."""
    table = Table.new(client)
    for mv in OPENING:
        table.play(mv)
    assert table.state["seq"] == 3 and table.state["to_act"] == "g"
    return table


def after_restart(url: str, gid: str, tokens: dict[str, str]) -> dict[str, Any]:
    """The game as a new server (a new hub over the same database) loads it;
    it goes on there with one more move."""
    with TestClient(create_app(url, workers=0)) as client, client.websocket_connect("/ws") as ws:
        st = join(ws, gid)
        st = join(ws, gid, tokens[st["to_act"]])
        assert client.get(f"/api/games/{gid}/steps").status_code == 200
        ws.send_json({"type": "move", "move": moves(st)[0], "seq": st["seq"]})
        assert recv(ws)["seq"] == st["seq"] + 1
        return st


def stored_moves(client: TestClient, gid: str) -> list[str]:
    steps = client.get(f"/api/games/{gid}/steps").json()["steps"]
    return [s["move"] for s in steps[1:]]


# -- a store that fails on demand -------------------------------------------------------


def test_a_store_down_mid_move_refuses_it_and_the_game_goes_on_from_the_store(
    flaky: tuple[TestClient, FlakyStore, str],
) -> None:
    client, store, url = flaky
    hub = client.app.state.hub  # type: ignore[attr-defined]
    table = opened(client)
    gid, tokens, stored = table.gid, table.tokens, table.state
    idle = client.post("/api/games", json={"target": 1}).json()["id"]  # nobody has it open
    player = TestClient(client.app)  # a browser with a player: its game list reads the store
    player.portal = client.portal
    player.get("/")
    refused = moves(stored)[0]
    store.down = True
    table.gold.send_json({"type": "move", "move": refused, "seq": 3})
    err = recv(table.gold, "error")
    assert err["code"] == "storage" and "try again" in err["message"]
    for ws in table.all:  # nobody heard of the move; the connections stay, and answer
        nothing_pending(ws)
    game = hub.games[gid]  # nothing in memory is ahead of the store
    assert game.seq == 3 and game.unsure and game.match.position.kpn() == stored["kpn"]
    # what needs the store says so; what is in memory is served as the store held it
    assert player.get("/api/games").status_code == 503
    assert client.post("/api/games", json={"target": 1}).status_code == 503
    assert stored_moves(client, gid) == OPENING
    with client.websocket_connect("/ws") as ws:  # a game nobody holds cannot be read: rejoin later
        ws.send_json({"type": "join", "game": idle})
        closed_for_storage(ws)
    with client.websocket_connect("/ws") as ws:  # a new spectator of the game held: as stored
        st = join(ws, gid)
        assert st["seq"] == 3 and st["kpn"] == stored["kpn"]
    table.gold.send_json({"type": "move", "move": refused, "seq": 3})  # still down: refused again
    assert recv(table.gold, "error")["code"] == "storage"
    store.down = False
    assert table.play(refused)["seq"] == 4  # now it is stored, and the game goes on
    after = table.play(moves(table.state)[0])
    table.close()
    assert after["seq"] == 5 and len(stored_moves(client, gid)) == 5
    st = after_restart(url, gid, tokens)
    assert st["seq"] == 5 and st["kpn"] == after["kpn"]


def test_a_refused_write_leaves_every_connection_on_the_stored_state(
    flaky: tuple[TestClient, FlakyStore, str],
) -> None:
    client, store, url = flaky
    hub = client.app.state.hub  # type: ignore[attr-defined]
    table = opened(client)
    stored = table.state
    refused = moves(stored)[0]
    store.writes_fail = True
    table.gold.send_json({"type": "move", "move": refused, "seq": 3})
    assert recv(table.gold, "error")["code"] == "storage"
    for ws in table.all:  # nobody heard of the move; the connections stay
        nothing_pending(ws)
    game = hub.games[table.gid]
    assert game.seq == 3 and game.match.position.kpn() == stored["kpn"]
    with client.websocket_connect("/ws") as ws:  # a new spectator: the same
        st = join(ws, table.gid)
        assert st["seq"] == 3 and st["kpn"] == stored["kpn"]
    store.writes_fail = False
    assert table.play(refused)["seq"] == 4
    table.close()
    assert stored_moves(client, table.gid) == [*OPENING, refused]
    assert after_restart(url, table.gid, table.tokens)["kpn"] == table.state["kpn"]


def test_a_move_committed_whose_answer_was_lost_is_announced(
    flaky: tuple[TestClient, FlakyStore, str],
) -> None:
    client, store, url = flaky
    table = opened(client)
    move = moves(table.state)[0]
    store.lost_answer = True
    assert table.play(move)["seq"] == 4  # stored after all: no error, everyone sees it
    store.lost_answer = False
    for ws in table.all:
        nothing_pending(ws)
    assert table.play(moves(table.state)[0])["seq"] == 5
    table.close()
    assert after_restart(url, table.gid, table.tokens)["kpn"] == table.state["kpn"]


def test_a_move_against_a_store_that_moved_on_is_stale(
    flaky: tuple[TestClient, FlakyStore, str],
) -> None:
    client, store, url = flaky
    table = opened(client)
    first, second = moves(table.state)[:2]
    other = Store(url)  # another server stores Gold's move first
    try:
        other.append(table.gid, 3, first, state="playing", points=(0, 0))
    finally:
        other.close()
    table.gold.send_json({"type": "move", "move": second, "seq": 3})
    st = table.seen()  # everyone catches up with the store
    assert st["seq"] == 4 and st["last"]["move"] == first
    assert recv(table.gold, "error")["code"] == "stale"
    assert table.play(moves(st)[0])["seq"] == 5
    table.close()
    assert stored_moves(client, table.gid)[3] == first


def test_a_computer_move_that_cannot_be_stored_is_tried_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(web_computer, "RETRY_S", 0.05)
    store = FlakyStore(str(tmp_path / "games.sqlite3"))
    store.fail_seq[1] = 2  # the computer's first move fails twice
    with TestClient(create_app(store, workers=1)) as client:
        g = client.post("/api/games", json={"target": 1, "gold": "beginner"}).json()
        with client.websocket_connect("/ws") as ws:
            join(ws, g["id"], g["tokens"]["b"])
            ws.send_json({"type": "move", "move": "c1-c5", "seq": 0})
            assert recv(ws)["thinking"] is True
            st = recv(ws)
            assert st["seq"] == 2 and st["last"]["side"] == "g" and not st["thinking"]
        assert store.fail_seq[1] == 0 and len(stored_moves(client, g["id"])) == 2


# -- a real PostgreSQL server, stopped and started mid-game ------------------------------


def start_server(db: str, log: Path) -> tuple[subprocess.Popen[bytes], str]:
    """Run ``kamisado web`` on a free port, its output to ``log`` (a new file)."""
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "kamisado.cli", "web", "--port", "0", "--no-browser",
             "--db", db, "--workers", "1"],
            stdout=out, stderr=subprocess.STDOUT,
        )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and proc.poll() is None:
        found = re.search(r"serving on http://([\d.]+:\d+)/", log.read_text())
        if found:
            return proc, found.group(1)
        time.sleep(0.05)
    proc.kill()
    raise AssertionError(f"the server did not start: {log.read_text()}")


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    stop_process(proc)


class Player:
    """A websocket to the real server, joined to a game."""

    def __init__(
        self, stack: contextlib.ExitStack, addr: str, gid: str, token: str | None
    ) -> None:
        self.ws = stack.enter_context(ws_connect(f"ws://{addr}/ws", open_timeout=10))
        self.ws.send(json.dumps({"type": "join", "game": gid, "token": token}))
        self.state = self.next()

    def next(self, kind: str = "state") -> dict[str, Any]:
        msg: dict[str, Any] = json.loads(self.ws.recv(timeout=10))
        assert msg["type"] == kind, msg
        if kind == "state":
            self.state = msg
        return msg

    def move(self, move: str) -> None:
        self.ws.send(json.dumps({"type": "move", "move": move, "seq": self.state["seq"]}))

    def closed_for_storage(self) -> None:
        assert self.next("error")["code"] == "storage"
        with pytest.raises(ConnectionClosed) as exc:
            self.ws.recv(timeout=10)
        assert exc.value.rcvd is not None and exc.value.rcvd.code == REJOIN


def http_get(addr: str, path: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(f"http://{addr}{path}", timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_postgresql_stopped_mid_game_then_started_again(own_pg: Cluster, tmp_path: Path) -> None:
    proc, addr = start_server(own_pg.url, tmp_path / "server1.log")
    try:
        with contextlib.ExitStack() as stack:
            req = urllib.request.Request(
                f"http://{addr}/api/games", data=b'{"target": 3, "online": true}',
                headers={"Content-Type": "application/json"}, method="POST",
            )
            g = json.loads(urllib.request.urlopen(req, timeout=10).read())
            gid, tokens = g["id"], g["tokens"]
            black = Player(stack, addr, gid, tokens["b"])
            gold = Player(stack, addr, gid, tokens["g"])
            black.next()  # Gold came online
            for i, mv in enumerate(OPENING):
                (black, gold)[i % 2].move(mv)
                black.next(), gold.next()
            stored = gold.state
            assert stored["seq"] == 3 and black.state["kpn"] == stored["kpn"]
            refused = moves(stored)[0]
            own_pg.stop("fast")
            gold.move(refused)
            err = gold.next("error")  # refused, and said so; the connections stay
            assert err["code"] == "storage" and "try again" in err["message"]
            for p in (black, gold):  # what needs no database keeps working: a pong, not a storage error
                p.ws.send(json.dumps({"type": "ping"}))
                p.next("pong")
            status, steps = http_get(addr, f"/api/games/{gid}/steps")  # the game held, as stored
            assert status == 200 and [s["move"] for s in steps["steps"][1:]] == OPENING
            own_pg.start()
            watcher = Player(stack, addr, gid, None)  # a new spectator
            everyone = (watcher, black, gold)
            assert (watcher.state["seq"], watcher.state["kpn"]) == (3, stored["kpn"])
            deadline = time.monotonic() + 20
            while True:  # the server finds the database again: the move goes through
                gold.move(refused)
                msg = json.loads(gold.ws.recv(timeout=10))
                if msg["type"] == "state":
                    gold.state = msg
                    break
                assert msg["type"] == "error" and msg["code"] == "storage", msg
                assert time.monotonic() < deadline, "the database never came back"
                time.sleep(0.2)
            assert gold.state["seq"] == 4
            assert [p.next()["seq"] for p in (watcher, black)] == [4, 4]
            assert len({p.state["kpn"] for p in everyone}) == 1
            black.move(moves(black.state)[0])
            assert [p.next()["seq"] for p in everyone] == [5, 5, 5]
            final = black.state
    finally:
        stop_server(proc)
    proc, addr = start_server(own_pg.url, tmp_path / "server2.log")  # a restart
    try:
        status, steps = http_get(addr, f"/api/games/{gid}/steps")
        assert status == 200
        assert [s["move"] for s in steps["steps"][1:]] == [*OPENING, refused, final["last"]["move"]]
        with contextlib.ExitStack() as stack:
            gold = Player(stack, addr, gid, tokens["g"])
            assert gold.state["seq"] == 5 and gold.state["kpn"] == final["kpn"]
            gold.move(moves(gold.state)[0])
            assert gold.next()["seq"] == 6
    finally:
        stop_server(proc)
