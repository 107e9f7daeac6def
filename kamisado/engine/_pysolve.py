"""The solver of the pure-Python engine: exact game values, as ``sv_*`` in ``_ckamisado.c``;
who wins by a depth-first proof-number search, as ``df_mid`` in ``core/solve.c``.

Alpha-beta on "the value if resolved within d moves" with iterative
deepening on d (see section 3 of ``_ckamisado.c``): a win in n moves is
``MATE - n``, the winner takes the shortest win and the loser the longest
resistance.  The same move ordering as C; the transposition table is a
dictionary of bounds on exact values by full Zobrist key (valid at every
depth, kept between calls, emptied when it reaches its size), so the values
are C's whatever the order of the nodes.

>>> from kamisado.rules.position import Position
>>> from kamisado.engine._pyboard import full_hash, occupancy
>>> p = Position("1pyrgn2/o3u3/7b/8/2R1N3/8/6G1/3YPUBO b b 1 0 0")
>>> r = run(p, full_hash(p), occupancy(p.board), 0, 0.0, 0, True, 0, Table())
>>> r["result"], r["distance"], len(r["pv"])
(1, 11, 11)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from kamisado.engine._pyboard import (
    BIT,
    FIRST_STEP,
    FORWARD,
    MATE,
    REACH,
    SMK,
    SOLVE_MAX_DEPTH,
    WIN_PATHS,
    ZR,
    ZT,
    Limits,
    StopFlag,
    make,
    safe_replies_fn,
    splitmix,
)
from kamisado.rules import position as _core
from kamisado.rules.board import GOAL_RANK, SQUARE_COLOUR

_SV_INF = 32000
_LOSE2 = -(1 << 28)
_WIN3 = (1 << 29) - 1
#: The table holds ``2**tt_log2`` entries as in C (2**22 by default), but
#: at least 2**16 (a smaller one would be emptied too often to help) and at
#: most 2**19 here (about 50 MB of Python objects).
_DEFAULT_LOG2 = 22


def _cut_keys() -> tuple[int, ...]:
    """C's ``PT_CUT_KEY``: splitmix64 from 0x706F696E7473 ("points"), the middle one 0."""
    keys = []
    state = 0x706F696E7473
    for _ in range(7):
        state, z = splitmix(state)
        keys.append(z)
    keys[3] = 0
    return tuple(keys)


#: The key of a position in the game of cut ``c`` is its key XOR ``CUT_KEY[c // 2 + 3]``
#: (0 for cut 0: who wins shares the who-wins proofs).
CUT_KEY = _cut_keys()
_MIN_LOG2 = 16
_MAX_LOG2 = 19

class Table:
    """The solver's table of a Searcher: bounds on exact values by Zobrist
    key, packed in one int each: ``lo + MATE | (hi + MATE) << 16 | move << 32``,
    and the proof-number search's numbers (``df``: ``pn | dn << 32`` by the
    same keys).  Valid for ever, so kept between calls; each emptied when
    full."""

    __slots__ = ("tt", "df", "cap", "log2", "allocations")

    def __init__(self) -> None:
        self.tt: dict[int, int] = {}
        self.df: dict[int, int] = {}
        self.cap = 1 << _MAX_LOG2
        self.log2 = 0
        self.allocations = 0  # tables made so far, two at a time (as C's solver and df-pn)

    def clear(self) -> None:
        """Empty the table of bounds and the proof numbers."""
        self.tt.clear()
        self.df.clear()

    def store(self, key: int, lo: int, hi: int, move: int) -> None:
        """Narrow the bounds of ``key`` (and set its move when ``move``)."""
        tt = self.tt
        e = tt.get(key)
        if e is not None:
            elo = (e & 0xFFFF) - MATE
            ehi = (e >> 16 & 0xFFFF) - MATE
            if elo > lo:
                lo = elo
            if ehi < hi:
                hi = ehi
            if not move:
                move = e >> 32
        elif len(tt) >= self.cap:
            tt.clear()
        tt[key] = lo + MATE | (hi + MATE) << 16 | move << 32


#: C's ``PN_INF``: a proof number of a disproven position (a disproof
#: number of a proven one); sums of numbers stop at ``_PN_MAX``.
_PN_INF = (1 << 27) - 1
_PN_MAX = _PN_INF - 1


def _pick_next(mv: list[int], score: list[int], i: int) -> None:
    """C's ``pick_next``: bring the best-scored of ``mv[i:]`` to ``i`` (the
    first of equals), with its score.

    >>> mv, score = [10, 11, 12], [1, 5, 5]
    >>> _pick_next(mv, score, 0)
    >>> mv, score
    ([11, 10, 12], [5, 1, 5])
    """
    n = len(mv)
    if i + 1 < n:
        bi = max(range(i, n), key=score.__getitem__)
        if bi != i:
            mv[i], mv[bi] = mv[bi], mv[i]
            score[i], score[bi] = score[bi], score[i]


def mirror_symmetric(cp: _core.Position) -> bool:
    """C's ``pos_mirror_symmetric``: the position equals its mirror image
    (files a <-> h, colour c <-> 7 - c: the board's colours and the rules are
    symmetric so), as the start of a single round does.

    >>> mirror_symmetric(_core.Position())
    True
    """
    if cp.must_move >= 0:
        return False
    board = cp.board
    rings = cp.rings
    for sq in range(64):
        t = board[sq]
        t2 = board[sq ^ 7]
        if t < 0:
            if t2 >= 0:
                return False
        elif t2 != (t & 8 | 7 - (t & 7)) or rings[t] != rings[t2]:
            return False
    return True


def _mirror_move(m: int) -> int:
    """The mirror image of a move code (from | to << 6).

    >>> _mirror_move(0 | 16 << 6) == 7 | 23 << 6
    True
    """
    return (m & 63) ^ 7 | ((m >> 6) ^ 7) << 6


def _dl(v: int, d: int) -> int:
    """DL_d of an exact value: ``v`` when resolved within ``d`` moves, else 0."""
    return v if v >= MATE - d or v <= -(MATE - d) else 0


def _up(c: int, same: bool) -> int:
    v = c if same else -c
    return v - 1 if v > 0 else v + 1 if v < 0 else 0


def _down(v: int) -> int:
    return v + 1 if v > 0 else v - 1 if v < 0 else 0


def _true_bounds(r: int, d: int, alpha: int, beta: int) -> tuple[int, int]:
    """Bounds on the exact value from a fail-soft result on DL_d."""
    cut = MATE - d - 1
    if r >= beta:
        return (r if r > 0 else r if r < -cut else -cut), MATE
    if r <= alpha:
        return -MATE, (r if r < 0 else r if r > cut else cut)
    if r != 0:
        return r, r
    return -cut, cut


def _convert(r: int, d: int, d0: int, alpha: int, beta: int) -> int:
    """A result on DL_d (a shortened horizon) as a result on DL_d0."""
    if d == d0:
        return r
    lo, hi = _true_bounds(r, d, alpha, beta)
    return _dl(lo, d0) if r >= beta else _dl(hi, d0) if r <= alpha else r


class Solver:
    """The state of one solve: C's ``Solver``, ``sv_search`` and ``sv_root``."""

    def __init__(self, cp: _core.Position, lim: Limits, table: Table) -> None:
        self.cp = cp
        self.lim = lim
        self.table = table
        self.history = [0] * 1024
        self.search = self._build()

    def _build(self) -> Callable[[int, int, int, int, int], int]:
        cp = self.cp
        lim = self.lim
        board = cp.board
        tsq = cp.tower_square
        rings = cp.rings
        push = cp.push_code
        pop = cp.pop_code
        gen = cp.move_codes
        history = self.history
        paths = [WIN_PATHS[t >> 3][rings[t]] for t in range(16)]
        safe_replies = safe_replies_fn(cp)
        ring_key = 0
        for t in range(16):
            ring_key ^= ZR[t << 2 | rings[t]]
        tt = self.table.tt
        store = self.table.store
        zt = ZT
        smk = SMK
        bit = BIT
        forward = FORWARD
        win1 = MATE - 1
        goal_rank = GOAL_RANK
        colour = SQUARE_COLOUR
        first_steps = FIRST_STEP
        reach = [REACH[t >> 3][rings[t]] for t in range(16)]
        cut_key = CUT_KEY

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

        df = self.table.df
        cap = self.table.cap
        pn_inf = _PN_INF
        pn_max = _PN_MAX

        def df_store(key: int, pn: int, dn: int) -> None:
            if key not in df and len(df) >= cap:
                df.clear()
            df[key] = pn | dn << 32

        def dfpn(cut: int, thpn: int, thdn: int, h: int, occ: int) -> tuple[int, int, int]:
            """C's ``df_mid``: the proof and disproof numbers of the position
            in the game of ``cut`` once one reaches its threshold (or it is
            proven, disproven or stopped), and a winning move when proven."""
            lim.nodes += 1
            if lim.nodes >= lim.next_check and lim.check() or lim.stop:
                return 1, 1, 0
            key = h ^ cut_key[cut // 2 + 3]
            if pt_win_now(occ, cut) if cut else can_win_now(occ):
                df_store(key, 0, pn_inf)
                return 0, pn_inf, 0
            side = cp.turn
            hb = h ^ smk[side * 9 + cp.must_move + 1]
            mv = gen()
            n = len(mv)
            ps = [0] * n
            ds = [0] * n
            same = [False] * n
            for i in range(n):
                h2, occ2 = child(mv[i], hb, occ)
                o = cp.outcome
                sm = same[i] = cp.turn == side
                v = 0  # 1: the move wins the game of cut, -1: it loses it
                if o is not None:
                    v = pt_end(side, cut) if cut else 1 if o.winner == side else -1
                else:
                    e = df.get(h2 ^ cut_key[(cut if sm else -cut) // 2 + 3])
                    if e is not None:
                        epn = e & 0xFFFFFFFF
                        ps[i] = epn if sm else e >> 32
                        ds[i] = e >> 32 if sm else epn
                    elif sm:
                        ps[i] = ds[i] = 1
                    else:
                        sr = safe_replies(side, cp.turn * 8 + cp.must_move, occ2)
                        if sr == 64 and cut >= 0:
                            v = -1  # the opponent wins at once
                        elif sr == 0 and cut <= 0:
                            v = 1  # every reply lets us win at once
                        ps[i] = 1 if sr == 0 or sr == 64 else sr
                        ds[i] = 1
                pop()
                if v > 0:
                    ps[i] = 0
                    ds[i] = pn_inf
                elif v < 0:
                    ps[i] = pn_inf
                    ds[i] = 0
                if not ps[i]:
                    df_store(key, 0, pn_inf)
                    return 0, pn_inf, mv[i]
            while True:
                best = 0
                p2 = pn = pn_inf
                dn = 0
                for i in range(n):
                    dn += ds[i]
                    if dn > pn_max:
                        dn = pn_max
                    pi = ps[i]
                    if pi < pn:
                        p2 = pn
                        pn = pi
                        best = i
                    elif pi < p2:
                        p2 = pi
                if not pn:
                    dn = pn_inf
                if pn >= thpn or dn >= thdn:
                    break
                cthp = pn_inf if p2 >= pn_max else p2 + (p2 >> 2) + 1
                if cthp > thpn:
                    cthp = thpn
                cthd = thdn - dn + ds[best]
                if cthd > pn_inf:
                    cthd = pn_inf
                h2, occ2 = child(mv[best], hb, occ)
                if same[best]:
                    ps[best], ds[best], _ = dfpn(cut, cthp, cthd, h2, occ2)
                else:
                    ds[best], ps[best], _ = dfpn(-cut, cthd, cthp, h2, occ2)
                pop()
                if lim.stop:
                    return 1, 1, 0
            df_store(key, pn, dn)
            return pn, dn, mv[best] if not pn else 0

        self.child = child
        self.pt = pt
        self.pt_end = pt_end
        self.dfpn = dfpn
        return sv

    def _win_now(self, mv: list[int]) -> int:
        """A move of the root that wins at once (0: none)."""
        cp = self.cp
        side = cp.turn
        for m in mv:
            cp.push_code(m)
            o = cp.outcome
            cp.pop_code()
            if o is not None and o.winner == side:
                return m
        return 0

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
        h2, occ2 = self.child(m, hb, occ)
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
        win = self._win_now(mv)
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
        win = self._win_now(mv)
        if win:
            return MATE - 1, win, 1
        w, _, _ = self.df_root(h, occ)
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
            won = o is not None and (self.pt_end(side, cut) > 0 if cut else o.winner == side)
            cp.pop_code()
            if won:
                return m
        hb = h ^ SMK[side * 9 + cp.must_move + 1]
        for m in moves:
            h2, occ2 = self.child(m, hb, occ)
            o = cp.outcome
            if o is not None:
                v = self.pt_end(side, cut) if cut else 1 if o.winner == side else -1
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

    def df_root(self, h: int, occ: int, cut: int = 0) -> tuple[int, int, int]:
        """C's ``df_root``: who wins the game of ``cut`` by the proof-number
        search (1, -1; 0 when stopped), a winning move, and 0 (no horizon)."""
        pn, dn, bm = self.dfpn(cut, _PN_INF, _PN_INF, h, occ)
        if self.lim.stop:
            return 0, 0, 0
        key = h ^ CUT_KEY[cut // 2 + 3]
        if not pn and not bm:  # the root wins at once: dfpn looked at no move
            cp = self.cp
            side = cp.turn
            for m in cp.move_codes():
                cp.push_code(m)
                o = cp.outcome
                won = o is not None and (self.pt_end(side, cut) > 0 if cut else o.winner == side)
                cp.pop_code()
                if won:
                    bm = m
                    break
        if not pn:
            self.table.store(key, 1, MATE, bm)
            return 1, bm, 0
        self.table.store(key, -MATE, -1, 0)
        return -1, 0, 0  # the root's thresholds end only at a proof or a disproof

    def wl_root(self, h: int, occ: int, max_depth: int, cut: int = 0) -> tuple[int, int, int]:
        """C's ``wl_root``: who wins (1, -1; 0 when stopped), a winning move
        and the horizon that decided it (0 for the proof-number search, the
        way without a horizon); the game of ``cut`` when not 0."""
        if not max_depth:
            return self.df_root(h, occ, cut)
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


def run(
    cp: _core.Position,
    h: int,
    occ: int,
    node_limit: int,
    time_ms: float,
    max_depth: int,
    pv: bool,
    tt_log2: int,
    table: Table,
    flag: StopFlag | None = None,
    exact: bool = True,
    points: bool = False,
) -> dict[str, Any]:
    """Solve from ``cp`` (a copy the solver may use; key ``h``, occupancy
    ``occ``) with checked arguments, with ``table``, stopped by ``flag``:
    ``Searcher_solve`` in C (``exact=False``: who wins only, ``distance`` -1;
    ``points``: the round's value in points, ``pt_root``)."""
    if not table.log2 or (tt_log2 > 0 and tt_log2 != table.log2):
        table.clear()
        table.log2 = tt_log2 or _DEFAULT_LOG2
        table.cap = 1 << min(max(table.log2, _MIN_LOG2), _MAX_LOG2)
        table.allocations += 2
    t0 = time.monotonic()
    lim = Limits(int(node_limit), float(time_ms), flag)
    s = Solver(cp, lim, table)
    plo = phi = 0
    if points:
        value, bm, depth_done, plo, phi = s.pt_root(h, occ, max_depth)
        exact = pv = False
    elif exact and not max_depth:
        value, bm, depth_done = s.ex_root(h, occ)
    elif exact:
        value, bm, depth_done = s.root(h, occ, 1, max_depth)
    else:
        value, bm, depth_done = s.wl_root(h, occ, max_depth)
        pv = False
    stopped = lim.stop
    line: list[int] = []
    pv_nodes = 0
    if value and pv and not stopped:
        # the line of a proven value: no limit (it is quick), no stop
        before = lim.nodes
        lim.node_limit = 0
        lim.deadline = 0.0
        lim.flag = None
        line = s.pv(h, occ, value)
        pv_nodes = lim.nodes - before
    pts = value if points else 0
    if points:
        value = 1 if plo > 0 else -1 if phi < 0 else 0  # who wins may be proven alone
    return {
        "result": 1 if value > 0 else -1 if value < 0 else 0,
        "distance": -1 if not exact else MATE - abs(value) if value else 0,
        "best_move": bm,
        "pv": line,
        "nodes": lim.nodes - pv_nodes,
        "pv_nodes": pv_nodes,
        "seconds": time.monotonic() - t0,
        "depth": depth_done,
        "stopped": stopped,
        "points": pts,
        "points_lo": plo,
        "points_hi": phi,
    }
