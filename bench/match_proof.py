"""Round starts proven per CPU-hour by ``kamisado solve-match``'s search on
1 and 2 Dask workers of one machine, and the store's size per proven start.

Each run starts from the Standard match's first round start on a fresh
SQLite store, for ``--time`` seconds of wall clock, and prints the starts
proven, the tasks' CPU seconds (their threads' CPU time), starts per
CPU-hour (by the tasks' CPU and by workers x wall), the open set's size and
the store's bytes per start, then the open set's growth (proven and open
every ``--every`` seconds) and the proven starts by state (score, who
opens, who wins).  Compare the rows of one run; say the load.  To compare
two versions of the search on the same time, run this script twice at
once with ``PYTHONPATH`` set to each checkout.

    python bench/match_proof.py --time 90 --workers 1 2
    python bench/match_proof.py --time 120 --workers 1 --store /tmp/proofs  # keep the stores
"""

from __future__ import annotations

import argparse
import logging
import os
import tempfile
from collections import Counter

from distributed import Client, LocalCluster

from kamisado.proving.run import Progress, solve_match
from kamisado.proving.store import ProofStore
from kamisado.rules.board import SIDE_NAMES, start_kpn
from kamisado.rules.position import Position


def states(store: ProofStore, target: int) -> str:
    """The proven starts by state: ``1-2 b opens: Gold 12`` ..."""
    c: Counter[str] = Counter()
    for s, w in store.load(target).items():
        p = Position(s)
        c[f"{p.points[0]}-{p.points[1]} {'bg'[p.turn]} opens: {SIDE_NAMES[w]}"] += 1
    return ", ".join(f"{k} {v}" for k, v in sorted(c.items(), reverse=True)) or "none"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--time", type=float, default=90.0)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--target", type=int, default=3)
    ap.add_argument("--every", type=float, default=30.0, help="seconds between the growth figures")
    ap.add_argument("--no-symmetry", action="store_true", help="search every image of a start apart")
    ap.add_argument("--store", help="a folder to keep the stores in (default: a temporary one)")
    args = ap.parse_args()
    root = start_kpn(args.target)
    for n in args.workers:
        with tempfile.TemporaryDirectory() as tmp:
            d = args.store or tmp
            os.makedirs(d, exist_ok=True)
            store = ProofStore(os.path.join(d, f"p{n}.sqlite"))
            growth: list[str] = []

            def mark(prog: Progress, growth: list[str] = growth) -> None:
                if prog.wall >= args.every * (len(growth) + 1):
                    growth.append(f"{prog.wall:.0f} s: {prog.proven} proven, {prog.open} open")

            with LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                              dashboard_address=None, silence_logs=logging.ERROR) as cl, Client(cl) as c:
                more = {"symmetry": False} if args.no_symmetry else {}
                prog = solve_match(root, store, c, seconds=args.time, on_progress=mark, **more)
            count, size = store.size(args.target)
            file_bytes = os.path.getsize(os.path.join(d, f"p{n}.sqlite"))
            print(
                f"workers {n}: proven {prog.proven} in {prog.wall:.0f} s, tasks {prog.tasks},"
                f" task CPU {prog.cpu:.0f} s, {3600 * prog.proven / max(prog.cpu, 1e-9):.0f}/CPU-h (tasks),"
                f" {3600 * prog.proven / (n * prog.wall):.0f}/CPU-h (workers x wall),"
                f" open {prog.open}, images {getattr(prog, 'twins', 0)}, store {size / max(count, 1):.0f} B/start of text,"
                f" {file_bytes / max(count, 1):.0f} B/start of file",
                flush=True,
            )
            print(f"  growth: {'; '.join(growth)}", flush=True)
            print(f"  proven: {states(store, args.target)}", flush=True)


if __name__ == "__main__":
    main()
