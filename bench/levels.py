"""Time per move of each built-in level on this machine.

Each level plays ``--games`` Standard matches against itself (one random
first move from a seed, so the games differ) and every move and fill it
chooses is timed: the table gives the median, mean and slowest time per
move, and the same for the first move of each round (where the searches
are longest: every tower can still move).  Single-threaded, one game at a
time, so the figures are what one computer player costs a core; the times
are CPU time (``time.process_time``), so other work on the machine does
not inflate them.

    python bench/levels.py                       # every level, 2 matches each
    python bench/levels.py --levels expert,perfect --games 4
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

from kamisado.engine import clear_tables
from kamisado.engine.levels import LEVELS, player
from kamisado.rules.match import FILL, PLAYING, Match


def play(level: str, seed: int) -> tuple[list[float], list[float]]:
    """One Standard match of ``level`` against itself: the seconds of every
    choice, and of each round's first move."""
    rng = random.Random(seed)
    match = Match(3)
    match.push_move(rng.choice(list(match.position.legal_moves)))
    sides = (player(level, seed), player(level, seed + 1))
    every: list[float] = []
    firsts: list[float] = []
    while match.state in (PLAYING, FILL):
        if match.state == FILL:
            chooser = sides[match.current_winner()]
            t = time.process_time()
            match.choose_fill(chooser.choose_fill(match))
            every.append(time.process_time() - t)
            continue
        first = not match.current.moves
        t = time.process_time()
        move = sides[match.position.turn].choose_move(match.position)
        spent = time.process_time() - t
        every.append(spent)
        if first:
            firsts.append(spent)
        match.push_move(move)
    return every, firsts


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--levels", default=",".join(LEVELS), help="levels, comma-separated (default all)")
    ap.add_argument("--games", type=int, default=2, help="Standard matches per level (default 2)")
    ap.add_argument("--seed", type=int, default=2026, help="the first game's seed (default 2026)")
    args = ap.parse_args()
    print(f"{'level':10} {'moves':>6} {'median':>9} {'mean':>9} {'slowest':>9}"
          f" {'round start median':>19} {'slowest':>9}")
    for level in args.levels.split(","):
        every: list[float] = []
        firsts: list[float] = []
        for g in range(args.games):
            clear_tables()
            e, f = play(level, args.seed + 2 * g)
            every += e
            firsts += f
        print(f"{level:10} {len(every):6d} {statistics.median(every) * 1000:7.1f}ms"
              f" {statistics.fmean(every) * 1000:7.1f}ms {max(every) * 1000:7.0f}ms"
              f" {statistics.median(firsts) * 1000:17.1f}ms {max(firsts) * 1000:7.0f}ms", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
