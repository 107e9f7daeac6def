"""The solver on both engine cores: list the positions where they differ.

The compiled core and its pure-Python twin must search the very same nodes
(docs/engine-core.md).  This runs the solver on both over seeded positions
a few moves before the end of random rounds (single and Sumo rounds, from
``tests/test_pyengine.late_positions``) and of random line-ups with Sumo,
Double and Triple towers (``tests/test_solve_points.near_end_positions``),
and prints every position whose result, distance, best move, line, depth or
node count differs, with the differing fields (compiled first)::

    python tools/compare_cores.py                       # the exact solver
    python tools/compare_cores.py --mode winner         # who wins (df-pn)
    python tools/compare_cores.py --mode points --late 50 --playouts 10

A position the compiled core cannot solve within ``--max-nodes`` is skipped
(the Python core would take minutes).  The last line counts the positions
compared and those that differ; the exit status is 1 when some differ.
It uses the tests' position helpers (tests/ of this checkout).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the tests' helpers, this kamisado

from kamisado.engine._pure import engine as P  # noqa: E402

try:
    from kamisado.engine import _ckamisado as C  # noqa: E402
except ImportError:  # pragma: no cover - no compiled core
    sys.exit("compare_cores: the compiled core is not built (python setup.py build_ext --inplace)")

from tests.test_pyengine import late_positions  # noqa: E402
from tests.test_solve_points import near_end_positions  # noqa: E402

#: What each core's solve must agree on.
KEYS = ("result", "distance", "best_move", "pv", "pv_nodes", "nodes", "depth", "points")

MODES = {
    "exact": {"exact": True},
    "winner": {"exact": False},
    "points": {"exact": False, "points": True},
}


def compare(kpn: str, mode: str, max_nodes: int) -> list[tuple[str, Any, Any]] | None:
    """The fields that differ between the cores' solves of ``kpn`` (compiled,
    Python), or None when the compiled core needs more than ``max_nodes``.

    >>> compare("3py2n/3u3g/8/2R5/4G1Y1/1b4U1/o3Pr1B/N6O g p 3 0 0", "exact", 10_000)
    []
    """
    kw = MODES[mode]
    probe = C.Searcher().solve(C.Position(kpn), node_limit=max_nodes, pv=False, **kw)
    if probe["stopped"]:
        return None
    c = C.Searcher().solve(C.Position(kpn), **kw)
    p = P.Searcher().solve(P.Position(kpn), **kw)
    return [(k, c[k], p[k]) for k in KEYS if c[k] != p[k]]


def main(argv: list[str] | None = None) -> int:
    """Compare the cores over the seeded positions; 1 when some differ."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mode", choices=sorted(MODES), default="exact", help="which solver (exact)")
    ap.add_argument("--late", type=int, default=300, help="late positions of random rounds (300)")
    ap.add_argument("--playouts", type=int, default=40, help="random Sumo line-ups played out (40)")
    ap.add_argument("--seed", type=int, default=1, help="the positions' seed (1)")
    ap.add_argument("--max-nodes", type=int, default=50_000,
                    help="skip a position the compiled core needs more nodes for (50000)")
    a = ap.parse_args(argv)
    positions = late_positions(a.late, seed=a.seed) if a.late else []
    if a.playouts:
        positions += [kpn for kpn, _ in near_end_positions(a.seed, a.playouts, 20_000)]
    compared = differ = skipped = 0
    for kpn in dict.fromkeys(positions):
        diff = compare(kpn, a.mode, a.max_nodes)
        if diff is None:
            skipped += 1
            continue
        compared += 1
        if diff:
            differ += 1
            print(kpn, " ".join(f"{k}: {c} != {p}" for k, c, p in diff), flush=True)
    print(f"{a.mode}: {compared} positions compared, {differ} differ, {skipped} skipped"
          f" (over {a.max_nodes} nodes)")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
