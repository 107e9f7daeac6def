"""The level ladder: the built-in levels play each other and get Elo ratings.

Every pair of levels (adjacent ones by default, ``--pairs all`` for all)
plays ``--games`` games of each match type, colours swapped every game. A
game is a whole match (a single round, or a Standard, Long or Marathon
match with Sumos and fill choices), scored 1 for the match winner. Each game
opens with ``--random-plies`` random moves from a seed, so games differ;
every game is replayable from the seed printed in ``--out`` (JSON lines:
level of Black in the first round, level of Gold, match type, seed, winner).

    python bench/ladder.py                         # adjacent pairs, single rounds + Standard
    python bench/ladder.py --types single,standard,long,marathon --games 8
    python bench/ladder.py --resume ladder.jsonl   # add to earlier results

Prints the Elo table (beginner fixed at 0) with 95% error bars, then
the cross table; ``--jobs`` games run at once in separate processes.
``--chart FILE`` also draws the ladder as an SVG chart (each level's Elo
with its error bar, :func:`kamisado.graph.elo_svg`).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from kamisado.elo import elo_table, format_table
from kamisado.graph import elo_svg
from kamisado.match import Match
from kamisado.players import LEVELS, player

TARGETS = {"single": 1, "standard": 3, "long": 7, "marathon": 15}


def play_game(first: str, second: str, kind: str, seed: int, random_plies: int) -> dict[str, object]:
    """One match: ``first`` holds Black, ``second`` Gold.  Returns the result record."""
    rng = random.Random(seed // 2)  # games 2k and 2k+1 share their opening
    players = {0: player(first, seed * 2 + 1), 1: player(second, seed * 2 + 2)}
    m = Match(TARGETS[kind])
    moves = 0
    t0 = time.perf_counter()
    while m.state != "over":
        if m.state == "fill":
            winner = m.rounds[-1].outcome.winner  # type: ignore[union-attr]
            m.choose_fill(players[winner].choose_fill(m))
            continue
        pos = m.position
        if len(m.rounds) == 1 and moves < random_plies:
            move = rng.choice(list(pos.legal_moves))
        else:
            move = players[pos.turn].choose_move(pos)
        m.push_move(move)
        moves += 1
    assert m.winner is not None
    return {
        "black": first, "gold": second, "type": kind, "seed": seed,
        "winner": "b" if m.winner == 0 else "g", "points": list(m.points),
        "rounds": len(m.rounds), "moves": moves, "seconds": round(time.perf_counter() - t0, 2),
    }


def schedule(levels: list[str], pairs: str, types: list[str], games: int, seed: int
             ) -> list[tuple[str, str, str, int]]:
    """The games to play: (black, gold, type, seed)."""
    if pairs == "adjacent":
        pairings = list(zip(levels, levels[1:], strict=False))
    else:
        pairings = [(a, b) for i, a in enumerate(levels) for b in levels[i + 1:]]
    out = []
    for a, b in pairings:
        for kind in types:
            for g in range(games):  # each opening twice, colours swapped
                black, gold = (a, b) if g % 2 == 0 else (b, a)
                out.append((black, gold, kind, seed * 100_000 + len(out)))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--levels", default=",".join(LEVELS))
    ap.add_argument("--pairs", choices=["adjacent", "all"], default="adjacent")
    ap.add_argument("--types", default="single,standard")
    ap.add_argument("--games", default="10",
                    help="games per pair and match type: N, or type=N,... (even: colours swap)")
    ap.add_argument("--random-plies", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", type=Path, default=Path("ladder.jsonl"))
    ap.add_argument("--resume", action="store_true", help="keep the games already in --out")
    ap.add_argument("--chart", type=Path, default=None, metavar="FILE",
                    help="also write the ladder as an SVG chart (Elo with error bars)")
    args = ap.parse_args(argv)
    levels = args.levels.split(",")
    types = args.types.split(",")
    for name in levels:
        if name not in LEVELS:
            ap.error(f"unknown level {name!r}")
    for kind in types:
        if kind not in TARGETS:
            ap.error(f"unknown match type {kind!r} (expected {', '.join(TARGETS)})")
    done: list[dict[str, object]] = []
    if args.resume and args.out.exists():
        done = [json.loads(line) for line in args.out.read_text().splitlines() if line]
    have = {(d["black"], d["gold"], d["type"], d["seed"]) for d in done}
    counts = {k: int(v) for k, _, v in (x.partition("=") for x in args.games.split(","))} \
        if "=" in args.games else dict.fromkeys(types, int(args.games))
    todo = []
    for kind in types:
        todo += [g for g in schedule(levels, args.pairs, [kind], counts.get(kind, 0), args.seed)
                 if g not in have]
    print(f"{len(done)} games kept, {len(todo)} to play", file=sys.stderr)
    with args.out.open("a") as out, ProcessPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(play_game, *g, args.random_plies) for g in todo]
        for n, fut in enumerate(as_completed(futures), 1):
            rec = fut.result()
            done.append(rec)
            out.write(json.dumps(rec) + "\n")
            out.flush()
            print(f"{n}/{len(todo)} {rec['type']:9} {rec['black']:>8} vs {rec['gold']:<8}"
                  f" -> {rec['winner']} {rec['points']} in {rec['seconds']} s", file=sys.stderr)
    results = []
    for d in done:
        if d["type"] not in types:
            continue
        black, gold = str(d["black"]), str(d["gold"])
        results.append((black, gold, 1.0 if d["winner"] == "b" else 0.0))
    by_type: dict[str, int] = {}
    for d in done:
        by_type[str(d["type"])] = by_type.get(str(d["type"]), 0) + 1
    print(f"{len(results)} games ({', '.join(f'{k} {v}' for k, v in by_type.items())})")
    anchor = levels[0]
    ratings = elo_table(results, anchor=anchor)
    for r in ratings:
        print(f"  {r.name:10} {r.elo:+7.0f} +/- {r.error:4.0f}   {r.score:5.1f}/{r.games}")
    print()
    print(format_table(results, anchor=anchor))
    if args.chart is not None:
        title = f"Level ladder: {len(results)} games, {anchor} at 0"
        args.chart.write_text(elo_svg(ratings, title=title) + "\n", encoding="utf-8")
        print(f"chart: {args.chart}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
