"""Work done in the server's process pool: computer moves and analysis.

The compiled engine holds the GIL and keeps global tables, so the server
never runs it in its own process: these functions run in worker processes
(``concurrent.futures.ProcessPoolExecutor``) and take and return plain
data only.

>>> computer_action(1, False, "obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 1 0 0", [], "beginner", 7) in {
...     str(m) for m in __import__("kamisado").Position().legal_moves}
True
"""

from __future__ import annotations

from typing import Any

from kamisado.core import SIDE_LETTERS, Position
from kamisado.limits import Limit
from kamisado.match import FILL, Match

__all__ = ["analyse", "computer_action", "replay_match", "solver_reply"]


def replay_match(target: int, series: bool, start_kpn: str, tokens: list[str]) -> Match:
    """The match reached by playing ``tokens`` (moves or fills) from the start."""
    match = Match(target, series=series, start=start_kpn)
    for token in tokens:
        match.apply(token)
    return match


def computer_action(
    target: int, series: bool, start_kpn: str, tokens: list[str], level: str, seed: int
) -> str:
    """The computer's next action in a game: a move in square form or a fill."""
    from kamisado.players import player

    match = replay_match(target, series, start_kpn, tokens)
    pl = player(level, seed)
    if match.state == FILL:
        return pl.choose_fill(match)
    return str(pl.choose_move(match.position))


def analyse(kpn: str, time_ms: float = 400.0) -> dict[str, Any]:
    """The engine's view of a position: a search, then the solver's proof.

    Returns ``{"over": bool, "best": "c1-c5", "pv": [...], "depth": n,
    "score": n, "kind": "eval"|"win"|"loss", "moves": n|None, "side": "b"|"g",
    "solved": {"winner": "b"|"g", "distance": n} | None}`` (``kind`` and
    ``moves`` for the side to move).
    """
    from kamisado.engine import search, solve

    pos = Position(kpn)
    side = SIDE_LETTERS[pos.turn]
    if pos.outcome is not None:
        return {"over": True, "side": side}
    limit = Limit(time=time_ms / 1000.0)
    r = search(pos, limit=limit)
    score = r.value
    solved = None
    if pos.target == 1 or score.is_proven:
        s = solve(pos, limit=limit)
        if s.winner is not None:
            solved = {
                "winner": SIDE_LETTERS[s.winner],
                "distance": s.distance,
                "pv": [str(m) for m in s.pv],
            }
    return {
        "over": False,
        "side": side,
        "best": str(r.best_move) if r.best_move else None,
        "pv": [str(m) for m in r.pv],
        "depth": r.depth,
        "score": r.score,
        "kind": score.kind if score.is_proven else "eval",
        "moves": score.moves,
        "solved": solved,
    }


def solver_reply(kpn: str, time_limit: float = 2.0) -> str:
    """The defender's best move (the longest resistance when lost), for puzzles:
    ``kamisado.lessons.puzzle_reply`` when that module is there."""
    try:
        from kamisado.lessons import puzzle_reply  # type: ignore[attr-defined, unused-ignore]
    except ImportError:
        pass
    else:
        reply: str = puzzle_reply(kpn)
        return reply
    from kamisado.engine import search, solve

    pos = Position(kpn)
    s = solve(pos, limit=Limit(time=time_limit))
    if s.best_move is not None:
        return str(s.best_move)
    r = search(pos, limit=Limit(time=0.3))
    assert r.best_move is not None
    return str(r.best_move)
