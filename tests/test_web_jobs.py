"""Computer moves and analysis on a job queue (issue 12): ``kamisado web
--queue`` with no process pool, ``kamisado worker`` processes taking the
jobs from a real Redis (``redis_url``, started by the fixture).  Real
server and worker processes on loopback, real websockets."""

from __future__ import annotations

import json
import os
import queue
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
from typing import Any

import pytest
from websockets.sync.client import connect

from kamisado.rules.match import Match
from kamisado.web.store.storage import Store
from tests.conftest import stop_process


class Proc:
    """A process of ``python -m kamisado.cli ARGS``; its output lines are
    read by a thread and kept (``lines``), each also put on ``fresh``."""

    def __init__(self, *args: str) -> None:
        env = {**os.environ, "KAMISADO_WEB_LIMITS": "off", "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "kamisado.cli", *args],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
        )
        self.lines: list[str] = []
        self.fresh: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line)
            self.fresh.put(line)

    def wait_for(self, pattern: str, timeout: float = 60) -> re.Match[str]:
        """The first line from now on that matches ``pattern``."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            try:
                line = self.fresh.get(timeout=max(0.01, left))
            except queue.Empty:
                line = ""
            found = re.search(pattern, line)
            if found:
                return found
            if left <= 0:
                raise AssertionError(f"no line {pattern!r} in: {''.join(self.lines)}")

    def stop(self) -> None:
        stop_process(self.proc)


@pytest.fixture
def procs(redis_url: str) -> Iterator[list[Proc]]:
    """The processes a test starts (stopped after it), on an empty Redis."""
    import redis

    client = redis.Redis.from_url(redis_url)
    client.flushdb()
    client.close()
    started: list[Proc] = []
    try:
        yield started
    finally:
        for p in started:
            p.stop()


def start_worker(procs: list[Proc], url: str, *args: str) -> Proc:
    p = Proc("worker", "--queue", url, *args)
    procs.append(p)
    p.wait_for(r"kamisado worker: serving")
    return p


def start_web(procs: list[Proc], db: Path, url: str, *args: str) -> str:
    """``kamisado web --queue`` on a free port: its address."""
    p = Proc("web", "--port", "0", "--no-browser", "--db", str(db), "--queue", url, *args)
    procs.append(p)
    return p.wait_for(r"serving on http://([\d.]+:\d+)/").group(1)


def create(addr: str, body: dict[str, Any]) -> dict[str, Any]:
    req = urllib.request.Request(
        f"http://{addr}/api/games", data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"}, method="POST",
    )
    game: dict[str, Any] = json.loads(urllib.request.urlopen(req, timeout=10).read())
    return game


def until_seq(ws: Any, seq: int, timeout: float = 60) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        msg: dict[str, Any] = json.loads(ws.recv(timeout=max(0.01, deadline - time.monotonic())))
        if msg["type"] == "state" and msg["seq"] >= seq:
            return msg


def until_black(ws: Any, seq: int, timeout: float = 60) -> dict[str, Any]:
    """The first state after ``seq`` where Black is to move, or the game is over."""
    deadline = time.monotonic() + timeout
    while True:
        st = until_seq(ws, seq + 1, timeout=max(0.01, deadline - time.monotonic()))
        if st["state"] == "over" or (st["to_act"] == "b" and not st["thinking"]):
            return st


def a_move(st: dict[str, Any]) -> str:
    square, dests = next(iter(st["legal"].items()))
    return f"{square}-{dests[0]}"


def play_against_the_computer(addr: str, level: str, moves: int | None = None) -> list[float]:
    """Black plays a legal move each turn against ``level``; the seconds
    from each move sent to the computer's answer seen."""
    game = create(addr, {"target": 1, "gold": level})
    waits: list[float] = []
    with connect(f"ws://{addr}/ws") as ws:
        ws.send(json.dumps({"type": "join", "game": game["id"], "token": game["tokens"]["b"]}))
        st = until_seq(ws, 0)
        while st["state"] != "over" and (moves is None or len(waits) < moves):
            sent = time.monotonic()
            ws.send(json.dumps({"type": "move", "move": a_move(st), "seq": st["seq"]}))
            st = until_black(ws, st["seq"])
            waits.append(time.monotonic() - sent)
    return waits


def test_a_game_against_the_computer_is_played_through_the_queue(
    redis_url: str, procs: list[Proc], tmp_path: Path
) -> None:
    start_worker(procs, redis_url, "--jobs", "1")
    addr = start_web(procs, tmp_path / "g.db", redis_url)
    waits = play_against_the_computer(addr, "strong")
    assert waits
    waits.sort()
    print(f"\n{len(waits)} computer moves through the queue: p50 {waits[len(waits) // 2] * 1000:.0f} ms,"
          f" max {waits[-1] * 1000:.0f} ms")
    # analysis goes through the queue too
    kpn = Match(1).position.kpn()
    with urllib.request.urlopen(f"http://{addr}/api/analyse?kpn={urllib.request.quote(kpn)}&ms=100",
                                timeout=20) as r:
        assert json.loads(r.read())["best"]


def engine_processes(pid: int) -> list[int]:
    """The pool processes of the worker ``pid`` (Linux: ``/proc``; none elsewhere)."""
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return []
    found = []
    for child in children:
        try:
            if b"spawn_main" in Path(f"/proc/{child}/cmdline").read_bytes():
                found.append(int(child))
        except OSError:
            pass
    return found


def gone(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] in "ZX"
    except OSError:
        return True


def test_a_worker_killed_while_thinking_another_takes_the_job(
    redis_url: str, procs: list[Proc], tmp_path: Path
) -> None:
    first = start_worker(procs, redis_url, "--queues", "moves", "--jobs", "1")
    db = tmp_path / "g.db"
    addr = start_web(procs, db, redis_url)
    game = create(addr, {"target": 1, "gold": "expert"})  # thinks about half a second
    # its engine process stopped: the job is certainly still running when its worker is killed
    held = engine_processes(first.proc.pid)
    for pid in held:
        os.kill(pid, signal.SIGSTOP)
    with connect(f"ws://{addr}/ws") as ws:
        ws.send(json.dumps({"type": "join", "game": game["id"], "token": game["tokens"]["b"]}))
        until_seq(ws, 0)
        ws.send(json.dumps({"type": "move", "move": "c1-c5", "seq": 0}))
        assert until_seq(ws, 1)["thinking"] is True
        job = first.wait_for(r"moves job (\w+) started \(try 1\)").group(1)
        first.proc.send_signal(signal.SIGKILL)  # mid-think
        first.proc.wait()
        assert not any(f"job {job} done" in line for line in first.lines)
        deadline = time.monotonic() + 30  # a cap: it ends as soon as they are gone
        while not all(gone(pid) for pid in held):  # the engine dies with its worker
            assert time.monotonic() < deadline, f"engine processes {held} outlived their worker"
            time.sleep(0.05)
        second = start_worker(procs, redis_url, "--queues", "moves", "--jobs", "1")
        second.wait_for(rf"moves job {job} started \(try 2\)")
        st = until_seq(ws, 2)  # the game goes on
        assert st["to_act"] == "b" or st["state"] == "over"
        ws.send(json.dumps({"type": "move", "move": a_move(st), "seq": 2}))
        until_black(ws, 2)  # and on
    store = Store(f"sqlite:///{db}")
    try:
        row, tokens = store.load(game["id"]) or (None, [])
        assert row is not None and row.actions == 4 and len(tokens) == 4  # stored once each
    finally:
        store.close()


@pytest.mark.slow  # started first (tests/conftest.py)
def test_an_analysis_flood_does_not_starve_the_computer_opponents(
    redis_url: str, procs: list[Proc], tmp_path: Path
) -> None:
    start_worker(procs, redis_url, "--queues", "moves", "--jobs", "1")
    analyst = start_worker(procs, redis_url, "--queues", "analysis", "--jobs", "1")
    addr = start_web(procs, tmp_path / "g.db", redis_url, "--workers", "11")  # 10 analyses at once
    kpn = urllib.request.quote(Match(1).position.kpn())

    def analyse(_: int) -> int:
        try:
            with urllib.request.urlopen(f"http://{addr}/api/analyse?kpn={kpn}&ms=600",
                                        timeout=60) as r:
                return r.status
        except urllib.error.HTTPError as exc:
            return exc.code

    with ThreadPoolExecutor(10) as flood:  # 6 s of analysis on one worker
        answers = [flood.submit(analyse, i) for i in range(10)]
        analyst.wait_for(r"analysis job \w+ started")
        waits = play_against_the_computer(addr, "strong", moves=6)
        waiting = sum(not a.done() for a in answers)
        statuses = [a.result() for a in answers]
    print(f"\ncomputer moves during an analysis flood: max {max(waits) * 1000:.0f} ms"
          f" ({waiting} analyses still waiting after them)")
    assert waiting >= 6  # the flood was still queued while the computer played
    assert max(waits) < 3.0  # not behind the analysis
    assert statuses == [200] * 10  # and the analyses all went through


def test_a_worker_or_server_that_cannot_reach_redis_fails_in_one_line(tmp_path: Path) -> None:
    for args in (["worker", "--queue", "redis://127.0.0.1:1/0"],
                 ["web", "--no-browser", "--port", "0", "--db", str(tmp_path / "g.db"),
                  "--queue", "redis://127.0.0.1:1/0"]):
        r = subprocess.run([sys.executable, "-m", "kamisado.cli", *args],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 2, r.stderr
        assert r.stderr.count("\n") == 1 and "cannot reach Redis at redis://127.0.0.1:1/0" in r.stderr
    r = subprocess.run([sys.executable, "-m", "kamisado.cli", "worker", "--queue", "http://x"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stderr.startswith("kamisado worker: --queue: expected a Redis URL")


def test_the_runner_refuses_other_functions_and_fails_at_once_without_redis() -> None:
    import asyncio

    from kamisado.web.work import worker
    from kamisado.web.work.jobs import JobError, QueueRunner

    runner = QueueRunner("redis://127.0.0.1:1/0")
    with pytest.raises(ValueError, match="print is not a job the workers run"):
        asyncio.run(runner.run("moves", print, "x"))
    started = time.monotonic()
    with pytest.raises(JobError, match="cannot reach Redis at redis://127.0.0.1:1/0"):
        asyncio.run(runner.run("moves", worker.computer_action, 1, False, Match(1).position.kpn(),
                               [], "beginner", 1))
    assert time.monotonic() - started < 5  # an error, not a wait
