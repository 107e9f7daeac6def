"""The who-wins solver's proof-number search (df-pn).

``solve(exact=False)`` and every threshold game of ``solve_points`` run a
depth-first proof-number search when no horizon is given (``max_depth``
0), and the alpha-beta search on a horizon otherwise.  Checked here:

* df-pn proves the exact solver's winner, and the horizon search's, on
  seeded positions near the end of random rounds (single and Sumo), with a
  move that keeps the win (the exact solver confirms it);
* the points by df-pn are the points by the horizon search, and an
  exhaustive minimax's, on positions with Sumo, Double and Triple towers;
* its table is kept between the calls of a Searcher (a proven position
  costs one node) and emptied by ``clear_tables``; a node limit answers
  unknown, and the work done is kept;
* the compiled core and the pure-Python twin: the same winners, moves and
  node counts (the points' are in tests/test_solve_points.py, the
  who-wins' on more positions in tests/test_pyengine.py).

The tests marked ``core`` run on the compiled and on the pure-Python core.
No assertion depends on timing.
"""

from __future__ import annotations

import pytest

from kamisado import engine
from kamisado.engine._pure import engine as P
from kamisado.rules.position import Position
from tests.test_pyengine import SOLVABLE, late_positions
from tests.test_solve_points import WIN2, near_end_positions

try:
    from kamisado.engine import _ckamisado as C
except ImportError:  # no compiler where this was installed
    C = None  # type: ignore[assignment]

needs_c = pytest.mark.skipif(C is None, reason="the compiled core is not built")


def _keeps_the_win(kpn: str, move: engine.Move) -> bool:
    """Whether ``move`` keeps the round won for the side to move (the exact solver)."""
    pos = Position(kpn)
    side = pos.turn
    pos.push(move)
    if pos.outcome is not None:
        return pos.outcome.winner == side
    return engine.Searcher().solve(pos, pv=False).winner == side


@pytest.mark.core
def test_dfpn_proves_the_exact_solvers_winner() -> None:
    wins = losses = 0
    for kpn in late_positions(24, seed=21) + SOLVABLE:
        w = engine.Searcher().solve(kpn, exact=False)  # df-pn
        x = engine.Searcher().solve(kpn, pv=False)  # the exact solver
        assert x.distance is not None, kpn
        h = engine.Searcher().solve(kpn, exact=False, max_depth=x.distance)  # alpha-beta
        assert w.winner is not None and w.winner == x.winner == h.winner, kpn
        assert w.distance is None and w.depth == 0 and h.depth > 0, kpn
        if w.side_to_move_wins:
            assert w.best_move is not None and _keeps_the_win(kpn, w.best_move), kpn
            wins += 1
        else:
            assert w.best_move is None, kpn
            losses += 1
    assert wins >= 10 and losses >= 5


@pytest.mark.core
def test_points_by_proof_numbers_are_the_horizon_searchs_and_minimaxs() -> None:
    positions = near_end_positions(77, 20, 20_000)
    values = set()
    for kpn, value in positions:
        r = engine.Searcher().solve_points(kpn)
        h = engine.Searcher().solve_points(kpn, max_depth=60)
        assert r.points == h.points == value, kpn
        values.add(value)
    assert len(positions) >= 20 and values & {2, 4, 8}


@pytest.mark.core
def test_the_proof_numbers_are_kept_between_calls() -> None:
    s = engine.Searcher()
    kpn = SOLVABLE[0]
    first = s.solve(kpn, exact=False)
    again = s.solve(kpn, exact=False)  # the root's winning move is proven in the table
    assert first.winner is not None and again.winner == first.winner
    assert again.best_move == first.best_move and again.nodes < first.nodes
    s.clear_tables()
    assert s.solve(kpn, exact=False).nodes == first.nodes


@pytest.mark.core
def test_a_node_limit_stops_dfpn_and_keeps_its_work() -> None:
    s = engine.Searcher()
    cut = s.solve(Position(), exact=False, node_limit=500)
    fresh = engine.Searcher().solve(Position(), exact=False)
    assert cut.winner is None and cut.best_move is None and cut.nodes < fresh.nodes
    rest = s.solve(Position(), exact=False)  # goes on from the numbers in the table
    assert rest.winner == fresh.winner == Position().turn
    assert rest.best_move is not None and _keeps_the_win(Position().kpn(), rest.best_move)
    assert rest.nodes < fresh.nodes


@needs_c
def test_both_cores_search_the_same_proof_number_nodes() -> None:
    for kpn in late_positions(12, seed=22) + [WIN2]:
        for cut_points in (False, True):
            c = C.Searcher().solve(C.Position(kpn), exact=False, points=cut_points)
            p = P.Searcher().solve(P.Position(kpn), exact=False, points=cut_points)
            keys = ("result", "best_move", "nodes", "depth", "points")
            assert [c[k] for k in keys] == [p[k] for k in keys], (kpn, cut_points)
