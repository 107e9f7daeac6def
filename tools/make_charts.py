"""Make the example charts of docs/pictures.md (deterministic: the same files each run).

- docs/pictures/evaluation.svg: the evaluation curve of the quick single
  round of tools/make_pictures.py (its match.gif), 20,000 nodes a position;
- docs/pictures/elo.svg: the Elo chart of a small round robin between four
  built-in levels (single rounds, seeded players, node budgets: no clock).

Run from the repository root::

    python3 tools/make_charts.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's kamisado, whatever is installed
sys.path.insert(0, str(ROOT / "tools"))

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


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    match = quick_round()
    points = review.evaluations(match, nodes=review.DEFAULT_NODES)
    title = f"The quick round of match.gif: {len(match.current.moves)} moves"
    (OUT / "evaluation.svg").write_text(graph.evaluation_svg(points, title=title) + "\n",
                                        encoding="utf-8")
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
    (OUT / "elo.svg").write_text(graph.elo_svg(table, title=title) + "\n", encoding="utf-8")
    print(f"docs/pictures/evaluation.svg: {len(points)} positions;"
          f" docs/pictures/elo.svg: {len(results)} games")


if __name__ == "__main__":
    main()
