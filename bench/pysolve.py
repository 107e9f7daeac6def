"""Two trees' pure-Python solvers side by side: the same solves, timed.

Takes two worktree roots, e.g. the tree before a change of
``kamisado/engine/_pure/solve`` and the tree after, and runs in each, in turn, a
fresh process on the pure-Python core (``KAMISADO_PURE_PYTHON=1``, the tree
first on ``PYTHONPATH``) that times a few solves of each kind: exact (the
alpha-beta solve with a horizon), who wins (the proof-number search), the
exact value without a horizon (df-pn, then the one-sided tests) and the
points of a Sumo round start.  The runs alternate (A, B, A, B, ...) so that
the load of a shared machine falls on both alike.  Prints the CPU seconds of
each solve (``time.thread_time``: the solver runs on the calling thread),
the median of each tree and the ratio B/A, and checks that both trees count
the same nodes (the very same search).

    python bench/pysolve.py /tmp/old-tree .            # 5 runs of each
    python bench/pysolve.py A B --reps 3

Timings are noisy on a shared machine: look at the spread of the runs.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

#: (name, KPN, keyword arguments of ``Searcher.solve`` / ``solve_points``)
SOLVES: list[tuple[str, str, dict[str, object]]] = [
    ("exact, wins in 11", "1pyrgn2/o3u3/7b/8/2R1N3/8/6G1/3YPUBO b b 1 0 0",
     {"max_depth": 20}),
    ("exact, a1-a5 wins in 16", "obupyrgn/8/8/N7/8/8/8/1GRYPUBO g p 1 0 0",
     {"max_depth": 20}),
    ("who wins, a1-a5", "obupyrgn/8/8/N7/8/8/8/1GRYPUBO g p 1 0 0", {"exact": False}),
    ("exact no horizon, a1-a5", "obupyrgn/8/8/N7/8/8/8/1GRYPUBO g p 1 0 0", {}),
    ("points, Sumo start", "obuynprg+/8/8/8/8/8/8/PYBONGRU b - 3 0 1",
     {"points": True, "node_limit": 300_000}),
]


def child() -> None:
    """Time every solve on the pure-Python core; print the figures as JSON."""
    from kamisado import engine

    assert engine.BACKEND == "python", "run with KAMISADO_PURE_PYTHON=1"
    out: dict[str, tuple[int, float]] = {}
    for name, kpn, kwargs in SOLVES:
        kw = dict(kwargs)
        points = kw.pop("points", False)
        s = engine.Searcher()
        c0 = time.thread_time()
        r = s.solve_points(kpn, **kw) if points else s.solve(kpn, **kw)
        out[name] = (r.nodes, time.thread_time() - c0)
    print(json.dumps(out))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a", help="tree root A, e.g. before the change")
    ap.add_argument("b", help="tree root B, e.g. after the change")
    ap.add_argument("--reps", type=int, default=5, help="runs of each tree (default 5)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child()
        return
    trees = {"A": os.path.abspath(args.a), "B": os.path.abspath(args.b)}
    for key, tree in trees.items():
        print(f"{key}: {tree}")
    runs: dict[str, list[dict[str, list[float]]]] = {"A": [], "B": []}
    for rep in range(args.reps):
        for key in ("A", "B") if rep % 2 == 0 else ("B", "A"):
            env = dict(os.environ, PYTHONPATH=trees[key], KAMISADO_PURE_PYTHON="1")
            res = subprocess.run([sys.executable, os.path.abspath(__file__), "a", "b", "--child"],
                                 check=True, capture_output=True, text=True, env=env,
                                 cwd=trees[key])
            runs[key].append(json.loads(res.stdout))
    print("\nCPU seconds, median of the runs:")
    print(f"{'solve':28} {'nodes':>9} {'A':>7} {'B':>7} {'B/A':>6}")
    same = True
    total = {"A": 0.0, "B": 0.0}
    for name in runs["A"][0]:
        if len({r[name][0] for k in runs for r in runs[k]}) != 1:
            same = False
        med = {k: statistics.median(r[name][1] for r in runs[k]) for k in runs}
        for k in runs:
            total[k] += med[k]
        print(f"{name:28} {int(runs['A'][0][name][0]):>9} {med['A']:7.3f} {med['B']:7.3f}"
              f" {med['B'] / med['A']:6.3f}")
        for k in runs:
            print(f"  {k} runs: " + " ".join(f"{r[name][1]:.3f}" for r in runs[k]))
    print(f"{'all':28} {'':>9} {total['A']:7.3f} {total['B']:7.3f} {total['B'] / total['A']:6.3f}")
    print("\nnodes: " + ("the same in every run of both trees" if same else "DIFFER"))


if __name__ == "__main__":
    main()
