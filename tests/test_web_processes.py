"""Several ``kamisado web`` processes on one PostgreSQL (issue: one service
on many processes): a move made on one process reaches the connections of
the same game on another (``LISTEN``/``NOTIFY``), and the database decides
the order.  Real server processes on loopback, real websockets."""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from websockets.sync.client import connect

from kamisado.rules.match import Match


def start_server(db: str) -> tuple[subprocess.Popen[str], str]:
    """Run ``kamisado web`` on a free port, without the computer."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "kamisado.cli", "web", "--port", "0", "--no-browser",
         "--db", db, "--workers", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        found = re.search(r"serving on http://([\d.]+:\d+)/", line)
        if found:
            return proc, found.group(1)
    proc.kill()
    raise AssertionError(f"the server did not start: {proc.wait()}")


@contextlib.contextmanager
def servers(db: str, n: int, logs: list[str] | None = None) -> Iterator[list[str]]:
    """``n`` server processes on one database: their addresses; once they
    stopped, their output goes into ``logs``."""
    procs = []
    try:
        for _ in range(n):
            procs.append(start_server(db))
        yield [addr for _, addr in procs]
    finally:
        for proc, _ in procs:
            proc.terminate()
        for proc, _ in procs:
            out, _ = proc.communicate(timeout=10)
            if logs is not None:
                logs.append(out or "")


@pytest.fixture
def two(pg_url: str) -> Iterator[tuple[str, str]]:
    """Two server processes on the same PostgreSQL: their addresses."""
    with servers(pg_url, 2) as (a, b):
        yield a, b


#: Seconds between two frames of one connection: under the server's frame
#: limit (30 a second, kamisado.web.edge.guard.LIMITS["frame"]).
FRAME_GAP = 1 / 25


def create(addr: str, body: dict[str, Any]) -> dict[str, Any]:
    req = urllib.request.Request(
        f"http://{addr}/api/games", data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"}, method="POST",
    )
    game: dict[str, Any] = json.loads(urllib.request.urlopen(req, timeout=10).read())
    return game


def frame(ws: Any, kind: str = "state", timeout: float = 10) -> dict[str, Any]:
    """The next frame of a kind (others skipped)."""
    deadline = time.monotonic() + timeout
    while True:
        msg: dict[str, Any] = json.loads(ws.recv(timeout=max(0.01, deadline - time.monotonic())))
        if msg["type"] == kind:
            return msg


def state_until(ws: Any, holds: Callable[[dict[str, Any]], bool], timeout: float = 10) -> dict[str, Any]:
    """The first state frame for which ``holds`` is true (what another
    process says arrives as it is written and announced: a frame or two
    may come first)."""
    deadline = time.monotonic() + timeout
    while True:
        st = frame(ws, timeout=max(0.01, deadline - time.monotonic()))
        if holds(st):
            return st


def until_seq(ws: Any, seq: int) -> dict[str, Any]:
    while True:
        st = frame(ws)
        if st["seq"] >= seq:
            return st


def test_a_timed_standard_match_is_played_across_two_processes(two: tuple[str, str]) -> None:
    a, b = two
    game = create(a, {"target": 3, "online": True, "clock": {"initial": 600, "increment": 5}})
    gid, tokens = game["id"], game["tokens"]
    match = Match(3)
    crossings: list[float] = []
    with connect(f"ws://{a}/ws") as black, connect(f"ws://{b}/ws") as gold:
        black.send(json.dumps({"type": "join", "game": gid, "token": tokens["b"]}))
        assert frame(black)["you"] == ["b"]
        gold.send(json.dumps({"type": "join", "game": gid, "token": tokens["g"]}))
        st = frame(gold)
        assert st["you"] == ["g"] and st["seq"] == 0
        conns = {"b": black, "g": gold}
        last_sent = {"b": 0.0, "g": 0.0}
        seq = 0
        while match.state != "over":
            side = "bg"[match.position.turn] if match.state == "playing" else "bg"[match.current_winner()]
            mover, other = conns[side], conns["bg"[1 - "bg".index(side)]]
            if match.state == "fill":
                token: str = "left"
                msg = {"type": "fill", "direction": token, "seq": seq}
                match.choose_fill(token)
            else:
                token = str(next(iter(match.position.legal_moves)))
                msg = {"type": "move", "move": token, "seq": seq}
                match.push_move(token)
            # within the frame limit (30 a second a connection after a burst
            # of 60): a match is longer than the burst, and a fast server
            # answers a move in a few milliseconds
            time.sleep(max(0.0, last_sent[side] + FRAME_GAP - time.monotonic()))
            sent = last_sent[side] = time.monotonic()
            mover.send(json.dumps(msg))
            mine = until_seq(mover, seq + 1)
            theirs = until_seq(other, seq + 1)  # the other process heard of it
            crossings.append(time.monotonic() - sent)
            seq += 1
            assert mine["seq"] == theirs["seq"] == seq
            assert mine["kpn"] == theirs["kpn"] == match.position.kpn()
            assert mine["clock"]["running"] == theirs["clock"]["running"]
        assert theirs["state"] == "over" and theirs["points"] == list(match.points)
    crossings.sort()
    p99 = crossings[min(len(crossings) - 1, int(len(crossings) * 0.99))]
    print(f"\n{len(crossings)} actions across two processes: p50 "
          f"{crossings[len(crossings) // 2] * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms")
    assert p99 < 1.0  # generous on a loaded machine; bench/load.py measures it


def test_the_database_decides_between_two_processes_storing_at_once(two: tuple[str, str]) -> None:
    # one hotseat game held on both processes (one token holds both seats):
    # a different move sent to each at the same seq; one is stored, the
    # other process answers stale, and both end up showing the stored one
    a, b = two
    game = create(a, {"target": 1})
    gid, token = game["id"], game["tokens"]["b"]
    with connect(f"ws://{a}/ws") as on_a, connect(f"ws://{b}/ws") as on_b:
        for ws in (on_a, on_b):
            ws.send(json.dumps({"type": "join", "game": gid, "token": token}))
            frame(ws)
        on_a.send(json.dumps({"type": "move", "move": "c1-c5", "seq": 0}))
        on_b.send(json.dumps({"type": "move", "move": "d1-d4", "seq": 0}))
        seen: list[list[dict[str, Any]]] = [[], []]
        for i, ws in enumerate((on_a, on_b)):
            deadline = time.monotonic() + 2.0  # every frame of the next two seconds
            while (left := deadline - time.monotonic()) > 0:
                try:
                    seen[i].append(json.loads(ws.recv(timeout=left)))
                except TimeoutError:
                    break
        finals = [[m for m in frames if m["type"] == "state"][-1] for frames in seen]
        errors = [m["code"] for frames in seen for m in frames if m["type"] == "error"]
        assert finals[0]["seq"] == finals[1]["seq"] == 1  # one move stored, not two
        assert finals[0]["kpn"] == finals[1]["kpn"]
        assert finals[0]["last"]["move"] in ("c1-c5", "d1-d4")
        assert errors == ["stale"]  # the loser was told


def test_who_is_connected_is_known_across_processes(two: tuple[str, str]) -> None:
    a, b = two
    game = create(a, {"target": 1, "online": True, "clock": {"initial": 300, "increment": 0}})
    gid, tokens = game["id"], game["tokens"]
    with connect(f"ws://{a}/ws") as black:
        black.send(json.dumps({"type": "join", "game": gid, "token": tokens["b"]}))
        st = frame(black)
        assert st["seats"]["g"]["online"] is False
        with connect(f"ws://{b}/ws") as gold:
            gold.send(json.dumps({"type": "join", "game": gid, "token": tokens["g"]}))
            # Black is connected to the other process
            st = state_until(gold, lambda st: st["seats"]["b"]["online"] is True)
            # and Black hears that Gold came, through the other process
            st = state_until(black, lambda st: st["seats"]["g"]["online"] is True)
            assert st["seats"]["g"]["away_ms"] is None
            black.send(json.dumps({"type": "claim"}))
            err = frame(black, "error")
            assert err["code"] == "not_allowed" and "connected" in err["message"]
        st = state_until(black, lambda st: st["seats"]["g"]["online"] is False)  # Gold left the other process
        assert st["seats"]["g"]["away_ms"] is not None


def test_a_computer_move_is_thought_about_by_one_process(pg_url: str) -> None:
    # a person against the computer, watched through both processes: one
    # process holds the lease on each computer move, so no move is computed
    # twice and refused as stale by the database
    logs: list[str] = []
    with servers(pg_url, 2, logs) as (a, b):
        play_against_the_computer(a, b)
    assert len(logs) == 2
    thought = re.findall(r"game (\S+): the computer thinks about action (\d+)", "".join(logs))
    assert len(thought) >= 2 and len(set(thought)) == len(thought)  # each move once, by one process


def play_against_the_computer(a: str, b: str) -> None:
    """Black on ``a`` plays a few moves against the computer, a watcher on
    ``b`` sees the same game, and each computer answer shown thinking."""
    game = create(a, {"target": 1, "gold": "novice", "delay": 0.2})
    gid, token = game["id"], game["tokens"]["b"]
    with connect(f"ws://{a}/ws") as black, connect(f"ws://{b}/ws") as watcher:
        black.send(json.dumps({"type": "join", "game": gid, "token": token}))
        st = frame(black)
        watcher.send(json.dumps({"type": "join", "game": gid}))
        frame(watcher)
        for _ in range(4):
            if st["state"] != "playing":
                break
            frm = sorted(st["legal"])[0]
            sent = st["seq"]
            black.send(json.dumps({"type": "move", "move": f"{frm}-{st['legal'][frm][0]}", "seq": sent}))
            while True:  # the computer answers (again, when Black's tower is blocked and passes)
                st = frame(black)
                if st["seq"] > sent + 1 and (st["to_act"] == "b" or st["state"] != "playing"):
                    break
            thought: set[int] = set()
            while True:  # the watcher, whichever process thinks, sees the computer thinking
                seen = frame(watcher)
                if seen["thinking"]:
                    thought.add(seen["seq"])
                if seen["seq"] >= st["seq"]:
                    break
            assert seen["kpn"] == st["kpn"] and sent + 1 in thought


def visit(addr: str) -> str:
    """A browser's first visit: its player cookie (``name=value``)."""
    with urllib.request.urlopen(f"http://{addr}/api/me", timeout=10) as r:
        cookie = r.headers["set-cookie"].split(";")[0]
    return str(cookie)


def lobby_until(ws: Any, pred: Any) -> list[dict[str, Any]]:
    """The challenges of the first lobby frame ``pred`` accepts (a list may
    also come again unchanged: every process sends it every 10 s)."""
    while True:
        challenges: list[dict[str, Any]] = frame(ws, "lobby")["challenges"]
        if pred(challenges):
            return challenges


def test_the_lobby_is_shared_across_processes(two: tuple[str, str]) -> None:
    a, b = two
    ann, bob = visit(a), visit(b)  # one database: a cookie is good on every process
    with connect(f"ws://{a}/ws", additional_headers={"Cookie": ann}) as wa, \
            connect(f"ws://{b}/ws", additional_headers={"Cookie": bob}) as wb:
        for ws in (wa, wb):
            ws.send(json.dumps({"type": "lobby", "watch": True}))
            frame(ws, "lobby")
        wa.send(json.dumps({"type": "challenge", "target": 3, "color": "b"}))
        assert [c["mine"] for c in lobby_until(wa, bool)] == [True]
        seen = lobby_until(wb, bool)  # posted on the other process
        assert len(seen) == 1 and seen[0]["mine"] is False and seen[0]["target"] == 3
        wb.send(json.dumps({"type": "accept", "challenge": seen[0]["id"]}))
        game = frame(wb, "started")["game"]
        assert frame(wa, "started")["game"] == game  # told by the process that holds Ann
        lobby_until(wb, lambda cs: cs == [])
        # a challenge goes with its poster's connection, on every process
        wa.send(json.dumps({"type": "challenge", "target": 1, "clock": {"initial": 300, "increment": 3}}))
        listed = lobby_until(wb, bool)
        assert [c["target"] for c in listed] == [1]
        # with its poster's rating for the speed, provisional (shown "1500?") for a new player
        assert (listed[0]["by"]["rating"], listed[0]["by"]["provisional"]) == (1500, True)
    with connect(f"ws://{b}/ws", additional_headers={"Cookie": bob}) as wb:
        wb.send(json.dumps({"type": "lobby", "watch": True}))
        # gone once process A has seen Ann's connection close (on a loaded
        # machine maybe after this first frame: the next one says so)
        lobby_until(wb, lambda cs: cs == [])
    # the game: Ann is Black (her challenge said so), Bob Gold
    with connect(f"ws://{b}/ws", additional_headers={"Cookie": ann}) as ws:
        ws.send(json.dumps({"type": "join", "game": game}))
        assert frame(ws)["you"] == ["b"]


def test_a_declined_takeback_is_told_across_processes(two: tuple[str, str]) -> None:
    """The answer "no" is stored with the game: the asker, on another
    process, is told, and asking again for the same move is refused there."""
    a, b = two
    game = create(a, {"target": 3, "online": True})
    gid, tokens = game["id"], game["tokens"]
    with connect(f"ws://{a}/ws") as black, connect(f"ws://{b}/ws") as gold:
        black.send(json.dumps({"type": "join", "game": gid, "token": tokens["b"]}))
        assert frame(black)["you"] == ["b"]
        gold.send(json.dumps({"type": "join", "game": gid, "token": tokens["g"]}))
        assert frame(gold)["you"] == ["g"]
        black.send(json.dumps({"type": "move", "move": "c1-c5", "seq": 0}))
        until_seq(black, 1)
        black.send(json.dumps({"type": "takeback"}))
        state_until(gold, lambda st: st["offer"] == {"kind": "takeback", "by": "b"})
        gold.send(json.dumps({"type": "takeback", "action": "decline"}))
        st = state_until(black, lambda st: st["declined"] is not None)
        assert st["declined"] == {"kind": "takeback", "by": "b"} and st["offer"] is None and st["seq"] == 1
        black.send(json.dumps({"type": "takeback"}))
        assert frame(black, "error")["code"] == "declined"
