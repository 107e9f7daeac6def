"""Load test for ``kamisado web``: many concurrent online games over real
websockets on loopback.

Starts the server (a subprocess on a fresh SQLite file, unless ``--url``
names a running one), opens ``--games`` online games with two websocket
connections each (Black and Gold, each holding its own seat token), and has
every player answer its turn after a random pause of about ``--think``
seconds with a random legal move from the state frame (a fill after a
round ends).  After every game is held, it measures for ``--seconds`` the
round trip of each move: from sending it to receiving the state frame that
acknowledges it (stored, committed, broadcast), and its delivery: from
sending it to the other player's state frame that shows it.  Prints games
held, moves per second, the p50/p90/p99 round trip and delivery.

    python bench/load.py --games 1000 --seconds 20 --think 3

Several processes on one PostgreSQL (``--servers N --db URL``): starts N
``kamisado web`` processes on that database; in every game Black is
connected to one server and Gold to the next, so every move crosses
processes (the delivery is then the time a move takes to reach the other
process's player: stored, NOTIFY, LISTEN, reloaded, sent).

    python bench/load.py --servers 2 --db postgresql://postgres@127.0.0.1:54329/kamisado_bench \\
        --games 1000 --think 1.5 --seconds 20

``--idle N``: hold N idle games (both players connected, Black and Gold on
different servers, no moves) and report each server's resident memory
(VmRSS) before and after, and the memory per game.  The client is split
over ``--clients`` processes (at least one per 9,000 websockets: the open
files limit).

    python bench/load.py --servers 2 --db URL --idle 10000

``--computer K``: K more games, a human (the bench, answering at once)
against the computer at ``--level``, keep the servers' computers thinking
while the ``--games`` human games are measured; prints the human games'
round trip and the computer's reply time (the human's move sent until the
computer's move arrives: queueing and thinking).

    python bench/load.py --servers 1 --db URL --games 1 --think 0.5 --computer 10 --workers 2
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import math
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

import orjson
from websockets.asyncio.client import ClientConnection, connect

# this client reads its options with this tree's kamisado, whatever PYTHONPATH
# says: bench/compare_commits.py points PYTHONPATH at another commit's tree for
# the servers this script starts (they inherit it), which may predate these helpers
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from kamisado.args import duration, duration_help  # noqa: E402

#: websockets one client process holds at most (the open files limit is
#: 20,000 here and cannot be raised)
PER_CLIENT = 9000


class Stats:
    def __init__(self) -> None:
        self.rtts: list[float] = []
        self.deliveries: list[float] = []
        self.computer_rtts: list[float] = []  # the human's moves in computer games
        self.replies: list[float] = []  # human move sent -> the computer's move
        self.measuring = False
        self.held = 0
        self.finished = 0
        self.stale = 0  # moves refused as sent against an old position
        self.errors: list[str] = []
        self.cpu = 0.0  # CPU seconds the client processes used while measuring

    def result(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in
                ("rtts", "deliveries", "computer_rtts", "replies", "finished", "stale",
                 "errors", "cpu")}

    def merge(self, r: dict[str, Any]) -> None:
        for k in ("rtts", "deliveries", "computer_rtts", "replies", "errors"):
            getattr(self, k).extend(r[k])
        self.finished += r["finished"]
        self.stale += r["stale"]
        self.cpu += r["cpu"]


class Shared:
    """One game's moves in flight: seq sent at -> (side, time sent)."""

    def __init__(self) -> None:
        self.sent: dict[int, tuple[str, float]] = {}


async def player(
    ws: ClientConnection, me: str, stats: Stats, think: float, rng: random.Random,
    shared: Shared, computer: bool = False, game: str | None = None,
) -> None:
    sent_at: float | None = None
    reply_from: float | None = None
    sent_seq = -1
    rtts = stats.computer_rtts if computer else stats.rtts
    async for frame in ws:
        msg: dict[str, Any] = orjson.loads(frame)  # (the client's own CPU: the machine is shared)
        if msg["type"] == "error":
            if msg["code"] != "stale":
                stats.errors.append(f"{msg['code']}: {msg['message']}")
            else:
                stats.stale += 1
            continue
        if msg["type"] != "state" or (game is not None and msg["game"] != game):
            continue  # (a late frame of the game before: its other player left it)
        now = time.perf_counter()
        seq = msg["seq"]
        for k in [k for k, (side, _) in shared.sent.items() if k < seq and side != me]:
            if stats.measuring:
                stats.deliveries.append(now - shared.sent[k][1])
            del shared.sent[k]
        if sent_at is not None and seq > sent_seq:
            if stats.measuring:
                rtts.append(now - sent_at)
            sent_at = None
        if reply_from is not None and seq > sent_seq + 1 and msg["to_act"] == me:
            if stats.measuring:
                stats.replies.append(now - reply_from)
            reply_from = None
        if msg["to_act"] != me or seq <= sent_seq:
            if msg["state"] == "over":
                stats.finished += 1 if me == "b" else 0
                return
            continue
        if think > 0:
            await asyncio.sleep(rng.uniform(0, 2 * think))
        if msg["state"] == "fill":
            out = {"type": "fill", "direction": rng.choice(["left", "right"]), "seq": seq}
        else:
            frm = rng.choice(sorted(msg["legal"]))
            out = {"type": "move", "move": f"{frm}-{rng.choice(msg['legal'][frm])}", "seq": seq}
        sent_seq = seq
        sent_at = time.perf_counter()
        if computer:
            reply_from = sent_at
        else:
            shared.sent[seq] = (me, sent_at)
        await ws.send(json.dumps(out))


async def hold(ws: ClientConnection) -> None:
    """An idle player: reads whatever comes, never moves."""
    async for _ in ws:
        pass


def ws_url(url: str) -> str:
    return url.replace("http://", "ws://") + "ws"


async def one_game(
    black_url: str, gold_url: str, stats: Stats, think: float, target: int, seed: int,
    idle: bool = False, opening: asyncio.Semaphore | None = None,
    local: tuple[str, str] | None = None,
) -> None:
    """One online game after another: Black and Gold each on a websocket of
    its own (``local``: the source addresses they connect from, e.g.
    127.0.1.5 and 127.0.2.5, so each is a client of its own to the server's
    per-address limits)."""
    rng = random.Random(seed)
    where: list[dict[str, Any]] = [{}, {}] if local is None else [{"local_addr": (a, 0)} for a in local]
    opening = opening or asyncio.Semaphore(1)
    counted = False
    try:
        await opening.acquire()
        # idle: no keepalive pings from the client (a server that stalls for
        # 20 s would lose the connection; the stall is then reported as errors
        # by the load runs, not here)
        ping = None if idle else 20.0
        async with connect(ws_url(black_url), max_size=2**22, open_timeout=60,
                           ping_interval=ping, **where[0]) as black, \
                connect(ws_url(gold_url), max_size=2**22, open_timeout=60,
                        ping_interval=ping, **where[1]) as gold:
            try:
                while True:  # a new game whenever one ends
                    await black.send(json.dumps({"type": "create", "online": True, "target": target}))
                    created = json.loads(await black.recv())
                    while created["type"] == "state":  # a late frame of the game before
                        created = json.loads(await black.recv())
                    if created["type"] != "created":
                        raise RuntimeError(f"create answered {created}")
                    gid, tokens = created["game"], created["tokens"]
                    await black.send(json.dumps({"type": "join", "game": gid, "token": tokens["b"]}))
                    await gold.send(json.dumps({"type": "join", "game": gid, "token": tokens["g"]}))
                    if not counted:
                        if idle:  # held once both joins are answered
                            for ws in (black, gold):
                                while json.loads(await ws.recv())["type"] != "state":
                                    pass
                        counted = True
                        stats.held += 1
                        opening.release()
                    if idle:
                        await asyncio.gather(hold(black), hold(gold))
                        return
                    shared = Shared()
                    await asyncio.gather(
                        player(black, "b", stats, think, rng, shared, game=gid),
                        player(gold, "g", stats, think, rng, shared, game=gid),
                    )
            finally:
                if counted:
                    stats.held -= 1
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # reported, not hidden
        stats.errors.append(f"{type(exc).__name__}: {exc}")
        if not counted:
            opening.release()


async def computer_game(url: str, stats: Stats, level: str, seed: int) -> None:
    """The bench plays Black at once against the computer's Gold, game after game."""
    rng = random.Random(seed)
    try:
        async with connect(ws_url(url), max_size=2**22) as ws:
            while True:
                await ws.send(json.dumps(
                    {"type": "create", "black": "human", "gold": level, "target": 1}))
                created = json.loads(await ws.recv())
                while created["type"] == "state":  # a late frame of the game before
                    created = json.loads(await ws.recv())
                if created["type"] != "created":
                    raise RuntimeError(f"create answered {created}")
                await ws.send(json.dumps(
                    {"type": "join", "game": created["game"], "token": created["tokens"]["b"]}))
                await player(ws, "b", stats, 0.0, rng, Shared(), computer=True, game=created["game"])
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        stats.errors.append(f"computer game: {type(exc).__name__}: {exc}")


def start_server(
    workers: int, db: str | None = None, quiet: bool = False, limits: bool = False,
) -> tuple[subprocess.Popen[str], str]:
    """A ``kamisado web`` process on ``db`` (default: a fresh SQLite file)
    and its URL; ``limits``: with its rate limits on (a client that opens
    many games must then come from many addresses)."""
    if db is None:
        db = str(Path(tempfile.mkdtemp()) / "load.sqlite3")
    env = dict(os.environ)
    env.pop("KAMISADO_WEB_LIMITS", None)
    if not limits:
        # one address makes a thousand games: the per-address limits are off
        # (a server given with --url must be started with this too)
        env["KAMISADO_WEB_LIMITS"] = "off"
    proc = subprocess.Popen(
        [sys.executable, "-m", "kamisado.cli", "web", "--port", "0", "--no-browser",
         "--db", db, "--workers", str(workers)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        found = re.search(r"serving on (http://\S+/)", line)
        if found:
            # keep reading its output (else a full pipe would stop it)
            subprocess_drain(proc, quiet)
            return proc, found.group(1)
    raise SystemExit(f"the server did not start (exit {proc.wait()})")


def subprocess_drain(proc: subprocess.Popen[str], quiet: bool) -> None:
    import threading

    def drain() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            if not quiet:
                sys.stderr.write(f"[server {proc.pid}] {line}")

    threading.Thread(target=drain, daemon=True).start()


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def cpu_ticks(pid: int) -> int:
    """utime + stime of a process, in clock ticks (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    return int(fields[11]) + int(fields[12])


def postgres_pids() -> list[int]:
    pids = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if (d / "comm").read_text().strip() == "postgres":
                    pids.append(int(d.name))
            except OSError:
                pass
    return pids


class CpuMeter:
    """CPU the servers, PostgreSQL and this client use over a while (% of one core)."""

    def __init__(self, servers: list[int]) -> None:
        self.servers = servers
        self.pg = postgres_pids()
        self.t0 = time.perf_counter()
        self.before = [cpu_ticks(p) for p in servers]
        self.pg_before = sum(cpu_ticks(p) for p in self.pg)
        self.me = os.times()
        self.load = os.getloadavg()[0]

    def server_seconds(self) -> float:
        """CPU seconds the servers used since the meter started."""
        hz = os.sysconf("SC_CLK_TCK")
        return sum(cpu_ticks(p) - b for p, b in zip(self.servers, self.before, strict=True)) / hz

    def report(self) -> str:
        hz = os.sysconf("SC_CLK_TCK")
        dt = time.perf_counter() - self.t0
        parts = [f"server {p} {100 * (cpu_ticks(p) - b) / hz / dt:.0f}%"
                 for p, b in zip(self.servers, self.before, strict=True)]
        pg = sum(cpu_ticks(p) for p in self.pg) - self.pg_before
        parts.append(f"postgres {100 * pg / hz / dt:.0f}%")
        me = os.times()
        mine = (me.user - self.me.user) + (me.system - self.me.system)
        parts.append(f"this client {100 * mine / dt:.0f}%")
        return (f"CPU during the measurement (% of one core; {os.cpu_count()} cores): "
                + ", ".join(parts)
                + f"; load average {self.load:.2f} before, {os.getloadavg()[0]:.2f} after")


def pct(values: list[float], p: float) -> float:
    return sorted(values)[min(len(values) - 1, int(p / 100 * len(values)))] * 1000


def raise_nofile() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


async def freeze() -> None:
    # the client holds thousands of connections too: keep its own garbage
    # collector from pausing it (which would count as server latency)
    while True:
        await asyncio.sleep(2)
        gc.freeze()


async def drive(
    args: argparse.Namespace, urls: list[str], games: int, offset: int, stats: Stats,
    idle: bool, computers: int,
) -> list[asyncio.Task[None]]:
    """Open this client's games (game i: Black on server i, Gold on server
    i + 1, or with ``--spread game`` on server i too) and wait until they
    are held."""
    n = len(urls)
    tasks = []
    # games being opened at once (a burst of thousands of handshakes, each
    # creating a game, would time out)
    opening = asyncio.Semaphore(args.ramp)
    t0 = time.perf_counter()
    for j in range(games):
        i = offset + j
        tasks.append(asyncio.create_task(one_game(
            urls[i % n], urls[(i + (args.spread == "player")) % n], stats, args.think, args.target,
            i, idle, opening)))
        if j % 50 == 49:
            await asyncio.sleep(0.05)
    for j in range(computers):
        tasks.append(asyncio.create_task(
            computer_game(urls[j % n], stats, args.level, 10**6 + j)))
    limit = 60 + games / (10 if idle else 100)
    while stats.held < games and time.perf_counter() - t0 < limit and (idle or not stats.errors):
        await asyncio.sleep(0.1)
    return tasks


async def stop(tasks: list[asyncio.Task[None]]) -> None:
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def child(args: argparse.Namespace) -> int:
    """One client process of several: its games, then its figures as JSON."""
    raise_nofile()
    urls = args.child.split(",")
    stats = Stats()
    freezer = asyncio.create_task(freeze())
    tasks = await drive(args, urls, args.games, args.offset, stats, args.idle > 0, 0)
    print(f"HELD {stats.held}", flush=True)
    if args.idle:
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    else:
        await asyncio.sleep(min(2.0, args.seconds / 4))
        stats.measuring = True
        before = os.times()
        await asyncio.sleep(args.seconds)
        stats.measuring = False
        after = os.times()
        stats.cpu = (after.user - before.user) + (after.system - before.system)
    freezer.cancel()
    await stop(tasks)
    print("RESULT " + json.dumps(stats.result()), flush=True)
    return 0


def spawn_clients(
    args: argparse.Namespace, urls: list[str], games: int, clients: int
) -> list[subprocess.Popen[str]]:
    procs = []
    for c in range(clients):
        lo, hi = games * c // clients, games * (c + 1) // clients
        cmd = [sys.executable, __file__, "--child", ",".join(urls), "--games", str(hi - lo),
               "--offset", str(lo), "--seconds", str(args.seconds), "--think", str(args.think),
               "--target", str(args.target), "--ramp", str(args.ramp), "--idle", "1" if args.idle else "0",
               "--spread", args.spread]
        procs.append(subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      text=True))
    return procs


def read_line(proc: subprocess.Popen[str], prefix: str) -> str:
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith(prefix):
            return line[len(prefix):].strip()
    return ""


def summary(stats: Stats, elapsed: float, label: str = "move") -> None:
    rtts = stats.rtts
    if rtts:
        print(f"moves acknowledged: {len(rtts)} in {elapsed:.1f} s ({len(rtts) / elapsed:.0f}/s)")
        print(
            f"{label} round trip: p50 {pct(rtts, 50):.1f} ms, p90 {pct(rtts, 90):.1f} ms, "
            f"p99 {pct(rtts, 99):.1f} ms, max {max(rtts) * 1000:.1f} ms, "
            f"mean {statistics.fmean(rtts) * 1000:.1f} ms"
        )
    d = stats.deliveries
    if d:
        print(f"delivery to the other player ({len(d)}): p50 {pct(d, 50):.1f} ms, "
              f"p90 {pct(d, 90):.1f} ms, p99 {pct(d, 99):.1f} ms, max {max(d) * 1000:.1f} ms")
    c = stats.computer_rtts
    if c:
        print(f"computer games: the human's moves acknowledged: {len(c)}, round trip "
              f"p50 {pct(c, 50):.1f} ms, p99 {pct(c, 99):.1f} ms")
    r = stats.replies
    if r:
        print(f"computer replies ({len(r)}, {len(r) / elapsed:.1f}/s): "
              f"p50 {pct(r, 50):.0f} ms, p90 {pct(r, 90):.0f} ms, p99 {pct(r, 99):.0f} ms, "
              f"max {max(r) * 1000:.0f} ms")


async def run(args: argparse.Namespace) -> int:
    raise_nofile()
    procs: list[subprocess.Popen[str]] = []
    if args.url is not None:
        urls = [u if u.endswith("/") else u + "/" for u in args.url.split(",")]
    elif args.servers is None:
        proc, url = start_server(1, args.db)
        procs, urls = [proc], [url]
    else:
        if args.servers > 1 and not (args.db or "").startswith("postgresql"):
            raise SystemExit("--servers N > 1 needs --db postgresql://...")
        urls = []
        for _ in range(args.servers):
            proc, url = start_server(args.workers, args.db)
            procs.append(proc)
            urls.append(url)
        print(f"servers: {len(urls)} ({', '.join(urls)}), pids "
              f"{' '.join(str(p.pid) for p in procs)}, --workers {args.workers}")
    try:
        if args.idle:
            return await idle(args, urls, procs)
        return await load(args, urls, [p.pid for p in procs])
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait()


async def idle(args: argparse.Namespace, urls: list[str], procs: list[subprocess.Popen[str]]) -> int:
    await asyncio.sleep(1)
    before = [rss_kib(p.pid) for p in procs]
    clients = max(args.clients, math.ceil(2 * args.idle / PER_CLIENT))
    t0 = time.perf_counter()
    kids = spawn_clients(args, urls, args.idle, clients)
    held = sum(int(read_line(k, "HELD ") or 0) for k in kids)
    ready = time.perf_counter() - t0
    await asyncio.sleep(5)  # settle
    gc_note = ""
    after = [rss_kib(p.pid) for p in procs]
    stats = Stats()
    for k in kids:
        assert k.stdin is not None
        k.stdin.write("\n")
        k.stdin.flush()
    for k in kids:
        found = read_line(k, "RESULT ")
        if found:
            stats.merge(json.loads(found))
        k.wait()
    print(f"idle games held: {held} of {args.idle} ({2 * held} websockets over "
          f"{len(urls)} servers, {clients} client processes, ready in {ready:.1f} s){gc_note}")
    for p, b, a in zip(procs, before, after, strict=True):
        print(f"server {p.pid}: VmRSS {b / 1024:.1f} MiB before, {a / 1024:.1f} MiB after "
              f"(+{(a - b) / 1024:.1f} MiB)")
    if procs and held:
        grown = sum(after) - sum(before)
        print(f"memory per game (both servers, both connections): {grown / held:.1f} KiB "
              f"(per server and connection: {grown / held / 2:.1f} KiB)")
    print(f"errors: {len(stats.errors)}" + (f" (first: {stats.errors[0]})" if stats.errors else ""))
    return 1 if stats.errors or held < args.idle else 0


async def load(args: argparse.Namespace, urls: list[str], pids: list[int]) -> int:
    stats = Stats()
    t0 = time.perf_counter()
    kids: list[subprocess.Popen[str]] = []
    if args.clients > 1:
        kids = spawn_clients(args, urls, args.games, args.clients)
        held = sum(int(read_line(k, "HELD ") or 0) for k in kids)
        print(f"games held: {held} of {args.games} ({2 * held} websockets over "
              f"{len(urls)} servers, {args.clients} client processes, "
              f"ready in {time.perf_counter() - t0:.1f} s)")
        # each client measures its own --seconds after a warm-up
        await asyncio.sleep(min(2.0, args.seconds / 4))
        meter = CpuMeter(pids)
        await asyncio.sleep(args.seconds)  # the clients' measured time, about
        server_cpu = meter.server_seconds()
        cpu = meter.report()
        for k in kids:
            found = read_line(k, "RESULT ")
            if found:
                stats.merge(json.loads(found))
            k.wait()
        elapsed = args.seconds
        cpu += f"; the {args.clients} client processes {100 * stats.cpu / elapsed:.0f}%"
    else:
        freezer = asyncio.create_task(freeze())
        tasks = await drive(args, urls, args.games, 0, stats, False, args.computer)
        print(f"games held: {stats.held} of {args.games} ({2 * stats.held} websockets over "
              f"{len(urls)} servers, ready in {time.perf_counter() - t0:.1f} s)"
              + (f"; {args.computer} computer games at level {args.level}" if args.computer else ""))
        await asyncio.sleep(min(2.0, args.seconds / 4))  # warm up
        stats.measuring = True
        start = time.perf_counter()
        meter = CpuMeter(pids)
        await asyncio.sleep(args.seconds)
        stats.measuring = False
        elapsed = time.perf_counter() - start
        server_cpu = meter.server_seconds()
        cpu = meter.report()
        held = stats.held
        freezer.cancel()
        await stop(tasks)
    print(f"games held during the measurement: {held}; rounds finished: {stats.finished}; "
          f"moves refused stale: {stats.stale}")
    summary(stats, elapsed)
    print(cpu)
    if stats.rtts and pids:
        # the measured moves only, so also the other players' pauses and the
        # flag ticks are in it: the server's whole cost per move acknowledged
        print(f"server CPU per move: {1000 * server_cpu / len(stats.rtts):.2f} ms "
              f"({server_cpu:.2f} s of CPU over {len(stats.rtts)} moves, all servers)")
    print(f"errors: {len(stats.errors)}" + (f" (first: {stats.errors[0]})" if stats.errors else ""))
    return 1 if stats.errors else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=1000, help="concurrent games (default 1000)")
    ap.add_argument("--seconds", type=duration("s"), default=20.0,
                    help=f"measured time, in {duration_help('s')} (default 20 s)")
    ap.add_argument("--think", type=duration("s", 0), default=3.0,
                    help=f"mean pause before each move, in {duration_help('s')} (default 3 s)")
    ap.add_argument("--target", type=int, default=1, help="match target (default 1)")
    ap.add_argument("--url", help="a running server, e.g. http://127.0.0.1:8000/ (started with KAMISADO_WEB_LIMITS=off: one address opens every game); several, comma-separated")
    ap.add_argument("--servers", type=int,
                    help="start N server processes on --db (default: one, as before)")
    ap.add_argument("--db", help="the servers' database (default: a fresh SQLite file); "
                    "a PostgreSQL URL for --servers N > 1")
    ap.add_argument("--workers", type=int, default=1,
                    help="each started server's --workers (with --servers; default 1)")
    ap.add_argument("--clients", type=int, default=1,
                    help="client processes to spread the games over (default 1)")
    ap.add_argument("--idle", type=int, default=0,
                    help="hold N idle games and report the servers' memory")
    ap.add_argument("--computer", type=int, default=0,
                    help="K more games against the computer thinking meanwhile")
    ap.add_argument("--level", default="expert", help="their level (default expert)")
    ap.add_argument("--spread", choices=["player", "game"], default="player",
                    help="with several servers: each game's two players on different servers"
                    " (player, the default: every move crosses processes) or both on one (game:"
                    " what a load balancer routing by game does)")
    ap.add_argument("--ramp", type=int, default=100,
                    help="games each client process opens at once (default 100)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--offset", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return asyncio.run(child(args))
    return asyncio.run(run(args))


if __name__ == "__main__":
    raise SystemExit(main())
