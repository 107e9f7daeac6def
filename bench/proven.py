"""How often the solver proves a round's start within a move's time.

Plays matches between two levels (the ladder's games: ``bench/ladder.py``'s
``play_game`` rules, seeded, colours swapped), keeps every round start after
the first (the Sumo rounds: the first round of every match starts from the
same line-up), then times the solver on each start, in each mode, in one
run:

``exact``
    ``engine.solve(pos)``: who wins and in how many moves (the shortest win,
    the longest resistance), as before.
``winner``
    ``engine.solve(pos, exact=False)``: who wins, with a winning move, but
    not the distance.

and prints, per match type, the share of starts proven within 1 s, 5 s and
30 s (``--limits``), and the time to prove the single round from the start
in both modes.

    python bench/proven.py                          # 12 starts per type
    python bench/proven.py --starts 20 --save starts.txt
    python bench/proven.py --load bench/proven_starts.txt   # the README's table

Each solve runs on a fresh :class:`kamisado.engine.Searcher` (empty
tables), so a start's time does not depend on the ones before it.  Times are
CPU time (``time.process_time()``: the solver is single-threaded), so other
work on the machine slows a run down without moving its figures much; the
solver's own limit is wall clock, set to ``--slack`` times the largest
limit so that a loaded machine does not cut a solve short of its CPU time.
Compare the columns of one run.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

from kamisado import engine
from kamisado.args import duration, duration_help
from kamisado.engine.levels import player
from kamisado.engine.limits import Limit
from kamisado.rules.match import Match
from kamisado.rules.position import Position

TARGETS = {"standard": 3, "long": 7, "marathon": 15}
MODES = {"exact": True, "winner": False}


def round_starts(kind: str, count: int, level: str, seed: int) -> list[str]:
    """KPNs of the starts of rounds 2, 3, ... of seeded matches of ``level``
    against itself, until ``count`` are found."""
    found: list[str] = []
    game = 0
    while len(found) < count:
        rng = random.Random(f"{seed}:{kind}:{game}")
        players = {0: player(level, seed * 1000 + 2 * game), 1: player(level, seed * 1000 + 2 * game + 1)}
        m = Match(TARGETS[kind])
        first = True
        while m.state != "over" and len(found) < count:
            if m.state == "fill":
                winner = m.rounds[-1].outcome.winner  # type: ignore[union-attr]
                m.choose_fill(players[winner].choose_fill(m))
                found.append(m.position.kpn())
                continue
            pos = m.position
            move = rng.choice(list(pos.legal_moves)) if first else players[pos.turn].choose_move(pos)
            first = False
            m.push_move(move)
        game += 1
    return found


def time_to_prove(kpn: str, exact: bool, most: float, slack: float = 1.25) -> float | None:
    """CPU seconds the solver needs to prove ``kpn`` on fresh tables,
    ``None`` when not within ``most`` CPU seconds (the solve itself stops
    after ``slack * most`` seconds of wall clock)."""
    s = engine.Searcher()
    t0 = time.process_time()
    r = s.solve(kpn, limit=Limit(time=most * slack), pv=False, exact=exact)
    secs = time.process_time() - t0
    return secs if r.winner is not None and secs <= most else None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--types", default="standard,long,marathon")
    ap.add_argument("--starts", type=int, default=12, help="round starts per match type")
    ap.add_argument("--level", default="strong", help="the level that plays the matches")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--limits", default="1,5,30",
                    help=f"the time limits, comma-separated, each in {duration_help('s')}")
    ap.add_argument("--modes", default="exact,winner")
    ap.add_argument("--slack", type=float, default=1.25, help="wall-clock limit of a solve over the largest CPU limit")
    ap.add_argument("--save", type=Path, help="write the starts (type<TAB>KPN) here")
    ap.add_argument("--load", type=Path, help="read the starts from here instead of playing")
    args = ap.parse_args(argv)
    try:
        limits = [duration("s")(x) for x in args.limits.split(",")]
    except argparse.ArgumentTypeError as e:
        ap.error(f"--limits: {e}")
    modes = args.modes.split(",")
    for mode in modes:
        if mode not in MODES:
            ap.error(f"unknown mode {mode!r} (expected {', '.join(MODES)})")
    starts: dict[str, list[str]] = {}
    if args.load:
        for line in args.load.read_text().splitlines():
            kind, _, kpn = line.partition("\t")
            starts.setdefault(kind, []).append(kpn)
    else:
        for kind in args.types.split(","):
            if kind not in TARGETS:
                ap.error(f"unknown match type {kind!r} (expected {', '.join(TARGETS)})")
            starts[kind] = round_starts(kind, args.starts, args.level, args.seed)
            print(f"{kind}: {len(starts[kind])} round starts", file=sys.stderr)
        if args.save:
            args.save.write_text("".join(f"{k}\t{kpn}\n" for k, v in starts.items() for kpn in v))

    print("single round from the start (fresh tables, CPU time, best of 3):")
    for mode in modes:
        times = []
        for _ in range(3):
            t = time_to_prove(Position().kpn(), MODES[mode], 60.0, args.slack)
            assert t is not None
            times.append(t)
        print(f"  {mode:7} best {min(times):.3f} s, median {statistics.median(times):.3f} s")

    header = "  ".join(f"{mode} {lim:g} s" for mode in modes for lim in limits)
    print(f"\nshare of round starts (rounds 2 on) proven in CPU time, per match type:\n  {'type':9} {'n':>3}  {header}")
    for kind, kpns in starts.items():
        cells = []
        for mode in modes:
            times = []
            for n, kpn in enumerate(kpns, 1):
                times.append(time_to_prove(kpn, MODES[mode], max(limits), args.slack))
                print(f"  {kind} {mode} {n}/{len(kpns)}: {times[-1]}", file=sys.stderr, flush=True)
            for lim in limits:
                k = sum(1 for t in times if t is not None and t <= lim)
                cells.append(f"{k:>3}/{len(kpns)} {100 * k / len(kpns):3.0f}%")
        print(f"  {kind:9} {len(kpns):>3}  {'  '.join(cells)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
