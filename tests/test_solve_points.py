"""A round's value in points (:func:`kamisado.engine.solve_points`, ``solve(points=True)``).

* against an exhaustive minimax with points (alpha-beta over
  :class:`kamisado.rules.position.Position`, no solver code) on positions a
  few plies from the end, from random playouts of random line-ups with Sumo,
  Double and Triple towers;
* against the who-wins solver's sign, and the bounds of the rings;
* the threshold proofs' table entries do not mix with the who-wins ones;
* limits (unknown, with bounds), argument checks, a finished round;
* the compiled core and the pure-Python twin: the same values, best moves,
  bounds and node counts;
* ``kamisado solve --points``.

The tests marked ``core`` run on the compiled and on the pure-Python core
(CI runs ``-m core`` on both).  No assertion depends on timing.
"""

from __future__ import annotations

import random
import re

import pytest

from kamisado import engine
from kamisado.engine._pure import engine as P
from kamisado.engine.analysis import main_solve
from kamisado.rules.board import RING_POINTS
from kamisado.rules.position import Position

try:
    from kamisado.engine import _ckamisado as C
except ImportError:  # no compiler where this was installed
    C = None  # type: ignore[assignment]

needs_c = pytest.mark.skipif(C is None, reason="the compiled core is not built")

#: A Sumo round start of a Long match (bench/proven_starts.txt) that no small
#: node limit proves.
HARD = "u+bygnorp+/8/8/8/8/8/8/Y+NGO+P+BRU g - 7 3 2"
#: Black to move wins 2 points (and no more); Gold to move concedes 2.
WIN2 = "2o++5/3u+1p2/3g4/7G+/1U1B2b+1/4N+++2Y++/O+y+R1r++1n1/5P+2 b g 15 13 9"
LOSE2 = "3rn1py/3bP+3/1G6/o+2B4/1u6/6g1/6R+1/O+1Y+1U+1N1 g p 15 5 1"


class _TooBig(Exception):
    pass


def minimax(p: Position, budget: list[int], alpha: int = -99, beta: int = 99) -> int:
    """The round's value in points for the side to move: alpha-beta over every
    legal move to the end of the round (``budget``: moves left to look at)."""
    side = p.turn
    best = -99
    for m in p.legal_moves:
        budget[0] -= 1
        if budget[0] < 0:
            raise _TooBig
        p.push(m)
        o = p.outcome
        if o is not None:
            v = o.points if o.winner == side else -o.points
        elif p.turn == side:
            v = minimax(p, budget, max(alpha, best), beta)
        else:
            v = -minimax(p, budget, -beta, -max(alpha, best))
        p.pop()
        if v > best:
            best = v
            if best >= beta:
                break
    return best


def _line_up(rng: random.Random) -> str:
    """A random start with random rings (each side's rings worth under 15)."""
    while True:
        rows = []
        for up in (False, True):
            letters = list("obupyrgn")
            rng.shuffle(letters)
            rows.append("".join(
                (c.upper() if up else c) + "+" * rng.choice((0, 0, 0, 1, 1, 2, 3))
                for c in letters
            ))
        worth = [sum(2 ** len(x) - 1 for x in re.findall(pat, row))
                 for pat, row in ((r"[A-Z](\+*)", rows[1]), (r"[a-z](\+*)", rows[0]))]
        if max(worth) < 15:
            return f"{rows[0]}/8/8/8/8/8/8/{rows[1]} {rng.choice('bg')} - 15 {worth[0]} {worth[1]}"


def near_end_positions(seed: int, playouts: int, budget: int) -> list[tuple[str, int]]:
    """``(kpn, minimax value)`` of positions a few plies before the end of random
    playouts: walking back from the end while the minimax fits in ``budget``."""
    rng = random.Random(seed)
    out: list[tuple[str, int]] = []
    for _ in range(playouts):
        p = Position(_line_up(rng))
        plies = 0
        while p.outcome is None:
            p.push(rng.choice(list(p.legal_moves)))
            plies += 1
        for _ in range(plies):
            p.pop()
            try:
                value = minimax(p.copy(stack=False), [budget])
            except _TooBig:
                break
            out.append((p.kpn(), value))
    return out


@pytest.fixture(scope="module")
def near_end() -> list[tuple[str, int]]:
    return near_end_positions(2029, 60, 20_000)


@pytest.mark.core
def test_points_agree_with_minimax(near_end: list[tuple[str, int]]) -> None:
    values = set()
    for kpn, value in near_end:
        r = engine.Searcher().solve_points(kpn)
        assert r.points == value, kpn
        assert r.low == r.high == value and r.proven
        values.add(value)
        # the best move keeps the value (unless every move concedes as much)
        if r.best_move is not None:
            q = Position(kpn)
            q.push(r.best_move)
            if q.outcome is not None:
                got = q.outcome.points if q.outcome.winner == r.side_to_move else -q.outcome.points
            else:
                got = minimax(q, [10**7])
                got = got if q.turn == r.side_to_move else -got
            assert got == value, kpn
    assert len(near_end) >= 40
    assert values & {2, 4, 8} and values & {-1, -2, -4, -8}  # Sumo wins and losses


@pytest.mark.core
def test_points_sign_is_who_wins(near_end: list[tuple[str, int]]) -> None:
    starts = [HARD, WIN2, LOSE2, "g+urypnob+/8/8/8/8/8/8/G+BYOPRUN g - 3 1 2"]
    for kpn in [k for k, _ in near_end[::3]] + starts:
        pos = Position(kpn)
        r = engine.Searcher().solve_points(pos, node_limit=40_000)
        w = engine.Searcher().solve(pos, exact=False, node_limit=40_000)
        if r.winner is not None and w.winner is not None:
            assert r.winner == w.winner, kpn
        if r.points is not None:
            assert r.winner is not None and (r.points > 0) == (r.winner == pos.turn)
        # the rings bound the value: a side wins at most what its best tower carries
        me, other = (max(pos.rings[s * 8:s * 8 + 8]) for s in (pos.turn, pos.turn ^ 1))
        assert -RING_POINTS[other] <= r.low <= r.high <= RING_POINTS[me]
        if r.points is not None:
            assert r.low == r.points == r.high


@pytest.mark.core
def test_thresholds_keep_their_own_table_entries() -> None:
    s = engine.Searcher()
    first = s.solve_points(WIN2)
    again = s.solve_points(WIN2)  # the proofs are in the table
    assert first.points == again.points == 2 and again.nodes < first.nodes
    # the entries of "wins with a Sumo" do not pass for who wins, nor the reverse
    for kpn in (WIN2, LOSE2):
        fresh = engine.Searcher().solve(kpn, exact=False)
        assert s.solve(kpn, exact=False).winner == fresh.winner
        assert s.solve(kpn).distance == engine.Searcher().solve(kpn).distance
    assert s.solve_points(LOSE2).points == -2


@pytest.mark.core
def test_points_without_rings_cost_no_more_than_who_wins() -> None:
    kpn = "1pyrgn2/o3u3/7b/8/2R1N3/8/6G1/3YPUBO b b 1 0 0"
    r = engine.Searcher().solve_points(kpn)
    w = engine.Searcher().solve(kpn, exact=False)
    assert r.points == 1 and r.nodes == w.nodes and r.best_move == w.best_move


@pytest.mark.core
def test_a_limit_answers_unknown_with_bounds() -> None:
    r = engine.Searcher().solve_points(HARD, node_limit=2000)
    assert r.points is None and not r.proven and r.best_move is None
    assert r.low == -RING_POINTS[1] and r.high == RING_POINTS[1] and r.winner is None
    assert "unknown" in str(r)
    r2 = engine.Searcher().solve_points(HARD, limit=engine.Limit(nodes=2000))
    assert (r2.points, r2.low, r2.high, r2.nodes) == (r.points, r.low, r.high, r.nodes)


@pytest.mark.core
def test_bad_arguments_and_a_finished_round() -> None:
    with pytest.raises(ValueError):
        engine.solve_points(WIN2, node_limit=0)
    with pytest.raises(TypeError):
        engine.solve_points(WIN2, node_limit="9")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        engine.solve_points(WIN2, node_limit=9, limit=engine.Limit(nodes=9))
    with pytest.raises(TypeError):
        engine.solve_points(42)  # type: ignore[arg-type]
    p = Position(WIN2)
    p.push(engine.solve_points(WIN2).best_move)  # type: ignore[arg-type]
    assert p.outcome is not None
    r = engine.solve_points(p)
    assert r.winner == Position(WIN2).turn and r.nodes == 0
    assert r.points == (2 if r.winner == p.turn else -2) == r.low == r.high


@pytest.mark.core
def test_str_reads_the_value() -> None:
    assert str(engine.solve_points(WIN2)).startswith("Black wins 2 points with h5-h8")
    assert str(engine.solve_points(LOSE2)).startswith("Black wins; Gold concedes 2 points")


@needs_c
def test_the_twins_answer_alike(near_end: list[tuple[str, int]]) -> None:
    """The compiled core and the pure-Python twin search the same nodes."""
    kpns = [k for k, _ in near_end[::2]] + [WIN2, LOSE2]
    for kpn in kpns:
        a = C.Searcher().solve(C.Position(kpn), points=True)
        b = P.Searcher().solve(P.Position(kpn), points=True)
        keys = ("result", "points", "points_lo", "points_hi", "best_move", "nodes", "depth")
        assert [a[k] for k in keys] == [b[k] for k in keys], kpn
    # stopped by a node limit: the same bounds after the same nodes
    a = C.Searcher().solve(C.Position(HARD), points=True, node_limit=3000)
    b = P.Searcher().solve(P.Position(HARD), points=True, node_limit=3000)
    stop_keys = ("result", "points", "points_lo", "points_hi", "nodes", "stopped")
    assert [a[k] for k in stop_keys] == [b[k] for k in stop_keys]
    assert a["stopped"] and a["points"] == 0
    with pytest.raises(TypeError):
        C.solve(C.Position(WIN2), points="yes")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        P.solve(P.Position(WIN2), points="yes")  # type: ignore[arg-type]


@pytest.mark.core
def test_kamisado_solve_points(capsys: pytest.CaptureFixture[str]) -> None:
    assert main_solve([WIN2, "--points"]) == 0
    assert capsys.readouterr().out == "b wins 2 points (+2 for b) with h5-h8\n"
    assert main_solve([LOSE2, "--points"]) == 0
    assert capsys.readouterr().out == "b wins 2 points (-2 for g)\n"
    assert main_solve([HARD, "--points", "--time", "0.001"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(("points unknown (-2 to +2 for g)", "g wins, points unknown"))
    with pytest.raises(SystemExit) as e:
        main_solve([WIN2, "--points", "--winner"])
    assert e.value.code == 2
    assert "not allowed with" in capsys.readouterr().err
