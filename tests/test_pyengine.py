"""The pure-Python engine (``kamisado.engine._pure.engine``) against the compiled one.

The pure engine is a drop-in for ``kamisado.engine._ckamisado``: the same positions
(moves in the same order, Zobrist keys, passes, outcomes, KPN), the same
evaluation, the same search (score, principal variation and node count for
the same position, depth, weights and seed, Sumo and match positions
included), the same solver values (winner and distance) and the same
argument checks.  The comparisons need the compiled core and are skipped
without it; the rest runs on the pure engine alone (as ``.ci/no-compiler``
does in a fresh install without a C compiler).

No assertion depends on timing.
"""

from __future__ import annotations

import json
import math
import os
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kamisado import engine
from kamisado.engine import _backend
from kamisado.engine._pure import engine as P
from kamisado.rules.board import GOAL_RANK, START_KPN
from kamisado.rules.position import Position
from tests.conftest import random_positions

try:
    from kamisado.engine import _ckamisado as C
except ImportError:  # no compiler where this was installed
    C = None  # type: ignore[assignment]

needs_c = pytest.mark.skipif(C is None, reason="the compiled core is not built here")

RULEBOOK = json.loads((Path(__file__).parent / "data" / "rulebook.json").read_text())

#: Positions with Sumos, Doubles, pushes and match points.
SUMO_KPNS = [
    "3pyrgn/3u4/8/2R5/4G1Y1/ob6/8/N3PUBO b b 3 0 0",
    "obupyr2/8/6g1/5RnY++/8/8/N7/1G2PUBO b n 7 3 0",
    "obupyr2/8/6g1/5RnY++/8/8/N7/1G2PUBO b n 15 3 0",
    "obupyr2/6N+1/6gn/8/8/8/8/1GRYPUBO b n 7 1 0",
    "2b3n1/4U3/5u1B/3o4/1pN2Or1/4y1P1/g7/1G1R3Y g u 3 0 0",
]
#: Positions the pure solver proves in well under a second.
SOLVABLE = [
    "obupyrgn/8/8/N7/8/8/8/1GRYPUBO g p 1 0 0",
    "1pyrgn2/o3u3/7b/8/2R1N3/8/6G1/3YPUBO b b 1 0 0",
]


match_positions = random_positions


def rulebook_positions() -> list[Position]:
    """Every position of the rulebook's figures (passes, deadlocks, Sumos)."""
    out: list[Position] = []
    for name, fig in RULEBOOK.items():
        if not name.startswith("fig") or "kpn" not in fig:
            continue
        pos = Position(fig["kpn"])
        for m in fig["moves"]:
            if pos.outcome is None:
                out.append(pos.copy(stack=False))
                pos.push_move(m)
    return out


def late_positions(count: int, seed: int) -> list[str]:
    """KPNs a few moves before the end of random rounds (single and Sumo)."""
    rng = random.Random(seed)
    out: list[str] = []
    while len(out) < count:
        pos = Position(rng.choice([START_KPN, *SUMO_KPNS]))
        seen = [pos.kpn()]
        while pos.outcome is None:
            codes = pos.move_codes()
            slow = [c for c in codes if (c >> 6) >> 3 != GOAL_RANK[pos.turn]]
            pos.push_code(rng.choice(slow if slow and rng.random() < 0.9 else codes))
            seen.append(pos.kpn())
        back = rng.randint(2, 9)
        if len(seen) > back and Position(seen[-1 - back]).outcome is None:
            out.append(seen[-1 - back])
    return out


def state(x: Any) -> tuple[object, ...]:
    """Everything a position of either core tells about itself."""
    return (
        x.kpn(),
        x.kpn(match=False),
        x.hash,
        x.moves(),
        x.outcome,
        x.passes(),
        x.turn,
        x.must_move,
        x.board,
        x.rings,
        x.points,
        x.target,
        x.ply,
        x.can_win_now(),
        x.check(),
    )


# ---------------------------------------------------------------------------
# The choice of core
# ---------------------------------------------------------------------------


def test_the_backend_is_chosen_once_and_named() -> None:
    forced = os.environ.get(_backend.ENV_PURE_PYTHON, "") not in ("", "0")
    if forced or C is None:
        assert (engine.BACKEND, _backend.impl) == ("python", P)
    else:
        assert (engine.BACKEND, _backend.impl) == ("compiled", C)
    code = "from kamisado import engine; print(engine.BACKEND)"
    for value, expected in (("1", "python"), ("0", "compiled" if C else "python")):
        env = {**os.environ, _backend.ENV_PURE_PYTHON: value}
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        assert out.stdout.strip() == expected


def test_the_engine_protocol_names_the_backend() -> None:
    env = {**os.environ, _backend.ENV_PURE_PYTHON: "1"}
    out = subprocess.run(
        [sys.executable, "-m", "kamisado.cli", "engine"],
        input="kei\nquit\n",
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    lines = out.stdout.splitlines()
    assert lines[0].startswith("id name Kamisado") and "id backend python" in lines


def test_the_web_app_names_the_backend() -> None:
    # the test client needs the test extra's httpx2 (not in .ci/no-compiler's venv)
    pytest.importorskip("httpx2")
    from starlette.testclient import TestClient

    from kamisado import __version__
    from kamisado.web.site.server import create_app

    with TestClient(create_app("sqlite://", workers=0)) as client:
        got = client.get("/api/engine").json()
    assert got == {"version": __version__, "backend": engine.BACKEND}


# ---------------------------------------------------------------------------
# Positions
# ---------------------------------------------------------------------------


@needs_c
def test_constants_and_tables_agree() -> None:
    names = [n for n in dir(C) if n.isupper()]
    assert names and all(getattr(P, n) == getattr(C, n) for n in names), names
    assert P.square_colours() == C.square_colours()
    assert P.Position().hash == C.Position().hash


@needs_c
def test_positions_agree_move_by_move() -> None:
    """Every move of random match positions and of the rulebook's figures,
    pushed and taken back on both cores: moves in the same order, the same
    keys, passes, outcomes and KPN."""
    children = 0
    for pos in match_positions(250, seed=1) + rulebook_positions():
        kpn = pos.kpn()
        c, p = C.Position(kpn), P.Position(kpn)
        assert state(c) == state(p), kpn
        for code in c.moves():
            c.push(code)
            p.push(code)
            assert state(c) == state(p), (kpn, code)
            children += 1
            q = p.copy()
            assert q.pop() == c.pop() == p.pop() == code
            assert state(q) == state(c) == state(p), (kpn, code)
    assert children > 2000


@needs_c
def test_positions_agree_along_playouts_full_of_pushes() -> None:
    """Random playouts that push whenever they can, from random setups with
    opponents stacked in front of Sumos, Doubles and Triples."""
    from tests.test_ckamisado import random_kpn  # the compiled core's own generator

    rng = random.Random(8)
    pushes = 0
    for kpn in [random_kpn(rng) for _ in range(600)] + SUMO_KPNS:
        c, p = C.Position(kpn), P.Position(kpn)
        while c.outcome is None:
            codes = c.moves()
            push = [x for x in codes if c.board[x >> 6] >= 0]
            code = rng.choice(push if push and rng.random() < 0.8 else codes)
            pushes += code in push
            c.push(code)
            p.push(code)
            assert state(c) == state(p), (kpn, code)
        while c.ply:
            assert c.pop() == p.pop()
            assert state(c) == state(p), kpn
    assert pushes > 100, pushes


@needs_c
def test_perft_agrees() -> None:
    for kpn in [START_KPN, *SUMO_KPNS[:3]]:
        c, p = C.Position(kpn), P.Position(kpn)
        assert [c.perft(d) for d in range(4)] == [p.perft(d) for d in range(4)], kpn


def test_pure_positions_against_the_rules_core() -> None:
    """Without the compiled core: the pure position is core.Position's."""
    for pos in match_positions(60, seed=2):
        p = P.Position(pos)
        assert p.moves() == pos.move_codes() and p.kpn() == pos.kpn()
        for code in p.moves():
            p.push(code)
            pos.push_code(code)
            assert (p.kpn(), p.check()) == (pos.kpn(), True)
            assert p.passes() == tuple(tuple(x) for x in pos.passes())
            p.pop()
            pos.pop()


# ---------------------------------------------------------------------------
# The evaluation and the search
# ---------------------------------------------------------------------------


@needs_c
def test_evaluate_agrees() -> None:
    rng = random.Random(3)
    weight_sets = [None, [rng.randint(-1000, 1000) for _ in range(P.NWEIGHTS)]]
    weight_sets += [[rng.randint(-60, 60) for _ in range(P.NWEIGHTS - 1)] + [25]]
    for pos in match_positions(300, seed=3) + rulebook_positions():
        c, p = C.Position(pos.kpn()), P.Position(pos.kpn())
        for w in weight_sets:
            assert C.evaluate(c, w) == P.evaluate(p, w), (pos.kpn(), w)


def _search_answers(r: dict[str, Any]) -> tuple[object, ...]:
    its = [(d, s, n) for d, s, n, _ in r["iterations"]]
    return (r["depth"], r["score"], r["pv"], r["nodes"], r["seldepth"], its)


@needs_c
def test_search_agrees_on_random_match_positions() -> None:
    """Same position, depth, weights and seed: the same score, PV, nodes."""
    rng = random.Random(4)
    for i, pos in enumerate(match_positions(120, seed=4)):
        kpn = pos.kpn()
        depth = 1 + i % 5
        seed = rng.choice([0, 0, i + 1])
        w = None if i % 3 else [rng.randint(-50, 50) for _ in range(6)] + [i % 40]
        a = C.search(C.Position(kpn), depth=depth, seed=seed, weights=w)
        b = P.search(P.Position(kpn), depth=depth, seed=seed, weights=w)
        assert _search_answers(a) == _search_answers(b), (kpn, depth, seed, w)


@needs_c
def test_search_agrees_on_crowded_sumo_setups() -> None:
    """Pushes, passes and deadlocks inside the tree, and the solver's values."""
    from tests.test_ckamisado import random_kpn

    rng = random.Random(9)
    kpns: list[str] = []
    while len(kpns) < 60:
        kpn = random_kpn(rng)
        c = C.Position(kpn)
        if c.outcome is None and not c.can_win_now():  # not over at once
            kpns.append(kpn)
    nodes = 0
    for i, kpn in enumerate(kpns):
        depth = 3 + i % 4
        a = C.search(C.Position(kpn), depth=depth, seed=i)
        b = P.search(P.Position(kpn), depth=depth, seed=i)
        assert _search_answers(a) == _search_answers(b), (kpn, depth)
        nodes += a["nodes"]
        if i % 4 == 0:
            C.clear_tt()
            P.clear_tt()
            a = C.solve(C.Position(kpn), node_limit=200_000, pv=False)
            b = P.solve(P.Position(kpn), node_limit=200_000, pv=False)
            if a["result"] and b["result"]:
                assert (a["result"], a["distance"]) == (b["result"], b["distance"]), kpn
    assert nodes > 1000  # small trees: crowded boards leave few moves


@needs_c
@pytest.mark.parametrize("kpn", [START_KPN, *SUMO_KPNS, SOLVABLE[0]])
def test_search_agrees_deeper_on_sumo_and_match_positions(kpn: str) -> None:
    for depth, seed in ((5, 0), (6, 7)):
        a = C.search(C.Position(kpn), depth=depth, seed=seed)
        b = P.search(P.Position(kpn), depth=depth, seed=seed)
        assert _search_answers(a) == _search_answers(b), (kpn, depth)


@needs_c
def test_search_agrees_under_a_node_limit_and_with_a_kept_table() -> None:
    kpn = SUMO_KPNS[0]
    a = C.search(C.Position(kpn), node_limit=3000)
    b = P.search(P.Position(kpn), node_limit=3000)
    assert _search_answers(a) == _search_answers(b)
    # one depth per call with the table kept, as the engine protocol searches
    for depth in range(1, 6):
        a = C.search(C.Position(kpn), depth=depth, seed=5, keep_tt=depth > 1)
        b = P.search(P.Position(kpn), depth=depth, seed=5, keep_tt=depth > 1)
        assert _search_answers(a) == _search_answers(b), depth


def _iterations(module: Any, kpn: str, stop_at: int = 0, **kw: Any) -> tuple[object, ...]:
    """What ``on_iteration`` saw (the time left out) and the search's answer."""
    seen: list[tuple[object, ...]] = []

    def record(d: int, v: int, n: int, t: float, sel: int, pv: list[int]) -> bool:
        assert isinstance(t, float) and t >= 0
        seen.append((d, v, n, sel, pv))
        return d == stop_at

    r = module.search(module.Position(kpn), on_iteration=record, **kw)
    return tuple(seen), _search_answers(r)


@needs_c
@pytest.mark.parametrize("kpn", [START_KPN, *SUMO_KPNS, *SOLVABLE])
def test_both_cores_report_the_same_iterations(kpn: str) -> None:
    """``on_iteration``: the same depths, scores, nodes, seldepths and lines."""
    for kw in ({"depth": 5}, {"depth": 6, "seed": 7}, {"node_limit": 4000, "seed": 2}):
        a = _iterations(C, kpn, **kw)
        b = _iterations(P, kpn, **kw)
        assert a == b, (kpn, kw)
        seen, answer = a
        depth, score, pv, _nodes, _sel, its = answer  # type: ignore[misc]
        # the iterations the answer lists, each with its seldepth and line
        assert [x[:3] for x in seen] == [x[:3] for x in its]  # type: ignore[index]
        assert seen[-1][0] == depth and seen[-1][1] == score and seen[-1][4] == pv  # type: ignore[index]
    # a true answer stops the search after that iteration, in both cores alike
    a = _iterations(C, kpn, stop_at=3, depth=8)
    assert a == _iterations(P, kpn, stop_at=3, depth=8)
    done = len(a[0])  # type: ignore[arg-type]
    assert done <= 3 and a[1][0] == done  # type: ignore[index]
    assert a[0] == _iterations(C, kpn, depth=8)[0][:done]  # type: ignore[index]


@needs_c
def test_on_iteration_errors_stop_both_cores_alike() -> None:
    def boom(d: int, *_: object) -> None:
        if d == 2:
            raise KeyError("stop here")

    for module in (C, P):
        with pytest.raises(KeyError, match="stop here"):
            module.search(module.Position(), depth=5, on_iteration=boom)
        p = module.Position()
        with pytest.raises(RuntimeError, match="on_iteration callback"):
            module.search(
                p, depth=2, on_iteration=lambda *_, m=module, q=p: m.search(q, depth=1)
            )
        assert module.search(p, depth=2)["depth"] == 2  # the next search runs


def test_pure_search_plays_legal_lines_and_proves_soundly() -> None:
    for i, pos in enumerate(match_positions(60, seed=5) + rulebook_positions()):
        r = P.search(P.Position(pos.kpn()), depth=1 + i % 4, seed=i)
        assert r["pv"], pos.kpn()
        q = pos.copy()
        for code in r["pv"]:
            assert q.outcome is None and code in q.move_codes(), (pos.kpn(), r["pv"])
            q.push_code(code)
        if r["score"] >= P.WIN_MIN:  # a proven win: the solver agrees
            assert P.solve(P.Position(pos.kpn()))["result"] == 1, pos.kpn()


# ---------------------------------------------------------------------------
# The solver
# ---------------------------------------------------------------------------


def _check_solution(kpn: str, r: dict[str, Any]) -> None:
    """A proven result: the PV is legal, as long as the distance, and the
    round ends with the winner's win."""
    assert r["result"] != 0 and not r["stopped"], kpn
    pos = Position(kpn)
    side = pos.turn
    for code in r["pv"]:
        assert pos.outcome is None and code in pos.move_codes(), (kpn, r["pv"])
        pos.push_code(code)
    assert len(r["pv"]) == r["distance"] and r["pv"][0] == r["best_move"], kpn
    winner = side if r["result"] > 0 else side ^ 1
    assert pos.outcome is not None and pos.outcome.winner == winner, kpn


@needs_c
def test_solvers_agree_on_late_positions() -> None:
    solved = 0
    for kpn in late_positions(60, seed=6) + SOLVABLE:
        C.clear_tt()
        P.clear_tt()
        a = C.solve(C.Position(kpn))
        # a node limit, not a time limit: the same on a loaded machine (the
        # hardest of these takes about 256,000 nodes, a few seconds)
        b = P.solve(P.Position(kpn), node_limit=5_000_000)
        assert (a["result"], a["distance"]) == (b["result"], b["distance"]), kpn
        _check_solution(kpn, b)
        solved += 1
    assert solved == 62


@needs_c
def test_solvers_agree_within_a_horizon() -> None:
    """Limited to d moves: a result within d, or unknown (result 0), alike."""
    unknown = 0
    for kpn in late_positions(25, seed=7):
        for d in (1, 2, 3, 5):
            C.clear_tt()
            P.clear_tt()
            a = C.solve(C.Position(kpn), max_depth=d)
            b = P.solve(P.Position(kpn), max_depth=d)
            assert (a["result"], a["distance"], a["depth"]) == (
                b["result"],
                b["distance"],
                b["depth"],
            ), (kpn, d)
            unknown += a["result"] == 0
    assert unknown > 5


def test_pure_solver_limits_and_table() -> None:
    P.clear_tt()
    r = P.solve(P.Position(), node_limit=2000)
    assert (r["result"], r["stopped"], r["pv"]) == (0, True, [])
    kpn = SOLVABLE[0]
    first = P.solve(P.Position(kpn))
    _check_solution(kpn, first)
    assert (first["result"], first["distance"]) == (-1, 16)  # Black (not to move) in 16
    again = P.solve(P.Position(kpn), pv=False)  # the table kept the proof
    assert (again["result"], again["distance"], again["pv"]) == (-1, 16, [])
    assert again["nodes"] < first["nodes"]


# ---------------------------------------------------------------------------
# Argument checks: the same exceptions and messages
# ---------------------------------------------------------------------------

Call = Callable[[Any, Any], object]
BAD_CALLS: list[tuple[str, Call]] = [
    ("Position int", lambda M, p: M.Position(5)),
    ("Position non-ASCII", lambda M, p: M.Position(START_KPN.replace("n", "é", 1))),
    ("Position NUL", lambda M, p: M.Position(START_KPN + "\0")),
    ("push str", lambda M, p: p.push("a1-a5")),
    ("push bool", lambda M, p: p.push(True)),
    ("push 4096", lambda M, p: p.push(4096)),
    ("push 2**1000", lambda M, p: p.push(2**1000)),
    ("push illegal", lambda M, p: p.push(63 << 6)),
    ("pop empty", lambda M, p: p.pop()),
    ("kpn match int", lambda M, p: p.kpn(0)),
    ("perft 121", lambda M, p: p.perft(121)),
    ("perft float", lambda M, p: p.perft(1.0)),
    ("solve nodes -1", lambda M, p: M.solve(p, node_limit=-1)),
    ("solve time nan", lambda M, p: M.solve(p, time_ms=math.nan)),
    ("solve time 10**400", lambda M, p: M.solve(p, time_ms=10**400)),
    ("solve depth 4001", lambda M, p: M.solve(p, max_depth=4001)),
    ("solve pv str", lambda M, p: M.solve(p, pv="no")),
    ("solve tt 9", lambda M, p: M.solve(p, tt_log2=9)),
    ("search no limit", lambda M, p: M.search(p)),
    ("search depth 121", lambda M, p: M.search(p, depth=121)),
    ("search time -5", lambda M, p: M.search(p, depth=2, time_ms=-5.0)),
    ("search nodes 2**63", lambda M, p: M.search(p, depth=2, node_limit=2**63)),
    ("search weights short", lambda M, p: M.search(p, depth=2, weights=[1] * 3)),
    ("search weights big", lambda M, p: M.search(p, depth=2, weights=[2000] * 7)),
    ("search weights str", lambda M, p: M.search(p, depth=2, weights="abcdefg")),
    ("search seed -1", lambda M, p: M.search(p, depth=2, seed=-1)),
    ("search tt 0", lambda M, p: M.search(p, depth=2, tt_log2=0)),
    ("search keep_tt str", lambda M, p: M.search(p, depth=2, keep_tt="yes")),
    ("search on_iteration int", lambda M, p: M.search(p, depth=2, on_iteration=3)),
    ("evaluate weights float", lambda M, p: M.evaluate(p, [0.5] * 7)),
]


def _error(module: Any, call: Call) -> tuple[type[BaseException], str]:
    p = module.Position(SOLVABLE[0])
    with pytest.raises((TypeError, ValueError, IndexError)) as info:
        call(module, p)
    assert (p.kpn(), p.ply, p.check()) == (SOLVABLE[0], 0, True)  # nothing changed
    return info.type, str(info.value)


@needs_c
@pytest.mark.parametrize("call", [c for _, c in BAD_CALLS], ids=[n for n, _ in BAD_CALLS])
def test_bad_arguments_give_the_same_errors(call: Call) -> None:
    assert _error(P, call) == _error(C, call)


def test_a_finished_round_is_refused() -> None:
    done = P.Position("2b3n1/4U3/5u1B/3o4/1pN2Or1/4y1P1/g7/1G1R3Y g u 3 0 0")
    done.push(45)  # f6-a1 ends the round
    assert done.outcome == (1, 5, "goal", 0) and done.moves() == []
    for call in (P.search, P.solve, P.evaluate):
        with pytest.raises(ValueError, match="the round is over"):
            call(done)  # type: ignore[operator]
    with pytest.raises(ValueError, match="illegal move code 45: the round is over"):
        done.push(45)


def _is_winning_move(kpn: str, code: int) -> bool:
    """Whether the move ``code`` wins the round for the side to move (the exact solver)."""
    pos = Position(kpn)
    side = pos.turn
    pos.push_code(code)
    if pos.outcome is not None:
        return pos.outcome.winner == side
    return engine.solve(pos, pv=False).winner == side


@needs_c
def test_winner_only_agrees_with_the_exact_solver() -> None:
    """``exact=False``: the exact solver's winner, a winning move (none when
    lost), no distance or line; the pure-Python core searches the same nodes."""
    losses = 0
    for kpn in late_positions(60, seed=9):
        C.clear_tt()
        exact = C.solve(C.Position(kpn), pv=False)
        w = C.Searcher().solve(C.Position(kpn), exact=False)
        p = P.Searcher().solve(P.Position(kpn), exact=False)
        assert exact["result"] != 0, kpn
        assert w["result"] == exact["result"] and w["distance"] == -1 and w["pv"] == [], kpn
        assert (p["result"], p["best_move"], p["nodes"]) == (w["result"], w["best_move"], w["nodes"])
        if w["result"] > 0:
            assert _is_winning_move(kpn, w["best_move"]), kpn
        else:
            assert w["best_move"] == 0
            losses += 1
    assert losses >= 10


def test_winner_only_from_the_start() -> None:
    """The single round from the start: Black wins (the book's proof), with a
    move the exact solver confirms; a node limit or a stop answers unknown."""
    s = engine.Searcher()
    r = s.solve(Position(), exact=False)
    assert (r.winner, r.distance, r.pv) == (0, None, ())
    assert r.best_move is not None
    assert _is_winning_move(START_KPN, r.best_move.from_square | r.best_move.to_square << 6)
    assert "distance not computed" in str(r)
    assert r.nodes < 1_000_000  # the exact solver takes about 5M
    assert engine.Searcher().solve(Position(), exact=False, node_limit=2000).winner is None
    s.stop()
    s.clear_tables()
    assert s.solve(Position(), exact=False).winner is None
    with pytest.raises(TypeError, match="exact must be a bool"):
        engine.solve(Position(), exact=1)  # type: ignore[arg-type]
