"""Probe ``kamisado web``'s limits, caps and moderation across two processes
(issue 40, items 3, 4 and 5): limits per process, 500 challengers of one
player, block, mute and close, and text nobody can see.

Starts two ``kamisado web`` processes (subprocesses, with ``--code``'s
tree on ``PYTHONPATH``, ``--forwarded-allow-ips 127.0.0.1`` so that each
simulated client names its own address in ``X-Forwarded-For``) on a
PostgreSQL cluster of its own (the tests' :class:`tests.conftest.Cluster`),
with Redis (``redis-server`` on a free port) and one ``kamisado worker``
serving their ``--queue`` unless ``--no-queue``, and prints what each probe
saw:

    python bench/probe_limits.py
    python bench/probe_limits.py --code /path/to/an/older/tree

A probe of a feature the servers' code lacks (block, mute, close) prints
"not available". Runs as root (the cluster runs as ``postgres``) or as the
cluster's owner.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import glob
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from bench.probe_edges import request, start, tracebacks  # noqa: E402
from tests.conftest import Cluster  # noqa: E402  (the tests' throwaway PostgreSQL)

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WAIT = 15.0  # seconds an awaited frame may take (a shared, loaded machine)


class Client:
    """One simulated browser: its own address (``X-Forwarded-For``) and cookie.

    >>> Client("10.0.0.1").address
    '10.0.0.1'
    """

    def __init__(self, address: str) -> None:
        self.address = address
        self.cookie = ""
        self.player = ""

    def headers(self) -> dict[str, str]:
        head = {"X-Forwarded-For": self.address}
        if self.cookie:
            head["Cookie"] = self.cookie
        return head

    def http(self, port: int, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        """One request as this browser: (status, JSON answer or None)."""
        data = None if body is None else json.dumps(body).encode()
        head = self.headers()
        if data is not None:
            head["Content-Type"] = "application/json"
        status, answer, text = request(port, method, path, data, head)
        cookie = answer.get("set-cookie", "").split(";")[0]
        if cookie:
            self.cookie = cookie
        try:
            return status, json.loads(text)
        except ValueError:
            return status, None

    def hello(self, port: int) -> Client:
        """``GET /api/me``: the browser's player (made on a first visit)."""
        status, me = self.http(port, "GET", "/api/me")
        assert status == 200, (status, me)
        self.player = me["id"]
        return self

    async def ws(self, port: int) -> ClientConnection:
        return await connect(f"ws://127.0.0.1:{port}/ws", additional_headers=self.headers(),
                             open_timeout=WAIT, max_size=None, ping_interval=None)


async def frames(ws: ClientConnection, until: Any, timeout: float = WAIT) -> list[dict[str, Any]]:
    """The frames ``ws`` gets until one satisfies ``until`` (included), or ``timeout``."""
    got: list[dict[str, Any]] = []
    deadline = time.monotonic() + timeout
    while (left := deadline - time.monotonic()) > 0:
        try:
            raw = await asyncio.wait_for(ws.recv(), left)
        except Exception:  # noqa: BLE001  (a bench: a timeout or a closed socket stops the reading)
            break
        frame = json.loads(raw)
        got.append(frame)
        if until(frame):
            break
    return got


async def barrier(ws: ClientConnection) -> list[dict[str, Any]]:
    """Every frame until the answer to a ping sent now (frames are answered in order)."""
    await ws.send(json.dumps({"type": "ping"}))
    return await frames(ws, lambda f: f.get("type") == "pong")


def codes(got: list[dict[str, Any]]) -> dict[str, int]:
    seen: dict[str, int] = {}
    for f in got:
        if f.get("type") == "error":
            seen[f["code"]] = seen.get(f["code"], 0) + 1
    return seen


def said(f: dict[str, Any]) -> bool:
    """Whether ``f`` answers a frame just sent: an error, or a new chat line (not a join's history)."""
    return f.get("type") == "error" or (f.get("type") == "chat" and not f["replace"])


def chats(got: list[dict[str, Any]]) -> list[str]:
    return [m.get("text") or m.get("canned") or "" for f in got if f.get("type") == "chat" for m in f["messages"]]


def new_game(port: int, address: str) -> str:
    status, game = Client(address).http(port, "POST", "/api/games", {"online": True})
    assert status == 200, (status, game)
    return str(game["id"])


async def spectate(client: Client, port: int, game: str) -> ClientConnection:
    ws = await client.ws(port)
    await ws.send(json.dumps({"type": "join", "game": game}))
    await frames(ws, lambda f: f.get("type") == "state")
    return ws


def direct(to: str) -> str:
    return json.dumps({"type": "challenge", "target": 3, "series": False, "rated": False,
                       "color": "random", "to": to})


async def notices(client: Client, port: int) -> tuple[ClientConnection, list[dict[str, Any]], int]:
    """A notices connection: (it, the pending challenges, the frame's size in bytes)."""
    ws = await client.ws(port)
    await ws.send(json.dumps({"type": "notices"}))
    while True:
        raw = await asyncio.wait_for(ws.recv(), WAIT)
        frame = json.loads(raw)
        if frame.get("type") == "notices":
            return ws, frame["challenges"], len(raw)


# -- 1: limits per process --------------------------------------------------

async def probe_chat_limit(a: int, b: int) -> str:
    game = new_game(a, "10.1.0.100")
    p = Client("10.1.0.1").hello(a)
    sockets = [await spectate(p, a, game), await spectate(p, b, game)]
    sent = 24
    for i in range(sent):
        await sockets[i % 2].send(json.dumps({"type": "chat", "text": f"line {i}"}))
    seen: dict[str, int] = {}
    for ws in sockets:
        for code, n in codes(await barrier(ws)).items():
            seen[code] = seen.get(code, 0) + n
        await ws.close()
    limited = seen.pop("rate_limited", 0)
    return (f"chat: {sent} lines, half through each process: {sent - limited - sum(seen.values())} accepted, "
            f"{limited} rate_limited{f', other errors {seen}' if seen else ''} (documented burst 8)")


def probe_create_limit(a: int, b: int) -> str:
    q = Client("10.1.0.2").hello(a)
    seen: dict[int, int] = {}
    for i in range(50):
        status, _ = q.http((a, b)[i % 2], "POST", "/api/games", {"online": True})
        seen[status] = seen.get(status, 0) + 1
    return f"POST /api/games: 50, half through each process: {seen.get(200, 0)} accepted, statuses {dict(sorted(seen.items()))} (documented burst 20)"


async def probe_challenge_limit(a: int, b: int) -> str:
    target = Client("10.1.0.3").hello(a)
    t_ws, _, _ = await notices(target, a)
    r = Client("10.1.0.4").hello(a)
    sockets = [await r.ws(a), await r.ws(b)]
    accepted = 0
    seen: dict[str, int] = {}
    for i in range(50):
        ws = sockets[i % 2]
        await ws.send(direct(target.player))
        got = await frames(ws, lambda f: f.get("type") in ("challenging", "error"))
        if got and got[-1]["type"] == "challenging":
            accepted += 1
            await ws.send(json.dumps({"type": "cancel", "challenge": got[-1]["challenge"]["id"]}))
        elif got:
            seen[got[-1]["code"]] = seen.get(got[-1]["code"], 0) + 1
    for ws in [*sockets, t_ws]:
        await ws.close()
    return (f"direct challenges from one player, 50, half through each process, each cancelled once made: "
            f"{accepted} accepted, refused {seen} (documented burst 20)")


# -- 2: 500 challengers -----------------------------------------------------

async def probe_challengers(a: int, b: int, count: int) -> list[str]:
    target = Client("10.2.0.1").hello(a)
    t_ws, _, _ = await notices(target, a)
    outcome: dict[str, int] = {}
    held: list[ClientConnection] = []
    gate = asyncio.Semaphore(16)

    async def one(i: int) -> None:
        port = (a, b)[i % 2]
        async with gate:
            c = await asyncio.to_thread(Client(f"10.3.{i // 250}.{i % 250 + 1}").hello, port)
            ws = await c.ws(port)
            held.append(ws)
            await ws.send(direct(target.player))
            got = await frames(ws, lambda f: f.get("type") in ("challenging", "error"))
            key = "no answer" if not got else got[-1]["type"] if got[-1]["type"] != "error" else got[-1]["code"]
            outcome[key] = outcome.get(key, 0) + 1

    t0 = time.monotonic()
    await asyncio.gather(*(one(i) for i in range(count)))
    spent = time.monotonic() - t0
    await t_ws.close()
    page, pending, size = await notices(target, b)  # the target's next page load, through the other process
    out = [f"{count} players from {count} addresses, one direct challenge each to one player (in {spent:.1f} s): "
           f"the challengers got {dict(sorted(outcome.items()))}",
           f"the target's next page (other process): notices frame of {len(pending)} pending, {size / 1024:.1f} KB"]
    for c in pending:
        await page.send(json.dumps({"type": "decline", "challenge": c["id"]}))
    got = await barrier(page)
    refused = codes(got)
    limited = refused.pop("rate_limited", 0) - (not any(f.get("type") == "pong" for f in got))  # the ping's own
    _, left, _ = await notices(target, a)
    out.append(f"declining all {len(pending)} at once: {len(pending) - len(left)} went through, "
               f"{limited} rate_limited{f', other errors {refused}' if refused else ''}; then pending: {len(left)}")
    await page.close()
    for ws in held:
        await ws.close()
    return out


# -- 3: block, mute, close --------------------------------------------------

def account(port: int, address: str, name: str) -> Client:
    c = Client(address).hello(port)
    status, answer = c.http(port, "POST", "/api/signup", {"account": name, "password": "a long password 1"})
    assert status == 200, (status, answer)
    return c


def admin(code: str, db: str, *args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "kamisado.cli", "admin", *args, "--db", db],
                          env={**os.environ, "PYTHONPATH": code}, cwd=tempfile.gettempdir(),
                          capture_output=True, text=True, timeout=60)
    return f"exit {done.returncode}: {(done.stdout + done.stderr).strip().splitlines()[-1:] }"


async def probe_moderation(a: int, b: int, code: str, db: str) -> list[str]:
    ann = account(a, "10.4.0.1", "ann_probe")
    bob = account(b, "10.4.0.2", "bob_probe")
    carl = account(b, "10.4.0.3", "carl_probe")
    status, answer = ann.http(a, "POST", f"/api/players/{bob.player}/block")
    if status == 404 or status == 405:
        return [f"block, mute, close: not available (POST /api/players/ID/block: {status})"]
    out = [f"Ann (process A) blocks Bob: {status} {answer}"]
    a_ws, before, _ = await notices(ann, a)
    b_ws, c_ws = await bob.ws(b), await carl.ws(b)
    await b_ws.send(direct(ann.player))
    bob_got = await frames(b_ws, lambda f: f.get("type") in ("challenging", "error"))
    await c_ws.send(direct(ann.player))
    await frames(c_ws, lambda f: f.get("type") in ("challenging", "error"))
    got = await frames(a_ws, lambda f: f.get("type") == "challenged"
                       and f["challenge"]["by"]["player"] == carl.player)
    shown = [f["challenge"]["by"]["player"] for f in got if f.get("type") == "challenged"]
    _, pending, _ = await notices(ann, a)
    posters = [c["by"]["player"] for c in pending]
    out.append(f"direct challenges to Ann from Bob (blocked) then Carl, both on process B: Bob was answered "
               f"{bob_got[-1]['type'] if bob_got else 'nothing'}; Ann's page got Carl's: {carl.player in shown}, "
               f"Bob's: {bob.player in shown}; her next notices: Carl's {carl.player in posters}, "
               f"Bob's {bob.player in posters}")
    for ws in (a_ws, b_ws, c_ws):
        await ws.close()

    game = new_game(a, "10.4.0.100")
    a_ws = await spectate(ann, a, game)
    b_ws, c_ws = await spectate(bob, b, game), await spectate(carl, b, game)
    await b_ws.send(json.dumps({"type": "chat", "text": "from bob"}))
    bob_saw = chats(await frames(b_ws, said))
    await c_ws.send(json.dumps({"type": "chat", "text": "from carl"}))
    lines = chats(await frames(a_ws, lambda f: "from carl" in chats([f])))
    again = chats(await frames(await spectate(ann, a, game), lambda f: "from carl" in chats([f])))
    out.append(f"chat in one game, Ann on A, Bob and Carl on B: Bob sees his own line {'from bob' in bob_saw}; "
               f"Ann got Carl's {'from carl' in lines}, Bob's {'from bob' in lines}; her history on a rejoin: "
               f"Carl's {'from carl' in again}, Bob's {'from bob' in again}")

    dan = account(b, "10.4.0.4", "dan_probe")
    out.append(f"kamisado admin mute dan_probe --hours 1: {admin(code, db, 'mute', 'dan_probe', '--hours', '1')}")
    d_ws = await spectate(dan, b, game)
    await d_ws.send(json.dumps({"type": "chat", "text": "from dan"}))
    dan_got = await frames(d_ws, said)
    await c_ws.send(json.dumps({"type": "chat", "text": "from carl 2"}))
    lines = chats(await frames(a_ws, lambda f: "from carl 2" in chats([f])))
    carl_lines = chats(await frames(c_ws, lambda f: "from carl 2" in chats([f])))
    answer_d = dan_got[-1] if dan_got else {}
    out.append(f"muted Dan's line (process B): answered {answer_d.get('code') or answer_d.get('type')}"
               f" {answer_d.get('message', '')!r}; reached Ann (A) {'from dan' in lines}, Carl (B) "
               f"{'from dan' in carl_lines}")
    for ws in (a_ws, b_ws, c_ws, d_ws):
        await ws.close()

    eve = account(a, "10.4.0.5", "eve_probe")
    _, me_b = eve.http(b, "GET", "/api/me")
    out.append(f"kamisado admin grant ann_probe moderator: {admin(code, db, 'grant', 'ann_probe', 'moderator')}")
    status, answer = ann.http(a, "POST", f"/api/mod/players/{eve.player}/close", {"reason": "probe"})
    _, me_after = eve.http(b, "GET", "/api/me")
    out.append(f"Eve signed in (process B says account {me_b.get('account')!r}); Ann closes her on A: {status} "
               f"{answer}; Eve's next GET /api/me on B: account {me_after.get('account')!r}, "
               f"player {'the same' if me_after.get('id') == eve.player else 'another'}")
    return out


# -- 4: text ----------------------------------------------------------------

TEXTS = {"a lone U+200B": "\u200b", "a lone U+FEFF": "\ufeff", "x U+202E y": "x\u202ey",
         "a with 139 combining marks": "a" + "\u0301" * 139}


async def probe_text(a: int) -> list[str]:
    game = new_game(a, "10.5.0.100")
    out = []
    for i, (what, text) in enumerate(TEXTS.items()):
        ws = await spectate(Client(f"10.5.0.{i + 1}").hello(a), a, game)
        await ws.send(json.dumps({"type": "chat", "text": text}))
        got = await frames(ws, said)
        last = got[-1] if got else {}
        out.append(f"chat {what}: " + (f"refused {last['code']}: {last['message']}" if last.get("type") == "error"
                                       else "accepted" if last else "no answer"))
        await ws.close()
    return out


# -- the setup --------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--code", default=HERE, help="the tree whose code the servers run (default: this one)")
    parser.add_argument("--challengers", type=int, default=500, help="players challenging one (default 500)")
    parser.add_argument("--no-queue", action="store_true", help="no Redis and worker: each process its own pool")
    args = parser.parse_args()
    code = os.path.abspath(args.code)
    env = {"PYTHONPATH": code}
    print(f"code: {code}; load average {os.getloadavg()[0]:.2f}")
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2]))
    cluster = Cluster(found[-1])
    cluster.create()
    base = tempfile.mkdtemp(prefix="kamisado-probe-limits-")
    extra = ["--forwarded-allow-ips", "127.0.0.1"]
    side: list[subprocess.Popen[bytes]] = []
    procs = []
    logs = [os.path.join(base, f"web-{i}.log") for i in (1, 2)]
    try:
        if not args.no_queue and shutil.which("redis-server"):
            rport = free_port()
            side.append(subprocess.Popen(["redis-server", "--port", str(rport), "--save", "", "--appendonly", "no",
                                          "--dir", base], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            queue = f"redis://127.0.0.1:{rport}/0"
            extra += ["--queue", queue]
            with open(os.path.join(base, "worker.log"), "wb") as wlog:
                side.append(subprocess.Popen([sys.executable, "-m", "kamisado.cli", "worker", "--queue", queue,
                                              "--jobs", "1"], stdout=wlog, stderr=wlog, cwd=base,
                                             env={**os.environ, **env}))
            print(f"Redis on {rport}, one kamisado worker (--jobs 1)")
        for log in logs:
            procs.append(start(cluster.url, extra, log, env))
        a, b = procs[0][1], procs[1][1]
        t0 = time.monotonic()
        print("1. limits per process")
        print("  " + asyncio.run(probe_chat_limit(a, b)))
        print("  " + probe_create_limit(a, b))
        print("  " + asyncio.run(probe_challenge_limit(a, b)))
        print(f"2. {args.challengers} challengers")
        for line in asyncio.run(probe_challengers(a, b, args.challengers)):
            print("  " + line)
        print("3. block, mute, close")
        for line in asyncio.run(probe_moderation(a, b, code, cluster.url)):
            print("  " + line)
        print("4. text")
        for line in asyncio.run(probe_text(a)):
            print("  " + line)
        print(f"probes took {time.monotonic() - t0:.1f} s; load average {os.getloadavg()[0]:.2f}; tracebacks in "
              f"the logs: {[tracebacks(log) for log in logs]} ({base})")
    finally:
        for proc, _ in procs:
            proc.terminate()
            proc.wait(timeout=20)
        for other in side:
            other.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                other.wait(timeout=20)
        cluster.remove()


if __name__ == "__main__":
    main()
