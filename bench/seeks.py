"""Quick-pairing benchmark (issue 27: 200 players seeking at once are all
paired within 1 s, p99, on one machine).

Starts ``kamisado web`` (one process on a fresh SQLite file, or ``--servers
N`` processes on the PostgreSQL of ``--db``), makes ``--players`` players
(one cookie each, ``GET /api/me``), opens one websocket each (spread over
the servers in turn), then all of them send ``seek`` at the same moment
and wait for ``started``.  Prints how many were paired, into how many
games (each must hold exactly two of them), and the time from each seek to
its ``started`` frame: p50, p99 and max.

    python bench/seeks.py                      # 200 players, 3+2 casual, SQLite
    python bench/seeks.py --db postgresql://postgres@127.0.0.1:54329/kamisado_bench --servers 2
    python bench/seeks.py --speeds 1+0,3+2,5+3,10+5 --players 400

The servers run with their per-address limits off (``KAMISADO_WEB_LIMITS=off``:
every client comes from 127.0.0.1).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from websockets.asyncio.client import connect  # noqa: E402

from bench.load import pct, raise_nofile, start_server, ws_url  # noqa: E402


def cookie_of(url: str) -> str:
    """A new player: the cookie of a first visit (``name=value``)."""
    with urllib.request.urlopen(url + "api/me", timeout=30) as r:
        return str(r.headers["set-cookie"].split(";")[0])


async def one(url: str, cookie: str, speed: str, go: asyncio.Event, ready: asyncio.Queue[None],
              out: list[tuple[float, str]], errors: list[str]) -> None:
    """One player: connect, wait for the start signal, seek, wait for ``started``."""
    try:
        async with connect(ws_url(url), additional_headers={"Cookie": cookie}, open_timeout=60,
                           max_size=2**22) as ws:
            ready.put_nowait(None)
            await go.wait()
            sent = time.perf_counter()
            await ws.send(json.dumps({"type": "seek", "speed": speed}))
            while True:
                msg: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 60))
                if msg["type"] == "started":
                    out.append((time.perf_counter() - sent, msg["game"]))
                    return
                if msg["type"] == "error":
                    raise RuntimeError(f"error frame: {msg}")
    except Exception as exc:
        errors.append(f"{type(exc).__name__}: {exc}")
        ready.put_nowait(None)


async def run(urls: list[str], players: int, speeds: list[str]) -> int:
    loop = asyncio.get_running_loop()
    cookies = await asyncio.gather(*(loop.run_in_executor(None, cookie_of, urls[i % len(urls)])
                                     for i in range(players)))
    go = asyncio.Event()
    ready: asyncio.Queue[None] = asyncio.Queue()
    out: list[tuple[float, str]] = []
    errors: list[str] = []
    tasks = [asyncio.create_task(one(urls[i % len(urls)], cookies[i], speeds[(i // 2) % len(speeds)],
                                     go, ready, out, errors)) for i in range(players)]
    for _ in range(players):
        await ready.get()
    await asyncio.sleep(0.5)  # the servers settle after the connections
    go.set()
    await asyncio.gather(*tasks)
    per_game: dict[str, int] = {}
    for _, game in out:
        per_game[game] = per_game.get(game, 0) + 1
    times = [t for t, _ in out]
    pairs_ok = all(n == 2 for n in per_game.values())
    print(f"players: {players} on {len(urls)} server(s), speeds {','.join(speeds)}")
    print(f"paired: {len(out)} of {players} into {len(per_game)} games"
          f" ({'each game two players' if pairs_ok else 'A GAME WITHOUT EXACTLY TWO PLAYERS'})")
    if times:
        print(f"seek to started: p50 {pct(times, 50):.0f} ms, p99 {pct(times, 99):.0f} ms,"
              f" max {max(times) * 1000:.0f} ms")
    if errors:
        print(f"errors: {len(errors)} (first: {errors[0]})")
    return 0 if len(out) == players and pairs_ok and not errors else 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, default=200, help="players seeking at once (default 200)")
    ap.add_argument("--speeds", default="3+2", help="the speeds sought, in turn by pairs of players (default 3+2)")
    ap.add_argument("--db", default=None, help="the database (default: a fresh SQLite file);"
                    " a PostgreSQL URL for --servers above 1")
    ap.add_argument("--servers", type=int, default=1, help="server processes on --db (default 1)")
    ap.add_argument("--workers", type=int, default=1, help="each server's process pool (default 1)")
    args = ap.parse_args()
    if args.players < 2 or args.players % 2:
        ap.error("--players: expected an even number, at least 2")
    if args.servers > 1 and not (args.db or "").startswith("postgresql"):
        ap.error("--servers above 1 needs --db postgresql://...")
    raise_nofile()
    procs = []
    try:
        for _ in range(args.servers):
            procs.append(start_server(args.workers, args.db, quiet=True))
        urls = [url for _, url in procs]
        return asyncio.run(run(urls, args.players, args.speeds.split(",")))
    finally:
        for proc, _ in procs:
            proc.terminate()
        for proc, _ in procs:
            proc.wait(timeout=30)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
