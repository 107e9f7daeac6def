"""The threshold games of the pure-Python solver: who wins within d
moves, and the round's value in points, C's ``pt_search``, ``wl_root`` and
``pt_root`` of ``core/solve.c``.

The game of cut ``c`` (an even number, -6 .. 6) is won by the side to move
when the round ends with a score above ``c`` for it (a win with ``r`` rings
scores ``2r + 1``, a loss ``-(2r + 1)``): cut 0 is who wins, cut 2 "wins
with a tower of at least one ring", and so on.

>>> from kamisado.engine._pure.board import Limits, full_hash, occupancy
>>> from kamisado.engine._pure.solve.common import Table
>>> from kamisado.rules.position import Position
>>> cp = Position("1pyrgn2/o3u3/7b/8/2R1N3/8/6G1/3YPUBO b b 1 0 0")
>>> moves = Moves(cp, Limits(0, 0.0, None), Table())
>>> pts = PointsSearch(moves, ProofSearch(moves))
>>> pts.wl_root(full_hash(cp), occupancy(cp.board), 20)[0]
1
"""

from __future__ import annotations

from collections.abc import Callable

from kamisado.engine._pure.board import MATE, SMK, SOLVE_MAX_DEPTH
from kamisado.engine._pure.solve.common import _LOSE2, _WIN3, CUT_KEY, _pick_next
from kamisado.engine._pure.solve.dfpn import ProofSearch
from kamisado.engine._pure.solve.moves import Moves


class PointsSearch:
    """The threshold games of one position: :attr:`pt` (C's
    ``pt_search``, a closure) over the shared :class:`Moves`, and its roots;
    ``proof`` answers who wins without a horizon."""

    def __init__(self, moves: Moves, proof: ProofSearch) -> None:
        self.moves = moves
        self.proof = proof
        self.cp = cp = moves.cp
        self.lim = lim = moves.lim
        self.table = moves.table
        board = cp.board
        push = cp.push_code
        pop = cp.pop_code
        gen = cp.move_codes
        history = moves.history
        tt = self.table.tt
        store = self.table.store
        smk = SMK
        cut_key = CUT_KEY
        child = moves.child
        order = moves.order
        pt_win_now = moves.pt_win_now
        pt_end = moves.pt_end

        def pt(d: int, alpha: int, beta: int, h: int, occ: int, cut: int) -> int:
            """C's ``pt_search``: who wins the game of ``cut`` within ``d`` moves
            (cut 0: who wins; see ``pt_root``): 1 the side to move wins, -1 it
            loses (at any distance), 0 neither within ``d`` moves (or
            stopped); fail soft on the values -1, 0, 1 in the window (alpha,
            beta)."""
            lim.nodes += 1
            if lim.nodes >= lim.next_check and lim.check() or lim.stop:
                return 0
            if pt_win_now(occ, cut):
                return 1
            side = cp.turn
            if d <= 1:
                r = -1
                for m in gen():
                    push(m)
                    v = 0 if cp.outcome is None else pt_end(side, cut)
                    pop()
                    if v > 0:
                        return 1
                    if not v:
                        r = 0
                return r
            key = h ^ cut_key[cut // 2 + 3]
            e = tt.get(key)
            ttmove = 0
            if e is not None:
                elo = (e & 0xFFFF) - MATE
                ehi = (e >> 16 & 0xFFFF) - MATE
                if elo > 0:
                    return 1
                if ehi < 0:
                    return -1
                tlo = 0 if elo > -(MATE - d) else -1
                thi = 0 if ehi < MATE - d else 1
                if tlo >= beta or thi <= alpha or tlo == thi:
                    return 0
                ttmove = e >> 32
            alpha0 = alpha
            mv, score = order(side, occ, ttmove)
            n = len(mv)
            best = -2
            bestmove = 0
            hb = h ^ smk[side * 9 + cp.must_move + 1]
            for i in range(n):
                _pick_next(mv, score, i)
                m = mv[i]
                sc = score[i]
                if sc <= _LOSE2 and cut >= 0:
                    if best < -1:
                        best = -1
                    break
                if sc == _WIN3 and cut <= 0:
                    v = 1
                else:
                    h2, occ2 = child(m, hb, occ)
                    if cp.outcome is not None:
                        v = pt_end(side, cut)
                    elif cp.turn == side:
                        v = pt(d - 1, alpha, beta, h2, occ2, cut)
                    else:
                        v = -pt(d - 1, -beta, -alpha, h2, occ2, -cut)
                    pop()
                if lim.stop:
                    return 0
                if v > 0:
                    hi = (board[m & 63] & 15) << 6 | m >> 6
                    history[hi] += d * d
                    if history[hi] > 1 << 30:
                        for a in range(1024):
                            history[a] >>= 1
                    store(key, 1, MATE, m)
                    return 1
                if v > best:
                    best = v
                    bestmove = m
                    if v > alpha:
                        alpha = v
                        if v >= beta:
                            break
            cutd = MATE - d - 1
            if best < 0:
                store(key, -MATE, -1, ttmove)
                return -1
            if best >= beta:
                store(key, -cutd, MATE, bestmove)
            elif best <= alpha0:
                store(key, -MATE, cutd, ttmove)
            else:
                store(key, -cutd, cutd, bestmove)
            return 0

        self.pt: Callable[[int, int, int, int, int, int], int] = pt

    def _cut(self, d: int, h: int, occ: int, cut: int) -> int:
        """C's ``pt_search`` with the window (-2, 2)."""
        return self.pt(d, -2, 2, h, occ, cut)

    def winning_move(self, h: int, occ: int, d: int, cut: int = 0) -> int:
        """C's ``wl_winning_move`` (``pt_winning_move`` for a cut other than 0):
        a winning move of a position proven won."""
        e = self.table.tt.get(h ^ CUT_KEY[cut // 2 + 3])
        if e is not None and e >> 32:
            return e >> 32
        cp = self.cp
        side = cp.turn
        moves = cp.move_codes()
        for m in moves:  # a win at once first
            cp.push_code(m)
            o = cp.outcome
            won = o is not None and (self.moves.pt_end(side, cut) > 0 if cut else o.winner == side)
            cp.pop_code()
            if won:
                return m
        hb = h ^ SMK[side * 9 + cp.must_move + 1]
        for m in moves:
            h2, occ2 = self.moves.child(m, hb, occ)
            o = cp.outcome
            if o is not None:
                v = self.moves.pt_end(side, cut) if cut else 1 if o.winner == side else -1
            elif cp.turn == side:
                v = self._cut(d, h2, occ2, cut)
            else:
                v = -self._cut(d, h2, occ2, -cut)
            cp.pop_code()
            if v > 0:
                return m
            if self.lim.stop:
                break
        return 0

    def wl_root(self, h: int, occ: int, max_depth: int, cut: int = 0) -> tuple[int, int, int]:
        """C's ``wl_root``: who wins (1, -1; 0 when stopped), a winning move
        and the horizon that decided it (0 for the proof-number search, the
        way without a horizon); the game of ``cut`` when not 0."""
        if not max_depth:
            return self.proof.df_root(h, occ, cut)
        lim = self.lim
        spent = 0  # the nodes of the iterations (a probe's budget)
        depth_done = 0
        d = 1
        while not max_depth or d <= max_depth:
            n0 = lim.nodes
            r = self._cut(d, h, occ, cut)
            spent += lim.nodes - n0
            if lim.stop:
                return 0, 0, depth_done
            done = d
            if not r and d >= 4 and (not max_depth or d < max_depth):
                pd = min(2 * d, max_depth or SOLVE_MAX_DEPTH, SOLVE_MAX_DEPTH)
                saved = lim.node_limit
                cap = lim.nodes + spent
                if not saved or cap < saved:
                    lim.node_limit = cap
                lim.next_check = lim.nodes
                r = self._cut(pd, h, occ, cut)
                lim.node_limit = saved
                if lim.stop and lim.only_nodes(saved):
                    lim.stop = False  # only the probe's budget ran out
                    r = 0
                if lim.stop:
                    return 0, 0, depth_done
                if r:
                    done = pd
            if r:
                if r < 0:
                    return -1, 0, done
                m = self.winning_move(h, occ, done, cut)
                return (1, m, done) if m else (0, 0, done)
            depth_done = d
            if d >= SOLVE_MAX_DEPTH:
                break
            d += 1
        return 0, 0, depth_done

    def pt_root(self, h: int, occ: int, max_depth: int) -> tuple[int, int, int, int, int]:
        """C's ``pt_root``: the round's value in points (0 when stopped), a move
        that keeps it, the horizon of the last proof and bounds ``lo``, ``hi``.

        Who wins first, then the threshold games of more rings (cut 2k won,
        -2k lost) as far as the towers' rings allow."""
        cp = self.cp
        side = cp.turn
        maxr = [max(cp.rings[0:8]), max(cp.rings[8:16])]
        lo = -(1 << maxr[side ^ 1])
        hi = 1 << maxr[side]
        r, bestmove, depth_done = self.wl_root(h, occ, max_depth)
        if not r:
            return 0, bestmove, depth_done, lo, hi
        won = r > 0
        if won:
            lo = 1
        else:
            hi = -1
        for k in range(1, maxr[side if won else side ^ 1] + 1):
            rk, bm, dd = self.wl_root(h, occ, max_depth, 2 * k if won else -2 * k)
            if not rk:
                return 0, bestmove, depth_done, lo, hi
            depth_done = dd
            if won and rk > 0:
                lo = 1 << k
                bestmove = bm
            elif won:
                hi = 1 << (k - 1)
                break
            elif rk > 0:
                lo = -(1 << (k - 1))
                bestmove = bm
                break
            else:
                hi = -(1 << k)
        if won:
            hi = lo
        else:
            lo = hi
        return lo, bestmove, depth_done, lo, hi

