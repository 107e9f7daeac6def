"""The search and the solver (kamisado.engine): rulebook wins, legality, exactness."""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from kamisado import engine
from kamisado.rules.board import BLACK, GOLD, MalformedError, Move
from kamisado.rules.position import Position
from tests.conftest import cpu_seconds, random_positions

DATA = json.loads((Path(__file__).parent / "data" / "rulebook.json").read_text())


def _before_last(fig: str) -> tuple[Position, Move]:
    """The figure's position just before its winning move, and that move."""
    f = DATA[fig]
    pos = Position(f["kpn"])
    for m in f["moves"][:-1]:
        pos.push_move(m)
    return pos, Move.from_str(f["moves"][-1])


# Figure 3(c): Helmut's pink goes 3 forward to Steve's home row; 4(c): Amy's
# yellow wins after Chris's green is blocked; 5(f): Vlora's blue wins after
# two passes; 10(l): Sanjay's Triple steps onto Johan's home row for 8 points.
@pytest.mark.parametrize("fig,points", [("fig3", 1), ("fig4", 1), ("fig5", 1), ("fig10", 8)])
def test_search_and_solver_find_the_rulebook_winning_move(fig: str, points: int) -> None:
    pos, expected = _before_last(fig)
    r = engine.search(pos, depth=4)
    assert r.best_move == expected
    assert r.proven_win_in == 1
    assert r.round_points == points
    assert r.match_won is True  # each of these rounds ends its match
    s = engine.solve(pos)
    assert (s.winner, s.distance, s.best_move) == (pos.turn, 1, expected)


def test_figure3_whole_line_is_a_forced_win() -> None:
    # from figure 3(a), Helmut's brown a1-a3 forces the win in 3 moves
    pos = Position(DATA["fig3"]["kpn"])
    s = engine.solve(pos)
    assert (s.winner, s.distance) == (BLACK, 3)
    assert [str(m) for m in s.pv] == DATA["fig3"]["moves"]


def test_figure5_vlora_wins_after_two_passes() -> None:
    # 5(b): after Daniel's d2-d7 both his yellow and Vlora's green are blocked;
    # Vlora then wins with her blue in two moves (b6-b3, passes, b3-d1)
    pos = Position(DATA["fig5"]["kpn"])
    pos.push_move("d2-d7")
    s = engine.solve(pos)
    assert (s.winner, s.distance) == (GOLD, 2)
    r = engine.search(pos, depth=6)
    assert r.proven_win_in == 2
    assert [str(m) for m in r.pv] == ["b6-b3", "b3-d1"]


def test_figure9_double_sumo_takes_the_four_point_finish() -> None:
    # 9(b): Ludmilla's green Double pushes (d4-d5); then 9(e) the Double goes
    # diagonally onto Alan's home row for 4 points (9 to 3) rather than
    # pushing again for the pink Sumo's 2-point finish (9(d), 7 to 3)
    fig = DATA["fig9"]
    pos = Position(fig["kpn"])
    pos.push_move(fig["moves"][0])
    r = engine.search(pos, depth=8)
    assert r.best_move == Move.from_str("d4-d5")
    assert r.proven_win_in == 2
    assert [str(m) for m in r.pv] == ["d4-d5", "d5-a8"]
    assert r.round_points == 4 and r.match_won is True
    pos.push_move("d4-d5")
    assert engine.search(pos, depth=4).best_move == Move.from_str("d5-a8")
    # the pink Sumo's finish (9(d)) would also win the match, with 2 points
    pos.push_move("d5-d6")
    r2 = engine.search(pos, depth=4)
    assert r2.best_move == Move.from_str("h5-h8") and r2.round_points == 2


# Built from figure 4: Black's brown can win at once on g8 (1 point), or go to
# a2-c4 (green), blocking Gold's green, so that Black's yellow Double then
# wins (4 points).  Where only the Double's finish wins the match, or brings
# more points, the engine must take it even though it is longer.
FIG4_DOUBLE = "obupyr2/8/6g1/5RnY++/8/8/N7/1G2PUBO b n {target} 3 0"


@pytest.mark.parametrize("target,match_won", [(7, True), (15, False)])
def test_prefers_the_finish_worth_more(target: int, match_won: bool) -> None:
    pos = Position(FIG4_DOUBLE.format(target=target))
    assert pos.is_legal(Move.from_str("a2-g8"))  # the 1-point win is there
    r = engine.search(pos, depth=8)
    assert r.proven_win_in == 2 and r.round_points == 4
    assert r.match_won is match_won
    q = pos.copy()
    for m in r.pv:
        q.push_move(m)
    assert q.outcome is not None and q.outcome.winner == BLACK and q.outcome.points == 4


def test_takes_the_immediate_win_when_all_finishes_are_equal() -> None:
    pos = Position("obupyr2/8/6g1/5RnY/8/8/N7/1G2PUBO b n 1 0 0")
    assert engine.search(pos, depth=8).best_move == Move.from_str("a2-g8")


_random_positions = random_positions


def test_never_an_illegal_move_or_pv_in_thousands_of_positions() -> None:
    positions = _random_positions(2500 if engine.BACKEND == "compiled" else 800, seed=7)
    assert len({p.rings[t] for p in positions for t in range(16)}) >= 3  # Sumos and more
    for i, pos in enumerate(positions):
        r = engine.search(pos, depth=1 + i % 4, seed=i)
        assert r.best_move is not None and pos.is_legal(r.best_move), pos.kpn()
        q = pos.copy()
        for m in r.pv:  # the whole PV is a legal line
            q.push_move(m)
        if i % 10 == 0:
            s = engine.solve(pos, node_limit=3000)
            assert s.best_move is None or pos.is_legal(s.best_move), pos.kpn()


def test_compiled_search_pv_is_a_legal_line() -> None:
    # the raw PV of the C search (or of the pure-Python core where that is the
    # one running, on fewer positions: it is 25 times slower), before
    # engine.search checks it: after a move that ends the round nothing may
    # follow (it once copied a stale line)
    from kamisado.engine._backend import BACKEND
    from kamisado.engine._backend import impl as C

    count = 3000 if BACKEND == "compiled" else 600
    for i, pos in enumerate(_random_positions(count, seed=7)):
        r = C.search(C.Position(pos.kpn()), depth=1 + i % 5, seed=i)
        q = pos.copy()
        for code in r["pv"]:
            move = Move(code & 63, code >> 6)
            assert q.outcome is None and q.is_legal(move), (pos.kpn(), r["pv"])
            q.push(move)


def test_search_is_reproducible_from_a_seed() -> None:
    pos = _random_positions(40, seed=3)[-1]
    w = engine.Weights(noise=50)
    a = engine.search(pos, depth=5, seed=11, weights=w)
    b = engine.search(pos, depth=5, seed=11, weights=w)
    assert (a.best_move, a.score, a.pv) == (b.best_move, b.score, b.pv)


def test_limits() -> None:
    # the module's solver keeps its table between calls: a test before this
    # one in the same process may have proved the start (then the node-limited
    # solve below answers the win from the table, in 982 nodes)
    engine.clear_tables()
    with pytest.raises(ValueError, match="depth, a time or a node limit"):
        engine.search(Position())
    done = Position("2b3n1/4U3/5u1B/3o4/1pN2Or1/4y1P1/g7/1G1R3Y g u 3 0 0")
    done.push_move("f6-a1")
    with pytest.raises(ValueError, match="over"):
        engine.search(done, depth=2)
    r = engine.search(Position(), nodes=5000)
    assert r.best_move is not None and r.nodes < 50000
    assert engine.solve(Position(), node_limit=1000).winner is None


def test_a_limit_says_what_the_keywords_say() -> None:
    from kamisado.engine.limits import WIN_BASE, Limit, Score

    pos = _random_positions(30, seed=8)[-1]
    a = engine.search(pos, depth=4, seed=3)
    b = engine.search(pos, limit=Limit(depth=4), seed=3)
    assert (a.score, a.pv, a.nodes, a.iterations[-1].depth) == (
        b.score, b.pv, b.nodes, b.iterations[-1].depth
    )
    assert engine.search(pos, limit=Limit(nodes=3000)).nodes == engine.search(
        pos, nodes=3000
    ).nodes
    assert engine.search(pos, limit=Limit(time=0.05)).depth >= 1
    won = "1pyrgn2/o3u3/7b/8/2R1N3/8/6G1/3YPUBO b b 1 0 0"
    s = engine.solve(won, limit=Limit(depth=30))
    assert (s.winner, s.distance) == (
        engine.solve(won, max_depth=30).winner, engine.solve(won, max_depth=30).distance
    )
    # a Searcher of its own: the module's table may hold the start's proof
    assert engine.Searcher().solve(Position(), limit=Limit(nodes=1000)).winner is None
    assert engine.solve_moves(won, limit=Limit(nodes=10**6)) == engine.solve_moves(
        won, node_limit=10**6
    )
    with pytest.raises(TypeError, match="either limit or depth, time_ms, nodes"):
        engine.search(pos, depth=2, limit=Limit(depth=2))
    with pytest.raises(TypeError, match="either limit or time_limit"):
        engine.solve(pos, node_limit=5, limit=Limit(nodes=5))
    with pytest.raises(TypeError, match="limit must be a Limit or None, got int"):
        engine.search(pos, limit=5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="depth must be an integer in 1..120"):
        engine.search(pos, limit=Limit(depth=500))
    with pytest.raises(ValueError, match="a Limit without depth"):
        engine.solve_moves(won, limit=Limit(depth=3))
    # one Score: the engine's integers, decode_score and the engine's constant agree
    assert WIN_BASE == engine.WIN_BASE
    assert a.value == Score.from_raw(a.score) and a.iterations[0].value.kind == "cp"
    for raw in (0, -25, 20000, 20001, -20001, 20255, 20256, 20257, WIN_BASE + 256 * 15 - 9):
        kind, moves, tier = engine.decode_score(raw)
        sc = Score.from_raw(raw)
        assert (kind == "eval") == (not sc.is_proven)
        assert (moves, tier) == (sc.moves, sc.tier)
        if sc.is_proven:
            assert sc.kind == kind and sc.match_won == (tier == 15)


def test_on_iteration_sees_each_finished_depth() -> None:
    pos = Position()
    seen: list[engine.Iteration] = []
    r = engine.search(pos, depth=5, seed=4, on_iteration=seen.append)
    assert [(i.depth, i.score, i.nodes) for i in seen] == [
        (i.depth, i.score, i.nodes) for i in r.iterations
    ]
    assert seen[-1].pv == r.pv and seen[-1].seldepth == r.seldepth >= 5
    assert all(i.pv and i.pv[0] in pos.legal_moves for i in seen)
    # a true answer ends the search there; an exception ends it and propagates
    r = engine.search(pos, depth=8, on_iteration=lambda it: it.depth == 2)
    assert r.depth == 2

    def fail(it: engine.Iteration) -> None:
        raise LookupError(f"at depth {it.depth}")

    with pytest.raises(LookupError, match="at depth 1"):
        engine.search(pos, depth=4, on_iteration=fail)
    with pytest.raises(TypeError, match="on_iteration must be a callable or None, got str"):
        engine.search(pos, depth=2, on_iteration="print")  # type: ignore[arg-type]
    # a proven result that ends the match within the depth ends the search
    won = engine.search("1pyrgn2/o3u3/7b/8/2R1N3/8/6G1/3YPUBO b b 1 0 0", depth=60)
    assert won.value.match_won and won.depth < 60


# --- the solver against exhaustive search -------------------------------


def exhaustive(pos: Position, depth: int) -> int | None:
    """Exact value by plain minimax over the pure-Python core, passes included.

    ``+n``: the side to move wins in exactly n moves with best play (shortest
    win, longest resistance); ``-n``: it loses in n; ``None``: not decided
    within ``depth`` moves for the winner's best line.
    """

    @cache
    def value(kpn: str, d: int) -> int | None:
        p = Position(kpn)
        side = p.turn
        best: int | None = None  # as a sortable key: higher is better for side
        best_key: tuple[int, int] | None = None
        undecided = False
        for m in list(p.legal_moves):
            p.push(m)
            if p.outcome is not None:
                v: int | None = 1 if p.outcome.winner == side else -1
            elif d <= 1:
                v = None
            else:
                child = value(p.kpn(), d - 1)
                if child is None:
                    v = None
                else:
                    same = p.turn == side  # a push: we move again
                    v = child if same else -child
                    v = v + 1 if v > 0 else v - 1
            p.pop()
            if v is None:
                undecided = True
                continue
            key = (1, -v) if v > 0 else (0, -v)  # shortest win, longest loss
            if best_key is None or key > best_key:
                best_key, best = key, v
        if best is not None and best > 0:
            # a win is exact only if no undecided move could be a shorter win:
            # undecided moves did not finish within d moves, so they are longer
            return best
        if undecided:
            return None
        return best

    return value(pos.kpn(), depth)


@pytest.mark.skipif(
    engine.BACKEND == "python",
    reason="too slow on the pure-Python engine core (whose solver tests/test_ckamisado.py"
    " checks against exhaustive minimax)",
)
def test_solver_agrees_with_exhaustive_search_on_small_positions() -> None:
    rng = random.Random(5)
    checked = 0
    for pos in _random_positions(4000, seed=21)[::7]:
        if pos.outcome is not None:
            continue
        s = engine.solve(pos, node_limit=200_000)
        if s.winner is None or (s.distance or 0) > 4:
            continue
        ex = exhaustive(pos, 5)
        assert ex is not None, pos.kpn()
        expected = (pos.turn if ex > 0 else pos.turn ^ 1, abs(ex))
        assert (s.winner, s.distance) == expected, pos.kpn()
        checked += 1
        if checked >= 25 and rng.random() < 0.5:
            break
    assert checked >= 25


# --- argument checks ---------------------------------------------------------

#: Proven in a few thousand nodes: a limit that was once ignored stays cheap.
NEAR_END = "obupyrgn/8/8/N7/8/8/8/1GRYPUBO g p 1 0 0"
NON_ASCII = "obupyrgé/8/8/8/8/8/8/NGRYPUBO b - 1 0 0"


def _over() -> Position:
    """A position whose round is over."""
    done = Position("2b3n1/4U3/5u1B/3o4/1pN2Or1/4y1P1/g7/1G1R3Y g u 3 0 0")
    done.push_move("f6-a1")
    return done


Call = Callable[[Position], Any]
BAD_ARGUMENTS: list[tuple[str, Call, type[Exception], str]] = [
    # search(pos, depth, time_ms, nodes, seed, weights)
    ("search nodes -1", lambda p: engine.search(p, depth=2, nodes=-1), ValueError,
     r"nodes must be an integer in 1\.\.2\*\*63-1 \(None: no limit\), got -1"),
    ("search nodes 0", lambda p: engine.search(p, depth=2, nodes=0), ValueError, "got 0"),
    ("search nodes 2**63", lambda p: engine.search(p, depth=2, nodes=2**63), ValueError,
     f"got {2**63}"),
    ("search nodes float", lambda p: engine.search(p, nodes=1e4), TypeError,
     "nodes must be an integer, got float"),
    ("search depth 0", lambda p: engine.search(p, depth=0, nodes=1000), ValueError,
     r"depth must be an integer in 1\.\.120 \(None: no limit\), got 0"),
    ("search depth 121", lambda p: engine.search(p, depth=121, nodes=1000), ValueError,
     "got 121"),
    ("search depth 2**40", lambda p: engine.search(p, depth=2**40, nodes=1000), ValueError,
     f"got {2**40}"),
    ("search depth str", lambda p: engine.search(p, depth="3"), TypeError,
     "depth must be an integer, got str"),
    ("search depth bool", lambda p: engine.search(p, depth=True), TypeError, "got bool"),
    ("search time nan", lambda p: engine.search(p, depth=2, time_ms=math.nan), ValueError,
     r"time_ms must be a finite number of milliseconds > 0 \(None: no limit\), got nan"),
    ("search time inf", lambda p: engine.search(p, depth=2, time_ms=math.inf), ValueError,
     "got inf"),
    ("search time -5", lambda p: engine.search(p, depth=2, time_ms=-5.0), ValueError,
     "got -5.0"),
    ("search time 0", lambda p: engine.search(p, depth=2, time_ms=0), ValueError, "got 0"),
    ("search time str", lambda p: engine.search(p, depth=2, time_ms="100"), TypeError,
     "time_ms must be a number, got str"),
    ("search seed -1", lambda p: engine.search(p, depth=2, seed=-1), ValueError,
     r"seed must be an integer in 0\.\.2\*\*64-1, got -1"),
    ("search seed 2**64", lambda p: engine.search(p, depth=2, seed=2**64), ValueError,
     f"got {2**64}"),
    ("search seed str", lambda p: engine.search(p, depth=2, seed="1"), TypeError,
     "seed must be an integer, got str"),
    ("search weights tuple", lambda p: engine.search(p, depth=2, weights=(1,) * 7), TypeError,
     "weights must be a Weights or None, got tuple"),
    ("search pos int", lambda p: engine.search(5, depth=2), TypeError,
     "pos must be a Position or KPN text, got int"),
    ("Weights 2000", lambda p: engine.Weights(threat=2000), ValueError,
     r"Weights.threat must be an integer in -1000\.\.1000, got 2000"),
    ("Weights float", lambda p: engine.Weights(safe=1.5), TypeError,
     "Weights.safe must be an integer, got float"),
    # solve(pos, time_limit, node_limit, max_depth, pv)
    ("solve nodes 0", lambda p: engine.solve(p, node_limit=0), ValueError,
     r"node_limit must be an integer in 1\.\.2\*\*63-1 \(None: no limit\), got 0"),
    ("solve nodes -1", lambda p: engine.solve(p, node_limit=-1), ValueError, "got -1"),
    ("solve time nan", lambda p: engine.solve(p, time_limit=math.nan), ValueError,
     r"time_limit must be a finite number of seconds > 0 \(None: no limit\), got nan"),
    ("solve time inf", lambda p: engine.solve(p, time_limit=math.inf), ValueError, "got inf"),
    ("solve time 0", lambda p: engine.solve(p, time_limit=0), ValueError, "got 0"),
    ("solve depth 0", lambda p: engine.solve(p, max_depth=0), ValueError,
     r"max_depth must be an integer in 1\.\.4000 \(None: no limit\), got 0"),
    ("solve depth 4001", lambda p: engine.solve(p, max_depth=4001), ValueError, "got 4001"),
    ("solve pv int", lambda p: engine.solve(p, pv=0), TypeError, "pv must be a bool, got int"),
    ("solve pos None", lambda p: engine.solve(None), TypeError, "got NoneType"),
    # solve_moves checks its limits even where there is no move to solve
    ("solve_moves nodes 0", lambda p: engine.solve_moves(_over(), node_limit=0), ValueError,
     "node_limit must be an integer in 1"),
    ("solve_moves time -1", lambda p: engine.solve_moves(_over(), time_limit=-1), ValueError,
     "time_limit must be a finite number"),
    # perft(pos, depth)
    ("perft -1", lambda p: engine.perft(p, -1), ValueError,
     r"depth must be an integer in 0\.\.120, got -1"),
    ("perft 121", lambda p: engine.perft(_over(), 121), ValueError, "got 121"),
    ("perft 2**70", lambda p: engine.perft(p, 2**70), ValueError, f"got {2**70}"),
    ("perft float", lambda p: engine.perft(p, 1.5), TypeError, "got float"),
    ("perft pos list", lambda p: engine.perft([], 1), TypeError, "got list"),
    # evaluate(pos, weights)
    ("evaluate weights list", lambda p: engine.evaluate(p, [0] * 7), TypeError,
     "weights must be a Weights or None, got list"),
    ("evaluate pos int", lambda p: engine.evaluate(3), TypeError, "got int"),
    # a malformed KPN is MalformedError on every path (never the C core's own error)
    ("to_cposition non-ASCII", lambda p: engine.to_cposition(NON_ASCII), MalformedError,
     "found 'é'"),
    ("search non-ASCII", lambda p: engine.search(NON_ASCII, depth=2), MalformedError, "'é'"),
    ("solve non-ASCII", lambda p: engine.solve(NON_ASCII), MalformedError, "'é'"),
    ("perft non-ASCII", lambda p: engine.perft(NON_ASCII, 1), MalformedError, "'é'"),
    ("evaluate non-ASCII", lambda p: engine.evaluate(NON_ASCII), MalformedError, "'é'"),
]


@pytest.mark.parametrize(
    "call,exc,match", [c[1:] for c in BAD_ARGUMENTS], ids=[c[0] for c in BAD_ARGUMENTS]
)
def test_bad_arguments_are_refused(call: Call, exc: type[Exception], match: str) -> None:
    pos = Position(NEAR_END)
    with pytest.raises(exc, match=match):
        call(pos)
    assert pos.kpn() == NEAR_END and not pos.move_stack


def test_arguments_at_their_limits_are_taken() -> None:
    from kamisado.engine._backend import impl as C

    assert (engine.MAX_DEPTH, engine.SOLVE_MAX_DEPTH) == (C.MAX_DEPTH, C.SOLVE_MAX_DEPTH)
    assert (engine.NODE_LIMIT_MAX, engine.SEED_MAX) == (C.NODE_LIMIT_MAX, C.SEED_MAX)
    pos = Position(NEAR_END)
    r = engine.search(pos, depth=engine.MAX_DEPTH, time_ms=1e9, nodes=2000,
                      seed=engine.SEED_MAX, weights=engine.Weights(1000, -1000))
    assert r.best_move is not None
    s = engine.solve(pos, time_limit=1e9, node_limit=engine.NODE_LIMIT_MAX,
                     max_depth=engine.SOLVE_MAX_DEPTH)
    assert s.winner == BLACK
    assert engine.search(pos, time_ms=1e308, depth=1).depth == 1  # huge but finite
    assert engine.perft(_over(), engine.MAX_DEPTH) == 0
    assert engine.perft(pos, 0) == 1


# -- Searcher and Runner ---------------------------------------------------------------


def _less_time(r: engine.SearchResult) -> tuple[object, ...]:
    its = tuple((i.depth, i.score, i.nodes) for i in r.iterations)
    return (r.depth, r.score, r.pv, r.nodes, r.seldepth, its)


def test_a_searcher_answers_as_the_module_functions() -> None:
    s = engine.Searcher()
    pos = Position("obupyrgn/8/8/N7/8/8/8/1GRYPUBO g p 1 0 0")
    assert _less_time(s.search(pos, depth=5, seed=3)) == _less_time(
        engine.search(pos, depth=5, seed=3)
    )
    # the solver keeps its table: from empty tables, the same value (the
    # line may differ where two wins are as short: which one the table
    # meets first depends on what else the process searched before)
    s.clear_tables()
    engine.clear_tables()
    a, b = s.solve(pos), engine.solve(pos)
    assert (a.winner, a.distance, len(a.pv)) == (b.winner, b.distance, len(b.pv))
    after = pos.copy()
    after.push(a.pv[0])
    assert engine.solve(after).winner == a.winner  # the line's first move keeps the win
    s.clear_tables()
    engine.clear_tables()
    assert s.solve_moves(pos, node_limit=2000) == engine.solve_moves(pos, node_limit=2000)


def test_an_active_searcher_takes_the_module_functions_of_its_thread() -> None:
    s = engine.Searcher()
    s.stop()
    with s.active():
        # the stopped Searcher answers: the first depth, an unknown solve
        assert engine.search(Position(), depth=6).depth == 1
        assert engine.solve(Position()).winner is None
    # outside the block, and in other threads, the default one
    assert engine.search(Position(), depth=3).depth == 3
    s.resume()
    assert s.search(Position(), depth=3).depth == 3


def test_a_runner_stops_a_level_at_once_with_a_legal_move() -> None:
    from kamisado.engine.levels import player
    from kamisado.engine.runner import Runner

    runner = Runner()
    pos = Position()
    # a search of a minute, stopped: a legal move soon
    runner.start(engine.search, pos, time_ms=60_000)
    time.sleep(0.2)
    start = cpu_seconds()  # CPU time: a loaded machine does not lengthen it
    runner.stop()
    r = runner.result(timeout=30)
    assert cpu_seconds() - start < 5
    assert r.best_move in pos.legal_moves and r.depth >= 1
    # a level's move: its searches and solves stop at once, its move is legal
    runner.start(player("perfect", 1).choose_move, pos)
    runner.stop()
    assert runner.result(timeout=30) in pos.legal_moves
    # a new job runs to its limits again
    assert runner.start(engine.search, pos, depth=3).result(timeout=30).depth == 3


def test_a_runner_hands_back_errors_and_replaces_a_running_job() -> None:
    from kamisado.engine.runner import Runner

    runner = Runner()
    with pytest.raises(RuntimeError, match="run nothing"):
        runner.result()
    runner.start(engine.search, Position())  # no limit: ValueError in the thread
    with pytest.raises(ValueError, match="give a depth"):
        runner.result(timeout=30)
    first = runner.start(engine.search, Position(), time_ms=60_000)
    second = runner.start(engine.search, Position(), depth=2)
    assert first.done() and first.result().depth >= 1  # stopped to make way
    assert second.result(timeout=30).depth == 2
    assert runner.wait(30) and not runner.running
