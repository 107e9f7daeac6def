"""The level ladder: the built-in levels play each other and get Elo ratings.

Every pair of levels (adjacent ones by default, ``--pairs all`` for all)
plays ``--games`` games of each match type, colours swapped every game. A
game is a whole match (a single round, or a Standard, Long or Marathon
match with Sumos and fill choices), scored 1 for the match winner. Each game
opens with ``--random-plies`` random moves from a seed, so games differ;
every game is replayable from the seed printed in ``--out`` (JSON lines:
level of Black in the first round, level of Gold, match type, seed, winner,
and ``round_log``: each round's opener, winner, the winning tower's rings,
start KPN and moves).  After the Elo table it prints, per level, how many
of the rounds after the first it won as their opener (every Sumo round
start proven so far is won for its opener).

    python bench/ladder.py                         # adjacent pairs, single rounds + Standard
    python bench/ladder.py --types single,standard,long,marathon --games 8
    python bench/ladder.py --resume ladder.jsonl   # add to earlier results
    python bench/ladder.py --levels club,strong --pairs tuned --weights threat=20,advance=25 \\
        --random-plies 3

A level named ``LEVEL+tuned`` plays as ``LEVEL`` with the evaluation
weights of ``--weights`` (``name=value,...`` over the defaults of
``kamisado.engine.Weights``, or a JSON file such as the ``--out`` of
``tools/tune_weights.py``); ``--pairs tuned`` plays each level of
``--levels`` against its ``+tuned`` twin and prints, for each pair, the
twin's score and Elo difference with its 95% interval.  The levels are
nearly deterministic once the opening is set (one random first move gives
only about 100 openings, replayed again and again), so compare twins with
``--random-plies 3`` or more, or the interval is far too narrow.

Prints the Elo table (beginner fixed at 0) with 95% error bars, then
the cross table; ``--jobs`` games run at once in separate processes.
``--chart FILE`` also draws the ladder as an SVG chart (each level's Elo
with its error bar, :func:`kamisado.pictures.graph.elo_svg`).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

from kamisado import engine
from kamisado.engine.levels import LEVELS, Player, player
from kamisado.pictures.graph import elo_svg
from kamisado.protocol.elo import elo_table, format_table
from kamisado.rules.board import Move
from kamisado.rules.match import Match
from kamisado.rules.position import Position

TARGETS = {"single": 1, "standard": 3, "long": 7, "marathon": 15}
#: The suffix of a level that plays with the ``--weights`` evaluation weights.
TUNED = "+tuned"


def parse_weights(text: str) -> engine.Weights:
    """``--weights``: ``name=value,...`` over the default weights, or a JSON file.

    The file holds the names and values, at the top or under ``"weights"``
    (as ``tools/tune_weights.py --out`` writes them).

    >>> parse_weights("threat=20,advance=25").as_tuple()
    (20, 6, 1000, 7, 25, 47, 0)
    """
    path = Path(text)
    if "=" not in text and path.exists():
        data = json.loads(path.read_text())
        values = data.get("weights", data)
    else:
        values = {}
        for item in text.split(","):
            name, eq, value = item.partition("=")
            if not eq:
                raise ValueError(f"expected name=value, found {item!r}")
            values[name.strip()] = value
    names = {f.name for f in fields(engine.Weights)}
    unknown = set(values) - names
    if unknown:
        raise ValueError(f"unknown weights {', '.join(sorted(unknown))}"
                         f" (expected {', '.join(sorted(names))})")
    return replace(engine.DEFAULT_WEIGHTS, **{k: int(v) for k, v in values.items()})


class WeightedPlayer:
    """A level that searches with other evaluation weights (``LEVEL+tuned``).

    The level's own policy runs unchanged while :func:`kamisado.engine.search`
    is given ``weights`` (keeping the level's ``noise``): every search of
    its moves and fill choices, and nothing else, sees them.
    """

    def __init__(self, level: str, seed: int, weights: engine.Weights) -> None:
        self.inner: Player = player(level, seed)
        self.weights = weights

    @contextmanager
    def _weighted(self) -> Iterator[None]:
        search: Callable[..., engine.SearchResult] = engine.search

        def weighted(*args: Any, weights: engine.Weights | None = None,
                     **kwargs: Any) -> engine.SearchResult:
            noise = weights.noise if weights is not None else 0
            return search(*args, weights=replace(self.weights, noise=noise), **kwargs)

        engine.search = weighted
        try:
            yield
        finally:
            engine.search = search

    def choose_move(self, pos: Position) -> Move:
        with self._weighted():
            return self.inner.choose_move(pos)

    def choose_fill(self, match: Match) -> str:
        with self._weighted():
            return self.inner.choose_fill(match)


def make_player(name: str, seed: int, weights: engine.Weights | None = None
                ) -> Player | WeightedPlayer:
    """The player of a level name (``LEVEL+tuned``: with ``weights``)."""
    if name.endswith(TUNED):
        if weights is None:
            raise ValueError(f"{name}: give --weights for a {TUNED} level")
        return WeightedPlayer(name[: -len(TUNED)], seed, weights)
    return player(name, seed)


def play_game(first: str, second: str, kind: str, seed: int, random_plies: int,
              weights: engine.Weights | None = None) -> dict[str, object]:
    """One match: ``first`` holds Black, ``second`` Gold.  Returns the result record."""
    rng = random.Random(seed // 2)  # games 2k and 2k+1 share their opening
    players = {0: make_player(first, seed * 2 + 1, weights),
               1: make_player(second, seed * 2 + 2, weights)}
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
    rec: dict[str, object] = {
        "black": first, "gold": second, "type": kind, "seed": seed,
        "winner": "b" if m.winner == 0 else "g", "points": list(m.points),
        "rounds": len(m.rounds), "moves": moves, "seconds": round(time.perf_counter() - t0, 2),
    }
    if weights is not None and TUNED in first + second:
        rec["weights"] = list(weights.as_tuple())
    # each round: who opened it, who won it, the winner's points, its start and moves
    rec["round_log"] = [
        {"opener": "bg"[r.challenger], "winner": "bg"[r.outcome.winner],
         "rings": r.outcome.rings, "start": r.start.kpn(), "moves": [str(mv) for mv in r.moves]}
        for r in m.rounds if r.outcome is not None
    ]
    return rec


def schedule(levels: list[str], pairs: str, types: list[str], games: int, seed: int
             ) -> list[tuple[str, str, str, int]]:
    """The games to play: (black, gold, type, seed)."""
    if pairs == "tuned":
        pairings = [(name + TUNED, name) for name in levels]
    elif pairs == "adjacent":
        pairings = list(zip(levels, levels[1:], strict=False))
    else:
        pairings = [(a, b) for i, a in enumerate(levels) for b in levels[i + 1:]]
    out: list[tuple[str, str, str, int]] = []
    for a, b in pairings:
        for kind in types:
            for g in range(games):  # each opening twice, colours swapped
                black, gold = (a, b) if g % 2 == 0 else (b, a)
                out.append((black, gold, kind, seed * 100_000 + len(out)))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--levels", default=",".join(LEVELS))
    ap.add_argument("--pairs", choices=["adjacent", "all", "tuned"], default="adjacent",
                    help="tuned: each level against its +tuned twin")
    ap.add_argument("--weights", default=None, metavar="W",
                    help="weights of the LEVEL+tuned levels: name=value,... or a JSON file")
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
    weights = None
    if args.weights is not None:
        try:
            weights = parse_weights(args.weights)
        except (OSError, ValueError) as exc:
            ap.error(f"--weights: {exc}")
    elif args.pairs == "tuned" or any(n.endswith(TUNED) for n in levels):
        ap.error(f"give --weights for --pairs tuned or a {TUNED} level")
    for name in levels:
        base = name[: -len(TUNED)] if name.endswith(TUNED) else name
        if base not in LEVELS or (args.pairs == "tuned" and base != name):
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
        futures = [pool.submit(play_game, *g, args.random_plies, weights) for g in todo]
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
    if args.pairs == "tuned":
        print_tuned(done, levels, types)
        return 0
    anchor = levels[0]
    ratings = elo_table(results, anchor=anchor)
    for r in ratings:
        print(f"  {r.name:10} {r.elo:+7.0f} +/- {r.error:4.0f}   {r.score:5.1f}/{r.games}")
    print()
    print(format_table(results, anchor=anchor))
    print_openers(done, types)
    if args.chart is not None:
        title = f"Level ladder: {len(results)} games, {anchor} at 0"
        args.chart.write_text(elo_svg(ratings, title=title) + "\n", encoding="utf-8")
        print(f"chart: {args.chart}", file=sys.stderr)
    return 0


def print_openers(done: list[dict[str, object]], types: list[str]) -> None:
    """Each level as the opener of a round after the first: how often it won the round.

    Every Sumo round start proven so far is a win for its opener, so a round
    the opener loses is a win it threw away (or one the solver could not see).
    """
    won: dict[str, list[int]] = {}
    for d in done:
        if d["type"] not in types or "round_log" not in d:
            continue
        for r in d["round_log"][1:]:  # type: ignore[index]
            level = str(d["black"] if r["opener"] == "b" else d["gold"])
            tally = won.setdefault(level, [0, 0])
            tally[0] += r["winner"] == r["opener"]
            tally[1] += 1
    if won:
        print()
        print("rounds after the first, won by their opener:")
    for level, (w, n) in sorted(won.items()):
        print(f"  {level:10} {w}/{n} ({100 * w / n:.0f}%)")


def print_tuned(done: list[dict[str, object]], levels: list[str], types: list[str]) -> None:
    """Each ``LEVEL+tuned`` against ``LEVEL``: score and Elo (95% interval), by type and all."""
    for name in levels:
        twin = name + TUNED
        for kind in [*types, "all"] if len(types) > 1 else types:
            results = [(str(d["black"]), str(d["gold"]), 1.0 if d["winner"] == "b" else 0.0)
                       for d in done if {d["black"], d["gold"]} == {name, twin}
                       and (d["type"] == kind or (kind == "all" and d["type"] in types))]
            if not results:
                continue
            r = next(x for x in elo_table(results, anchor=name) if x.name == twin)
            print(f"  {twin:>14} vs {name:<8} {kind:9} {r.score:6.1f}/{r.games:<4}"
                  f" {r.percent:5.1f}%  Elo {r.elo:+5.0f} +/- {r.error:3.0f}"
                  f"  [{r.elo - r.error:+.0f}, {r.elo + r.error:+.0f}]")


if __name__ == "__main__":
    sys.exit(main())
