"""The engine core (``kamisado.engine._ckamisado``) against the rules reference.

The core is the one :mod:`kamisado.engine._backend` picks: the compiled one, or the
pure-Python ``kamisado.engine._pure.engine`` where it is not built or
``KAMISADO_PURE_PYTHON=1`` is set (the same API, the same tests).

* the move generator, make/unmake, passes, deadlocks and KPN against
  ``kamisado.rules.position.Position`` over thousands of positions from random
  playouts, from the start and from random setups with Sumos, Doubles and
  Triples;
* perft against core;
* the solver against an exhaustive minimax over ``core.Position`` (exact
  values of near-end positions, and values "resolved within d moves");
* the solver's best move keeps a won position won;
* the search's proven results agree with the solver;
* Searchers: threads searching side by side answer as one after the other,
  ``stop()`` from another thread, the table's generations, the GIL released.

No assertion depends on timing, but for generous bounds on how soon
``stop()`` ends a search.
"""

from __future__ import annotations

import math
import random
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from kamisado import engine
from kamisado.engine._backend import BACKEND
from kamisado.engine._backend import impl as C
from kamisado.rules.board import (
    BLACK,
    GOAL_RANK,
    GOLD,
    RING_POINTS,
    START_KPN,
    MalformedError,
    ring_total,
)
from kamisado.rules.position import Position
from tests.conftest import cpu_seconds

#: The pure-Python core (no C compiler, or KAMISADO_PURE_PYTHON=1) is about
#: 40 times slower: tests that prove whole openings skip on it.
slow_on_pure_python = pytest.mark.skipif(
    BACKEND == "python", reason="too slow on the pure-Python engine core"
)

MATE = C.MATE

# ---------------------------------------------------------------------------
# Random positions
# ---------------------------------------------------------------------------


def _free_squares(board: list[int], side: int, low: int, high: int) -> list[int]:
    """Empty squares in ranks low..high (else anywhere), off the side's goal row."""
    for lo, hi in ((low, high), (0, 7)):
        sq = [
            s
            for s in range(64)
            if board[s] < 0 and lo <= s >> 3 <= hi and s >> 3 != GOAL_RANK[side]
        ]
        if sq:
            return sq
    raise AssertionError("no room")


def random_kpn(rng: random.Random) -> str:
    """A random KPN that core accepts, with rings, crowded middle ranks and
    opponents stacked in front of ringed towers (so that pushes, blocked
    towers, passes and deadlocks are common)."""
    while True:
        target = rng.choice((1, 3, 7, 15, 15))
        rings = [0] * 16
        if target > 1:
            for side in (BLACK, GOLD):
                for c in rng.sample(range(8), rng.randint(0, 5)):
                    rings[side * 8 + c] = rng.choice((1, 1, 2, 2, 3))
            pts = [sum(ring_total(rings[s * 8 + c]) for c in range(8)) for s in (0, 1)]
            if max(pts) >= target:
                continue
        low, high = rng.choice(((0, 7), (1, 6), (2, 5), (2, 5), (3, 4), (2, 4)))
        board = [-1] * 64
        towers = list(range(16))
        rng.shuffle(towers)
        placed: set[int] = set()

        for t in towers:
            if t in placed:
                continue
            side = t >> 3
            s = rng.choice(_free_squares(board, side, low, high))
            board[s] = t
            placed.add(t)
            n = rings[t]
            if n and rng.random() < 0.7:
                ahead = s
                step = 8 if side == BLACK else -8
                for _ in range(rng.randint(1, n + 1)):
                    ahead += step
                    other = side ^ 1
                    if not 0 <= ahead < 64 or board[ahead] >= 0:
                        break
                    if ahead >> 3 == GOAL_RANK[other]:
                        break
                    cands = [
                        other * 8 + c
                        for c in range(8)
                        if other * 8 + c not in placed and rings[other * 8 + c] < n
                    ]
                    if not cands:
                        break
                    q = rng.choice(cands)
                    board[ahead] = q
                    placed.add(q)
        rows = []
        for rank in range(7, -1, -1):
            row, empty = "", 0
            for f in range(8):
                t = board[rank * 8 + f]
                if t < 0:
                    empty += 1
                    continue
                if empty:
                    row += str(empty)
                    empty = 0
                letter = "ngrypubo"[t & 7]
                row += (letter.upper() if t < 8 else letter) + "+" * rings[t]
            if empty:
                row += str(empty)
            rows.append(row)
        turn = rng.choice("bg")
        must = "-" if rng.random() < 0.08 else rng.choice("ngrypubo")
        pts = [sum(ring_total(rings[s * 8 + c]) for c in range(8)) for s in (0, 1)]
        kpn = f"{'/'.join(rows)} {turn} {must} {target} {pts[0]} {pts[1]}"
        try:
            Position(kpn)
        except MalformedError:
            continue
        return kpn


def choose(codes: list[int], pos: Position, rng: random.Random) -> int:
    """A random move, biased towards pushes and away from winning at once."""
    pushes = [c for c in codes if pos.board[c >> 6] >= 0]
    if pushes and rng.random() < 0.6:
        return rng.choice(pushes)
    slow = [c for c in codes if (c >> 6) >> 3 != GOAL_RANK[pos.turn]]
    if slow and rng.random() < 0.9:
        return rng.choice(slow)
    return rng.choice(codes)


def core_outcome(pos: Position) -> tuple[int, int, str, int] | None:
    o = pos.outcome
    return None if o is None else (o.winner, o.colour, o.reason, o.rings)


def compare(p: Position, c: C.Position, where: str) -> None:
    assert c.kpn() == p.kpn(), where
    assert c.kpn(match=False) == p.kpn(match=False), where
    assert sorted(c.moves()) == sorted(p.move_codes()), where
    assert c.moves() == p.move_codes(), where  # the same order, too
    assert c.outcome == core_outcome(p), where
    assert c.passes() == tuple(tuple(x) for x in p.passes()), where
    assert c.turn == p.turn and c.must_move == p.must_move, where
    assert c.check(), where
    if p.outcome is not None:
        # a finished round's KPN reads back as core reads it back (finished
        # the same way, except core's known gap: a deadlock right after a
        # push; see the engine report)
        assert C.Position(c.kpn()).outcome == core_outcome(Position(p.kpn())), where
    if p.outcome is None:
        wins = any((code >> 6) >> 3 == GOAL_RANK[p.turn] for code in p.move_codes())
        assert c.can_win_now() == wins, where


def playout(kpn: str, rng: random.Random, stats: Counter[str], max_moves: int = 300) -> int:
    p = Position(kpn)
    c = C.Position(kpn)
    compare(p, c, f"load {kpn}")
    kpns = [p.kpn()]
    n = 0
    for _ in range(max_moves):
        codes = p.move_codes()
        if not codes:
            break
        code = choose(codes, p, rng)
        where = f"{p.kpn()} then {code & 63}-{code >> 6}"
        if p.board[code >> 6] >= 0:
            stats["push"] += 1
        p.push_code(code)
        c.push(code)
        n += 1
        if p.passes():
            stats["passes"] += 1
        if p.outcome is not None:
            stats[p.outcome.reason] += 1
        compare(p, c, where)
        kpns.append(p.kpn())
        if rng.random() < 0.1:  # take back and play again
            assert c.pop() == code
            p.pop()
            compare(p, c, f"pop {where}")
            p.push_code(code)
            c.push(code)
    # unwind everything
    while kpns:
        assert c.kpn() == kpns.pop()
        assert c.check()
        if c.ply:
            c.pop()
    assert c.ply == 0
    return n


def test_square_colours() -> None:
    from kamisado.rules.board import SQUARE_COLOUR

    assert C.square_colours() == SQUARE_COLOUR


def test_random_playouts_from_start() -> None:
    rng = random.Random(1)
    stats: Counter[str] = Counter()
    moves = sum(playout(START_KPN, rng, stats) for _ in range(400))
    assert moves > 4000


def test_random_playouts_with_sumos() -> None:
    rng = random.Random(2)
    stats: Counter[str] = Counter()
    moves = 0
    for _ in range(1500):
        moves += playout(random_kpn(rng), rng, stats)
    assert moves > 10000
    # the interesting rules were exercised
    assert stats["push"] > 150, stats
    assert stats["passes"] > 50, stats
    assert stats["deadlock"] > 5, stats
    assert stats["goal"] > 100, stats


def test_loaded_positions_match_core() -> None:
    """Many loads (blocked towers to move, deadlocks on load, '-')."""
    rng = random.Random(3)
    for _ in range(3000):
        kpn = random_kpn(rng)
        compare(Position(kpn), C.Position(kpn), kpn)


def test_bad_kpn_rejected() -> None:
    for bad in [
        "",
        "obupyrgn/8/8/8/8/8/8/NGRYPUBO",
        "obupyrgn/8/8/8/8/8/8/NGRYPUB b -",
        "obupyrgn/8/8/8/8/8/8/NGRYPUBOO b -",
        "obupyrgn/8/8/8/8/8/8/NGRYPUBO x -",
        "obupyrgn/8/8/8/8/8/8/NGRYPUBO b q",
        "obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 2 0 0",
        "obupyrgn/8/8/8/8/8/8/NGRYPUB+O b - 3 0 0",
        "obupyrgn/8/8/8/8/8/8/NGRYPUB++++O b - 15 15 0",
    ]:
        with pytest.raises(ValueError):
            C.Position(bad)


def test_illegal_push_rejected() -> None:
    c = C.Position()
    with pytest.raises(ValueError):
        c.push(0 | 63 << 6)
    with pytest.raises(IndexError):
        c.pop()


@pytest.mark.parametrize(
    "kpn,depth",
    [
        (START_KPN, 4),
        ("obupyrgn/8/8/N7/8/8/8/1GRYPUBO g p 1 0 0", 4),
        ("3pyrgn/3u4/8/2R5/4G1Y1/ob6/8/N3PUBO b b 3 0 0", 4),
    ],
)
def test_perft_matches_core(kpn: str, depth: int) -> None:
    c = C.Position(kpn)
    p = Position(kpn)
    for d in range(depth + 1):
        assert c.perft(d) == p.perft(d), (kpn, d)


def test_perft_random_sumo_positions() -> None:
    rng = random.Random(4)
    for _ in range(25):
        kpn = random_kpn(rng)
        p = Position(kpn)
        c = C.Position(kpn)
        for d in range(4):
            assert c.perft(d) == p.perft(d), (kpn, d)


def test_perft_start_known() -> None:
    c = C.Position()
    assert [c.perft(d) for d in range(1, 6)] == [102, 1150, 11332, 107068, 928716]


# ---------------------------------------------------------------------------
# The solver against exhaustive search
# ---------------------------------------------------------------------------


def up(child: int, same: bool) -> int:
    v = child if same else -child
    return v - 1 if v > 0 else v + 1 if v < 0 else 0


def dl_value(pos: Position, d: int, memo: dict[object, int], budget: list[int]) -> int:
    """The value if resolved within d moves, else 0, by exhaustive minimax:
    MATE - n for a win in n, -(MATE - n) for a loss in n (the winner's
    shortest win, the loser's longest resistance)."""
    if d == 0:
        return 0
    key = (pos.key(), d)
    got = memo.get(key)
    if got is not None:
        return got
    budget[0] -= 1
    if budget[0] < 0:
        raise TimeoutError
    side = pos.turn
    best = -2 * MATE
    for code in pos.move_codes():
        pos.push_code(code)
        try:
            if pos.outcome is not None:
                v = MATE - 1 if pos.outcome.winner == side else -(MATE - 1)
            else:
                v = up(dl_value(pos, d - 1, memo, budget), pos.turn == side)
        finally:
            pos.pop()
        best = max(best, v)
    memo[key] = best
    return best


def solver_value(kpn: str, **kw: int) -> int:
    r = C.solve(C.Position(kpn), **kw)
    assert not r["stopped"]
    if r["result"] == 0:
        return 0
    return r["result"] * (MATE - r["distance"])


def late_positions(rng: random.Random, count: int) -> list[str]:
    """Positions a few moves before the end of random playouts."""
    out: list[str] = []
    while len(out) < count:
        kpn = random_kpn(rng) if rng.random() < 0.7 else START_KPN
        p = Position(kpn)
        seen = [p.kpn()]
        while p.outcome is None and len(seen) < 300:
            p.push_code(choose(p.move_codes(), p, rng))
            seen.append(p.kpn())
        back = rng.randint(2, 9)
        if len(seen) > back:
            cand = seen[-1 - back]
            if Position(cand).outcome is None:
                out.append(cand)
    return out


@pytest.mark.slow  # started first (tests/conftest.py)
def test_solver_against_minimax() -> None:
    """For d = 1, 2, ...: the solver limited to d moves equals exhaustive
    minimax limited to d moves; at the first d where the result is known,
    the unlimited solver gives that exact value."""
    rng = random.Random(5)
    checked = Counter[str]()
    for kpn in late_positions(rng, 130):  # 16 wins, 22 losses, 13 of 4+ moves
        if C.Position(kpn).can_win_now():
            continue  # keep the trivial ones out
        pos = Position(kpn)
        memo: dict[object, int] = {}
        budget = [15000]
        for d in range(1, 12):
            try:
                want = dl_value(pos, d, memo, budget)
            except TimeoutError:
                checked["gave up"] += 1
                break
            C.clear_tt()
            assert solver_value(kpn, max_depth=d) == want, (kpn, d, want)
            checked["depth-limited"] += 1
            if want:
                C.clear_tt()
                assert solver_value(kpn) == want, (kpn, want)
                checked["win" if want > 0 else "loss"] += 1
                checked[f"dist{MATE - abs(want)}"] += 1
                break
    assert checked["win"] > 12 and checked["loss"] > 15, checked
    assert (
        sum(v for k, v in checked.items() if k.startswith("dist") and int(k[4:]) >= 4) > 5
    ), checked


def test_solver_best_move_keeps_the_win() -> None:
    rng = random.Random(7)
    wins = 0
    for kpn in late_positions(rng, 60) + [
        "obupyrgn/8/8/N7/8/8/8/1GRYPUBO g p 1 0 0",
    ]:
        c = C.Position(kpn)
        r = C.solve(c)
        if r["result"] != 1:
            continue
        wins += 1
        assert r["best_move"] in c.moves()
        assert r["pv"] and r["pv"][0] == r["best_move"]
        side = c.turn
        c.push(r["best_move"])
        if c.outcome is not None:
            assert c.outcome[0] == side and r["distance"] == 1
            continue
        child = C.solve(c)
        if c.turn == side:
            assert child["result"] == 1, kpn
        else:
            assert child["result"] == -1, kpn
        assert child["distance"] == r["distance"] - 1, kpn
        # the principal variation is legal and ends with the winner's goal
        p = Position(kpn)
        for code in r["pv"]:
            assert code in p.move_codes()
            p.push_code(code)
        assert p.outcome is not None and p.outcome.winner == side
        assert len(r["pv"]) == r["distance"]
    assert wins > 15


@slow_on_pure_python
def test_solver_values_consistent_with_children() -> None:
    """Deeper than exhaustive search reaches: the value of a position is the
    best of its children's values, one move further (the winner's shortest
    win, the loser's longest resistance), in early and Sumo positions."""
    rng = random.Random(9)
    kpns = []
    for _ in range(30):
        p = Position(START_KPN if rng.random() < 0.5 else random_kpn(rng))
        for _ in range(rng.randint(2, 8)):
            if p.outcome is not None:
                break
            p.push_code(choose(p.move_codes(), p, rng))
        if p.outcome is None:
            kpns.append(p.kpn())
    checked = 0
    for kpn in kpns:
        v = solver_value_or_none(kpn)
        if v is None:
            continue
        c = C.Position(kpn)
        best = -2 * MATE
        for code in c.moves():
            side = c.turn
            c.push(code)
            if c.outcome is not None:
                child = MATE - 1 if c.outcome[0] == side else -(MATE - 1)
            else:
                cv = solver_value_or_none(c.kpn())
                if cv is None:
                    c.pop()
                    break
                child = up(cv, c.turn == side)
            c.pop()
            best = max(best, child)
        else:
            assert best == v, kpn
            checked += 1
    assert checked > 15


def solver_value_or_none(kpn: str) -> int | None:
    C.clear_tt()
    r = C.solve(C.Position(kpn), node_limit=300_000, pv=False)
    if r["result"] == 0:
        return None
    return int(r["result"] * (MATE - r["distance"]))


@slow_on_pure_python
def test_start_is_a_first_player_win() -> None:
    """Single-round Kamisado from the start: Black (first player) wins."""
    C.clear_tt()
    r = engine.solve(START_KPN)
    assert r.winner == BLACK and r.side_to_move == BLACK
    assert r.distance == len(r.pv) == 17
    p = Position()
    for m in r.pv:
        p.push_move(m)
    assert p.outcome is not None and p.outcome.winner == BLACK


def test_solver_limits_give_unknown() -> None:
    C.clear_tt()
    r = C.solve(C.Position(), node_limit=2000)
    assert r["stopped"] and r["result"] == 0


def test_solver_start_position_small() -> None:
    """After a1-a5 and the best defence, the solver still proves Black's win
    on a later position (cheap: a few moves before the end of the PV)."""
    pos = Position("obupyrgn/8/8/N7/8/8/8/1GRYPUBO g p 1 0 0")
    r = engine.solve(pos, node_limit=20_000_000)
    assert r.winner == BLACK
    p = Position(pos.kpn())
    for m in r.pv[:-4]:
        p.push(m)
    if p.outcome is None:
        rr = engine.solve(p)
        assert rr.winner == BLACK


# ---------------------------------------------------------------------------
# The search
# ---------------------------------------------------------------------------


def test_search_pv_legal_and_proofs_sound() -> None:
    rng = random.Random(8)
    proven = 0
    for kpn in late_positions(rng, 40) + [START_KPN]:
        res = C.search(C.Position(kpn), depth=6)
        p = Position(kpn)
        assert res["pv"], kpn
        for code in res["pv"]:
            assert code in p.move_codes(), kpn
            p.push_code(code)
            if p.outcome is not None:
                break
        score = res["score"]
        if abs(score) >= C.WIN_MIN:
            proven += 1
            s = solver_value(kpn)
            assert (s > 0) == (score > 0), kpn
            # in a single round (every won round is worth the same), the
            # search's forced win is never shorter than the exact shortest
            # win, and its forced loss never longer than the longest
            # resistance; in a match it prefers points to distance
            dist = engine.decode_score(score, Position(kpn))[1]
            assert dist is not None
            if Position(kpn).target == 1:
                assert dist >= MATE - abs(s) if score > 0 else dist <= MATE - abs(s), kpn
    assert proven > 10


def test_search_match_scores_carry_points() -> None:
    # Black's brown Sumo on g7 wins at once: Sumo -> Double, 2 points of 7.
    kpn = "obupyr2/6N+1/6gn/8/8/8/8/1GRYPUBO b n 7 1 0"
    res = engine.search(Position(kpn), depth=2)
    assert res.proven_win_in == 1
    assert res.round_points == RING_POINTS[1]
    assert res.match_won is False
    # the same round in a Single Round match wins the match
    res = engine.search(Position("obupyr2/6N+1/6gn/8/8/8/8/1GRYPUBO b n 3 1 0"), depth=2)
    assert res.proven_win_in == 1 and res.match_won is True


# ---------------------------------------------------------------------------
# Argument checks: every entry point refuses a wrong type (TypeError) or a
# value out of range (ValueError, saying what it expected and what it found)
# ---------------------------------------------------------------------------

#: Solved in a few thousand nodes, so that a limit the extension would have
#: ignored (before it checked its arguments) does not make the test slow.
NEAR_END = "obupyrgn/8/8/N7/8/8/8/1GRYPUBO g p 1 0 0"
WEIGHTS = list(C.DEFAULT_WEIGHTS)


class _Index:
    """An integer by ``__index__`` (as a numpy integer is)."""

    def __init__(self, value: int) -> None:
        self.value = value

    def __index__(self) -> int:
        return self.value


def _over() -> Any:
    """A compiled position whose round is over (perft of any depth is fast)."""
    done = C.Position("2b3n1/4U3/5u1B/3o4/1pN2Or1/4y1P1/g7/1G1R3Y g u 3 0 0")
    done.push(45)  # f6-a1 ends the round
    return done


class _BadKpn:
    def kpn(self) -> int:
        return 3


Call = Callable[[Any], Any]
BAD_ARGUMENTS: list[tuple[str, Call, type[Exception], str]] = [
    # Position(kpn)
    ("Position int", lambda p: C.Position(5), TypeError, "KPN string or an object with a kpn"),
    ("Position kpn() int", lambda p: C.Position(_BadKpn()), TypeError, "must be a str, got int"),
    ("Position non-ASCII", lambda p: C.Position(START_KPN.replace("n", "é", 1)), ValueError,
     "ASCII text without NUL, found 'é' at index 7"),
    ("Position NUL", lambda p: C.Position(START_KPN + "\0 1 0 0"), ValueError,
     r"ASCII text without NUL, found '\\x00' at index 39"),
    # push(code)
    ("push str", lambda p: p.push("a1-a5"), TypeError, "code must be an integer, got str"),
    ("push bool", lambda p: p.push(True), TypeError, "code must be an integer, got bool"),
    ("push float", lambda p: p.push(32.0), TypeError, "code must be an integer, got float"),
    ("push -1", lambda p: p.push(-1), ValueError, "illegal move code -1$"),
    ("push 4096", lambda p: p.push(4096), ValueError, "illegal move code 4096$"),
    ("push 2**70", lambda p: p.push(2**70), ValueError, f"illegal move code {2**70}$"),
    ("push 2**1000", lambda p: p.push(2**1000), ValueError,
     "illegal move code an integer of 1001 bits"),
    ("push illegal", lambda p: p.push(0 | 63 << 6), ValueError, "illegal move code 4032$"),
    # pop()
    ("pop empty", lambda p: p.pop(), IndexError, "no moves"),
    # kpn(match=)
    ("kpn match str", lambda p: p.kpn(match="no"), TypeError, "match must be a bool, got str"),
    ("kpn match int", lambda p: p.kpn(0), TypeError, "match must be a bool, got int"),
    # perft(depth)
    ("perft -1", lambda p: p.perft(-1), ValueError, r"depth must be an integer in 0\.\.120, got -1"),
    ("perft 121", lambda p: _over().perft(121), ValueError, "got 121"),
    ("perft 2**40", lambda p: p.perft(2**40), ValueError, f"got {2**40}"),
    ("perft 2**70", lambda p: p.perft(2**70), ValueError, f"got {2**70}"),
    ("perft float", lambda p: p.perft(1.0), TypeError, "depth must be an integer, got float"),
    ("perft bool", lambda p: p.perft(True), TypeError, "got bool"),
    # solve(pos, node_limit, time_ms, max_depth, pv, tt_log2)
    ("solve pos str", lambda p: C.solve(NEAR_END), TypeError, "Position"),
    ("solve nodes -1", lambda p: C.solve(p, node_limit=-1), ValueError,
     r"node_limit must be an integer in 0\.\.2\*\*63-1 \(0: no limit\), got -1"),
    ("solve nodes 2**64", lambda p: C.solve(p, node_limit=2**64), ValueError, f"got {2**64}"),
    ("solve nodes str", lambda p: C.solve(p, node_limit="9"), TypeError,
     "node_limit must be an integer, got str"),
    ("solve time nan", lambda p: C.solve(p, time_ms=math.nan), ValueError,
     r"time_ms must be a finite number of milliseconds >= 0 \(0: no limit\), got nan"),
    ("solve time inf", lambda p: C.solve(p, time_ms=math.inf), ValueError, "got inf"),
    ("solve time -1", lambda p: C.solve(p, time_ms=-1), ValueError, "got -1"),
    ("solve time 10**400", lambda p: C.solve(p, time_ms=10**400), ValueError,
     "got an integer of 1329 bits"),
    ("solve time str", lambda p: C.solve(p, time_ms="5"), TypeError,
     "time_ms must be a number, got str"),
    ("solve depth -1", lambda p: C.solve(p, max_depth=-1), ValueError,
     r"max_depth must be an integer in 0\.\.4000 \(0: no limit\), got -1"),
    ("solve depth 4001", lambda p: C.solve(p, max_depth=4001), ValueError, "got 4001"),
    ("solve pv str", lambda p: C.solve(p, pv="no"), TypeError, "pv must be a bool, got str"),
    ("solve tt 1", lambda p: C.solve(p, tt_log2=1), ValueError,
     r"tt_log2 must be 0 \(the table as it is\) or an integer in 10\.\.28 .*, got 1$"),
    ("solve tt 9", lambda p: C.solve(p, tt_log2=9), ValueError, "got 9$"),
    ("solve tt 29", lambda p: C.solve(p, tt_log2=29), ValueError, "got 29$"),
    ("solve tt 63", lambda p: C.solve(p, tt_log2=63), ValueError, "got 63$"),
    ("solve tt 64", lambda p: C.solve(p, tt_log2=64), ValueError, "got 64$"),
    ("solve tt 100", lambda p: C.solve(p, tt_log2=100), ValueError, "got 100$"),
    ("solve tt -1", lambda p: C.solve(p, tt_log2=-1), ValueError, "got -1$"),
    ("solve tt float", lambda p: C.solve(p, tt_log2=20.0), TypeError,
     "tt_log2 must be an integer, got float"),
    # search(pos, depth, time_ms, node_limit, weights, seed, tt_log2, keep_tt)
    ("search pos None", lambda p: C.search(None, depth=2), TypeError, "Position"),
    ("search depth -1", lambda p: C.search(p, depth=-1), ValueError,
     r"depth must be an integer in 0\.\.120 \(0: no limit\), got -1"),
    ("search depth 121", lambda p: C.search(p, depth=121), ValueError, "got 121"),
    ("search depth 2**40", lambda p: C.search(p, depth=2**40), ValueError, f"got {2**40}"),
    ("search depth float", lambda p: C.search(p, depth=2.0), TypeError,
     "depth must be an integer, got float"),
    ("search time nan", lambda p: C.search(p, time_ms=math.nan), ValueError, "got nan"),
    ("search time inf", lambda p: C.search(p, depth=2, time_ms=math.inf), ValueError,
     "got inf"),
    ("search time -5", lambda p: C.search(p, depth=2, time_ms=-5.0), ValueError, "got -5.0"),
    ("search nodes -1", lambda p: C.search(p, depth=2, node_limit=-1), ValueError, "got -1"),
    ("search nodes 2**63", lambda p: C.search(p, depth=2, node_limit=2**63), ValueError,
     f"got {2**63}"),
    ("search weights short", lambda p: C.search(p, depth=2, weights=[1] * 3), ValueError,
     r"weights must hold 7 integers, got 3"),
    ("search weights long", lambda p: C.search(p, depth=2, weights=[1] * 8), ValueError,
     r"weights must hold 7 integers, got 8"),
    ("search weights big", lambda p: C.search(p, depth=2, weights=[2000, *WEIGHTS[1:]]),
     ValueError, r"weights\[0\] must be an integer in -1000\.\.1000, got 2000"),
    ("search weights float", lambda p: C.search(p, depth=2, weights=[1.5] * 7), TypeError,
     r"weights\[0\] must be an integer, got float"),
    ("search weights str", lambda p: C.search(p, depth=2, weights="abcdefg"), TypeError,
     "weights must be None, a tuple or a list of integers, got str"),
    ("search seed -1", lambda p: C.search(p, depth=2, seed=-1), ValueError,
     r"seed must be an integer in 0\.\.2\*\*64-1, got -1"),
    ("search seed 2**64", lambda p: C.search(p, depth=2, seed=2**64), ValueError,
     f"got {2**64}"),
    ("search seed str", lambda p: C.search(p, depth=2, seed="1"), TypeError,
     "seed must be an integer, got str"),
    ("search tt 0", lambda p: C.search(p, depth=2, tt_log2=0), ValueError,
     r"tt_log2 must be an integer in 10\.\.28 .*, got 0"),
    ("search tt 64", lambda p: C.search(p, depth=2, tt_log2=64), ValueError, "got 64"),
    ("search keep_tt str", lambda p: C.search(p, depth=2, keep_tt="yes"), TypeError,
     "keep_tt must be a bool, got str"),
    # evaluate(pos, weights)
    ("evaluate pos str", lambda p: C.evaluate(NEAR_END), TypeError, "Position"),
    ("evaluate weights 2**40", lambda p: C.evaluate(p, [2**40] * 7), ValueError,
     rf"weights\[0\] must be an integer in -1000\.\.1000, got {2**40}"),
    ("evaluate weights short", lambda p: C.evaluate(p, [1, 2]), ValueError,
     "must hold 7 integers, got 2"),
    ("evaluate weights long", lambda p: C.evaluate(p, [1] * 20), ValueError, "got 20"),
    ("evaluate weights float", lambda p: C.evaluate(p, [0.5] * 7), TypeError, "got float"),
    ("evaluate weights bool", lambda p: C.evaluate(p, [True] * 7), TypeError, "got bool"),
]


@pytest.mark.parametrize(
    "call,exc,match", [c[1:] for c in BAD_ARGUMENTS], ids=[c[0] for c in BAD_ARGUMENTS]
)
def test_bad_arguments_are_refused(call: Call, exc: type[Exception], match: str) -> None:
    p = C.Position(NEAR_END)
    with pytest.raises(exc, match=match):
        call(p)
    # a refused call changes nothing
    assert (p.kpn(), p.ply, p.check()) == (NEAR_END, 0, True)


def test_arguments_at_their_limits_are_taken() -> None:
    assert (C.MAX_DEPTH, C.SOLVE_MAX_DEPTH, C.TT_LOG2_MIN, C.TT_LOG2_MAX) == (120, 4000, 10, 28)
    assert (C.NODE_LIMIT_MAX, C.SEED_MAX, C.WEIGHT_MAX) == (2**63 - 1, 2**64 - 1, 1000)
    p = C.Position(NEAR_END)
    assert C.solve(p, node_limit=C.NODE_LIMIT_MAX, max_depth=C.SOLVE_MAX_DEPTH,
                   time_ms=1e12, tt_log2=C.TT_LOG2_MIN)["result"] == -1
    r = C.search(p, depth=C.MAX_DEPTH, node_limit=2000, seed=C.SEED_MAX,
                 weights=[-C.WEIGHT_MAX] * C.NWEIGHTS, tt_log2=C.TT_LOG2_MIN, keep_tt=True)
    assert r["pv"]
    assert C.search(p, depth=_Index(2), time_ms=10**6)["depth"] == 2
    assert C.evaluate(p, tuple([C.WEIGHT_MAX] * C.NWEIGHTS)) == C.evaluate(
        p, [_Index(C.WEIGHT_MAX)] * C.NWEIGHTS
    )
    assert p.perft(_Index(2)) == Position(NEAR_END).perft(2)
    assert p.kpn(match=False) == NEAR_END.rsplit(" ", 3)[0]
    done = _over()
    assert done.outcome is not None and done.perft(C.MAX_DEPTH) == 0
    with pytest.raises(ValueError, match="illegal move code 45: the round is over"):
        done.push(45)


def test_table_sizes_out_of_range_leave_the_interpreter_alive() -> None:
    """tt_log2=64 once made a one-entry table that the solver overran:
    ``free(): invalid next size`` and an aborted interpreter."""
    code = (
        "from kamisado.engine._backend import impl as C\n"
        "for t in (63, 64, 100, 1, 3, 64):\n"
        "    try:\n"
        "        C.solve(C.Position(), node_limit=5000, tt_log2=t)\n"
        "    except ValueError:\n"
        "        pass\n"
        "    else:\n"
        "        raise SystemExit(f'tt_log2={t} accepted')\n"
        "C.solve(C.Position(), node_limit=5000)\n"
        "print('alive')\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=120)
    assert (r.returncode, r.stdout.strip()) == (0, "alive"), r.stderr[-2000:]


# -- Searchers: tables of their own, threads, stop -------------------------------------

SEARCHER_KPNS = [
    START_KPN,
    "obupyrgn/8/8/N7/8/8/8/1GRYPUBO g p 1 0 0",
    "obupyrgn/8/8/8/8/8/8/NGRYPU+BO+ g - 3 2 0",
    "o+bu++pyrg+n/8/8/8/8/8/8/N++GRY+++PUBO b - 15 10 5",
]
#: A search depth of a few tenths of a second (compiled) or seconds (pure Python).
SEARCHER_DEPTH = 8 if BACKEND == "compiled" else 4
#: Seconds ``stop()`` may take to end a search (the brief wants ~50 ms compiled;
#: generous here so that a loaded machine does not fail the test).
STOP_WITHIN = 0.25 if BACKEND == "compiled" else 2.0


def _same_search(r: dict[str, Any]) -> tuple[object, ...]:
    """A search's answer less its timings."""
    its = tuple((d, s, n) for d, s, n, _ in r["iterations"])
    return (r["depth"], r["score"], tuple(r["pv"]), r["nodes"], r["seldepth"], its)


def _search_in_thread(
    searcher: Any, kpn: str, **kw: Any
) -> tuple[threading.Thread, dict[str, Any], threading.Event]:
    """Start ``searcher.search`` in a thread: the thread, its answer (key
    ``r``, or ``error``) and an event set once its first depth is done."""
    out: dict[str, Any] = {}
    first = threading.Event()

    def report(*_: object) -> None:
        first.set()

    def body() -> None:
        try:
            out["r"] = searcher.search(C.Position(kpn), on_iteration=report, **kw)
        except BaseException as e:  # noqa: BLE001 - handed to the test
            out["error"] = e
        first.set()

    t = threading.Thread(target=body)
    t.start()
    return t, out, first


def test_searchers_in_threads_answer_as_one_after_the_other() -> None:
    alone = [
        _same_search(C.Searcher().search(C.Position(k), depth=SEARCHER_DEPTH, seed=i))
        for i, k in enumerate(SEARCHER_KPNS)
    ]
    results: list[tuple[object, ...] | None] = [None] * len(SEARCHER_KPNS)

    def run(i: int) -> None:
        s = C.Searcher()
        results[i] = _same_search(s.search(C.Position(SEARCHER_KPNS[i]), depth=SEARCHER_DEPTH,
                                           seed=i))

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(SEARCHER_KPNS))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == alone
    # the module function too: the default Searcher, a fresh one while it is busy
    module: list[tuple[object, ...] | None] = [None, None]

    def run_module(i: int) -> None:
        module[i] = _same_search(C.search(C.Position(SEARCHER_KPNS[i]), depth=SEARCHER_DEPTH,
                                          seed=i))

    threads = [threading.Thread(target=run_module, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert module == alone[:2]


def test_solves_in_threads_answer_as_one_after_the_other() -> None:
    kpns = ["obupyrgn/8/8/N7/8/8/8/1GRYPUBO g p 1 0 0",
            "1pyrgn2/o3u3/7b/8/2R1N3/8/6G1/3YPUBO b b 1 0 0"]
    alone = [C.Searcher().solve(C.Position(k), tt_log2=16) for k in kpns]
    got: list[dict[str, Any] | None] = [None, None]

    def run(i: int) -> None:
        got[i] = C.Searcher().solve(C.Position(kpns[i]), tt_log2=16)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for a, b in zip(alone, got, strict=True):
        assert b is not None
        assert (a["result"], a["distance"], a["pv"]) == (b["result"], b["distance"], b["pv"])


def test_stop_from_another_thread_ends_a_search_with_its_best_move() -> None:
    s = C.Searcher()
    t, out, first = _search_in_thread(s, START_KPN, time_ms=60_000)
    assert first.wait(30)
    time.sleep(0.2)
    start = cpu_seconds()  # the CPU time after the stop: not lengthened by a loaded machine
    s.stop()
    t.join(30)
    took = cpu_seconds() - start
    assert not t.is_alive() and "error" not in out
    assert took < STOP_WITHIN, took
    r = out["r"]
    assert r["depth"] >= 1 and r["pv"] and r["pv"][0] in C.Position().moves()
    assert s.stopped
    # the flag stays set: the next search answers its first depth at once
    assert s.search(C.Position(), depth=20)["depth"] == 1
    s.resume()
    assert not s.stopped and s.search(C.Position(), depth=3)["depth"] == 3


def test_stop_from_another_thread_ends_a_solve() -> None:
    s = C.Searcher()
    out: dict[str, Any] = {}
    t = threading.Thread(target=lambda: out.update(s.solve(C.Position(SEARCHER_KPNS[3]))))
    t.start()
    time.sleep(0.3)
    start = cpu_seconds()
    s.stop()
    t.join(30)
    assert not t.is_alive()
    assert cpu_seconds() - start < STOP_WITHIN
    assert out["stopped"] is True and out["result"] == 0


def test_a_searcher_runs_one_search_at_a_time() -> None:
    s = C.Searcher()
    t, out, first = _search_in_thread(s, START_KPN, time_ms=60_000)
    assert first.wait(30)
    with pytest.raises(RuntimeError, match="searching in another thread"):
        s.search(C.Position(), depth=2)
    with pytest.raises(RuntimeError, match="running"):
        s.clear_tt()
    # its solver is free, and so are other Searchers
    assert s.solve(C.Position("1pyrgn2/o3u3/7b/8/2R1N3/8/6G1/3YPUBO b b 1 0 0"))["result"] == 1
    assert C.Searcher().search(C.Position(), depth=2)["depth"] == 2
    s.stop()
    t.join(30)
    assert "r" in out


def test_search_table_ages_by_generation() -> None:
    s = C.Searcher()
    assert s.generation == 0
    s.search(C.Position(SEARCHER_KPNS[1]), depth=6)
    g = s.generation
    assert g == 1
    # a new generation: the answer of an empty table, as from a fresh Searcher
    r = s.search(C.Position(SEARCHER_KPNS[2]), depth=6)
    assert s.generation == g + 1
    assert _same_search(r) == _same_search(C.Searcher().search(C.Position(SEARCHER_KPNS[2]),
                                                               depth=6))
    # keep_tt keeps the generation (and the entries: fewer nodes the second time)
    again = s.search(C.Position(SEARCHER_KPNS[2]), depth=6, keep_tt=True)
    assert s.generation == g + 1 and again["nodes"] < r["nodes"]
    # a new size is a new table
    s.search(C.Position(), depth=2, tt_log2=C.TT_LOG2_MIN)
    assert s.generation == 1


@pytest.mark.skipif(BACKEND != "compiled", reason="pure Python holds the GIL")
def test_a_compiled_search_releases_the_gil() -> None:
    s = C.Searcher()
    t, out, first = _search_in_thread(s, START_KPN, time_ms=400)
    assert first.wait(30)
    count = 0
    while t.is_alive():
        count += 1
    t.join()
    assert "r" in out
    # with the GIL held for the whole search this loop would hardly run at all
    assert count > 10_000, count


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("call", ["C.search(C.Position(), time_ms=60_000)",
                                  "C.Searcher().solve(C.Position(SEARCHER_KPN))"])
def test_ctrl_c_interrupts_a_search_on_the_main_thread(call: str) -> None:
    """Without the GIL, the search still runs the signal handlers now and then."""
    import signal
    from pathlib import Path

    code = (
        # a suite started from a script with & (or nohup) ignores SIGINT,
        # and children inherit that: the child takes Python's handler back
        "import signal\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "from kamisado.engine._backend import impl as C\n"
        f"SEARCHER_KPN = {SEARCHER_KPNS[3]!r}\n"
        "print('go', flush=True)\n"
        f"{call}\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, cwd=Path(__file__).resolve().parent.parent,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "go"
    time.sleep(0.5)
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert "KeyboardInterrupt" in err
    # the child's whole CPU time (it is reaped now): far less than the
    # minute its search would have taken (its wall time grows with the load)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime) < 10
