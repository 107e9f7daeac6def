"""Perft speed of the pure-Python rules core.

Prints, for each position and depth, the node count, the time and the
positions per second (leaf sequences counted per second).  Run:

    python bench/perft.py            # default depths
    python bench/perft.py --profile  # also a cProfile of depth 5 from the start
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time

from kamisado.rules.board import START_KPN
from kamisado.rules.position import Position

POSITIONS = {
    "start": (START_KPN, 5),
    # Long Match, figure 9(a): a Double Sumo, Sumos, pushes of two towers
    "long-match sumos": ("1n+o1u1g1/7p/3y+4/3br+2P+/3G++4/8/8/N+1RY1UBO g p 7 5 3", 6),
    # Marathon, figure 10(a): a Triple, Doubles, pushes of three towers
    "marathon triple": (
        "n1r1u3/7o+/1P++1y+++3B/3O+2p++1/2b++N+1g2/2Y+G4/4U2R++/8 b r 15 9 14",
        6,
    ),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()
    print(f"{'position':<18} {'depth':>5} {'nodes':>10} {'seconds':>8} {'nodes/s':>10}")
    for name, (kpn, max_depth) in POSITIONS.items():
        pos = Position(kpn)
        for depth in range(1, max_depth + 1):
            t0 = time.perf_counter()
            n = pos.perft(depth)
            dt = time.perf_counter() - t0
            print(f"{name:<18} {depth:>5} {n:>10} {dt:>8.3f} {n / max(dt, 1e-9):>10.0f}")
    if args.profile:
        prof = cProfile.Profile()
        prof.enable()
        Position().perft(5)
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(8)


if __name__ == "__main__":
    main()
