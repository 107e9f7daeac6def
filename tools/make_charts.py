"""Make the example charts of docs/pictures.md (deterministic: the same files each run).

- docs/pictures/evaluation.svg: the evaluation curve of the quick single
  round of tools/make_pictures.py (its match.gif), 20,000 nodes a position;
- docs/pictures/elo.svg: the Elo chart of a small round robin between four
  built-in levels (single rounds, seeded players, node budgets: no clock).

Checks by default (CI runs it, in a few seconds): makes them in memory,
compares them with the tracked files and exits 1 when one is stale;
``--write`` writes them::

    python3 tools/make_charts.py              # are they current?
    python3 tools/make_charts.py --write      # remake them
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's kamisado, whatever is installed
sys.path.insert(0, str(ROOT / "tools"))

import generated  # noqa: E402
from make_pictures import quick_round  # noqa: E402

from kamisado.engine import review  # noqa: E402
from kamisado.engine.levels import player  # noqa: E402
from kamisado.pictures import graph  # noqa: E402
from kamisado.protocol.elo import elo_table  # noqa: E402
from kamisado.rules.match import Match  # noqa: E402

OUT = ROOT / "docs" / "pictures"
LEVELS = ("beginner", "novice", "club", "strong")
GAMES = 6  # per pairing, colours swapped each game


def single_round(black: str, gold: str, seed: int) -> float:
    """One single round between two levels: Black's score."""
    players = {0: player(black, seed=2 * seed + 1), 1: player(gold, seed=2 * seed + 2)}
    m = Match(1)
    while m.state != "over":
        m.push_move(players[m.position.turn].choose_move(m.position))
    return 1.0 if m.winner == 0 else 0.0


def make() -> dict[Path, bytes]:
    """The charts, by path."""
    match = quick_round()
    points = review.evaluations(match, nodes=review.DEFAULT_NODES)
    title = f"The quick round of match.gif: {len(match.current.moves)} moves"
    files = {OUT / "evaluation.svg": (graph.evaluation_svg(points, title=title) + "\n").encode()}
    results = []
    seed = 0
    for i, a in enumerate(LEVELS):
        for b in LEVELS[i + 1:]:
            for g in range(GAMES):
                black, gold = (a, b) if g % 2 == 0 else (b, a)
                seed += 1
                results.append((black, gold, single_round(black, gold, seed)))
    table = elo_table(results, anchor=LEVELS[0])
    title = f"{len(results)} single rounds, {LEVELS[0]} at 0"
    files[OUT / "elo.svg"] = (graph.elo_svg(table, title=title) + "\n").encode()
    return files


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="tools/make_charts.py",
                                 description=__doc__.split("\n\n")[0])
    generated.add_options(ap, "docs/pictures/evaluation.svg and docs/pictures/elo.svg")
    args = ap.parse_args(argv)
    return generated.settle(make(), write=args.write, script="make_charts.py")


if __name__ == "__main__":
    sys.exit(main())
