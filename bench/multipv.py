"""Benchmark of MultiPV in ``kamisado engine``: time and nodes per depth.

Runs the KEI engine in this process (:class:`kamisado.protocol.kei.Engine`)
and asks ``go depth D`` with ``MultiPV`` N from fixed positions; prints, per
position and depth, the wall time and the nodes the engine reported (the
``nodes`` of its last ``info``), best of a few runs, and the plain search's
(``MultiPV 1``) for comparison.

    python bench/multipv.py                 # MultiPV 3, depths 7..9
    python bench/multipv.py --multipv 5 --depths 5 7 --reps 2

Timings are wall-clock and noisy on a shared machine; the node counts are
exact and the same on every run.
"""

from __future__ import annotations

import argparse
import time

from kamisado.protocol.kei import Engine

POSITIONS = [
    ("after c1-c5", "startpos moves c1-c5"),
    ("rulebook fig. 2", "kpn 3pyrgn/3u4/8/2R5/4G1Y1/ob6/8/N3PUBO b b 3 0 0"),
    ("Sumo (round 2 start)", "kpn obupyrgn/8/8/8/8/8/8/NGRYPU+BO+ g - 3 2 0"),
]


def run(position: str, multipv: int, depth: int) -> tuple[float, int]:
    """Seconds and nodes of one ``go depth`` with ``MultiPV`` lines."""
    out: list[str] = []
    engine = Engine(out.append)
    engine.handle(f"setoption name MultiPV value {multipv}")
    engine.handle(f"position {position}")
    start = time.perf_counter()
    engine.handle(f"go depth {depth}")
    while engine.job is not None:
        engine.runner.wait(0.005)
        engine.on_worker()
    secs = time.perf_counter() - start
    engine.runner.close()
    nodes = [int(w.split()[w.split().index("nodes") + 1]) for w in out if " nodes " in w]
    return secs, nodes[-1] if nodes else 0


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--multipv", type=int, default=3)
    p.add_argument("--depths", type=int, nargs=2, default=(7, 9), metavar=("FROM", "TO"))
    p.add_argument("--reps", type=int, default=3)
    args = p.parse_args()
    print(f"MultiPV {args.multipv} against the plain search (best of {args.reps}):")
    print(f"  {'position':22} {'depth':>5} {'MultiPV s':>10} {'nodes':>10}"
          f" {'plain s':>9} {'nodes':>9} {'ratio':>6}")
    for name, position in POSITIONS:
        for depth in range(args.depths[0], args.depths[1] + 1):
            multi = min(run(position, args.multipv, depth) for _ in range(args.reps))
            plain = min(run(position, 1, depth) for _ in range(args.reps))
            ratio = multi[0] / plain[0] if plain[0] > 0 else float("inf")
            print(f"  {name:22} {depth:>5} {multi[0]:>10.3f} {multi[1]:>10}"
                  f" {plain[0]:>9.3f} {plain[1]:>9} {ratio:>6.1f}")


if __name__ == "__main__":
    main()
