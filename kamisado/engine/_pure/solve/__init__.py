"""The solver of the pure-Python engine, C's ``core/solve.c`` in Python,
split by search kind:

- :mod:`.common`: the table (bounds on exact values by Zobrist key, and the
  proof numbers), C's constants, and the arithmetic of values "resolved
  within d moves";
- :mod:`.moves`: the position's moves as every search sees them (C's shared
  helpers: wins at once, a child's key, move ordering);
- :mod:`.exact`: exact game values, as ``sv_*`` (alpha-beta on "the value if
  resolved within d moves" with iterative deepening on d: a win in n moves
  is ``MATE - n``, the winner takes the shortest win and the loser the
  longest resistance; see section 3 of ``_ckamisado.c``);
- :mod:`.dfpn`: who wins by a depth-first proof-number search, as ``df_mid``;
- :mod:`.points`: the threshold games (who wins within d moves, the round's
  value in points), as ``pt_*``.

The same move ordering as C; the transposition table is a dictionary of
bounds on exact values by full Zobrist key (valid at every depth, kept
between calls, emptied when it reaches its size), so the values are C's
whatever the order of the nodes, and every search visits the nodes C's
does (the node counts are the same).

>>> from kamisado.rules.position import Position
>>> from kamisado.engine._pure.board import full_hash, occupancy
>>> p = Position("1pyrgn2/o3u3/7b/8/2R1N3/8/6G1/3YPUBO b b 1 0 0")
>>> r = run(p, full_hash(p), occupancy(p.board), 0, 0.0, 0, True, 0, Table())
>>> r["result"], r["distance"], len(r["pv"])
(1, 11, 11)
"""

from __future__ import annotations

import time
from typing import Any

from kamisado.engine._pure.board import MATE, Limits, StopFlag
from kamisado.engine._pure.solve.common import (
    _DEFAULT_LOG2,
    _MAX_LOG2,
    _MIN_LOG2,
    CUT_KEY,
    Table,
    mirror_symmetric,
)
from kamisado.engine._pure.solve.dfpn import ProofSearch
from kamisado.engine._pure.solve.exact import ExactSearch
from kamisado.engine._pure.solve.moves import Moves
from kamisado.engine._pure.solve.points import PointsSearch
from kamisado.rules import position as _core

__all__ = ["CUT_KEY", "Solver", "Table", "mirror_symmetric", "run"]


class Solver:
    """The state of one solve (C's ``Solver``): the shared :class:`Moves`
    over ``cp`` and the searches by kind, which share its table and history.

    >>> from kamisado.engine._pure.board import full_hash, occupancy
    >>> cp = _core.Position("1pyrgn2/o3u3/7b/8/2R1N3/8/6G1/3YPUBO b b 1 0 0")
    >>> s = Solver(cp, Limits(0, 0.0, None), Table())
    >>> s.points.pt_root(full_hash(cp), occupancy(cp.board), 0)[0]
    1
    """

    def __init__(self, cp: _core.Position, lim: Limits, table: Table) -> None:
        self.cp = cp
        self.lim = lim
        self.table = table
        self.moves = Moves(cp, lim, table)
        self.proof = ProofSearch(self.moves)
        self.exact = ExactSearch(self.moves, self.proof)
        self.points = PointsSearch(self.moves, self.proof)


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
        value, bm, depth_done, plo, phi = s.points.pt_root(h, occ, max_depth)
        exact = pv = False
    elif exact and not max_depth:
        value, bm, depth_done = s.exact.ex_root(h, occ)
    elif exact:
        value, bm, depth_done = s.exact.root(h, occ, 1, max_depth)
    else:
        value, bm, depth_done = s.points.wl_root(h, occ, max_depth)
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
        line = s.exact.pv(h, occ, value)
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
