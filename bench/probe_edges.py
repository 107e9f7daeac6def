"""Probe ``kamisado web`` at its edges, as an attacker would (issue 25,
items 2, 6 and 7): forwarded addresses, cookies and HSTS behind HTTPS, the
``Host`` header in the share page, text the database cannot hold, a slow
request body, clients that leave mid-request, and the log during a
PostgreSQL outage.

Starts one ``kamisado web`` process (a subprocess, the code on
``PYTHONPATH``) on a PostgreSQL cluster of its own (made with the
PostgreSQL programs, as the tests' ``own_pg`` does), passes it
``--server-args``, and prints what each probe saw:

    python bench/probe_edges.py
    python bench/probe_edges.py --server-args "--public-url https://kamisado.example"

Runs as root (the cluster runs as ``postgres``) or as the cluster's owner.
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import json
import os
import re
import shlex
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from typing import Any

from websockets.sync.client import connect

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from kamisado.args import duration, duration_help  # noqa: E402
from tests.conftest import Cluster  # noqa: E402  (the tests' throwaway PostgreSQL)


def start(db: str, extra: list[str], log_path: str, env: dict[str, str] | None = None
          ) -> tuple[subprocess.Popen[bytes], int]:
    log = open(log_path, "wb")  # noqa: SIM115  (the server's whole output, read afterwards)
    proc = subprocess.Popen(
        [sys.executable, "-m", "kamisado.cli", "web", "--port", "0", "--no-browser", "--workers", "1",
         "--db", db, *extra],
        stdout=subprocess.PIPE, stderr=log, env={**os.environ, **(env or {})},
        cwd=tempfile.gettempdir(),  # the code on PYTHONPATH, not the current folder's
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        found = re.search(rb"serving on http://[\d.]+:(\d+)/", line)
        if found:
            return proc, int(found.group(1))
    raise SystemExit(f"the server did not start: {proc.wait()}; see {log_path}")


def request(port: int, method: str, path: str, body: bytes | None = None,
            headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    """One request on its own connection: (status, headers, body)."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        head = {"Host": f"127.0.0.1:{port}", "Connection": "close", **(headers or {})}
        if body is not None:
            head["Content-Length"] = str(len(body))
        sock.sendall((f"{method} {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in head.items())
                      + "\r\n").encode() + (body or b""))
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head_text, _, rest = data.partition(b"\r\n\r\n")
    lines = head_text.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    answer: dict[str, str] = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        answer.setdefault(k.strip().lower(), v.strip())
        if k.strip().lower() == "set-cookie":
            answer["set-cookie"] = v.strip()
    return status, answer, rest


def tracebacks(log_path: str) -> int:
    with open(log_path, "rb") as f:
        return f.read().count(b"Traceback")


def log_lines(log_path: str) -> int:
    with open(log_path, "rb") as f:
        return len(f.read().splitlines())


def probe_forwarded(port: int) -> str:
    """30 sign-ins from one connection address, each naming another
    ``X-Forwarded-For``: how many were limited by the address's bucket."""
    seen: dict[int, int] = {}
    for i in range(30):
        status, _, _ = request(port, "POST", "/api/signin",
                               json.dumps({"account": f"nobody{i}", "password": "wrong password"}).encode(),
                               {"Content-Type": "application/json", "X-Forwarded-For": f"198.51.100.{i + 1}"})
        seen[status] = seen.get(status, 0) + 1
    return f"30 sign-ins, each with another X-Forwarded-For: {dict(sorted(seen.items()))}"


def probe_https(port: int) -> list[str]:
    _, head, _ = request(port, "GET", "/", headers={"X-Forwarded-Proto": "https"})
    cookie = head.get("set-cookie", "")
    return [f"cookie flags: {'; '.join(p.strip() for p in cookie.split(';')[1:]) or '(no cookie)'}",
            f"Strict-Transport-Security: {head.get('strict-transport-security', '(none)')}"]


def probe_host(port: int) -> list[str]:
    status, _, body = request(port, "POST", "/api/games", json.dumps({"online": True}).encode(),
                              {"Content-Type": "application/json"})
    game = json.loads(body)["id"]
    out = []
    for path in ("/", f"/game/{game}"):
        _, _, page = request(port, "GET", path, headers={"Host": "evil.example"})
        metas = re.findall(rb'<meta property="og:(?:image|url)" content="([^"]*)"', page)
        out.append(f"GET {path} with Host: evil.example: og:image/og:url {[m.decode() for m in metas]}"
                   f" (evil.example reflected: {b'evil.example' in page})")
    return out


BAD = "\ud800"


def probe_text(port: int) -> list[str]:
    out = []
    posts: list[tuple[str, dict[str, Any]]] = [
        ("/api/signup", {"account": "ann_probe", "password": BAD * 9}),
        ("/api/signup", {"account": "bo_probe", "password": "a" * 9 + "\x00"}),
        ("/api/signup", {"account": "cy_probe", "password": "a long password", "name": "a\x00b"}),
        ("/api/signin", {"account": BAD, "password": "a long password"}),
        ("/api/signin", {"account": "a\x00b", "password": "a long password"}),
        ("/api/signin", {"account": "ann", "password": BAD}),
        ("/api/me", {"name": BAD}),
        ("/api/games", {"black_name": BAD}),
        ("/api/games", {"black_name": "a\x00b"}),
        ("/api/games", {"online": True, "gold_name": "x" + BAD}),
    ]
    for path, body in posts:
        status, _, answer = request(port, "POST", path, json.dumps(body).encode(),
                                    {"Content-Type": "application/json"})
        shown = json.dumps(body)
        out.append(f"POST {path} {shown}: {status} {answer[:90].decode('utf-8', 'replace')}")
    record = (b"Kamisado match record\nMatch: Single Round\nBlack: An\x00n\nGold: Bo\nResult: unfinished\n\n"
              b"Round 1\nStart: obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 1 0 0\n  1. Brown Forward 3 Yellow\n")
    status, _, answer = request(port, "POST", "/api/records", record, {"Content-Type": "text/plain"})
    out.append(f"POST /api/records with a NUL in a header: {status} {answer[:90].decode('utf-8', 'replace')}")
    status, _, answer = request(port, "GET", "/api/games/ab%00cd/record")
    out.append(f"GET /api/games/ab%00cd/record: {status} {answer[:90].decode('utf-8', 'replace')}")
    _, _, body = request(port, "POST", "/api/games", json.dumps({"online": True}).encode(),
                         {"Content-Type": "application/json"})
    game = json.loads(body)["id"]
    frames = [
        {"type": "create", "black_name": BAD},
        {"type": "create", "black_name": "a\x00b"},
        {"type": "join", "game": game, "token": "\x00"},
        {"type": "join", "game": game, "token": BAD},
        {"type": "challenge", "color": BAD},
    ]
    with connect(f"ws://127.0.0.1:{port}/ws", open_timeout=10) as ws:
        for frame in frames:
            ws.send(json.dumps(frame))
            answer = json.loads(ws.recv(timeout=30))
            out.append(f"ws {json.dumps(frame)}: {answer.get('type')} {answer.get('code')} "
                       f"{str(answer.get('message', ''))[:80]}")
    return out


def probe_slow_body(port: int, cap: float) -> str:
    """A body slower than its Content-Length: 10 bytes of 100, then nothing."""
    with socket.create_connection(("127.0.0.1", port), timeout=cap) as sock:
        sock.sendall(f"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json"
                     "\r\nContent-Length: 100\r\n\r\n{\"online\":".encode())
        t0 = time.monotonic()
        try:
            data = sock.recv(4096)
        except TimeoutError:
            return f"a body 90 bytes short: no answer in {cap:.0f} s (the probe gave up)"
        took = time.monotonic() - t0
    first = data.split(b"\r\n")[0].decode("latin-1") or "(closed, no answer)"
    return f"a body 90 bytes short: {first} after {took:.1f} s"


def probe_disconnects(port: int, log_path: str) -> list[str]:
    out = []
    before = tracebacks(log_path)
    lines = log_lines(log_path)
    for _ in range(3):  # an HTTP client that leaves mid-body
        with socket.create_connection(("127.0.0.1", port)) as sock:
            sock.sendall(b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
            time.sleep(0.2)
    time.sleep(0.5)
    out.append(f"3 HTTP clients leaving mid-body: {tracebacks(log_path) - before} tracebacks, "
               f"{log_lines(log_path) - lines} log lines")
    before, lines = tracebacks(log_path), log_lines(log_path)
    status, _, body = request(port, "POST", "/api/games", json.dumps({"online": True}).encode(),
                              {"Content-Type": "application/json"})
    game = json.loads(body)
    for _ in range(3):  # a websocket that leaves while the server answers it
        ws = connect(f"ws://127.0.0.1:{port}/ws", open_timeout=10, legacy=True)
        ws.send(json.dumps({"type": "join", "game": game["id"], "token": game["tokens"]["b"]}))
        ws.send(json.dumps({"type": "create"}))
        ws.socket.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        ws.socket.close()  # a reset, no close frame
        time.sleep(0.3)
    time.sleep(0.5)
    out.append(f"3 websockets reset mid-answer: {tracebacks(log_path) - before} tracebacks, "
               f"{log_lines(log_path) - lines} log lines")
    return out


def probe_outage(port: int, cluster: Cluster, log_path: str, games: int, seconds: float) -> str:
    """``games`` games held (Black connected), the database stopped for
    ``seconds`` while each game's player tries a move once: log lines and
    tracebacks written meanwhile."""
    conns = []
    for _ in range(games):
        _, _, body = request(port, "POST", "/api/games", json.dumps({"online": True}).encode(),
                             {"Content-Type": "application/json"})
        game = json.loads(body)
        ws = connect(f"ws://127.0.0.1:{port}/ws", open_timeout=10, legacy=True)
        ws.send(json.dumps({"type": "join", "game": game["id"], "token": game["tokens"]["b"]}))
        while json.loads(ws.recv(timeout=30))["type"] != "state":
            pass
        conns.append(ws)
    before, lines = tracebacks(log_path), log_lines(log_path)
    cluster.stop("immediate")
    t0 = time.monotonic()
    for ws in conns:
        ws.send(json.dumps({"type": "move", "move": "c1-c5", "seq": 0}))
    for ws in conns:
        with contextlib.suppress(Exception):
            ws.recv(timeout=30)
    time.sleep(max(0.0, seconds - (time.monotonic() - t0)))
    cluster.start()
    time.sleep(3)
    for ws in conns:
        ws.close()
    return (f"{games} games, PostgreSQL down {seconds:.0f} s, one move tried in each: "
            f"{tracebacks(log_path) - before} tracebacks, {log_lines(log_path) - lines} log lines")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server-args", default="", help="more arguments for kamisado web")
    parser.add_argument("--slow-cap", type=duration("s"), default=30.0,
                        help="how long to wait for a slow body's answer, in"
                        f" {duration_help('s')} (default 30 s)")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--outage", type=float, default=10.0)
    args = parser.parse_args()
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2]))
    cluster = Cluster(found[-1])
    cluster.create()
    log_path = tempfile.mktemp(prefix="kamisado-probe-", suffix=".log")
    proc, port = start(cluster.url, shlex.split(args.server_args), log_path)
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{port}/api/levels", timeout=30).read()
        for line in probe_https(port):
            print("https:", line)
        for line in probe_host(port):
            print("host:", line)
        for line in probe_text(port):
            print("text:", line)
        print("slow body:", probe_slow_body(port, args.slow_cap))
        for line in probe_disconnects(port, log_path):
            print("disconnect:", line)
        print(f"(the server's log: {log_path})")
        proc.terminate()
        proc.wait(timeout=20)
        # the forwarded addresses: a server of their own (they spend the address's sign-in limit)
        proc, port = start(cluster.url, shlex.split(args.server_args), log_path)
        print("forwarded:", probe_forwarded(port))
        proc.terminate()
        proc.wait(timeout=20)
        # the outage: another server, without rate limits (it creates the games from one address)
        log_path = tempfile.mktemp(prefix="kamisado-probe-outage-", suffix=".log")
        proc, port = start(cluster.url, shlex.split(args.server_args), log_path, {"KAMISADO_WEB_LIMITS": "off"})
        print("outage:", probe_outage(port, cluster, log_path, args.games, args.outage))
        print(f"(the server's log: {log_path})")
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        cluster.remove()


if __name__ == "__main__":
    main()
