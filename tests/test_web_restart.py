"""A rolling restart (issue 25): two ``kamisado web`` processes on one
PostgreSQL are restarted one after the other (SIGTERM, then started again)
while games are played through them.  Each player whose process stops goes
on through the other one, as behind a proxy; no acknowledged action is lost,
and no clock is charged for the restart: every action's charge lies between
the time its mover had the turn in hand and the time from the action before
it to its acknowledgement (the service never stopped: nothing is given back,
and nothing is charged that the player did not have).  Real server
processes on loopback, real websockets."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import pytest
from websockets.exceptions import WebSocketException
from websockets.sync.client import ClientConnection, connect

from kamisado.rules.match import Match
from kamisado.web.store.storage import Store
from tests.test_web_failover import CLOCK, Server, action, servers
from tests.test_web_processes import FRAME_GAP, create

pytestmark = pytest.mark.timeout(300, method="thread")

#: The games: where each one's Black and Gold connect first (0: process A,
#: 1: process B): across the two, and both on one, each way.
SEATS = ((0, 1), (1, 0), (0, 0), (1, 1))
#: Actions played (over all games) before each restart, and by each game after the last.
BEFORE_RESTART = 24
AFTER = 6
#: ms of slack between the server's clock readings (whole ms) and the test's.
SLACK_MS = 5


class Pool:
    """The processes up, as a proxy in front of them would route: a player
    goes to its own process while it is up, else to the other."""

    def __init__(self, procs: list[Server]) -> None:
        self.lock = threading.Lock()
        self.addrs: list[str | None] = [p.addr for p in procs]

    def pick(self, prefer: int) -> str:
        with self.lock:
            up = [a for a in (self.addrs[prefer], self.addrs[1 - prefer]) if a is not None]
        assert up, "no process is up"
        return up[0]

    def set(self, slot: int, addr: str | None) -> None:
        with self.lock:
            self.addrs[slot] = addr


class Player:
    """One seat's websocket, joined with its token; when its process stops
    it joins again through another.  ``seen``: when (``time.time()``) it
    first saw the game at each ``seq``."""

    def __init__(self, pool: Pool, prefer: int, gid: str, token: str) -> None:
        self.pool, self.prefer, self.gid, self.token = pool, prefer, gid, token
        self.ws: ClientConnection | None = None
        self.state: dict[str, Any] = {}
        self.seen: dict[int, float] = {}
        self.sent = 0.0
        self.rejoins = -1
        self.join()

    def join(self) -> dict[str, Any]:
        """Connect (to the process up) and join; the state frame."""
        self.close()
        deadline = time.monotonic() + 60
        while True:
            try:
                self.ws = connect(f"ws://{self.pool.pick(self.prefer)}/ws", open_timeout=5).__enter__()
                self.send({"type": "join", "game": self.gid, "token": self.token})
                while True:
                    msg = self.read(10)
                    if msg["type"] == "state":
                        self.rejoins += 1
                        return msg
            except (OSError, WebSocketException, TimeoutError):
                self.close()
                assert time.monotonic() < deadline, "could not join again"
                time.sleep(0.05)

    def read(self, timeout: float) -> dict[str, Any]:
        assert self.ws is not None
        msg: dict[str, Any] = json.loads(self.ws.recv(timeout=timeout))
        if msg["type"] == "state":
            self.state = msg
            self.seen.setdefault(msg["seq"], time.time())
        return msg

    def send(self, msg: dict[str, Any]) -> None:
        assert self.ws is not None
        time.sleep(max(0.0, self.sent + FRAME_GAP - time.monotonic()))  # the frame limit
        self.sent = time.monotonic()
        self.ws.send(json.dumps(msg))

    def until(self, seq: int) -> dict[str, Any]:
        """The game at ``seq`` or later (joining again if the process stopped)."""
        deadline = time.monotonic() + 30
        while self.state.get("seq", -1) < seq:
            assert time.monotonic() < deadline, f"never saw action {seq}"
            try:
                self.read(max(0.01, deadline - time.monotonic()))
            except (OSError, WebSocketException):
                self.join()
        return self.state

    def act(self, msg: dict[str, Any], seq: int) -> tuple[float, float]:
        """Send an action until it is acknowledged (a state frame past
        ``seq``, maybe the join's after its process stopped): when it was
        first sent and when acknowledged (``time.time()``)."""
        first: float | None = None
        deadline = time.monotonic() + 60
        while True:
            assert time.monotonic() < deadline, f"action {seq} was never acknowledged"
            try:
                if self.state["seq"] <= seq:
                    stamp = time.time()  # before the send: the server reads its clock after it
                    self.send(msg)
                    first = first or stamp
                while self.state["seq"] <= seq:
                    got = self.read(30)
                    if got["type"] == "error":  # (refused while its process stopped): join again, see
                        self.join()
                        break
                if self.state["seq"] > seq:
                    assert first is not None
                    return first, time.time()
            except (OSError, WebSocketException):
                self.join()

    def close(self) -> None:
        if self.ws is not None:
            self.ws.close()
            self.ws = None


class Table:
    """One game and its two players; every action acknowledged, in order,
    with its clock."""

    def __init__(self, pool: Pool, game: dict[str, Any], seats: tuple[int, int]) -> None:
        self.gid = game["id"]
        self.players = {side: Player(pool, seats[i], self.gid, game["tokens"][side])
                        for i, side in enumerate("bg")}
        self.match = Match(3)
        self.acked: list[str] = []
        self.movers: list[str] = []
        self.times: list[tuple[float, float]] = []  # (first sent, acknowledged) per action
        self.clocks: list[dict[str, Any]] = []  # the clock after each action

    @property
    def seq(self) -> int:
        return len(self.acked)

    def step(self) -> None:
        """The next action, by the side to act; seen by the other too."""
        seq = self.seq
        side, msg = action(self.match, seq)
        mover, other = self.players[side], self.players["g" if side == "b" else "b"]
        mover.until(seq)
        sent, acked = mover.act(msg, seq)
        st = mover.state
        assert st["seq"] == seq + 1 and st["kpn"] == self.match.position.kpn(), (st, seq)
        theirs = other.until(seq + 1)
        assert theirs["kpn"] == st["kpn"]
        self.acked.append(msg.get("move") or msg["direction"])
        self.movers.append(side)
        self.times.append((sent, acked))
        self.clocks.append(st["clock"])

    def charges(self) -> list[tuple[int, float, float, float]]:
        """Per action whose charge is known exactly (its mover's clock is
        stopped in the frames before and after it): (seq, charged ms, the
        least and the most it may be, from the players' own times, in ms)."""
        out = []
        initial, increment = CLOCK["initial"] * 1000, CLOCK["increment"] * 1000
        for s in range(1, self.seq):
            mover, before = self.movers[s], self.movers[s - 1]
            after = self.clocks[s]
            if before == mover or after["running"] == mover:
                continue  # its clock runs in a frame beside it (the other side passed)
            left = initial if s == 1 else self.clocks[s - 2][mover]
            charged = left + increment - after[mover]
            turn = self.players[mover].seen[s]  # when the mover saw the game wait for it
            least = (self.times[s][0] - turn) * 1000
            most = (self.times[s][1] - self.times[s - 1][0]) * 1000
            out.append((s, charged, least, most))
        return out


@pytest.mark.slow  # started first (tests/conftest.py)
def test_a_rolling_restart_loses_no_move_and_charges_no_clock(pg_url: str) -> None:
    with servers(pg_url, 2) as procs:
        pool = Pool(procs)

        def new_table(seats: tuple[int, int]) -> Table:
            while True:  # through a process that is up (a restart may stop it meanwhile)
                try:
                    game = create(pool.pick(0), {"target": 3, "online": True, "clock": CLOCK})
                    return Table(pool, game, seats)
                except OSError:
                    time.sleep(0.05)

        tables = [new_table(seats) for seats in SEATS]
        done: list[Table] = []  # the matches that ended (a new one takes each one's place)
        played = 0
        restarts: list[dict[str, Any]] = []
        failure: list[BaseException] = []

        def restart() -> None:
            try:
                for slot in (0, 1):
                    while played < BEFORE_RESTART * (slot + 1):
                        time.sleep(0.01)
                    old = procs[slot]
                    pool.set(slot, None)  # the proxy routes no new connection to it
                    at = time.monotonic()
                    old.proc.terminate()  # SIGTERM
                    code = old.proc.wait(timeout=60)
                    old.stop()
                    stopped = time.monotonic()
                    procs[slot] = Server(pg_url)  # started again (stopped by servers() at the end)
                    pool.set(slot, procs[slot].addr)
                    # the stopped process's last output: shown with a failure below
                    restarts.append({"slot": slot, "code": code, "stop_s": stopped - at,
                                     "down_s": time.monotonic() - at, "played": played,
                                     "output": old.output()[-3000:]})
            except BaseException as exc:
                failure.append(exc)

        restarter = threading.Thread(target=restart, daemon=True)
        restarter.start()
        after = [0] * len(SEATS)  # actions of each place after the last restart
        while restarter.is_alive() or min(after) < AFTER:
            assert not failure, failure
            for i, table in enumerate(tables):
                if table.match.state == "over":
                    done.append(table)
                    tables[i] = table = new_table(SEATS[i])
                table.step()
                played += 1
                if not restarter.is_alive():
                    after[i] += 1
        restarter.join()
        tables += done
        assert not failure, failure
        # each stopped by itself on SIGTERM (uvicorn ends by raising it again once shut down)
        assert all(r["code"] in (0, -15) for r in restarts) and len(restarts) == 2, restarts
        rejoins = sum(p.rejoins for t in tables for p in t.players.values())
        assert rejoins >= 4  # each restart cut off at least the two players of its both-seats game
        # no acknowledged action lost (nor any other stored), in the store itself
        store = Store(pg_url)
        try:
            for table in tables:
                stored = store.load(table.gid)
                assert stored is not None and stored[1] == table.acked, table.gid
        finally:
            store.close()
        # no clock charged for the restarts (nor any time given back)
        checked = 0
        worst = 0.0
        for table in tables:
            for seq, charged, least, most in table.charges():
                assert least - SLACK_MS <= charged <= most + SLACK_MS, (table.gid, seq, charged, least, most)
                checked += 1
                worst = max(worst, charged)
        assert checked >= played // 2
        print(f"\n{played} actions in {len(tables)} games, {rejoins} rejoins through the other process; "
              f"restarts: {[(round(r['stop_s'], 2), round(r['down_s'], 2)) for r in restarts]} s "
              f"(stopping, until up again); {checked} clock charges checked, the longest {worst:.0f} ms")
        for table in tables:
            for player in table.players.values():
                player.close()
