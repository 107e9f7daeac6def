"""Tournament pairing delay (issue 43: a player's next Arena game starts
within seconds of the last one's end).

Starts ``kamisado web`` (one process on a fresh SQLite file, or
``--servers N`` processes on the PostgreSQL of ``--db``), signs up an
organiser who makes a casual 3+2 Arena, and has four players (one cookie
and one open page each, spread over the servers in turn) join it.  Each
round both games end by resignation, the second one timed: from the
moment its resigner's game websocket shows it over to each player's
``started`` frame for the next game (the game-end hook runs a pairing
pass at once).  Prints the delays' p50, p90 and max over ``--rounds``
rounds (four delays a round).

    python bench/tournaments.py                  # 20 rounds, SQLite
    python bench/tournaments.py --db postgresql://postgres@127.0.0.1:54329/kamisado_bench --servers 2

The servers run with their per-address limits off (``KAMISADO_WEB_LIMITS=off``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from websockets.sync.client import ClientConnection, connect  # noqa: E402

from bench.load import pct, start_server, ws_url  # noqa: E402


def call(url: str, path: str, cookie: str | None, body: dict[str, Any] | None = None) -> tuple[Any, str]:
    """An HTTP call with a cookie: the JSON answer and the cookie (renewed when set)."""
    req = urllib.request.Request(url + path.lstrip("/"), data=None if body is None else json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json", **({"Cookie": cookie} if cookie else {})},
                                 method="GET" if body is None else "POST")
    with urllib.request.urlopen(req, timeout=30) as r:
        got = r.headers.get("set-cookie")
        return json.loads(r.read()), got.split(";")[0] if got else (cookie or "")


def frame(ws: ClientConnection, kind: str, timeout: float = 30) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        msg: dict[str, Any] = json.loads(ws.recv(timeout=max(0.01, deadline - time.monotonic())))
        if msg["type"] == kind:
            return msg


def resign(url: str, cookie: str, game: str) -> float:
    """Resign ``game``; the time (monotonic) its websocket showed it over."""
    with connect(ws_url(url), additional_headers={"Cookie": cookie}) as ws:
        ws.send(json.dumps({"type": "join", "game": game}))
        frame(ws, "state")
        ws.send(json.dumps({"type": "resign"}))
        while frame(ws, "state")["state"] != "over":
            pass
        return time.monotonic()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", default=None, help="the database (default: a fresh SQLite file)")
    parser.add_argument("--servers", type=int, default=1, help="server processes (PostgreSQL only for more than 1)")
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    procs = [start_server(1, args.db, quiet=True) for _ in range(args.servers)]
    urls = [u for _, u in procs]
    try:
        _, org = call(urls[0], "/api/me", None)
        _, org = call(urls[0], "/api/signup", org, {"account": f"org{uuid.uuid4().hex[:10]}",
                                                    "password": "a long password", "name": "Organiser"})
        ev, _ = call(urls[0], "/api/tournaments", org, {
            "kind": "arena", "name": "Bench", "clock": {"initial": 180, "increment": 2}, "minutes": 720,
            "starts_in": 0, "rated": False})
        seats = []
        for i in range(4):
            url = urls[i % len(urls)]
            me, cookie = call(url, "/api/me", None)
            ws = connect(ws_url(url), additional_headers={"Cookie": cookie}).__enter__()
            seats.append({"id": me["id"], "url": url, "cookie": cookie, "ws": ws})
            call(url, f"/api/tournaments/{ev['id']}/join", cookie, {})
        by_id = {s["id"]: s for s in seats}
        games = {s["id"]: frame(s["ws"], "started")["game"] for s in seats}
        delays: list[float] = []
        for _ in range(args.rounds):
            order = sorted(set(games.values()))
            for game in order:
                pair = sorted(p for p, g in games.items() if g == game)
                loser = by_id[pair[1]]
                ended = resign(loser["url"], loser["cookie"], game)
            for s in seats:
                got = frame(s["ws"], "started")
                delays.append(time.monotonic() - ended)
                games[s["id"]] = got["game"]
        print(f"{args.rounds} rounds of an Arena of 4 on {args.servers} server(s)"
              f" ({'SQLite' if args.db is None else args.db.split('://')[0]}):"
              f" from a round's last game's end to each player's next 'started':"
              f" p50 {pct(delays, 50):.1f} ms, p90 {pct(delays, 90):.1f} ms, max {max(delays) * 1000:.1f} ms")
        for s in seats:
            s["ws"].close()
    finally:
        for proc, _ in procs:
            proc.terminate()
            proc.wait(timeout=20)
    return 0


if __name__ == "__main__":
    sys.exit(main())
