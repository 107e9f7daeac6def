"""Load test for ``kamisado web``: many concurrent online games over real
websockets on loopback.

Starts the server (a subprocess on a fresh SQLite file, unless ``--url``
names a running one), opens ``--games`` online games with two websocket
connections each (Black and Gold, each holding its own seat token), and has
every player answer its turn after a random pause of about ``--think``
seconds with a random legal move from the state frame (a fill after a
round ends).  After every game is held, it measures for ``--seconds`` the
round trip of each move: from sending it to receiving the state frame that
acknowledges it (stored, committed, broadcast).  Prints games held, moves
per second and the p50/p99 round trip.

    python bench/load.py --games 1000 --seconds 20 --think 3
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect


class Stats:
    def __init__(self) -> None:
        self.rtts: list[float] = []
        self.measuring = False
        self.held = 0
        self.finished = 0
        self.errors: list[str] = []


async def player(
    ws: ClientConnection, me: str, stats: Stats, think: float, rng: random.Random
) -> None:
    sent_at: float | None = None
    sent_seq = -1
    async for frame in ws:
        msg: dict[str, Any] = json.loads(frame)
        if msg["type"] == "error":
            if msg["code"] != "stale":
                stats.errors.append(msg["message"])
            continue
        if msg["type"] != "state":
            continue
        if sent_at is not None and msg["seq"] > sent_seq:
            if stats.measuring:
                stats.rtts.append(time.perf_counter() - sent_at)
            sent_at = None
        if msg["to_act"] != me or msg["seq"] <= sent_seq:
            if msg["state"] == "over":
                stats.finished += 1 if me == "b" else 0
                return
            continue
        await asyncio.sleep(rng.uniform(0, 2 * think))
        if msg["state"] == "fill":
            out = {"type": "fill", "direction": rng.choice(["left", "right"]), "seq": msg["seq"]}
        else:
            frm = rng.choice(sorted(msg["legal"]))
            out = {"type": "move", "move": f"{frm}-{rng.choice(msg['legal'][frm])}", "seq": msg["seq"]}
        sent_seq = msg["seq"]
        sent_at = time.perf_counter()
        await ws.send(json.dumps(out))


async def one_game(url: str, stats: Stats, think: float, target: int, seed: int) -> None:
    rng = random.Random(seed)
    ws_url = url.replace("http://", "ws://") + "ws"
    try:
        async with connect(ws_url, max_size=2**22) as black, connect(ws_url, max_size=2**22) as gold:
            stats.held += 1
            try:
                while True:  # a new game whenever one ends
                    await black.send(json.dumps({"type": "create", "online": True, "target": target}))
                    created = json.loads(await black.recv())
                    gid, tokens = created["game"], created["tokens"]
                    await black.send(json.dumps({"type": "join", "game": gid, "token": tokens["b"]}))
                    await gold.send(json.dumps({"type": "join", "game": gid, "token": tokens["g"]}))
                    await asyncio.gather(
                        player(black, "b", stats, think, rng), player(gold, "g", stats, think, rng)
                    )
            finally:
                stats.held -= 1
    except Exception as exc:  # reported, not hidden
        stats.errors.append(f"{type(exc).__name__}: {exc}")


def start_server(workers: int) -> tuple[subprocess.Popen[str], str]:
    db = Path(tempfile.mkdtemp()) / "load.sqlite3"
    proc = subprocess.Popen(
        [sys.executable, "-m", "kamisado.cli", "web", "--port", "0", "--no-browser",
         "--db", str(db), "--workers", str(workers)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        # one address makes a thousand games: the per-address limits are off
        # (a server given with --url must be started with this too)
        env={**os.environ, "KAMISADO_WEB_LIMITS": "off"},
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        found = re.search(r"serving on (http://\S+/)", line)
        if found:
            return proc, found.group(1)
    raise SystemExit(f"the server did not start (exit {proc.wait()})")


def pct(values: list[float], p: float) -> float:
    return sorted(values)[min(len(values) - 1, int(p / 100 * len(values)))] * 1000


async def run(args: argparse.Namespace) -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    proc = None
    url = args.url
    if url is None:
        proc, url = start_server(1)
    if not url.endswith("/"):
        url += "/"
    stats = Stats()

    async def freeze() -> None:
        # the client holds thousands of connections too: keep its own garbage
        # collector from pausing it (which would count as server latency)
        while True:
            await asyncio.sleep(2)
            gc.freeze()

    freezer = asyncio.create_task(freeze())
    tasks = []
    t0 = time.perf_counter()
    for i in range(args.games):
        tasks.append(asyncio.create_task(one_game(url, stats, args.think, args.target, i)))
        if i % 50 == 49:
            await asyncio.sleep(0.05)
    while stats.held < args.games and time.perf_counter() - t0 < 60 and not stats.errors:
        await asyncio.sleep(0.1)
    print(f"games held: {stats.held} of {args.games} "
          f"({2 * stats.held} websockets, ready in {time.perf_counter() - t0:.1f} s)")
    await asyncio.sleep(min(2.0, args.seconds / 4))  # warm up
    stats.measuring = True
    start = time.perf_counter()
    await asyncio.sleep(args.seconds)
    stats.measuring = False
    elapsed = time.perf_counter() - start
    held = stats.held
    freezer.cancel()
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    if proc is not None:
        proc.terminate()
        proc.wait()
    rtts = stats.rtts
    print(f"games held during the measurement: {held}; rounds finished: {stats.finished}")
    if rtts:
        print(f"moves acknowledged: {len(rtts)} in {elapsed:.1f} s ({len(rtts) / elapsed:.0f}/s)")
        print(
            f"move round trip: p50 {pct(rtts, 50):.1f} ms, p90 {pct(rtts, 90):.1f} ms, "
            f"p99 {pct(rtts, 99):.1f} ms, max {max(rtts) * 1000:.1f} ms, "
            f"mean {statistics.fmean(rtts) * 1000:.1f} ms"
        )
    print(f"errors: {len(stats.errors)}" + (f" (first: {stats.errors[0]})" if stats.errors else ""))
    return 1 if stats.errors else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=1000, help="concurrent games (default 1000)")
    ap.add_argument("--seconds", type=float, default=20.0, help="measured time (default 20)")
    ap.add_argument("--think", type=float, default=3.0,
                    help="mean pause before each move, seconds (default 3)")
    ap.add_argument("--target", type=int, default=1, help="match target (default 1)")
    ap.add_argument("--url", help="a running server, e.g. http://127.0.0.1:8000/ (started with KAMISADO_WEB_LIMITS=off: one address opens every game)")
    return asyncio.run(run(ap.parse_args()))


if __name__ == "__main__":
    raise SystemExit(main())
