"""The page's engine (WebAssembly in a Web Worker, in Chromium) against the
native one (the same C core through the Python extension): the same
searches and perfts, timed in one run, nodes per second of each and their
ratio, and the size of ``kamisado.wasm`` (raw and gzipped).

Starts the site on a free port, opens Debian's Chromium (headless) on it,
and runs each task ``--reps`` times in the page and natively, alternating;
prints the best of each (the least disturbed on a shared machine) and the
median.  Both count the very same nodes (checked).  Seconds are those the
core measures around its own work (the search's clock; perft by the
caller's), so the worker's message round trip is not counted.

    python bench/wasm.py
    python bench/wasm.py --reps 5
"""

from __future__ import annotations

import argparse
import gzip
import statistics
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kamisado import engine  # noqa: E402
from kamisado.web.site.live import LiveServer  # noqa: E402

WASM = Path(__file__).resolve().parent.parent / "kamisado" / "web" / "static" / "engine" / "kamisado.wasm"
START = "obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 1 0 0"
SEARCHES = [
    ("search 12, start", START, 12),
    ("search 10, Sumo round 2", "obupyrgn/8/8/8/8/8/8/NGRYPU+BO+ g - 3 2 0", 10),
    ("search 13, Double/Triple", "o+bu++pyrg+n/8/8/8/8/8/8/N++GRY+++PUBO b - 15 10 5", 13),
]
PERFTS = [("perft 6, start", START, 6)]
CHROMIUM = "/usr/bin/chromium"


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=3, help="runs of each task on each side (3)")
    args = ap.parse_args(argv)
    raw = WASM.read_bytes()
    print(f"kamisado.wasm: {len(raw)} bytes, {len(gzip.compress(raw, 9))} gzipped")
    with tempfile.TemporaryDirectory() as tmp:
        live = LiveServer(Path(tmp) / "bench.sqlite3")
        url = live.start()
        try:
            with sync_playwright() as p:
                b = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                      args=["--no-sandbox", "--disable-gpu"])
                pg = b.new_page()
                pg.goto(url + "/")
                pg.evaluate("async () => { window.eng = await import('/static/js/engine.js'); }")
                pg.evaluate("(k) => eng.perft(k, 1)", START)  # the worker started
                print(f"{'task':28} {'nodes':>10} {'wasm M/s':>9} {'native M/s':>10} {'ratio':>6}"
                      f"   (best of {args.reps}; medians {'wasm':>5} / native)")
                for name, kpn, depth in SEARCHES + PERFTS:
                    is_perft = name.startswith("perft")
                    web, nat = [], []
                    nodes = 0
                    for _ in range(args.reps):
                        if is_perft:
                            t = pg.evaluate(
                                "async ([k, d]) => { const t0 = performance.now();"
                                " const n = await eng.perft(k, d); return [n, (performance.now() - t0) / 1000]; }",
                                [kpn, depth])
                            t0 = time.perf_counter()
                            n_native = engine.perft(kpn, depth)
                            nat.append(n_native / (time.perf_counter() - t0))
                            nodes = int(t[0])
                            web.append(t[0] / t[1])
                        else:
                            r = pg.evaluate("async ([k, d]) => { const r = await eng.search(k, {depth: d});"
                                            " return [r.nodes, r.seconds]; }", [kpn, depth])
                            s = engine.search(kpn, depth=depth)
                            n_native = s.nodes
                            nat.append(s.nodes / s.seconds)
                            nodes = int(r[0])
                            web.append(r[0] / r[1])
                        if nodes != n_native:
                            print(f"{name}: the page counted {nodes} nodes, native {n_native}")
                            return 1
                    bw, bn = max(web) / 1e6, max(nat) / 1e6
                    print(f"{name:28} {nodes:>10} {bw:>9.2f} {bn:>10.2f} {bw / bn:>6.2f}"
                          f"   {statistics.median(web) / 1e6:>5.2f} / {statistics.median(nat) / 1e6:.2f}")
                b.close()
        finally:
            live.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
