"""Generate the opening book ``kamisado/data/book.txt`` from the solver's proof.

Single-round Kamisado from the colour-matching start is a win for the side
that moves first.  This script solves every legal move of every position near
the two single-round starts (Black first, and Gold first as in a series'
even rounds) and keeps, for each position, the perfect move:

* when the side to move wins: the shortest win (ties: the first move in
  square order);
* when it loses: the longest resistance, ties broken by the fewest winning
  replies left to the opponent (the trickiest defence), then square order.

A position is expanded (the book move followed for the side a perfect
player may be, every legal move for its opponent, so the book answers
whatever a person plays) while solving its moves took longer than
``--threshold`` seconds and it is at most ``--max-ply`` moves from the start;
faster positions are left to the live solver.  The output is deterministic:
every value in it is an exact game value.

Which positions are expanded depends on the clock (``--threshold``), so a
rerun on another machine may keep more or fewer positions: the check is not
run in CI.

    python tools/make_book.py --write         # writes kamisado/data/book.txt (minutes)
    python tools/make_book.py                 # compares with it; exit 1 when it differs
    python tools/make_book.py --max-ply 2 --out /tmp/book.txt
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import deque
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # tools/generated.py, however this is loaded

import generated  # noqa: E402

from kamisado import engine
from kamisado.args import duration, duration_help  # noqa: E402
from kamisado.engine.levels import winning_replies
from kamisado.rules.board import START_KPN, Move
from kamisado.rules.position import Position

BOOK = generated.ROOT / "kamisado" / "data" / "book.txt"
STARTS = [START_KPN, START_KPN.replace(" b - ", " g - ")]


def perfect_move(pos: Position) -> tuple[Move, int, int]:
    """``(move, winner, distance)``: the book's choice in ``pos`` (exact)."""
    values = engine.solve_moves(pos)
    side = pos.turn
    if any(v.winner is None for v in values):  # pragma: no cover - no limits were given
        raise RuntimeError(f"unsolved move in {pos.kpn()}")
    wins = [v for v in values if v.winner == side]
    if wins:
        best = min(wins, key=lambda v: (v.distance or 0, str(v.move)))
        return best.move, side, best.distance or 0
    longest = max(v.distance or 0 for v in values)
    candidates = sorted(
        (v for v in values if (v.distance or 0) == longest), key=lambda v: str(v.move)
    )
    if len(candidates) > 1:
        candidates.sort(key=lambda v: winning_replies(pos, v.move))
    return candidates[0].move, side ^ 1, longest


def build(max_ply: int, threshold: float, max_positions: int) -> list[tuple[str, Move, str]]:
    """Breadth-first over the positions near the starts; returns (kpn, move, comment).

    Each position carries the sides that a perfect player may be playing
    there: at a position where that side is to move only the book move is
    followed, at its opponent's every legal move (the book must answer
    whatever a person plays).
    """
    out: list[tuple[str, Move, str]] = []
    seen: dict[str, frozenset[int]] = {}
    queue: deque[tuple[Position, int, frozenset[int]]] = deque(
        (Position(k), 0, frozenset((0, 1))) for k in STARTS
    )
    while queue and len(out) < max_positions:
        pos, ply, sides = queue.popleft()
        kpn = pos.kpn()
        if pos.outcome is not None or sides <= seen.get(kpn, frozenset()):
            continue
        first_visit = kpn not in seen
        seen[kpn] = seen.get(kpn, frozenset()) | sides
        t0 = time.perf_counter()
        move, winner, dist = perfect_move(pos)
        took = time.perf_counter() - t0
        if first_visit:
            side = "b" if winner == 0 else "g"
            out.append((kpn, move, f"{side} wins in {dist}"))
            print(f"{len(out):5d} ply {ply} {took:6.2f}s {kpn}  {move}  {side} wins in {dist}",
                  file=sys.stderr)
        if ply >= max_ply or took <= threshold:
            continue
        mover = pos.turn
        for m in list(pos.legal_moves):
            child_sides = sides & {mover ^ 1}
            if m == move:
                child_sides = sides
            if not child_sides:
                continue
            q = pos.copy(stack=False)
            q.push(m)
            queue.append((q, ply + 1, frozenset(child_sides)))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="tools/make_book.py",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--max-ply", type=int, default=3)
    ap.add_argument("--threshold", type=duration("s", 0), default=0.3,
                    help="expand a position only if solving its moves took longer; in"
                    f" {duration_help('s')} (default 0.3 s)")
    ap.add_argument("--max-positions", type=int, default=5000)
    mode = generated.add_options(ap, "kamisado/data/book.txt")
    mode.add_argument("--out", type=Path, help="write the book to this file instead")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    entries = build(args.max_ply, args.threshold, args.max_positions)
    lines = [
        "# Kamisado opening book: perfect moves near the single-round starts.",
        "# Generated by tools/make_book.py "
        f"--max-ply {args.max_ply} --threshold {args.threshold}; do not edit.",
        "# KPN<TAB>move<TAB>result with best play",
    ]
    lines += [f"{kpn}\t{move}\t{note}" for kpn, move, note in sorted(entries)]
    data = ("\n".join(lines) + "\n").encode()
    print(f"{len(entries)} positions in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_bytes(data)
        print(f"wrote {args.out}")
        return 0
    return generated.settle({BOOK: data}, write=args.write, script="make_book.py")


if __name__ == "__main__":
    sys.exit(main())
