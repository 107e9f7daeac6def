"""Two builds of the compiled core side by side: the same work, timed.

Takes two worktree roots (or two ``_ckamisado*.so`` files), e.g. the tree
before a change of the C core and the tree after, and runs in each, in
turn, a fresh process that times: perft from the start and from a Sumo
position, the search to a fixed depth from a few positions (a fresh
Searcher each, so an empty table), and the solver from the start (exact and
who-wins only).  The runs alternate (A, B, A, B, ...) so that the load of a
shared machine falls on both alike.  Prints every time, the median of each
build and the ratio B/A, and checks that both builds count the same nodes
(the very same search).  The figures compared are CPU seconds of the
thread that runs the work (time.thread_time: the core runs on the calling
thread), which a busy machine disturbs far less than wall-clock seconds;
the median wall-clock seconds are printed beside them.

    python bench/ccore.py /tmp/old-tree .             # 5 runs of each
    python bench/ccore.py A B --reps 3 --no-solve     # quicker

Build each tree first (python setup.py build_ext --inplace).  Timings are
noisy on a shared machine: look at the spread of the runs.
"""

from __future__ import annotations

import argparse
import glob
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import time
from typing import Any

START = "obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 1 0 0"
PERFTS = [
    ("perft 7, start", START, 7),
    # Long Match, figure 9(a): a Double Sumo, Sumos, pushes of two towers
    (
        "perft 10, long-match sumos",
        "1n+o1u1g1/7p/3y+4/3br+2P+/3G++4/8/8/N+1RY1UBO g p 7 5 3",
        10,
    ),
]
SEARCHES = [
    ("search 12, start", START, 12),
    ("search 14, after a1-a5", "obupyrgn/8/8/N7/8/8/8/1GRYPUBO g p 1 0 0", 14),
    ("search 10, Sumo round 2", "obupyrgn/8/8/8/8/8/8/NGRYPU+BO+ g - 3 2 0", 10),
    ("search 13, Double/Triple", "o+bu++pyrg+n/8/8/8/8/8/8/N++GRY+++PUBO b - 15 10 5", 13),
]
SOLVES = [
    ("solve, start (exact)", START, True),
    ("solve, start (exact=False)", START, False),
]


def find_so(where: str) -> str:
    """The extension file of a tree root, or the file itself."""
    if os.path.isfile(where):
        return os.path.abspath(where)
    found = sorted(glob.glob(os.path.join(where, "kamisado", "engine", "_ckamisado*.so"))
                   + glob.glob(os.path.join(where, "kamisado", "_ckamisado*.so")))  # before 0.2
    if not found:
        sys.exit(f"no kamisado/engine/_ckamisado*.so under {where}: build it first")
    return os.path.abspath(found[0])


def child(so: str, with_solve: bool) -> None:
    """Time every task with the extension ``so``; print the figures as JSON."""
    spec = importlib.util.spec_from_file_location("kamisado._ckamisado", so)
    assert spec is not None and spec.loader is not None
    c: Any = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(c)
    out: dict[str, tuple[int, float, float]] = {}

    def timed(name: str, work: Any, *args: Any) -> None:
        w0, c0 = time.perf_counter(), time.thread_time()
        nodes = work(*args)
        out[name] = (nodes, time.thread_time() - c0, time.perf_counter() - w0)

    def search(s: Any, p: Any, depth: int) -> int:
        return int(s.search(p, depth=depth)["nodes"])

    def solve(s: Any, p: Any, exact: bool) -> int:
        r = s.solve(p, exact=exact)
        return int(r["nodes"] + r["pv_nodes"])

    for name, kpn, depth in PERFTS:
        timed(name, c.Position(kpn).perft, depth)
    for name, kpn, depth in SEARCHES:
        timed(name, search, c.Searcher(), c.Position(kpn), depth)
    if with_solve:
        for name, kpn, exact in SOLVES:
            s, p = c.Searcher(), c.Position(kpn)
            # the first solve makes the solver's table (64 MiB): not timed
            s.solve(p, max_depth=1)
            s.clear_tt()
            timed(name, solve, s, p, exact)
    print(json.dumps(out))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a", help="tree root (or .so) of build A, e.g. before the change")
    ap.add_argument("b", help="tree root (or .so) of build B, e.g. after the change")
    ap.add_argument("--reps", type=int, default=5, help="runs of each build (default 5)")
    ap.add_argument(
        "--no-solve", action="store_true", help="leave out the solver (~7 s a run)"
    )
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child, not args.no_solve)
        return
    builds = {"A": find_so(args.a), "B": find_so(args.b)}
    for key, so in builds.items():
        print(f"{key}: {so}")
    runs: dict[str, list[dict[str, list[Any]]]] = {"A": [], "B": []}
    for rep in range(args.reps):
        for key in ("A", "B") if rep % 2 == 0 else ("B", "A"):
            cmd = [sys.executable, __file__, args.a, args.b, "--child", builds[key]]
            if args.no_solve:
                cmd.append("--no-solve")
            res = subprocess.run(cmd, check=True, capture_output=True, text=True)
            runs[key].append(json.loads(res.stdout))
    names = list(runs["A"][0])
    print("\nCPU seconds, median of the runs (wall-clock medians in brackets):")
    print(
        f"{'task':28} {'nodes':>10} {'A':>7} {'B':>7} {'B/A':>6} {'A Mn/s':>7} {'B Mn/s':>7}"
        f"  {'(wall A':>8} {'B)':>7}"
    )
    same = True
    for name in names:
        nodes = {k: {r[name][0] for r in runs[k]} for k in runs}
        if len(nodes["A"] | nodes["B"]) != 1:
            same = False
        n = runs["A"][0][name][0]
        med = {k: statistics.median(r[name][1] for r in runs[k]) for k in runs}
        wall = {k: statistics.median(r[name][2] for r in runs[k]) for k in runs}
        print(
            f"{name:28} {n:>10} {med['A']:7.3f} {med['B']:7.3f} {med['B'] / med['A']:6.3f}"
            f" {n / med['A'] / 1e6:7.2f} {n / med['B'] / 1e6:7.2f}"
            f"  ({wall['A']:7.3f} {wall['B']:7.3f})"
        )
        for k in runs:
            print(f"  {k} runs: " + " ".join(f"{r[name][1]:.3f}" for r in runs[k]))
    print("\nnodes: " + ("the same in every run of both builds" if same else "DIFFER"))


if __name__ == "__main__":
    main()
