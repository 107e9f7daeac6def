"""Round starts proven per CPU-hour by ``kamisado solve-match``'s search on
1 and 2 Dask workers of one machine, and the store's size per proven start.

Each run starts from the Standard match's first round start on a fresh
SQLite store, for ``--time`` seconds of wall clock, and prints the starts
proven, the tasks' CPU seconds (their threads' CPU time), starts per
CPU-hour (by the tasks' CPU and by workers x wall), the open set's size and
the store's bytes per start.  Compare the rows of one run; say the load.

    python bench/match_proof.py --time 90 --workers 1 2
"""

from __future__ import annotations

import argparse
import logging
import os
import tempfile

from distributed import Client, LocalCluster

from kamisado.proving.run import solve_match
from kamisado.proving.store import ProofStore
from kamisado.rules.board import start_kpn


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--time", type=float, default=90.0)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--target", type=int, default=3)
    args = ap.parse_args()
    root = start_kpn(args.target)
    for n in args.workers:
        with tempfile.TemporaryDirectory() as d:
            store = ProofStore(os.path.join(d, "p.sqlite"))
            with LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                              dashboard_address=None, silence_logs=logging.ERROR) as cl, Client(cl) as c:
                prog = solve_match(root, store, c, seconds=args.time)
            count, size = store.size(args.target)
            file_bytes = os.path.getsize(os.path.join(d, "p.sqlite"))
            print(
                f"workers {n}: proven {prog.proven} in {prog.wall:.0f} s, tasks {prog.tasks},"
                f" task CPU {prog.cpu:.0f} s, {3600 * prog.proven / max(prog.cpu, 1e-9):.0f}/CPU-h (tasks),"
                f" {3600 * prog.proven / (n * prog.wall):.0f}/CPU-h (workers x wall),"
                f" open {prog.open}, store {size / max(count, 1):.0f} B/start of text,"
                f" {file_bytes / max(count, 1):.0f} B/start of file",
                flush=True,
            )


if __name__ == "__main__":
    main()
