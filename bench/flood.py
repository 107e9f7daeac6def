"""Websocket floods beside normal games (issue 25, item 3): what an abusive
address costs everyone else, and what it gets through.

Starts ``kamisado web`` (a subprocess on a fresh SQLite file, with its rate
limits on, as a public server runs) and plays ``--games`` normal online
games on it the way ``bench/load.py`` does (Black and Gold on websockets
of their own, each answering its turn after a random pause of about
``--think`` seconds), each player from a loopback address of its own
(127.0.1.N and 127.0.2.N: Linux routes all of 127/8 to the machine), so
the per-address limits see twenty players, not one.  Two runs, each on a
fresh server:

- **alone**: the normal games only;
- **beside the abuse**: the same, while another process attacks from two
  more addresses: ``--sockets`` websockets from 127.0.9.1 sending
  ``--rate`` ping frames a second each (when one is closed or refused it
  connects again a second later), and a flooder from 127.0.9.2 sending
  ``--flood-rate`` frames a second on one websocket, which connects again
  at once whenever it is closed or refused.

Prints the normal games' move round trip (sending a move until the state
frame that acknowledges it) in both runs and the p99 of the second over
the first (the target: at most 1.5), the CPU the server used, and what the
attackers got: their connections accepted and refused, and their frames
answered (got through: a pong for each ping the server handled) and
refused.  ``--frame join``: the sockets send joins of a game that is not
there instead of pings (each a lookup in the store).

    python bench/flood.py                      # 20 games, 40 sockets at 28 frames/s, 15 s each run
    PYTHONPATH=/work/main python bench/flood.py  # the same against another checkout's server

Run against a server whose ``kamisado web`` has no ``--ws-*`` options (the
code before the caps) it uses that server's defaults all the same: the bench
never passes them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field, fields
from typing import Any

import orjson
from load import (
    Stats,
    cpu_ticks,
    freeze,
    one_game,
    pct,
    raise_nofile,
    start_server,
    stop,
    ws_url,
)
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from kamisado.args import duration, duration_help

PING = '{"type":"ping"}'
#: ``--frame join``: a game that is not there, looked for in the store each time
FRAMES = {"ping": PING, "join": '{"type":"join","game":"nosuchgame00"}'}
ABUSERS = "127.0.9.1"
FLOODER = "127.0.9.2"


@dataclass
class Side:
    """What one kind of attacker did and got."""

    attempts: int = 0  # connections tried
    accepted: int = 0
    refused: Counter[str] = field(default_factory=Counter)  # handshake refused, by HTTP status
    closed: Counter[str] = field(default_factory=Counter)  # accepted, then closed, by close code
    sent: int = 0  # frames sent
    through: int = 0  # frames the server handled (each ping answered by a pong)
    limited: int = 0  # frames refused (a rate_limited error)
    failures: Counter[str] = field(default_factory=Counter)  # anything else

    def counts(self) -> dict[str, Any]:
        """As JSON (``asdict`` would count a Counter's items)."""
        return {f.name: dict(v) if isinstance(v := getattr(self, f.name), Counter) else v
                for f in fields(self)}


async def read(ws: ClientConnection, side: Side) -> None:
    """Count the answers: a ``rate_limited`` error is a frame refused, any
    other answer (a pong; a join's ``no_game``) a frame the server handled."""
    try:
        async for frame in ws:
            msg = orjson.loads(frame)
            if msg.get("type") == "error" and msg.get("code") == "rate_limited":
                side.limited += 1
            else:
                side.through += 1
    except ConnectionClosed:
        pass


async def attack(
    url: str, addr: str, rate: float, side: Side, burst: int, pause: float, frame: str = PING,
) -> None:
    """One attacking websocket from ``addr``: ``rate`` frames a second (in
    bursts of ``burst``) until it is closed or refused, then again after
    ``pause`` seconds, forever."""
    while True:
        side.attempts += 1
        try:
            async with connect(ws_url(url), local_addr=(addr, 0), open_timeout=10,
                               ping_interval=None, max_queue=None, close_timeout=1) as ws:
                side.accepted += 1
                reader = asyncio.create_task(read(ws, side))
                try:
                    due = time.perf_counter()
                    while True:
                        for _ in range(burst):
                            await ws.send(frame)
                            side.sent += 1
                        due += burst / rate
                        await asyncio.sleep(max(0.0, due - time.perf_counter()))
                except ConnectionClosed as exc:
                    side.closed[str(exc.rcvd.code if exc.rcvd else "dropped")] += 1
                    await reader  # (the frames that came before the close)
                finally:
                    reader.cancel()  # (when the attack is stopped)
        except InvalidStatus as exc:
            side.refused[str(exc.response.status_code)] += 1
        except asyncio.CancelledError:
            raise
        except (OSError, TimeoutError) as exc:
            side.failures[type(exc).__name__] += 1
        except ConnectionClosed as exc:  # closed as the socket was being opened
            side.closed[str(exc.rcvd.code if exc.rcvd else "dropped")] += 1
        if pause:
            await asyncio.sleep(pause)
        else:
            await asyncio.sleep(0)


async def abuse(args: argparse.Namespace) -> int:
    """The attackers' process: attacks until a line on standard input, then
    prints what each kind did as ``RESULT {json}``."""
    raise_nofile()
    abusers, flooder = Side(), Side()
    tasks = [asyncio.create_task(attack(args.abuse, args.abusers_from, args.rate, abusers, 1, 1.0,
                                        FRAMES[args.frame]))
             for _ in range(args.sockets)]
    # the flooder: bursts of a twentieth of a second's frames, again at once when closed
    tasks.append(asyncio.create_task(attack(
        args.abuse, args.flooder_from, args.flood_rate, flooder, max(1, int(args.flood_rate / 20)), 0.0)))
    while abusers.attempts < args.sockets:
        await asyncio.sleep(0.05)
    print("READY", flush=True)
    t0 = time.perf_counter()
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    elapsed = time.perf_counter() - t0
    await stop(tasks)
    print("RESULT " + json.dumps({"seconds": elapsed, "abusers": abusers.counts(),
                                  "flooder": flooder.counts()}), flush=True)
    return 0


async def normal_games(url: str, args: argparse.Namespace, stats: Stats) -> list[asyncio.Task[None]]:
    """``--games`` games, each player from an address of its own, once all are held."""
    opening = asyncio.Semaphore(args.games)
    tasks = [
        asyncio.create_task(one_game(
            url, url, stats, args.think, 1, seed, opening=opening,
            local=(f"127.0.1.{i + 1}", f"127.0.2.{i + 1}")))
        for i, seed in enumerate(range(args.games))
    ]
    t0 = time.perf_counter()
    while stats.held < args.games and not stats.errors and time.perf_counter() - t0 < 60:
        await asyncio.sleep(0.05)
    if stats.held < args.games:
        await stop(tasks)
        raise SystemExit(f"only {stats.held} of {args.games} games were held: {stats.errors[:3]}")
    return tasks


def describe(name: str, side: dict[str, Any], seconds: float) -> str:
    def counts(c: dict[str, int]) -> str:
        return ", ".join(f"{n} x {k}" for k, n in sorted(c.items())) or "none"

    return (
        f"  {name}: connections tried {side['attempts']} ({side['attempts'] / seconds:.1f}/s), "
        f"accepted {side['accepted']}, refused: {counts(side['refused'])}; "
        f"closed by the server: {counts(side['closed'])}; "
        f"frames sent {side['sent']}, got through {side['through']} "
        f"({side['through'] / seconds:.0f}/s), refused {side['limited']}"
        + (f"; failures: {counts(side['failures'])}" if side["failures"] else "")
    )


async def one_run(
    args: argparse.Namespace, attacked: bool
) -> tuple[list[float], dict[str, Any] | None, str]:
    """A fresh server, the normal games measured for ``--seconds`` (beside
    the abuse when ``attacked``): their round trips, the attackers' result
    and the CPU used, in words."""
    proc, url = start_server(1, quiet=True, limits=True)
    stats = Stats()
    kid: subprocess.Popen[str] | None = None
    freezer = asyncio.create_task(freeze())
    try:
        tasks = await normal_games(url, args, stats)
        if attacked:
            kid = subprocess.Popen(
                [sys.executable, __file__, "--abuse", url, "--sockets", str(args.sockets),
                 "--rate", str(args.rate), "--flood-rate", str(args.flood_rate), "--frame", args.frame],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            assert kid.stdout is not None
            ready = await asyncio.get_running_loop().run_in_executor(None, kid.stdout.readline)
            if ready.strip() != "READY":
                raise SystemExit(f"the attackers did not start: {ready!r}")
        await asyncio.sleep(2.0)  # warm up (and the attack gets going)
        stats.measuring = True
        pids = [proc.pid] + ([kid.pid] if kid is not None else [])
        before = [cpu_ticks(p) for p in pids]
        await asyncio.sleep(args.seconds)
        stats.measuring = False
        hz = os.sysconf("SC_CLK_TCK")
        cpu = [100 * (cpu_ticks(p) - b) / hz / args.seconds for p, b in zip(pids, before, strict=True)]
        used = (f"  CPU while measured (% of one core): the server {cpu[0]:.0f}%"
                + (f", the attackers' process {cpu[1]:.0f}%" if kid is not None else ""))
        result = None
        if kid is not None:
            assert kid.stdin is not None and kid.stdout is not None
            kid.stdin.write("\n")
            kid.stdin.flush()
            line = await asyncio.get_running_loop().run_in_executor(None, kid.stdout.readline)
            result = json.loads(line.removeprefix("RESULT "))
            kid.wait()
        await stop(tasks)
        if stats.errors:
            used += f"\n  normal games' errors: {len(stats.errors)} (first: {stats.errors[0]})"
        return stats.rtts, result, used
    finally:
        freezer.cancel()
        if kid is not None and kid.poll() is None:
            kid.kill()
        proc.terminate()
        proc.wait()


def figures(rtts: list[float], load: float) -> str:
    """The round trips in words, and the machine's load average before and after."""
    now = os.getloadavg()[0]
    if not rtts:
        return f"no moves acknowledged (load average {load:.1f} -> {now:.1f})"
    return (f"moves acknowledged {len(rtts)}, round trip p50 {pct(rtts, 50):.1f} ms, "
            f"p90 {pct(rtts, 90):.1f} ms, p99 {pct(rtts, 99):.1f} ms, max {max(rtts) * 1000:.1f} ms "
            f"(load average {load:.1f} -> {now:.1f})")


async def run(args: argparse.Namespace) -> int:
    raise_nofile()
    import kamisado

    # the servers run the kamisado this imports (PYTHONPATH's): ``python -m``
    # looks in the current folder first, so they start in its checkout
    root = os.path.dirname(os.path.dirname(os.path.abspath(kamisado.__file__)))
    os.chdir(root)
    print(f"server code: {root}; {args.games} normal games (think {args.think} s), "
          f"{args.seconds:g} s measured per run")
    alone: list[float] = []
    beside: list[float] = []
    ratios: list[float] = []
    for r in range(args.rounds):
        load = os.getloadavg()[0]
        rtts, _, used = await one_run(args, attacked=False)
        print(f"round {r + 1}, alone: {figures(rtts, load)}\n{used}", flush=True)
        alone += rtts
        p99 = pct(rtts, 99) if rtts else 0.0
        load = os.getloadavg()[0]
        rtts, result, used = await one_run(args, attacked=True)
        print(f"round {r + 1}, beside the abuse: {figures(rtts, load)}\n{used}", flush=True)
        beside += rtts
        if rtts and p99:
            ratios.append(pct(rtts, 99) / p99)
        assert result is not None
        print(describe(f"{args.sockets} sockets from {ABUSERS} at {args.rate:g} {args.frame} frames/s each",
                       result["abusers"], result["seconds"]))
        print(describe(f"flooder from {FLOODER} at {args.flood_rate:g} frames/s, reconnecting at once",
                       result["flooder"], result["seconds"]), flush=True)
    if alone and beside:
        ratio = pct(beside, 99) / pct(alone, 99)
        print(f"normal games' p99, all rounds: alone {pct(alone, 99):.1f} ms, beside the abuse "
              f"{pct(beside, 99):.1f} ms: {ratio:.2f}x (target: at most 1.5x)"
              + (f"; each round's ratio: {', '.join(f'{x:.2f}' for x in ratios)}, median "
                 f"{statistics.median(ratios):.2f}" if len(ratios) > 1 else ""))
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=20, help="normal games (default 20)")
    ap.add_argument("--think", type=duration("s", 0), default=0.5,
                    help="the normal players' mean pause before each move, in"
                    f" {duration_help('s')} (default 0.5 s)")
    ap.add_argument("--seconds", type=duration("s"), default=15.0,
                    help=f"measured time per run, in {duration_help('s')} (default 15 s)")
    ap.add_argument("--rounds", type=int, default=1,
                    help="pairs of runs (alone, beside the abuse; default 1)")
    ap.add_argument("--sockets", type=int, default=40,
                    help="the abusive address's websockets (default 40)")
    ap.add_argument("--rate", type=float, default=28.0, help="frames a second each sends (default 28)")
    ap.add_argument("--frame", choices=sorted(FRAMES), default="ping",
                    help="what the sockets send: ping (the cheapest, answered by a pong; the"
                    " default) or join (of a game that is not there: a store lookup each)")
    ap.add_argument("--flood-rate", type=float, default=2000.0,
                    help="frames a second the flooder sends (default 2000)")
    ap.add_argument("--abuse", metavar="URL", help=argparse.SUPPRESS)
    ap.add_argument("--abusers-from", default=ABUSERS, help=argparse.SUPPRESS)
    ap.add_argument("--flooder-from", default=FLOODER, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.abuse:
        return asyncio.run(abuse(args))
    return asyncio.run(run(args))


if __name__ == "__main__":
    raise SystemExit(main())
