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

With ``--bots N`` the first N players are bot accounts (a token each,
``kamisado.api.Client``): a bot is present while its event stream is open,
resigns through ``POST /api/bot/game/{id}/resign`` (its end: the answer)
and is timed to the ``gameStart`` line of its next game on its event
stream; the people's and the bots' delays are printed apart.

    python bench/tournaments.py                  # 20 rounds, SQLite
    python bench/tournaments.py --db postgresql://postgres@127.0.0.1:54329/kamisado_bench --servers 2
    python bench/tournaments.py --bots 2 --db postgresql://... --servers 2

The servers run with their per-address limits off (``KAMISADO_WEB_LIMITS=off``).
"""

from __future__ import annotations

import argparse
import json
import queue
import sys
import threading
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from websockets.sync.client import ClientConnection, connect  # noqa: E402

from bench.load import pct, start_server, ws_url  # noqa: E402
from kamisado.api import Client  # noqa: E402


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


class BenchBot:
    """A bot account whose event stream a thread reads: each ``gameStart``
    (id) with the time (monotonic) its line came."""

    def __init__(self, url: str) -> None:
        _, cookie = call(url, "/api/me", None)
        _, cookie = call(url, "/api/signup", cookie, {"account": f"bot{uuid.uuid4().hex[:10]}",
                                                     "password": "a long password"})
        made, _ = call(url, "/api/tokens", cookie, {"name": "bench", "scopes": ["read", "play", "challenge", "bot"]})
        self.client = Client(url, made["token"])
        self.client.bots.upgrade_to_bot_account()
        self.id = str(self.client.account.get()["id"])
        self.starts: queue.Queue[tuple[float, str]] = queue.Queue()
        self.events = self.client.bots.stream_incoming_events()  # open (present) once this returns
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            for event in self.events:
                if event.get("type") == "gameStart":
                    self.starts.put((time.monotonic(), str(event["game"]["id"])))
        except Exception:  # the client closed at the end
            pass

    def started(self, known: set[str]) -> tuple[float, str]:
        """The next ``gameStart`` of a game not in ``known``."""
        while True:
            at, game = self.starts.get(timeout=30)
            if game not in known:
                return at, game


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", default=None, help="the database (default: a fresh SQLite file)")
    parser.add_argument("--servers", type=int, default=1, help="server processes (PostgreSQL only for more than 1)")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--bots", type=int, default=0, choices=range(5), help="how many of the four are bots")
    args = parser.parse_args()
    procs = [start_server(1, args.db, quiet=True) for _ in range(args.servers)]
    urls = [u for _, u in procs]
    try:
        _, org = call(urls[0], "/api/me", None)
        _, org = call(urls[0], "/api/signup", org, {"account": f"org{uuid.uuid4().hex[:10]}",
                                                    "password": "a long password", "name": "Organiser"})
        ev, _ = call(urls[0], "/api/tournaments", org, {
            "kind": "arena", "name": "Bench", "clock": {"initial": 180, "increment": 2}, "minutes": 720,
            "starts_in": 0, "rated": False, "bots": args.bots > 0})
        seats: list[dict[str, Any]] = []
        for i in range(4):
            url = urls[i % len(urls)]
            if i < args.bots:
                bot = BenchBot(url)
                bot.client.tournaments.join(ev["id"])
                seats.append({"id": bot.id, "bot": bot})
                continue
            me, cookie = call(url, "/api/me", None)
            ws = connect(ws_url(url), additional_headers={"Cookie": cookie}).__enter__()
            seats.append({"id": me["id"], "url": url, "cookie": cookie, "ws": ws, "bot": None})
            call(url, f"/api/tournaments/{ev['id']}/join", cookie, {})
        by_id = {s["id"]: s for s in seats}

        def next_game(s: dict[str, Any], known: set[str]) -> tuple[float, str]:
            if s["bot"] is not None:
                at, game = s["bot"].started(known)
                return at, game
            got = frame(s["ws"], "started")
            return time.monotonic(), str(got["game"])

        games = {s["id"]: next_game(s, set())[1] for s in seats}
        delays: dict[bool, list[float]] = {False: [], True: []}
        for _ in range(args.rounds):
            order = sorted(set(games.values()))
            for game in order:
                pair = sorted(p for p, g in games.items() if g == game)
                loser = by_id[pair[1]]
                if loser["bot"] is not None:
                    loser["bot"].client.bots.resign_game(game)
                    ended = time.monotonic()
                else:
                    ended = resign(loser["url"], loser["cookie"], game)
            known = set(order)
            for s in seats:
                at, got = next_game(s, known)
                delays[s["bot"] is not None].append(at - ended)
                games[s["id"]] = got
        for bots, times in delays.items():
            if times:
                print(f"{args.rounds} rounds of an Arena of 4 ({args.bots} bots) on {args.servers} server(s)"
                      f" ({'SQLite' if args.db is None else args.db.split('://')[0]}):"
                      f" from a round's last game's end to each {'bot' if bots else 'person'}'s next"
                      f" {'gameStart' if bots else 'started'} ({len(times)}):"
                      f" p50 {pct(times, 50):.1f} ms, p90 {pct(times, 90):.1f} ms, max {max(times) * 1000:.1f} ms")
        for s in seats:
            if s["bot"] is not None:
                s["bot"].client.close()
            else:
                s["ws"].close()
    finally:
        for proc, _ in procs:
            proc.terminate()
            proc.wait(timeout=20)
    return 0


if __name__ == "__main__":
    sys.exit(main())
