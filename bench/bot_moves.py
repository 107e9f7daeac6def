"""A bot's moves over HTTP (issue 42: "moves/s a bot client sustains against
one process").

Starts one ``kamisado web`` process (a fresh SQLite file, or the database of
``--db``), signs two accounts up and makes each a token with the ``bot``
scope, then plays ``--games`` single-round games between them, ``--parallel``
at a time, as bots play: each side holds the game stream
(``GET /api/bot/game/stream/{id}``) and, when the stream says it is to act,
posts a random legal move (``POST /api/bot/game/{id}/move/{move}``, one
kept-alive connection per side).  Prints the moves per second sustained
over the run and each move's round trip, from the POST sent to the mover's
stream showing the state after it (the answer comes once the move is
stored; the line once it is broadcast): p50, p99 and max.

    python bench/bot_moves.py                       # 40 games, 4 at a time, SQLite
    python bench/bot_moves.py --parallel 1 --games 10
    python bench/bot_moves.py --db postgresql://postgres@127.0.0.1:54329/kamisado_bench

The server runs with its per-address limits off (``KAMISADO_WEB_LIMITS=off``:
both bots come from 127.0.0.1).
"""

from __future__ import annotations

import argparse
import http.client
import http.cookiejar
import json
import os
import random
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from websockets.sync.client import connect  # noqa: E402

from bench.load import pct, start_server  # noqa: E402


def account(url: str, name: str) -> str:
    """Sign ``name`` up (a browser's cookie) and make it a token: the token."""
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    opener.open(url + "api/me", timeout=30).read()

    def post(path: str, body: dict[str, Any]) -> dict[str, Any]:
        req = urllib.request.Request(url + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json", "Origin": url.rstrip("/")})
        got: dict[str, Any] = json.loads(opener.open(req, timeout=30).read())
        return got

    post("api/signup", {"account": name, "password": "a long password", "name": name.title()})
    token: str = post("api/tokens", {"name": "bench", "scopes": ["read", "play", "bot"]})["token"]
    return token


def new_game(url: str, black: str, gold: str) -> str:
    """A single-round game: ``black`` creates it, ``gold`` claims its seat with the invite."""
    req = urllib.request.Request(url + "api/games", method="POST",
                                 data=json.dumps({"target": 1, "online": True, "seat": "b"}).encode(),
                                 headers={"Content-Type": "application/json", "Authorization": f"Bearer {black}"})
    game = json.loads(urllib.request.urlopen(req, timeout=30).read())
    ws_url = url.replace("http://", "ws://") + "ws"
    with connect(ws_url, additional_headers={"Authorization": f"Bearer {gold}"}, open_timeout=30) as ws:
        ws.send(json.dumps({"type": "join", "game": game["id"], "token": game["tokens"]["g"]}))
        while True:
            frame = json.loads(ws.recv(timeout=30))
            if frame["type"] == "state" and frame["you"] == ["g"]:
                gid: str = game["id"]
                return gid


def bot(url: str, token: str, gid: str, seed: int, trips: list[float], errors: list[str]) -> None:
    """One side of one game, as a bot plays it, to the game's end."""
    host = url.split("//")[1].rstrip("/")
    auth = {"Authorization": f"Bearer {token}"}
    posts = http.client.HTTPConnection(host, timeout=60)
    rng = random.Random(seed)
    req = urllib.request.Request(f"{url}api/bot/game/stream/{gid}", headers=auth)
    sent: float | None = None
    with urllib.request.urlopen(req, timeout=60) as stream:
        seat = None
        while True:
            line = stream.readline()
            if not line:
                return
            if not line.strip():
                continue
            msg = json.loads(line)
            if msg["type"] == "gameFull":
                seat, state = msg["seat"], msg["state"]
            else:
                state = msg
            if sent is not None:
                trips.append(time.perf_counter() - sent)
                sent = None
            if state["status"] != "started" or state["to_act"] != seat:
                continue
            move = rng.choice(state["legal"])
            sent = time.perf_counter()
            posts.request("POST", f"/api/bot/game/{gid}/move/{move}", headers=auth)
            answer = posts.getresponse()
            body = answer.read()
            if answer.status != 200:
                errors.append(f"{answer.status} {body[:200]!r}")
                return


def pair(url: str, black: str, gold: str, games: int, seed: int, trips: list[float], errors: list[str]) -> None:
    """``games`` games one after another between the two bots."""
    for n in range(games):
        gid = new_game(url, black, gold)
        sides = [threading.Thread(target=bot, args=(url, token, gid, seed * 1000 + 2 * n + i, trips, errors))
                 for i, token in enumerate((black, gold))]
        for t in sides:
            t.start()
        for t in sides:
            t.join()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=40, help="games in all (default 40)")
    ap.add_argument("--parallel", type=int, default=4, help="games at a time (default 4)")
    ap.add_argument("--db", help="the server's database (default: a fresh SQLite file)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    proc, url = start_server(1, args.db, quiet=True)
    try:
        tokens = [(account(url, f"bench{os.getpid()}b{i}"), account(url, f"bench{os.getpid()}g{i}"))
                  for i in range(args.parallel)]
        trips: list[float] = []
        errors: list[str] = []
        per = [args.games // args.parallel + (i < args.games % args.parallel) for i in range(args.parallel)]
        started = time.perf_counter()
        runs = [threading.Thread(target=pair, args=(url, b, g, n, args.seed + i, trips, errors))
                for i, ((b, g), n) in enumerate(zip(tokens, per, strict=True))]
        for t in runs:
            t.start()
        for t in runs:
            t.join()
        elapsed = time.perf_counter() - started
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    print(f"{args.games} games, {args.parallel} at a time, {len(trips)} moves in {elapsed:.1f} s "
          "(game creation and seat claims included)")
    print(f"moves/s sustained: {len(trips) / elapsed:.1f}")
    if trips:
        print(f"round trip (POST to the mover's stream line): p50 {pct(trips, 50):.1f} ms, "
              f"p99 {pct(trips, 99):.1f} ms, max {max(trips) * 1000:.1f} ms")
    print(f"errors: {len(errors)}" + (f" (first: {errors[0]})" if errors else ""))
    return 1 if errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
