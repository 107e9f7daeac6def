"""Match play measured: two levels play Standard and Long matches from the
ladder's openings, each opening with both colours, and the points of every
round are counted.

For each level it prints, as the opener of a round (the loser of the round
before; Black in a match's first round):

* the points won per round it opened (0 for a round it lost; 1, 2, 4 or 8
  for a win with a plain, Sumo, Double or Triple tower), in all rounds and
  in the rounds after the first (where the towers have rings);
* how many of the rounds it opened it won with a Sumo tower or bigger;

and, per match type and in all, its match score with the 95% interval
(the normal approximation on the match results).

``--check LEVEL`` also checks that LEVEL never plays a move that lowers a
proven points value: before and after each of its moves the points solver
(:func:`kamisado.engine.solve_points`, ``--check-nodes`` each, a fresh
table) proves the round's value; where both are proven, the value after
the move (for the same side) must equal the value before.  Every lowering
is printed and counted.

Matches run in ``--jobs`` processes; ``--out`` keeps one JSON line per
match and ``--resume`` goes on from it, so a long run can stop and go on.

    python bench/match_play.py --standard 100 --long 60 --check perfect --out play.jsonl
    python bench/match_play.py --standard 4 --long 2 --jobs 2          # a quick look
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from kamisado import engine
from kamisado.engine.levels import LEVELS, player
from kamisado.engine.limits import Limit
from kamisado.rules.board import Move
from kamisado.rules.match import Match
from kamisado.rules.position import Position

TARGETS = {"standard": 3, "long": 7}


def points_value(pos: Position, nodes: int) -> int | None:
    """The round's proven value in points for the side to move (``None``
    when not proven in ``nodes``), on a fresh table."""
    if pos.outcome is not None:
        o = pos.outcome
        return o.points if o.winner == pos.turn else -o.points
    r = engine.Searcher().solve_points(pos, limit=Limit(nodes=nodes))
    return r.points


def check_move(pos: Position, move: Move, nodes: int) -> dict[str, Any] | None:
    """A record of ``move`` lowering the proven points value of ``pos``, or ``None``."""
    before = points_value(pos, nodes)
    if before is None:
        return None
    q = pos.copy(stack=False)
    q.push(move)
    after = points_value(q, nodes)
    if after is None:
        return None
    mine = after if q.outcome is not None or q.turn == pos.turn else -after
    if mine < before:
        return {"kpn": pos.kpn(), "move": str(move), "before": before, "after": mine}
    return None


def play_match(black: str, gold: str, kind: str, seed: int, random_plies: int,
               check: str | None, check_nodes: int) -> dict[str, Any]:
    """One match (``black`` holds Black in the first round): the result record."""
    rng = random.Random(seed // 2)  # games 2k and 2k+1 share their opening
    names = {0: black, 1: gold}
    players = {0: player(black, seed * 2 + 1), 1: player(gold, seed * 2 + 2)}
    m = Match(TARGETS[kind])
    plies = 0
    checked = 0
    lowered: list[dict[str, Any]] = []
    t0 = time.process_time()
    while m.state != "over":
        if m.state == "fill":
            winner = m.current_winner()
            m.choose_fill(players[winner].choose_fill(m))
            continue
        pos = m.position
        if len(m.rounds) == 1 and plies < random_plies:
            move = rng.choice(list(pos.legal_moves))
        else:
            move = players[pos.turn].choose_move(pos)
            if check is not None and names[pos.turn] == check:
                checked += 1
                bad = check_move(pos, move, check_nodes)
                if bad is not None:
                    lowered.append(bad)
                    print(f"LOWERED: {bad}", file=sys.stderr, flush=True)
        m.push_move(move)
        plies += 1
    assert m.winner is not None
    rounds = [
        {"opener": names[r.challenger], "winner": names[r.outcome.winner],
         "points": r.outcome.points, "rings": r.outcome.rings, "start": r.start.kpn()}
        for r in m.rounds if r.outcome is not None
    ]
    return {"black": black, "gold": gold, "type": kind, "seed": seed,
            "winner": names[m.winner], "points": list(m.points), "rounds": rounds,
            "checked": checked, "lowered": lowered,
            "cpu": round(time.process_time() - t0, 2)}


def schedule(a: str, b: str, counts: dict[str, int], seed: int) -> list[tuple[str, str, str, int]]:
    """(black, gold, type, seed) of every match: each opening twice, colours
    swapped; the types take turns, a pair of matches at a time, so a run
    stopped early has some of each.  A match's seed depends only on its type
    and number, so runs of different lengths share their first matches."""
    per_kind: list[list[tuple[str, str, str, int]]] = []
    for k, (kind, n) in enumerate(counts.items()):
        games = []
        for g in range(n):
            black, gold = (a, b) if g % 2 == 0 else (b, a)
            games.append((black, gold, kind, seed * 100_000 + k * 10_000 + g))
        per_kind.append(games)
    out: list[tuple[str, str, str, int]] = []
    for i in range(0, max((len(g) for g in per_kind), default=0), 2):
        for games in per_kind:
            out.extend(games[i:i + 2])
    return out


def interval(scores: list[float]) -> tuple[float, float]:
    """The mean of ``scores`` and its 95% half-width (normal approximation)."""
    n = len(scores)
    mean = sum(scores) / n
    if n < 2:
        return mean, float("nan")
    var = sum((s - mean) ** 2 for s in scores) / (n - 1)
    return mean, 1.96 * math.sqrt(var / n)


def report(done: Iterable[dict[str, Any]], levels: tuple[str, str]) -> str:
    """The table of figures of the finished matches."""
    done = list(done)
    lines = [f"{len(done)} matches"]
    lines.append("level      opened  pts/round  (after the first)  Sumo+ wins  won")
    for level in levels:
        opened = [r for d in done for r in d["rounds"] if r["opener"] == level]
        later = [r for d in done for r in d["rounds"][1:] if r["opener"] == level]
        pts = [r["points"] if r["winner"] == level else 0 for r in opened]
        pts_later = [r["points"] if r["winner"] == level else 0 for r in later]
        sumo = sum(1 for r in opened if r["winner"] == level and r["rings"] >= 1)
        won = sum(1 for r in opened if r["winner"] == level)
        per = sum(pts) / len(pts) if pts else float("nan")
        per_later = sum(pts_later) / len(pts_later) if pts_later else float("nan")
        lines.append(f"{level:10} {len(opened):6}  {per:9.3f}  {per_later:9.3f} ({len(later)})"
                     f"  {sumo:10}  {won}")
    a = levels[0]
    for kind in [*TARGETS, "all"]:
        scores = [1.0 if d["winner"] == a else 0.0 for d in done
                  if kind == "all" or d["type"] == kind]
        if not scores:
            continue
        mean, half = interval(scores)
        lines.append(f"{a} against {levels[1]}, {kind}: {sum(scores):g}/{len(scores)}"
                     f" = {100 * mean:.1f}% ± {100 * half:.1f}")
    checked = sum(d["checked"] for d in done)
    lowered = sum(len(d["lowered"]) for d in done)
    if checked:
        lines.append(f"moves checked: {checked}, lowering a proven points value: {lowered}")
    cpu = sum(d["cpu"] for d in done)
    lines.append(f"CPU time: {cpu:.0f} s")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--levels", default="perfect,expert", help="two levels: A,B")
    ap.add_argument("--standard", type=int, default=4, help="Standard matches (to 3)")
    ap.add_argument("--long", type=int, default=2, help="Long matches (to 7)")
    ap.add_argument("--random-plies", type=int, default=1,
                    help="random moves that open each match (the ladder's openings)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--check", default=None, metavar="LEVEL",
                    help="check that LEVEL never lowers a proven points value")
    ap.add_argument("--check-nodes", type=int, default=2_000_000)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--resume", action="store_true")
    args = ap.parse_args(argv)
    levels = tuple(args.levels.split(","))
    if len(levels) != 2 or any(lv not in LEVELS for lv in levels):
        ap.error(f"--levels: expected two of {', '.join(LEVELS)}, found {args.levels!r}")
    if args.check is not None and args.check not in levels:
        ap.error(f"--check: expected one of {args.levels}, found {args.check!r}")
    a, b = levels
    games = schedule(a, b, {"standard": args.standard, "long": args.long}, args.seed)
    done: list[dict[str, Any]] = []
    if args.resume and args.out is not None and args.out.exists():
        done = [json.loads(line) for line in args.out.read_text().splitlines() if line]
    have = {(d["black"], d["gold"], d["type"], d["seed"]) for d in done}
    todo = [g for g in games if g not in have]
    out = args.out.open("a" if args.resume else "w") if args.out is not None else None
    try:
        with ProcessPoolExecutor(args.jobs) as pool:
            futures = [pool.submit(play_match, *g, args.random_plies, args.check,
                                   args.check_nodes) for g in todo]
            for n, fut in enumerate(as_completed(futures), 1):
                d = fut.result()
                done.append(d)
                if out is not None:
                    out.write(json.dumps(d) + "\n")
                    out.flush()
                print(f"[{n}/{len(todo)}] {d['type']} {d['black']}-{d['gold']} seed {d['seed']}:"
                      f" {d['winner']} {d['points']} ({d['cpu']} s)", file=sys.stderr, flush=True)
    finally:
        if out is not None:
            out.close()
    print(report(done, (a, b)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
