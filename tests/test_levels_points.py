"""``perfect`` plays the points: in a round whose value in points is proven
(``engine.solve_points``) it keeps the most points when it wins, and concedes
the fewest, then lasts the longest, when it loses.

The positions are from seeded Long matches (``strong`` against itself, Sumo
towers on the board); the values are proven here, by the solver, not written
down.
"""

from __future__ import annotations

import pytest

from kamisado import engine
from kamisado.engine import levels
from kamisado.engine.levels import player
from kamisado.engine.limits import Limit
from kamisado.rules.board import Move
from kamisado.rules.position import Position

#: Won rounds where some moves keep the win but only for a plain tower's
#: point, and others keep a Sumo win (2 points).
WON_FOR_MORE = [
    "2b+2r+2/8/o+1UnO+1N1/3p4/2uG+y+2g/6P+1/8/YB5R+ b r 7 4 4",
    "1g+2r+2n+/1y2B1u+1/1G+5O/3Pp3/R+7/3N+1UYb/2o+5/8 b n 7 3 5",
    "1r+1u+n+pb1/8/4y3/4U+3/4O3/5g+1o+/2G+5/1B2PR+N+Y g n 7 4 5",
    "3u+1p2/8/4y3/1R+2U+1b1/n+3OY2/1r+3g+1o+/2G+5/1B2P1N+1 g u 7 4 5",
    "1p+4b+1/1r1Y+4/1g2RB+O1/8/y7/1nu+4o+/1N+5G+/U+5P1 b p 7 5 4",
    # Gold's win ends the match: the round decides it, but Black's plain
    # win would not; the Sumo win is what Black plays for
    "5n+1b+/3g+1y+2/N+Y1O+4/5p2/4B+1P1/1r+o5/1u+U2G+2/7R+ b g 7 5 6",
]

#: A lost round (Gold to move concedes a Sumo win, 2 points, whatever it
#: plays) where one move lasts longer than every other.
LOST_LONGEST = "3rn1py/3bP+3/1G6/o+2B4/1u6/6g1/6R+1/O+1Y+1U+1N1 g p 15 5 1"

NODES = Limit(nodes=500_000)


def value_after(pos: Position, move: Move) -> int | None:
    """The round's value in points, for the side to move in ``pos``, after ``move``."""
    q = pos.copy(stack=False)
    q.push(move)
    if q.outcome is not None:
        o = q.outcome
        return o.points if o.winner == pos.turn else -o.points
    r = engine.solve_points(q, limit=NODES)
    if r.points is None:
        return None
    return r.points if q.turn == pos.turn else -r.points  # a Sumo push moves again


def distance_after(pos: Position, move: Move) -> int | None:
    """How many moves the winner needs after ``move`` (the exact solver)."""
    q = pos.copy(stack=False)
    q.push(move)
    if q.outcome is not None:
        return 0
    return engine.solve(q, limit=NODES).distance


@pytest.mark.parametrize("kpn", WON_FOR_MORE)
def test_perfect_keeps_the_most_points_proven(kpn: str) -> None:
    pos = Position(kpn)
    value = engine.solve_points(pos, limit=NODES).points
    assert value is not None and value >= 2
    after = {m: value_after(pos, m) for m in pos.legal_moves}
    # a move that only keeps the round won (for fewer points) is there to be played
    assert any(v is not None and 0 < v < value for v in after.values())
    engine.clear_tables()
    move = player("perfect", 1).choose_move(pos)
    assert after[move] == value


def test_perfect_lost_concedes_the_fewest_points_then_lasts_longest() -> None:
    pos = Position(LOST_LONGEST)
    value = engine.solve_points(pos, limit=NODES).points
    assert value == -2
    after = {m: (value_after(pos, m), distance_after(pos, m)) for m in pos.legal_moves}
    conceding_least = {m: d for m, (v, d) in after.items() if v == value}
    longest = max(d or 0 for d in conceding_least.values())
    assert sum(1 for d in conceding_least.values() if d == longest) == 1  # one is longest
    assert min(d or 0 for d in conceding_least.values()) < longest
    engine.clear_tables()
    move = player("perfect", 1).choose_move(pos)
    assert after[move] == (value, longest)


def test_perfect_lost_prefers_conceding_fewer_points(monkeypatch: pytest.MonkeyPatch) -> None:
    """Of the moves of a lost round, one that concedes fewer points is
    played even where another lasts longer (the solver's answers given)."""
    pos = Position(LOST_LONGEST)
    moves = sorted(pos.legal_moves, key=str)
    fewer, longer = moves[0], moves[1]
    real = engine.solve_points

    def solve_points(p: Position, *args: object, **kwargs: object) -> engine.PointsResult:
        if p.kpn() == pos.kpn():
            return engine.PointsResult(-1, -1, -1, p.turn ^ 1, None, 1, 0.0, p.turn, 5)
        r = real(p, limit=NODES)
        # after ``fewer`` Black wins only a plain round (1 point); after any other, 2
        wins = 1 if p.kpn() == after(pos, fewer).kpn() else 2
        return engine.PointsResult(wins, wins, wins, p.turn, r.best_move, 1, 0.0, p.turn, 5)

    def solve(p: Position, *args: object, **kwargs: object) -> engine.SolveResult:
        d = 9 if p.kpn() == after(pos, longer).kpn() else 3
        return engine.SolveResult(p.turn, d, None, (), 1, 0.0, p.turn, d)

    monkeypatch.setattr(engine, "solve_points", solve_points)
    monkeypatch.setattr(engine, "solve", solve)
    assert levels._fewest_conceded(player("perfect", 1), pos, moves, 1, None) == fewer
    # conceding as much everywhere, the longest is played
    assert levels._fewest_conceded(player("perfect", 1), pos, moves, 2, None) == longer


def after(pos: Position, move: Move) -> Position:
    q = pos.copy(stack=False)
    q.push(move)
    return q
