"""Memory of an idle game on one ``kamisado web`` server: both players
connected (two websockets, each holding its seat), no moves.

Starts one server (the ``kamisado`` on ``PYTHONPATH``, on ``--db``: a fresh
SQLite file by default, or a PostgreSQL URL), opens ``--small`` idle games
and reads the server's resident memory (VmRSS), then opens more up to
``--games`` and reads it again.  The figure is the growth per game between
the two readings, so what the server holds once whatever the first games
needed (the event loop's and the database's buffers, the first connections'
imports) is not counted in it:

    python bench/idle_memory.py --games 3000 --small 500
    python bench/idle_memory.py --db postgresql://postgres@127.0.0.1:54329/kamisado_bench

Prints the two readings and ``idle game memory: N KiB per game``.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from load import Stats, one_game, raise_nofile, rss_kib, start_server  # noqa: E402

from kamisado.args import duration, duration_help  # noqa: E402


async def hold_games(url: str, stats: Stats, count: int, offset: int,
                     tasks: list[asyncio.Task[None]]) -> None:
    """Open ``count`` more idle games and wait until both their players are in."""
    opening = asyncio.Semaphore(100)
    target = stats.held + count
    for i in range(count):
        tasks.append(asyncio.create_task(one_game(
            url, url, stats, 0.0, 1, offset + i, idle=True, opening=opening)))
        if i % 50 == 49:
            await asyncio.sleep(0.05)
    deadline = time.monotonic() + 120 + count / 10
    while stats.held < target and time.monotonic() < deadline and not stats.errors:
        await asyncio.sleep(0.1)
    if stats.held < target:
        raise SystemExit(f"only {stats.held} of {target} games held"
                         + (f" ({stats.errors[0]})" if stats.errors else ""))


async def settle(pid: int, seconds: float) -> int:
    """The server's VmRSS (KiB) once it has stopped growing for a while."""
    await asyncio.sleep(seconds)
    last = rss_kib(pid)
    for _ in range(20):
        await asyncio.sleep(1.0)
        now = rss_kib(pid)
        if abs(now - last) < 256:
            return now
        last = now
    return last


async def run(args: argparse.Namespace) -> int:
    raise_nofile()
    with tempfile.TemporaryDirectory(prefix="kamisado-idle-") as folder:
        db = args.db or str(Path(folder) / "games.db")
        proc, url = start_server(1, db, quiet=True)
        tasks: list[asyncio.Task[None]] = []
        try:
            stats = Stats()
            random.seed(1)
            await hold_games(url, stats, args.small, 0, tasks)
            first = await settle(proc.pid, args.settle)
            await hold_games(url, stats, args.games - args.small, args.small, tasks)
            second = await settle(proc.pid, args.settle)
            grown = second - first
            per_game = grown / (args.games - args.small)
            print(f"server {proc.pid} ({url}, database {db.split('@')[-1]})")
            print(f"VmRSS with {args.small} idle games: {first / 1024:.1f} MiB; "
                  f"with {args.games}: {second / 1024:.1f} MiB (+{grown / 1024:.1f} MiB)")
            print(f"idle game memory: {per_game:.1f} KiB per game "
                  f"(two connections each; {per_game / 2:.1f} KiB per connection)")
            print(f"errors: {len(stats.errors)}" + (f" (first: {stats.errors[0]})" if stats.errors else ""))
            return 1 if stats.errors else 0
        finally:
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            proc.terminate()
            proc.wait()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=3000, help="idle games at the second reading (default 3000)")
    ap.add_argument("--small", type=int, default=500, help="idle games at the first reading (default 500)")
    ap.add_argument("--db", help="the server's database (default: a fresh SQLite file)")
    ap.add_argument("--settle", type=duration("s", 0), default=3.0,
                    help=f"how long to wait before a reading, in {duration_help('s')} (default 3 s)")
    args = ap.parse_args()
    if not 0 < args.small < args.games:
        raise SystemExit("expected 0 < --small < --games")
    return asyncio.run(run(args))


if __name__ == "__main__":
    raise SystemExit(main())
