"""The position's moves as every search of the pure-Python solver sees
them: C's shared helpers of ``core/solve.c`` (``can_win_now``, ``sv_child``,
``loses_at_once``, ``sv_order``, the points' ``pt_win_now`` and ``pt_end``),
made once per solve as closures over the position's arrays (local names are
the fastest Python has; the searches bind them again).

>>> from kamisado.engine._pure.board import Limits, occupancy
>>> cp = _core.Position("1pyrgn2/o3u3/7b/8/2R1N3/8/6G1/3YPUBO b b 1 0 0")
>>> mv = Moves(cp, Limits(0, 0.0, None), Table())
>>> mv.can_win_now(occupancy(cp.board)), mv.win_now(cp.move_codes())
(False, 0)
"""

from __future__ import annotations

from collections.abc import Callable

from kamisado.engine._pure.board import (
    BIT,
    FIRST_STEP,
    FORWARD,
    REACH,
    SMK,
    WIN_PATHS,
    ZR,
    ZT,
    Limits,
    safe_replies_fn,
)
from kamisado.engine._pure.solve.common import _LOSE2, _WIN3, Table
from kamisado.rules import position as _core
from kamisado.rules.board import GOAL_RANK, SQUARE_COLOUR


class Moves:
    """The shared closures of one solve over ``cp`` (which they push moves
    on and pop them off), its limits ``lim``, its ``table`` and the history
    of cut-offs (C's ``Solver.history``), which the searches update."""

    def __init__(self, cp: _core.Position, lim: Limits, table: Table) -> None:
        self.cp = cp
        self.lim = lim
        self.table = table
        self.history = history = [0] * 1024
        board = cp.board
        tsq = cp.tower_square
        rings = cp.rings
        push = cp.push_code
        pop = cp.pop_code
        gen = cp.move_codes
        self.paths = paths = [WIN_PATHS[t >> 3][rings[t]] for t in range(16)]
        self.safe_replies = safe_replies = safe_replies_fn(cp)
        ring_key = 0
        for t in range(16):
            ring_key ^= ZR[t << 2 | rings[t]]
        zt = ZT
        smk = SMK
        bit = BIT
        forward = FORWARD
        goal_rank = GOAL_RANK
        colour = SQUARE_COLOUR
        first_steps = FIRST_STEP
        reach = [REACH[t >> 3][rings[t]] for t in range(16)]

        def can_win_now(occ: int) -> bool:
            must = cp.must_move
            base = cp.turn * 8
            for c in range(8) if must < 0 else (must,):
                t = base + c
                for m in paths[t][tsq[t]]:
                    if not occ & m:
                        return True
            return False

        def child(m: int, hb: int, occ: int) -> tuple[int, int]:
            """Push ``m``: the child's key and occupancy (``hb``: key without side)."""
            frm = m & 63
            to = m >> 6
            if board[to] < 0:
                mover = board[frm]
                push(m)
                return (
                    hb ^ zt[mover << 6 | frm] ^ zt[mover << 6 | to]
                    ^ smk[cp.turn * 9 + cp.must_move + 1],
                    occ ^ bit[frm] ^ bit[to],
                )
            ray = forward[board[frm] >> 3][frm]
            k = 1
            while board[ray[k]] >= 0:
                k += 1
            push(m)
            h = ring_key ^ smk[cp.turn * 9 + cp.must_move + 1]
            for t in range(16):
                h ^= zt[t << 6 | tsq[t]]
            return h, occ ^ bit[frm] ^ bit[ray[k]]

        def loses_at_once(side: int, occ: int) -> bool:
            """Every move ends the round against ``side`` (a deadlock it causes)."""
            first_step = first_steps[side ^ 1]
            goal = goal_rank[side]
            obase = 8 - side * 8
            for m in gen():
                frm = m & 63
                to = m >> 6
                if board[to] < 0:
                    if to >> 3 == goal:
                        return False
                    t2 = obase + colour[to]
                    if first_step[tsq[t2]] & ~(occ ^ bit[frm] ^ bit[to]):
                        return False  # the opponent's tower can move
                push(m)
                o = cp.outcome
                pop()
                if o is None or o.winner == side:
                    return False
            return True

        def some_reply_survives(side: int, mover: int, to: int, t2: int, occ2: int) -> bool:
            """After ``side``'s tower ``mover`` stepped to ``to`` (not made), whether
            some step of the opponent's ``t2`` leaves ``side`` a tower that moves:
            then the opponent does not lose at once.  False means "make it"."""
            sq2 = tsq[t2]
            first_step = first_steps[side]
            base = side * 8
            for ray in reach[t2][sq2]:
                for s2 in ray:
                    if occ2 & bit[s2]:
                        break
                    t3 = base + colour[s2]
                    sq3 = to if t3 == mover else tsq[t3]
                    if first_step[sq3] & ~(occ2 ^ bit[sq2] ^ bit[s2]):
                        return True
            return False

        def order(side: int, occ: int, ttmove: int) -> tuple[list[int], list[int]]:
            """The moves and their ordering scores (the TT move first, then by the
            opponent's safe replies, fewest first, then history)."""
            mv = gen()
            score = [0] * len(mv)
            rate(side, occ, ttmove, mv, 0, score)
            return mv, score

        def rate(
            side: int, occ: int, ttmove: int, mv: list[int], start: int, score: list[int]
        ) -> None:
            """C's ``sv_order`` on ``mv[start:]``: their scores into ``score``."""
            n = len(mv)
            goal = goal_rank[side]
            obase = 8 - side * 8
            first_step = first_steps[side ^ 1]
            for i in range(start, n):
                m = mv[i]
                if m == ttmove:
                    score[i] = 1 << 30
                    continue
                frm = m & 63
                to = m >> 6
                mover = board[frm]
                if board[to] < 0:
                    if to >> 3 == goal:
                        score[i] = 1 << 29
                        continue
                    occ2 = occ ^ bit[frm] ^ bit[to]
                    t2 = obase + colour[to]
                    if first_step[tsq[t2]] & ~occ2:
                        # the opponent's tower can move: look without making the move
                        board[frm] = -1
                        board[to] = mover
                        tsq[mover] = to
                        sr = safe_replies(side, t2, occ2)
                        board[to] = -1
                        board[frm] = mover
                        tsq[mover] = frm
                        if sr == 64:
                            score[i] = _LOSE2
                        elif sr == 0:
                            score[i] = _WIN3
                        else:
                            hs = history[(mover & 15) << 6 | to] >> 4
                            score[i] = ((64 - sr) << 20) + (hs if hs < 0xFFFFF else 0xFFFFF)
                        continue
                else:
                    ray = forward[side][frm]
                    k = 1
                    while board[ray[k]] >= 0:
                        k += 1
                    occ2 = occ ^ bit[frm] ^ bit[ray[k]]
                push(m)
                o = cp.outcome
                if o is not None:
                    score[i] = (1 << 29) if o.winner == side else -(1 << 29)
                elif cp.turn != side:
                    sr = safe_replies(side, cp.turn * 8 + cp.must_move, occ2)
                    if sr == 64:
                        score[i] = _LOSE2
                    elif sr == 0:
                        score[i] = _WIN3
                    else:
                        hs = history[(mover & 15) << 6 | to] >> 4
                        score[i] = ((64 - sr) << 20) + (hs if hs < 0xFFFFF else 0xFFFFF)
                else:
                    score[i] = 32 << 20
                pop()

        def pt_win_now(occ: int, cut: int) -> bool:
            """A tower of the side to move with more than ``cut`` (as 2r+1) reaches its goal."""
            must = cp.must_move
            base = cp.turn * 8
            for c in range(8) if must < 0 else (must,):
                t = base + c
                if 2 * rings[t] + 1 > cut:
                    for m in paths[t][tsq[t]]:
                        if not occ & m:
                            return True
            return False

        def pt_end(side: int, cut: int) -> int:
            """1 when the round's end wins the game of ``cut`` for ``side``, else -1."""
            o = cp.outcome
            assert o is not None
            sc = 2 * o.rings + 1
            return 1 if (sc if o.winner == side else -sc) > cut else -1


        self.can_win_now: Callable[[int], bool] = can_win_now
        self.child: Callable[[int, int, int], tuple[int, int]] = child
        self.loses_at_once: Callable[[int, int], bool] = loses_at_once
        self.some_reply_survives: Callable[[int, int, int, int, int], bool] = (
            some_reply_survives
        )
        self.order: Callable[[int, int, int], tuple[list[int], list[int]]] = order
        self.rate: Callable[[int, int, int, list[int], int, list[int]], None] = rate
        self.pt_win_now: Callable[[int, int], bool] = pt_win_now
        self.pt_end: Callable[[int, int], int] = pt_end

    def win_now(self, mv: list[int]) -> int:
        """A move of ``mv`` (the position's) that wins at once (0: none)."""
        cp = self.cp
        side = cp.turn
        for m in mv:
            cp.push_code(m)
            o = cp.outcome
            cp.pop_code()
            if o is not None and o.winner == side:
                return m
        return 0
