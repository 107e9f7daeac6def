"""Who wins, by the pure-Python solver's depth-first proof-number search:
C's ``df_mid`` and ``df_root`` of ``core/solve.c``, in the game of a cut
(cut 0: who wins; see :mod:`kamisado.engine._pure.solve.points`).

>>> from kamisado.engine._pure.board import Limits, full_hash, occupancy
>>> from kamisado.engine._pure.solve.common import Table
>>> from kamisado.rules.position import Position
>>> cp = Position("1pyrgn2/o3u3/7b/8/2R1N3/8/6G1/3YPUBO b b 1 0 0")
>>> proof = ProofSearch(Moves(cp, Limits(0, 0.0, None), Table()))
>>> proof.df_root(full_hash(cp), occupancy(cp.board))[0]
1
"""

from __future__ import annotations

from collections.abc import Callable

from kamisado.engine._pure.board import MATE, SMK
from kamisado.engine._pure.solve.common import _PN_INF, _PN_MAX, CUT_KEY
from kamisado.engine._pure.solve.moves import Moves


class ProofSearch:
    """The proof-number search of one position: :attr:`dfpn` (C's
    ``df_mid``, a closure) over the shared :class:`Moves`, its numbers in
    the table's ``df``, and its root :meth:`df_root`."""

    def __init__(self, moves: Moves) -> None:
        self.moves = moves
        self.cp = cp = moves.cp
        self.lim = lim = moves.lim
        self.table = moves.table
        pop = cp.pop_code
        gen = cp.move_codes
        safe_replies = moves.safe_replies
        smk = SMK
        cut_key = CUT_KEY
        can_win_now = moves.can_win_now
        child = moves.child
        pt_win_now = moves.pt_win_now
        pt_end = moves.pt_end

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

        self.dfpn: Callable[[int, int, int, int, int], tuple[int, int, int]] = dfpn

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
                won = o is not None and (self.moves.pt_end(side, cut) > 0 if cut else o.winner == side)
                cp.pop_code()
                if won:
                    bm = m
                    break
        if not pn:
            self.table.store(key, 1, MATE, bm)
            return 1, bm, 0
        self.table.store(key, -MATE, -1, 0)
        return -1, 0, 0  # the root's thresholds end only at a proof or a disproof

