"""The two engine cores side by side: compiled (C) and pure Python.

Prints, for each core this install has: the search's nodes per second and
the depth it completes in 1 s from the start and from two positions a few
moves in (a single round and a Sumo round), and the solver's time to prove
two small positions.  Both cores search the same tree (the same nodes for
the same depth), so nodes per second compare them directly.

    python bench/backends.py            # best of 3 runs per figure
    python bench/backends.py --quick    # one run each

Timings are wall-clock and noisy on a shared machine.
"""

from __future__ import annotations

import argparse
import time
from types import ModuleType
from typing import Any

from kamisado.args import duration, duration_help
from kamisado.engine._pure import engine as _pyengine
from kamisado.rules.board import START_KPN

SEARCHES = [
    ("start", START_KPN),
    # two moves in (Kamisado is tactical: later positions are proven at once)
    ("middle game (2 moves in)", "obupyrg1/8/8/4P2n/8/8/8/NGRY1UBO b y 1 0 0"),
    ("Sumo round (2 moves in)", "obupyrg1/8/8/N7/8/8/1n6/1GRYPU+BO+ g p 3 2 0"),
]
SOLVES = [
    ("Black wins in 11", "1pyrgn2/o3u3/7b/8/2R1N3/8/6G1/3YPUBO b b 1 0 0"),
    ("after a1-a5: Black wins in 16", "obupyrgn/8/8/N7/8/8/8/1GRYPUBO g p 1 0 0"),
]


def cores() -> list[tuple[str, ModuleType]]:
    out: list[tuple[str, ModuleType]] = []
    try:
        from kamisado.engine import _ckamisado

        out.append(("compiled", _ckamisado))
    except ImportError:
        print("(the compiled core is not built here)")
    out.append(("python", _pyengine))
    return out


def best_search(core: Any, kpn: str, ms: float, reps: int) -> dict[str, Any]:
    """The run that got deepest (then the most nodes) of ``reps`` runs."""
    runs = [core.search(core.Position(kpn), time_ms=ms) for _ in range(reps)]
    return max(runs, key=lambda r: (r["depth"], r["nodes"] / r["seconds"]))


def bench(reps: int, ms: float) -> None:
    found = cores()
    print(f"search, {ms / 1000:g} s (best of {reps}):")
    print(f"  {'core':9} {'position':30} {'depth':>5} {'nodes':>9} {'nodes/s':>10}")
    speed: dict[tuple[str, str], float] = {}
    for name, kpn in SEARCHES:
        for label, core in found:
            r = best_search(core, kpn, ms, reps)
            nps = r["nodes"] / r["seconds"]
            speed[label, name] = nps
            print(f"  {label:9} {name:30} {r['depth']:5d} {r['nodes']:9d} {nps:10,.0f}")
    if len(found) == 2:
        for name, _ in SEARCHES:
            ratio = speed["compiled", name] / speed["python", name]
            print(f"  compiled/python speed, {name}: {ratio:.0f}x")
    print(f"solver (best of {reps}):")
    for name, kpn in SOLVES:
        for label, core in found:
            times = []
            for _ in range(reps):
                core.clear_tt()
                t0 = time.perf_counter()
                r = core.solve(core.Position(kpn))
                times.append(time.perf_counter() - t0)
            nodes = r["nodes"] + r["pv_nodes"]
            print(
                f"  {label:9} {name:30} {min(times):8.3f} s {nodes:9d} nodes"
                f"  result {r['result']:+d} in {r['distance']}"
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="one run per figure")
    ap.add_argument("--ms", type=duration("ms"), default=1000.0,
                    help=f"search time in {duration_help('ms')} (default 1000 ms)")
    args = ap.parse_args()
    bench(1 if args.quick else 3, args.ms)


if __name__ == "__main__":
    main()
