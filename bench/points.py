"""What the points solve costs next to the who-wins solve, on Sumo round starts.

For each round start of ``bench/proven_starts.txt`` (rounds 2 on of real
matches: Sumo towers on the board), on fresh tables and within the same
node limit:

``who wins``
    ``engine.solve(pos, exact=False)``: who wins, with a winning move.
``points``
    ``engine.solve_points(pos)``: what the round is worth to the side to
    move (1, 2, 4, 8 won, -1 .. -8 lost): who wins first, then a threshold
    proof per ring the winner's (or the loser's opponent's) towers allow.

and prints a line per start (the answer, nodes, CPU seconds of the calling
thread), then the proven counts and the CPU time summed over the starts both
proved (the cost of the points over who wins alone).

    python bench/points.py                         # 2M nodes a solve
    python bench/points.py --nodes 500000 --kinds standard
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from kamisado import engine

STARTS = Path(__file__).with_name("proven_starts.txt")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nodes", type=int, default=2_000_000, help="node limit of each solve")
    ap.add_argument("--kinds", default="standard,long,marathon", help="match types to read")
    ap.add_argument("--load", type=Path, default=STARTS, help="type<TAB>KPN lines")
    args = ap.parse_args(argv)
    kinds = set(args.kinds.split(","))
    starts = [
        tuple(line.split("\t", 1))
        for line in args.load.read_text().splitlines()
        if line.split("\t", 1)[0] in kinds
    ]
    print(f"{len(starts)} round starts, {args.nodes:,} nodes a solve, fresh tables,"
          f" CPU seconds ({engine.BACKEND} core)")
    print(f"{'type':9} {'KPN':48} {'who wins: nodes, CPU':>23}  {'points: nodes, CPU':>27}")
    wins_proven = points_proven = 0
    both_w = both_p = 0.0
    both = 0
    for kind, kpn in starts:
        t0 = time.thread_time()
        w = engine.Searcher().solve(kpn, exact=False, node_limit=args.nodes)
        tw = time.thread_time() - t0
        t0 = time.thread_time()
        p = engine.Searcher().solve_points(kpn, node_limit=args.nodes)
        tp = time.thread_time() - t0
        who = "?" if w.winner is None else "bg"[w.winner]
        value = f"{p.points:+d}" if p.points is not None else f"{p.low:+d}..{p.high:+d}"
        print(f"{kind:9} {kpn:48} {who:>2} {w.nodes:>9} {tw:7.3f}s"
              f"  {value:>6} {p.nodes:>9} {tp:7.3f}s", flush=True)
        wins_proven += w.winner is not None
        points_proven += p.points is not None
        if w.winner is not None and p.points is not None:
            both += 1
            both_w += tw
            both_p += tp
    n = len(starts)
    print(f"\nproven: who wins {wins_proven}/{n}, points {points_proven}/{n}")
    if both:
        print(f"the {both} starts both proved: who wins {both_w:.2f} s CPU, points {both_p:.2f} s"
              f" ({both_p / both_w:.2f}x)" if both_w > 0 else "")
    return 0


if __name__ == "__main__":
    sys.exit(main())
