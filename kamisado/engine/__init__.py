"""The engine: a solver and a search over the compiled core.

Both work on any round position (Sumos, pushes, passes, deadlocks, the match
fields) given as a :class:`kamisado.rules.position.Position` or as KPN text, and use
the C extension :mod:`kamisado.engine._ckamisado` (built by ``pip install -e .``
where there is a C compiler) or, without it, the same engine in pure Python
(:mod:`kamisado.engine._pure.engine`: slower, same results); :data:`BACKEND` says
which (``KAMISADO_PURE_PYTHON=1`` forces pure Python).

:func:`solve` proves who wins the round with best play and in how many moves
(moves of both sides, the winning move included, passes not counted, a push
counts as a move); the winner takes the shortest win, the loser the longest
resistance.

>>> r = solve("obupyrgn/8/8/N7/8/8/8/1GRYPUBO g p 1 0 0")
>>> SIDE_NAMES[r.winner], r.distance, len(r.pv)
('Black', 16, 16)

Single-round Kamisado from the start is a win for the first player (Black)
in 17 moves; the solver proves it in about a second.  Of Black's 102 first
moves, 16 win: a1-a5, b1-b7, d1-d5, d1-d6, e1-e5, e1-e6, g1-g7 and h1-h5 in
17, c1-c7 and f1-f7 in 19, b1-b6, c1-c4, f1-f4 and g1-g6 in 21, a1-a2 and
h1-h2 in 32 (``python bench/search.py --first-moves``).

:func:`search` is an iterative deepening alpha-beta search with a heuristic
evaluation whose weights are a parameter (:class:`Weights`).  Won rounds
score above every evaluation; in a match a round that wins the match counts
most, then the points the round carries, then the shortest win.

>>> s = search("obupyrgn/8/8/N7/8/8/8/1GRYPUBO g p 1 0 0", depth=6)
>>> s.depth, s.best_move in Position("obupyrgn/8/8/N7/8/8/8/1GRYPUBO g p 1 0 0").legal_moves
(6, True)

Limits are a :class:`Limit` (``limit=``; the keyword arguments ``depth``,
``time_ms``, ``nodes`` and ``time_limit``, ``node_limit``, ``max_depth`` say
the same), scores read as a :class:`Score` (``SearchResult.value``), both
from :mod:`kamisado.engine.limits`, shared with KEI and the tools.
``search(on_iteration=f)`` calls ``f`` with each finished :class:`Iteration`;
a true answer ends the search there, an exception ends it and propagates.

>>> r = search(Position(), limit=Limit(depth=3), on_iteration=lambda it: print(it.depth))
1
2
3
>>> r.value.kind
'cp'
"""

from __future__ import annotations

from kamisado.engine._backend import BACKEND
from kamisado.engine._calls import (
    EVAL_MAX as EVAL_MAX,
)
from kamisado.engine._calls import (
    HASH_MIB_DEFAULT,
    HASH_MIB_MAX,
    MULTIPV_MAX,
    clear_tables,
    hash_entries,
    to_cposition,
)
from kamisado.engine._calls import (
    MATE as MATE,
)
from kamisado.engine._calls import (
    MAX_DEPTH as MAX_DEPTH,
)
from kamisado.engine._calls import (
    NODE_LIMIT_MAX as NODE_LIMIT_MAX,
)
from kamisado.engine._calls import (
    SEED_MAX as SEED_MAX,
)
from kamisado.engine._calls import (
    SOLVE_MAX_DEPTH as SOLVE_MAX_DEPTH,
)
from kamisado.engine._calls import (
    WIN_BASE as WIN_BASE,
)
from kamisado.engine._calls import (
    PositionLike as PositionLike,
)
from kamisado.engine.limits import Limit, Score
from kamisado.engine.results import (
    DEFAULT_WEIGHTS,
    Iteration,
    Line,
    MoveValue,
    PointsResult,
    SearchResult,
    SolveResult,
    Weights,
    decode_score,
)
from kamisado.engine.searcher import Searcher
from kamisado.engine.searching import evaluate, perft, search
from kamisado.engine.solving import solve, solve_moves, solve_points
from kamisado.rules.board import SIDE_NAMES as SIDE_NAMES
from kamisado.rules.board import Move as Move
from kamisado.rules.position import Position as Position

__all__ = [
    "BACKEND",
    "DEFAULT_WEIGHTS",
    "HASH_MIB_DEFAULT",
    "HASH_MIB_MAX",
    "MULTIPV_MAX",
    "Iteration",
    "Limit",
    "Line",
    "MoveValue",
    "PointsResult",
    "Score",
    "SearchResult",
    "Searcher",
    "SolveResult",
    "Weights",
    "clear_tables",
    "decode_score",
    "evaluate",
    "hash_entries",
    "perft",
    "search",
    "solve",
    "solve_moves",
    "solve_points",
    "to_cposition",
]
