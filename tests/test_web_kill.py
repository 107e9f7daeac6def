"""SIGKILL the real server mid-game: every acknowledged move survives."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

from websockets.sync.client import connect

from kamisado.core import Position

MOVES = ["c1-c5", "b8-b3", "d1-g4", "c8-d7", "b1-e4", "a8-a3"]


def start_server(db: Path) -> tuple[subprocess.Popen[str], str]:
    """Run ``kamisado web`` on a free port; return it and its address."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "kamisado.cli", "web", "--port", "0", "--no-browser",
         "--db", str(db), "--workers", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        found = re.search(r"serving on http://([\d.]+:\d+)/", line)
        if found:
            return proc, found.group(1)
    proc.kill()
    raise AssertionError(f"server did not start: {proc.wait()}")


def state(ws: Any) -> dict[str, Any]:
    while True:
        msg: dict[str, Any] = json.loads(ws.recv(timeout=10))
        if msg["type"] == "state":
            return msg
        raise AssertionError(msg)


def test_sigkill_keeps_every_acknowledged_move(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    proc, addr = start_server(db)
    try:
        req = urllib.request.Request(
            f"http://{addr}/api/games", data=b'{"target": 3}',
            headers={"Content-Type": "application/json"}, method="POST",
        )
        game = json.loads(urllib.request.urlopen(req, timeout=10).read())
        with connect(f"ws://{addr}/ws") as ws:
            ws.send(json.dumps({"type": "join", "game": game["id"], "token": game["tokens"]["b"]}))
            state(ws)
            for seq, mv in enumerate(MOVES):
                ws.send(json.dumps({"type": "move", "move": mv, "seq": seq}))
                assert state(ws)["seq"] == seq + 1  # acknowledged
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    proc, addr = start_server(db)
    try:
        with connect(f"ws://{addr}/ws") as ws:
            ws.send(json.dumps({"type": "join", "game": game["id"], "token": game["tokens"]["b"]}))
            st = state(ws)
        expected = Position("obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 3 0 0")
        for mv in MOVES:
            expected.push_move(mv)
        assert st["seq"] == len(MOVES) and st["kpn"] == expected.kpn()
        assert [e["move"] for e in st["rounds"][0]["entries"]] == MOVES
    finally:
        proc.terminate()
        proc.wait(timeout=10)
