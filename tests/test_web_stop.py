"""A clean stop of ``kamisado web`` (issue 40, item 7): Ctrl-C stops it as
SIGTERM does (the pages told, the pool ended, every stored game kept) with
exit status 130 and no traceback, also when it was started with SIGINT
ignored; and when no browser can be opened it says which address to open.
Real server processes, each in its own process group (as a terminal's
Ctrl-C reaches the server and its pool's workers)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
import urllib.request
import webbrowser
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from kamisado.web import _open_browser
from tests.test_web_kill import MOVES, _alive, _children, state

#: Seconds a stopped server (and its workers) has to be gone, at most: a
#: deadline for a hung stop, not a measure (it takes well under one).
STOP_DEADLINE = 60


def start(db: Path, *, sigint: str = "default", env: dict[str, str] | None = None,
          browser: bool = False) -> tuple[subprocess.Popen[str], str, list[str]]:
    """``kamisado web`` on a free port in its own process group, started with
    SIGINT ``"default"`` or ``"ignored"`` (``trap '' INT``: a child inherits
    SIG_IGN, as from a test run with SIGINT ignored); the process, its
    address and the lines it printed up to ``serving on``."""
    argv = [sys.executable, "-m", "kamisado.cli", "web", "--port", "0", "--db", str(db),
            "--workers", "1", *([] if browser else ["--no-browser"])]
    if sigint == "ignored":
        argv = ["sh", "-c", "trap '' INT; exec " + shlex.join(argv)]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True, env={**os.environ, **(env or {})})
    assert proc.stdout is not None
    lines = []
    for line in proc.stdout:
        lines.append(line)
        found = re.search(r"serving on http://([\d.]+:\d+)/", line)
        if found:
            return proc, found.group(1), lines
    proc.kill()
    raise AssertionError(f"the server did not start ({proc.wait()}): {''.join(lines)}")


def ctrl_c(proc: subprocess.Popen[str]) -> tuple[int, str]:
    """SIGINT to the server's whole process group, as a terminal's Ctrl-C:
    its exit status and what it printed from then on."""
    os.killpg(proc.pid, signal.SIGINT)
    try:
        out, _ = proc.communicate(timeout=STOP_DEADLINE)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise AssertionError("the server did not stop on SIGINT") from None
    return proc.returncode, out


@contextlib.contextmanager
def join(addr: str, game: dict[str, Any]) -> Iterator[Any]:
    """A websocket joined to ``game`` as Black."""
    with connect(f"ws://{addr}/ws") as ws:
        ws.send(json.dumps({"type": "join", "game": game["id"], "token": game["tokens"]["b"]}))
        yield ws


def gone(pids: set[int]) -> set[int]:
    """``pids`` once none is alive, or those still alive after :data:`STOP_DEADLINE`."""
    deadline = time.monotonic() + STOP_DEADLINE
    while (left := {p for p in pids if _alive(p)}) and time.monotonic() < deadline:
        time.sleep(0.05)  # polling a condition, with a deadline
    return left


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="process groups, /proc")
@pytest.mark.parametrize("sigint", ["default", "ignored"])
def test_ctrl_c_stops_cleanly_with_130_and_keeps_the_game(tmp_path: Path, sigint: str) -> None:
    db = tmp_path / "games.sqlite3"
    proc, addr, _ = start(db, sigint=sigint)
    try:
        req = urllib.request.Request(f"http://{addr}/api/games", data=b'{"target": 3}',
                                     headers={"Content-Type": "application/json"}, method="POST")
        game = json.loads(urllib.request.urlopen(req, timeout=30).read())
        with join(addr, game) as ws:
            state(ws)
            for seq, mv in enumerate(MOVES):
                ws.send(json.dumps({"type": "move", "move": mv, "seq": seq}))
                assert state(ws)["seq"] == seq + 1  # acknowledged
            # an analysis starts the pool: its worker gets the Ctrl-C too
            url = (f"http://{addr}/api/analyse?kpn=obupyrgn/8/8/8/8/8/8/NGRYPUBO%20b%20-%201%200%200"
                   "&ms=100")
            assert json.loads(urllib.request.urlopen(url, timeout=60).read())["best"]
            workers = _children(proc.pid)
            assert workers  # the pool's worker (and multiprocessing's resource tracker)
            code, out = ctrl_c(proc)
            # the page open on the game was told the server restarts
            frames = []
            while True:
                try:
                    frames.append(json.loads(ws.recv(timeout=10)))
                except ConnectionClosed:  # every frame read
                    break
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert code == 130, out
    assert "Traceback" not in out and "KeyboardInterrupt" not in out, out
    assert "stopping: 1 websocket(s) told the server restarts" in out, out
    assert any(f["type"] == "restarting" for f in frames), frames
    assert not gone(workers)  # the pool ended with the server
    # started again on the same file: the game is there, every move in it
    proc, addr, _ = start(db)
    try:
        with join(addr, game) as ws:
            st = state(ws)
        assert st["seq"] == len(MOVES)
        assert [e["move"] for e in st["rounds"][0]["entries"]] == MOVES
    finally:
        code, out = ctrl_c(proc)
    assert code == 130 and "Traceback" not in out, out


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="process groups")
def test_sigterm_still_ends_the_process_by_sigterm(tmp_path: Path) -> None:
    proc, _, _ = start(tmp_path / "games.sqlite3")
    os.killpg(proc.pid, signal.SIGTERM)
    out, _ = proc.communicate(timeout=STOP_DEADLINE)
    assert proc.returncode == -signal.SIGTERM, out
    assert "stopping: 0 websocket(s)" in out and "Traceback" not in out, out


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="process groups")
def test_with_no_browser_it_says_which_address_to_open(tmp_path: Path) -> None:
    # BROWSER names the browser command webbrowser runs: `false URL` fails
    proc, addr, lines = start(tmp_path / "games.sqlite3", env={"BROWSER": "false"}, browser=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()  # the next line: nothing else is printed while idle
    finally:
        code, out = ctrl_c(proc)
    assert line == f"kamisado web: no browser could be opened; open http://{addr}/ in one\n", (
        lines, line, out)
    assert code == 130, out


def test_open_browser_is_false_when_webbrowser_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    def fails(url: str) -> bool:
        raise webbrowser.Error("could not locate runnable browser")

    monkeypatch.setattr(webbrowser, "open", fails)
    assert _open_browser("http://127.0.0.1:8000/") is False
    monkeypatch.setattr(webbrowser, "open", lambda url: False)
    assert _open_browser("http://127.0.0.1:8000/") is False
    seen = []
    monkeypatch.setattr(webbrowser, "open", lambda url: seen.append(url) or True)
    assert _open_browser("http://127.0.0.1:8000/") is True and seen == ["http://127.0.0.1:8000/"]


@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_while_it_starts_ends_it_before_it_serves(tmp_path: Path, number: int) -> None:
    # the command line as `kamisado web` runs it; the stop comes right after
    # kamisado.cli's first lines (kamisado.args.note_early_signals), before
    # the web modules are even imported
    code = ("import os, sys\nsys.argv[0] = 'kamisado'\nimport kamisado.cli as cli\n"
            f"os.kill(os.getpid(), {int(number)})\nsys.exit(cli.main())")
    done = subprocess.run(
        [sys.executable, "-c", code, "web", "--port", "0", "--no-browser", "--db",
         str(tmp_path / "games.sqlite3")],
        capture_output=True, text=True, timeout=STOP_DEADLINE,
    )
    assert done.returncode == (130 if number == signal.SIGINT else -signal.SIGTERM), done
    assert "serving on" not in done.stdout and done.stderr == "", done
