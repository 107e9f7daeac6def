"""Benchmark of the compiled core, search and solver.

Prints, for fixed positions: the search's depth reached in 1 s, its nodes
and nodes/s, and the solver's answer; then the time to prove the single
round from the start (a first-player win) and perft speed.

    python bench/search.py            # the whole benchmark
    python bench/search.py --quick    # fewer repetitions
    python bench/search.py --first-moves  # solve all 102 first moves (~15 s)
    python bench/search.py --prove-start 10  # only the proof of the start, 10 times

Timings are wall-clock and noisy on a shared machine; each figure is the
best (and the median) of several runs.
"""

from __future__ import annotations

import argparse
import statistics
import time

from kamisado import engine
from kamisado.engine._backend import impl as C
from kamisado.rules.board import SIDE_NAMES, START_KPN
from kamisado.rules.position import Position

POSITIONS = [
    ("opening (start)", START_KPN),
    ("after a1-a5", "obupyrgn/8/8/N7/8/8/8/1GRYPUBO g p 1 0 0"),
    ("middle game (rulebook fig. 2)", "3pyrgn/3u4/8/2R5/4G1Y1/ob6/8/N3PUBO b b 3 0 0"),
    ("Sumo (round 2 start)", "obupyrgn/8/8/8/8/8/8/NGRYPU+BO+ g - 3 2 0"),
    ("Double/Triple", "o+bu++pyrg+n/8/8/8/8/8/8/N++GRY+++PUBO b - 15 10 5"),
    ("pass-heavy", "8/8/8/2G2p++o+1/3U1y+R1/Bg++brNOun+/5P1Y/8 b p 15 0 9"),
]


def bench_search(reps: int) -> None:
    print(f"search, 1 s per position (best of {reps}):")
    print(f"  {'position':32} {'depth':>5} {'nodes':>10} {'knodes/s':>9}  score")
    for name, kpn in POSITIONS:
        best: engine.SearchResult | None = None
        speeds = []
        for _ in range(reps):
            r = engine.search(kpn, time_ms=1000)
            speeds.append(r.nodes_per_second)
            if best is None or (r.depth, r.nodes) > (best.depth, best.nodes):
                best = r
        assert best is not None
        first = next(
            (it.depth for it in best.iterations if abs(it.score) > engine.WIN_BASE), 0
        )
        if best.proven_win_in is not None:
            note = f"proven win in {best.proven_win_in} (at depth {first})"
        elif best.proven_loss_in is not None:
            note = f"proven loss in {best.proven_loss_in} (at depth {first})"
        else:
            note = str(best.score)
        print(
            f"  {name:32} {best.depth:5d} {best.nodes:10d}"
            f" {statistics.median(speeds) / 1000:9.0f}  {note}"
        )


def bench_depth13(reps: int) -> None:
    for label, kpn, depth in (("after a1-a5", POSITIONS[1][1], 13),
                              ("from the start", START_KPN, 12)):
        times = []
        for _ in range(reps):
            r = engine.search(kpn, depth=depth)
            times.append(r.seconds)
        print(
            f"search to depth {depth} {label}: best {min(times):.3f} s,"
            f" median {statistics.median(times):.3f} s ({r.nodes} nodes)"
        )


def bench_solve_positions() -> None:
    print("solver, 10 s per position:")
    for name, kpn in POSITIONS[1:]:
        C.clear_tt()
        r = engine.solve(kpn, time_limit=10.0)
        if r.winner is None:
            what = f"unknown (horizon {r.depth} moves)"
        else:
            what = f"{SIDE_NAMES[r.winner]} wins in {r.distance}"
        rate = r.nodes / r.seconds / 1000 if r.seconds else 0.0
        print(
            f"  {name:32} {what:28} {r.seconds:6.2f} s {r.nodes:10d} nodes {rate:6.0f} kn/s"
        )


def bench_prove_start(reps: int) -> None:
    times = []
    cpu = []
    res = None
    for _ in range(reps):
        C.clear_tt()
        c0 = time.process_time()
        t0 = time.perf_counter()
        res = engine.solve(START_KPN)
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    assert res is not None and res.winner is not None
    print(
        f"prove the start: {SIDE_NAMES[res.winner]} wins in {res.distance};"
        f" best {min(times):.3f} s, median {statistics.median(times):.3f} s"
        f" (CPU: best {min(cpu):.3f} s, median {statistics.median(cpu):.3f} s),"
        f" {res.nodes} nodes ({res.nodes / min(times) / 1e6:.2f} M nodes/s)"
    )
    print("  first move", res.best_move, "PV", " ".join(str(m) for m in res.pv))


def bench_perft(reps: int) -> None:
    p = C.Position()
    times = []
    n = 0
    for _ in range(reps):
        t0 = time.perf_counter()
        n = p.perft(6)
        times.append(time.perf_counter() - t0)
    t = min(times)
    print(f"perft(6) from the start: {n} in {t:.3f} s ({n / t / 1e6:.0f} M leaves/s)")
    q = Position()
    t0 = time.perf_counter()
    q.perft(4)
    tq = time.perf_counter() - t0
    t0 = time.perf_counter()
    p.perft(4)
    tc = time.perf_counter() - t0
    print(f"perft(4): core.py {tq:.3f} s, compiled {tc:.5f} s ({tq / tc:.0f}x)")


def bench_first_moves() -> None:
    t0 = time.perf_counter()
    vals = engine.solve_moves(Position(), time_limit=60.0)
    secs = time.perf_counter() - t0
    wins = [v for v in vals if v.winner == 0]
    print(f"all {len(vals)} first moves solved in {secs:.1f} s; {len(wins)} win for Black:")
    for v in vals:
        who = "unknown" if v.winner is None else SIDE_NAMES[v.winner]
        print(f"  {v.move}  {who} wins in {v.distance}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="one run of each")
    ap.add_argument("--first-moves", action="store_true", help="solve every first move")
    ap.add_argument(
        "--prove-start", type=int, metavar="N", help="only prove the start, N times (fresh tables)"
    )
    args = ap.parse_args()
    if args.first_moves:
        bench_first_moves()
        return
    if args.prove_start:
        bench_prove_start(args.prove_start)
        return
    reps = 1 if args.quick else 3
    bench_prove_start(reps)
    bench_depth13(reps)
    bench_search(reps)
    bench_solve_positions()
    bench_perft(reps)


if __name__ == "__main__":
    main()
