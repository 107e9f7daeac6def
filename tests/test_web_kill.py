"""SIGKILL the real server mid-game: every acknowledged move survives."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.client import connect

from kamisado.rules.position import Position

MOVES = ["c1-c5", "b8-b3", "d1-g4", "c8-d7", "b1-e4", "a8-a3"]


def start_server(db: Path, workers: int = 1) -> tuple[subprocess.Popen[str], str]:
    """Run ``kamisado web`` on a free port; return it and its address."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "kamisado.cli", "web", "--port", "0", "--no-browser",
         "--db", str(db), "--workers", str(workers)],
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


def _children(pid: int) -> set[int]:
    """The live (not zombie) processes whose parent is ``pid``, from /proc."""
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _stat(int(entry))
            if fields is not None and fields[0] != "Z" and int(fields[1]) == pid:
                found.add(int(entry))
    return found


def _stat(pid: int) -> list[str] | None:
    """State, ppid, ... of a process from /proc/PID/stat (None once it is gone)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2:].split()


def _alive(pid: int) -> bool:
    fields = _stat(pid)
    return fields is not None and fields[0] != "Z"  # a zombie has died


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_sigkill_takes_the_workers_along(tmp_path: Path) -> None:
    """Issue 10: after ``kill -9`` of the server its pool's workers (and the
    multiprocessing resource tracker) die within seconds, not minutes."""
    proc, addr = start_server(tmp_path / "games.sqlite3", workers=2)
    workers: set[int] = set()
    try:
        url = f"http://{addr}/api/analyse?kpn=obupyrgn/8/8/8/8/8/8/NGRYPUBO%20b%20-%201%200%200&ms=300"
        # two analyses at once, so the pool starts both its workers
        with ThreadPoolExecutor(2) as threads:
            for answer in threads.map(
                lambda _: json.loads(urllib.request.urlopen(url, timeout=30).read()), range(2)
            ):
                assert answer["best"]
        workers = _children(proc.pid)
        assert len(workers) >= 2, workers  # the workers (and the resource tracker)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        start = time.monotonic()
        while time.monotonic() - start < 5 and any(_alive(p) for p in workers):
            time.sleep(0.05)
        left = {p for p in workers if _alive(p)}
        assert not left, f"still alive {time.monotonic() - start:.1f} s after the kill: {left}"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for p in workers:
            with contextlib.suppress(OSError):
                os.kill(p, signal.SIGKILL)
