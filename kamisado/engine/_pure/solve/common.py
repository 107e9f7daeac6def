"""What the pure-Python solver's searches share: the table, the constants
shared with C, and the arithmetic of values "resolved within d moves".

>>> t = Table()
>>> t.store(1, -5, 7, 0)
>>> t.store(1, -3, 9, 42)
>>> t.tt[1] == (-3 + MATE) | (7 + MATE) << 16 | 42 << 32
True
>>> _dl(MATE - 3, 2), _dl(MATE - 3, 3)
(0, 29997)
"""

from __future__ import annotations

from kamisado.engine._pure.board import MATE, splitmix
from kamisado.rules import position as _core

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

