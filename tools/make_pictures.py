"""Make the example pictures of docs/pictures.md (deterministic: the same files each run).

- docs/pictures/board.svg: the rulebook's figure 9 after Gold's h7-f5 and
  Black's green Double pushing two towers (d4-d5): Sumos, the last move's
  frames and the pushed towers' dotted frames;
- docs/pictures/match.gif: a quick single round, played by a simple rule
  (win now if you can, else do not let the opponent win next move, else go
  as far forward as possible).

Checks by default (CI runs it): makes them in memory, compares them with the
tracked files (the GIF frame by frame, pixel by pixel) and exits 1 when one
is stale; ``--write`` writes them::

    python3 tools/make_pictures.py            # are they current?
    python3 tools/make_pictures.py --write    # remake them
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's kamisado, whatever is installed
sys.path.insert(0, str(Path(__file__).resolve().parent))  # tools/generated.py, however this is loaded

import generated  # noqa: E402

from kamisado.pictures import svg  # noqa: E402
from kamisado.pictures.gif import save_gif  # noqa: E402
from kamisado.rules.board import Move  # noqa: E402
from kamisado.rules.match import Match  # noqa: E402
from kamisado.rules.position import Position  # noqa: E402

OUT = ROOT / "docs" / "pictures"


def rulebook_position() -> Position:
    fig = json.loads((ROOT / "tests" / "data" / "rulebook.json").read_text())["fig9"]
    pos = Position(fig["kpn"])
    for move in ("h7-f5", "d4-d5"):
        pos.push_move(move)
    return pos


def simple_move(pos: Position) -> Move:
    """Win now; else keep the opponent from winning next; else go far forward."""
    side = pos.turn
    best: tuple[int, int, int, int] | None = None
    choice: Move | None = None
    for move in pos.legal_moves:
        pos.push(move)
        o = pos.outcome
        if o is not None and o.winner == side:
            pos.pop()
            return move
        loses = o is not None or any(
            _wins(pos, reply, 1 - side) for reply in list(pos.legal_moves))
        pos.pop()
        forward = abs((move.to_square >> 3) - (move.from_square >> 3))
        key = (0 if loses else 1, forward, -move.from_square, -move.to_square)
        if best is None or key > best:
            best, choice = key, move
    assert choice is not None
    return choice


def _wins(pos: Position, move: Move, side: int) -> bool:
    pos.push(move)
    o = pos.outcome
    pos.pop()
    return o is not None and o.winner == side


def quick_round() -> Match:
    match = Match(1)
    while match.state == "playing":
        match.push_move(simple_move(match.position))
    return match


def make() -> dict[Path, bytes]:
    """The pictures, by path."""
    pos = rulebook_position()
    files = {OUT / "board.svg": (svg.board(pos, size=480, **svg.marks(pos)) + "\n").encode()}
    with tempfile.TemporaryDirectory(prefix="kamisado-pictures-") as tmp:
        gif = Path(tmp) / "match.gif"
        save_gif(quick_round(), gif, size=320, delay=800)
        files[OUT / "match.gif"] = gif.read_bytes()
    return files


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="tools/make_pictures.py",
                                 description=__doc__.split("\n\n")[0])
    generated.add_options(ap, "docs/pictures/board.svg and docs/pictures/match.gif")
    args = ap.parse_args(argv)
    return generated.settle(make(), write=args.write, script="make_pictures.py",
                            same=generated.same_pictures())


if __name__ == "__main__":
    sys.exit(main())
