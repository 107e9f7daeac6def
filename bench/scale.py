"""Scale-out benchmark: how many moves a second one and several ``kamisado
web`` processes on one PostgreSQL carry while the move round trip stays
under a p99 limit (issue 12: two processes should carry 1.5 times one,
with p99 under 50 ms).

For each number of servers the offered load is raised step by step (more
concurrent games, each player thinking ``--think`` seconds a move) with
``bench/load.py``; the capacity is the highest moves/s of a step whose
round-trip p99 stayed under ``--p99``.  Every step starts fresh server
processes on the same database, one after the other in one run, so the
ratio compares like with like.

    python bench/scale.py --db postgresql://postgres@127.0.0.1:54329/kamisado_bench \\
        --servers 1,2 --games 50,100,150,200,300 --think 0.3 --seconds 15

Prints one line per step, then the capacity of each server count and
their ratio.  ``--repeat 3`` runs each step three times and judges it by
the run with the median p99 (a single stall of a shared machine then does
not decide a step).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

from kamisado.args import duration, duration_help

LOAD = Path(__file__).with_name("load.py")


def step(
    args: argparse.Namespace, servers: int, games: int, env: dict[str, str] | None = None,
    cwd: Path | None = None,
) -> dict[str, float]:
    """One run of load.py: moves/s, p50/p99 round trip, p50/p99 delivery (ms),
    server CPU ms a move; ``env`` and ``cwd``: the environment and folder its
    servers start in (``python -m`` puts the folder first on the path: another
    tree's root runs that tree's server, ``bench/compare_commits.py``)."""
    cmd = [sys.executable, str(LOAD), "--servers", str(servers), "--db", args.db,
           "--games", str(games), "--think", str(args.think), "--seconds", str(args.seconds),
           "--clients", str(args.clients), "--spread", args.spread]
    # in a process group of its own: stopped early (a timeout, Ctrl-C, this
    # script's SIGTERM), load.py and the servers it started end together
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            env=env, cwd=cwd, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=args.seconds * 4 + 180)
    except BaseException:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        proc.wait()
        raise
    got: dict[str, float] = {}
    rate = re.search(r"moves acknowledged: \d+ in [\d.]+ s \((\d+)/s\)", out)
    trip = re.search(r"move round trip: p50 ([\d.]+) ms, p90 [\d.]+ ms, p99 ([\d.]+) ms", out)
    delivery = re.search(r"delivery to the other player \(\d+\): p50 ([\d.]+) ms, p90 [\d.]+ ms, p99 ([\d.]+) ms", out)
    errors = re.search(r"errors: (\d+)", out)
    per_move = re.search(r"server CPU per move: ([\d.]+) ms", out)
    if rate is None or trip is None:
        raise RuntimeError(f"load.py gave no figures:\n{out[-2000:]}")
    got["rate"] = float(rate.group(1))
    got["p50"], got["p99"] = float(trip.group(1)), float(trip.group(2))
    if delivery is not None:
        got["d50"], got["d99"] = float(delivery.group(1)), float(delivery.group(2))
    got["errors"] = float(errors.group(1)) if errors else 0.0
    if per_move is not None:
        got["cpu"] = float(per_move.group(1))
    return got


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", required=True, help="a PostgreSQL URL the servers share")
    ap.add_argument("--servers", default="1,2", help="server counts to compare (default 1,2)")
    ap.add_argument("--games", default="50,100,150,200,300",
                    help="concurrent games of each step, rising (default 50,100,150,200,300)")
    ap.add_argument("--think", type=duration("s", 0), default=0.3,
                    help=f"mean pause before each move, in {duration_help('s')} (default 0.3 s)")
    ap.add_argument("--seconds", type=duration("s"), default=15.0,
                    help=f"measured time of each step, in {duration_help('s')} (default 15 s)")
    ap.add_argument("--clients", type=int, default=2, help="client processes (default 2)")
    ap.add_argument("--p99", type=duration("ms"), default=50.0,
                    help=f"the round trip's p99 limit, in {duration_help('ms')} (default 50 ms)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="runs of each step (fresh processes each); the step is judged by the run"
                    " with the median p99 (default 1)")
    ap.add_argument("--spread", choices=["player", "game"], default="game",
                    help="each game's players on one server (game, the default: routing by game)"
                    " or on two (player: every move crosses processes)")
    args = ap.parse_args()
    counts = [int(n) for n in args.servers.split(",")]
    loads = [int(n) for n in args.games.split(",")]
    capacity: dict[int, float] = {}
    for servers in counts:
        best = 0.0
        for games in loads:
            runs = [step(args, servers, games) for _ in range(args.repeat)]
            # the run whose p99 is the median of the step's runs: one stall of the
            # shared machine (a checkpoint, another job) does not decide the step
            got = sorted(runs, key=lambda r: r["p99"])[len(runs) // 2]
            if len(runs) > 1:
                print(f"servers {servers} games {games:5d}: p99 of each run "
                      + ", ".join(f"{r['p99']:.1f}" for r in runs) + " ms", flush=True)
            ok = got["p99"] < args.p99
            delivery = (f", delivery to the other player p50 {got['d50']:.1f} / p99 {got['d99']:.1f} ms"
                        if "d50" in got else "")
            print(f"servers {servers} games {games:5d}: {got['rate']:5.0f} moves/s, round trip "
                  f"p50 {got['p50']:.1f} / p99 {got['p99']:.1f} ms{delivery}, errors {got['errors']:.0f}"
                  + (f", server CPU {got['cpu']:.2f} ms/move" if "cpu" in got else "")
                  + f", load {os.getloadavg()[0]:.1f}"
                  f"{'' if ok else '  (over the limit)'}", flush=True)
            if ok:
                best = max(best, got["rate"])
            else:
                break  # more load only makes it worse
        capacity[servers] = best
    print(f"capacity with round-trip p99 < {args.p99:.0f} ms:")
    base = capacity[counts[0]]
    for servers in counts:
        ratio = f" ({capacity[servers] / base:.2f}x)" if base else ""
        print(f"  {servers} server(s): {capacity[servers]:.0f} moves/s{ratio}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
