"""The exact solve of the pure-Python solver: C's ``sv_search``,
``sv_root``, ``ex_root`` and ``sv_pv`` of ``core/solve.c``.

Alpha-beta on "the value if resolved within d moves" (DL_d) with iterative
deepening on d: a win in n moves is ``MATE - n``, the winner takes the
shortest win and the loser the longest resistance.  The same move ordering
as C; the table holds bounds on exact values (valid at every depth), so the
values are C's whatever the order of the nodes.  Without a horizon
(:meth:`ExactSearch.ex_root`), the proof-number search says who wins first.

>>> from kamisado.engine._pure.board import Limits, full_hash, occupancy
>>> from kamisado.engine._pure.solve.common import Table
>>> from kamisado.rules.position import Position
>>> cp = Position("1pyrgn2/o3u3/7b/8/2R1N3/8/6G1/3YPUBO b b 1 0 0")
>>> moves = Moves(cp, Limits(0, 0.0, None), Table())
>>> ex = ExactSearch(moves, ProofSearch(moves))
>>> value, move, depth = ex.root(full_hash(cp), occupancy(cp.board), 1, 0)
>>> MATE - value, depth
(11, 11)
"""

from __future__ import annotations

from collections.abc import Callable

from kamisado.engine._pure.board import BIT, FIRST_STEP, MATE, SMK, SOLVE_MAX_DEPTH, make
from kamisado.engine._pure.solve.common import (
    _LOSE2,
    _SV_INF,
    _WIN3,
    _convert,
    _dl,
    _down,
    _mirror_move,
    _pick_next,
    _true_bounds,
    _up,
    mirror_symmetric,
)
from kamisado.engine._pure.solve.dfpn import ProofSearch
from kamisado.engine._pure.solve.moves import Moves
from kamisado.rules.board import GOAL_RANK, SQUARE_COLOUR


class ExactSearch:
    """The exact solve of one position: :attr:`search` (C's ``sv_search``,
    a closure) and its roots, over the shared :class:`Moves` and, for the
    solve without a horizon, the proof-number search ``proof``."""

    def __init__(self, moves: Moves, proof: ProofSearch) -> None:
        self.moves = moves
        self.proof = proof
        self.cp = cp = moves.cp
        self.lim = lim = moves.lim
        self.table = moves.table
        board = cp.board
        tsq = cp.tower_square
        pop = cp.pop_code
        gen = cp.move_codes
        history = moves.history
        paths = moves.paths
        tt = self.table.tt
        store = self.table.store
        smk = SMK
        bit = BIT
        win1 = MATE - 1
        goal_rank = GOAL_RANK
        colour = SQUARE_COLOUR
        first_steps = FIRST_STEP
        can_win_now = moves.can_win_now
        child = moves.child
        loses_at_once = moves.loses_at_once
        some_reply_survives = moves.some_reply_survives
        rate = moves.rate

        def dl2(beta: int, h: int, occ: int) -> int:
            """DL_2 (fail soft above beta) of a position without a win at once."""
            side = cp.turn
            hb = h ^ smk[side * 9 + cp.must_move + 1]
            goal = goal_rank[side]
            obase = 8 - side * 8
            first_step = first_steps[side ^ 1]
            best = -_SV_INF
            for m in gen():
                frm = m & 63
                to = m >> 6
                v = None
                if board[to] < 0:
                    if to >> 3 == goal:
                        v = win1
                    else:
                        occ2 = occ ^ bit[frm] ^ bit[to]
                        t2 = obase + colour[to]
                        if first_step[tsq[t2]] & ~occ2:
                            # the child's node (C's sv_dl1), counted here only
                            # when it is decided without making the move
                            for pm in paths[t2][tsq[t2]]:
                                if not occ2 & pm:
                                    v = -(MATE - 2)  # the opponent wins at once
                                    break
                            else:
                                if some_reply_survives(side, board[frm], to, t2, occ2):
                                    v = 0
                            if v is not None:
                                lim.nodes += 1
                if v is None:
                    _, occ2 = child(m, hb, occ)
                    o = cp.outcome
                    if o is not None:
                        v = win1 if o.winner == side else -win1
                    else:
                        lim.nodes += 1
                        if can_win_now(occ2):
                            c = win1
                        elif loses_at_once(cp.turn, occ2):
                            c = -win1
                        else:
                            c = 0
                        v = _up(c, cp.turn == side)
                    pop()
                if v > best:
                    best = v
                    if best >= beta:
                        break
            return best

        def sv(d: int, alpha: int, beta: int, h: int, occ: int) -> int:
            if d <= 0:
                return 0
            lim.nodes += 1
            if lim.nodes >= lim.next_check and lim.check() or lim.stop:
                return 0
            if can_win_now(occ):
                return win1
            if alpha >= win1:
                return win1  # an upper bound: nothing beats a win at once
            if beta <= -win1:
                return -win1
            # only values outside the window matter: shorten the horizon
            d0 = d
            if alpha > 0 and MATE - alpha - 1 < d:
                d = MATE - alpha - 1
            if beta < 0 and MATE + beta - 1 < d:
                d = MATE + beta - 1
            side = cp.turn
            if d <= 2:
                if d <= 1:
                    best = -win1 if loses_at_once(side, occ) else 0
                else:
                    best = dl2(beta, h, occ)
                return _convert(best, d, d0, alpha, beta)
            e = tt.get(h)
            ttmove = 0
            if e is not None:
                tlo = _dl((e & 0xFFFF) - MATE, d)
                thi = _dl((e >> 16 & 0xFFFF) - MATE, d)
                if tlo >= beta or thi <= alpha or tlo == thi:
                    r = tlo if tlo >= beta else thi if thi <= alpha else tlo
                    return _convert(r, d, d0, alpha, beta)
                if tlo > alpha:
                    alpha = tlo
                if thi < beta:
                    beta = thi
                ttmove = e >> 32
            alpha0 = alpha
            # the TT move is searched before the others are scored (C's sv_search)
            mv = gen()
            n = len(mv)
            score = [0] * n
            scored = 0  # the moves before this one are scored; -1: all are
            if ttmove:
                for j in range(n):
                    if mv[j] == ttmove:
                        mv[j] = mv[0]
                        mv[0] = ttmove
                        score[0] = 1 << 30
                        scored = 1
                        break
            best = -_SV_INF
            bestmove = 0
            hb = h ^ smk[side * 9 + cp.must_move + 1]
            for i in range(n):
                if i == scored:
                    rate(side, occ, 0 if i else ttmove, mv, i, score)
                    scored = -1
                if scored < 0:
                    _pick_next(mv, score, i)
                m = mv[i]
                sc = score[i]
                if sc == _LOSE2:
                    v = -(MATE - 2)  # the opponent wins at once after this move
                elif sc == _WIN3 and d >= 3:
                    v = MATE - 3  # every reply lets us win at once
                else:
                    h2, occ2 = child(m, hb, occ)
                    o = cp.outcome
                    if o is not None:
                        v = win1 if o.winner == side else -win1
                    elif cp.turn == side:
                        v = _up(sv(d - 1, _down(alpha), _down(beta), h2, occ2), True)
                    else:
                        v = _up(sv(d - 1, -_down(beta), -_down(alpha), h2, occ2), False)
                    pop()
                if lim.stop:
                    return 0
                if v > best:
                    best = v
                    bestmove = m
                    if v > alpha:
                        alpha = v
                        if v >= beta:
                            hi = (board[m & 63] & 15) << 6 | m >> 6
                            history[hi] += d * d
                            if history[hi] > 1 << 30:
                                for a in range(1024):
                                    history[a] >>= 1
                            break
            lo, hi_ = _true_bounds(best, d, alpha0, beta)
            store(h, lo, hi_, bestmove if best > alpha0 else ttmove)
            return _convert(best, d, d0, alpha0, beta)

        self.search: Callable[[int, int, int, int, int], int] = sv

    def _tt_first(self, h: int, mv: list[int]) -> None:
        """The root's moves with the table's move first."""
        e = self.table.tt.get(h)
        ttmove = 0 if e is None else e >> 32
        for i in range(1, len(mv)):
            if mv[i] == ttmove:
                mv[0], mv[i] = mv[i], mv[0]

    def _root_child(self, m: int, hb: int, occ: int, d: int, alpha: int, beta: int) -> int:
        """C's ``root_child``: the root's move ``m`` on DL_(d-1), from the root's side."""
        cp = self.cp
        side = cp.turn
        h2, occ2 = self.moves.child(m, hb, occ)
        o = cp.outcome
        if o is not None:
            v = MATE - 1 if o.winner == side else -(MATE - 1)
        elif cp.turn == side:
            v = _up(self.search(d - 1, _down(alpha), _down(beta), h2, occ2), True)
        else:
            v = _up(self.search(d - 1, -_down(beta), -_down(alpha), h2, occ2), False)
        cp.pop_code()
        return v

    def root(self, h: int, occ: int, start_depth: int, max_depth: int) -> tuple[int, int, int]:
        """The exact value (0 when stopped), the best move and the depth done."""
        cp = self.cp
        lim = self.lim
        mv = cp.move_codes()
        win = self.moves.win_now(mv)
        if win:
            return MATE - 1, win, 1
        hb = h ^ SMK[cp.turn * 9 + cp.must_move + 1]
        depth_done = 0
        sym = mirror_symmetric(cp)
        d = max(start_depth, 1)
        while not max_depth or d <= max_depth:
            best = -_SV_INF
            bm = 0
            alpha, beta = -_SV_INF, _SV_INF
            self._tt_first(h, mv)
            for i, m in enumerate(mv):
                if sym and _mirror_move(m) in mv[:i]:
                    continue  # its mirror image has the same value
                v = self._root_child(m, hb, occ, d, alpha, beta)
                if lim.stop:
                    return 0, 0, depth_done
                if v > best:
                    best = v
                    bm = m
                    if v > alpha:
                        alpha = v
            depth_done = d
            if best != 0:
                self.table.store(h, best, best, bm)
                return best, bm, depth_done
            cut = MATE - d - 1
            self.table.store(h, -cut, cut, 0)
            if d >= SOLVE_MAX_DEPTH:
                break
            d += 1
        return 0, 0, depth_done

    def ex_root(self, h: int, occ: int) -> tuple[int, int, int]:
        """C's ``ex_root``: the exact value without a horizon (0 when stopped),
        the best move and the depth done.  Who wins first (``df_root``), then
        one-sided tests "the winner wins within d" for d = 1, 2, ..."""
        cp = self.cp
        lim = self.lim
        mv = cp.move_codes()
        win = self.moves.win_now(mv)
        if win:
            return MATE - 1, win, 1
        w, _, _ = self.proof.df_root(h, occ)
        if not w:
            return 0, 0, 0
        hb = h ^ SMK[cp.turn * 9 + cp.must_move + 1]
        sym = mirror_symmetric(cp)
        survivor = 0
        for d in range(1, SOLVE_MAX_DEPTH + 1):
            alpha = MATE - d - 1 if w > 0 else -(MATE - d)
            beta = alpha + 1
            self._tt_first(h, mv)
            held = w < 0
            found = 0
            for i, m in enumerate(mv):
                if sym and _mirror_move(m) in mv[:i]:
                    continue
                v = self._root_child(m, hb, occ, d, alpha, beta)
                if lim.stop:
                    return 0, 0, d - 1
                if w > 0 and v >= beta or w < 0 and v > alpha:
                    held = w > 0
                    found = m
                    break
            if held:
                value = MATE - d if w > 0 else -(MATE - d)
                bm = found if w > 0 else survivor or mv[0]
                self.table.store(h, value, value, bm)
                return value, bm, d
            survivor = found
            if w > 0:
                self.table.store(h, -MATE, MATE - d - 1, found)
            else:
                self.table.store(h, -(MATE - d - 1), MATE, found)
        return 0, 0, SOLVE_MAX_DEPTH


    def pv(self, h: int, occ: int, value: int) -> list[int]:
        """The winner's shortest win against the loser's longest resistance."""
        cp = self.cp
        out: list[int] = []
        v = value
        pushed = 0
        while len(out) < 512 and v != 0 and cp.outcome is None:
            dist = MATE - abs(v)
            r, bm, _ = self.root(h, occ, dist, dist)
            if self.lim.stop or r != v or not bm:
                break
            out.append(bm)
            side = cp.turn
            h, occ = make(cp, bm, h, occ)
            pushed += 1
            if cp.outcome is not None:
                break
            v = _down(v) if cp.turn == side else -_down(v)
        for _ in range(pushed):
            cp.pop_code()
        return out

