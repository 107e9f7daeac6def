"""The engine: a solver and a search over the compiled core.

Both work on any round position (Sumos, pushes, passes, deadlocks, the match
fields) given as a :class:`kamisado.rules.position.Position` or as KPN text, and use
the C extension :mod:`kamisado.engine._ckamisado` (built by ``pip install -e .``
where there is a C compiler) or, without it, the same engine in pure Python
(:mod:`kamisado.engine._pyengine`: slower, same results); :data:`BACKEND` says
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

import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import astuple, dataclass
from typing import Any, Protocol

from kamisado.engine._backend import BACKEND
from kamisado.engine._backend import impl as _c
from kamisado.engine.limits import Limit, Score
from kamisado.rules.board import SIDE_NAMES, Move
from kamisado.rules.position import Position

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

#: Exact values used by the compiled solver: a win in n is ``MATE - n``.
MATE: int = _c.MATE
#: Search scores: a won round scores ``WIN_BASE + 256 * tier - ply``.
WIN_BASE: int = _c.WIN_BASE
#: Evaluations stay within +-EVAL_MAX.
EVAL_MAX: int = _c.EVAL_MAX
#: The deepest :func:`search` and :func:`perft`.
MAX_DEPTH: int = _c.MAX_DEPTH
#: The deepest ``max_depth`` of :func:`solve`.
SOLVE_MAX_DEPTH: int = _c.SOLVE_MAX_DEPTH
#: The largest node limit of :func:`search` and :func:`solve`.
NODE_LIMIT_MAX: int = _c.NODE_LIMIT_MAX
#: The largest ``seed`` of :func:`search` (64 bits).
SEED_MAX: int = _c.SEED_MAX
#: The most lines of ``search(multipv=)`` (one per root move at most).
MULTIPV_MAX: int = 256
#: The search table's size in MiB by default (``search(hash_mib=)``, KEI's ``Hash``).
HASH_MIB_DEFAULT: int = 16
#: The largest search table in MiB (2**28 entries of 16 bytes).
HASH_MIB_MAX: int = 1 << (_c.TT_LOG2_MAX - 16)


def hash_entries(hash_mib: int) -> int:
    """The entries of a search table of ``hash_mib`` MiB (16-byte entries, a power of two).

    A size that is not a power of two is rounded down to one, as the table
    must be (what chess engines do too).

    >>> hash_entries(16), hash_entries(1), hash_entries(100) == hash_entries(64)
    (1048576, 65536, True)
    """
    mib = _integer("hash_mib", hash_mib, 1, HASH_MIB_MAX)
    return 1 << (mib.bit_length() - 1 + 16)

PositionLike = Position | str


# -- argument checks: TypeError for a wrong type, ValueError out of range ------------


def _found(value: object) -> str:
    """A value for a message (a huge integer by its size, as the C core writes it)."""
    if isinstance(value, int) and value.bit_length() > 256:
        return f"an integer of {value.bit_length()} bits"
    return repr(value)


def _span(lo: int, hi: int) -> str:
    def one(n: int) -> str:
        return f"2**{n.bit_length()}-1" if n > 2**32 and n & (n + 1) == 0 else str(n)

    return f"{one(lo)}..{one(hi)}"


def _integer(name: str, value: object, lo: int, hi: int, note: str = "") -> int:
    """``value``, an int (not a bool) in ``lo..hi``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    if not lo <= value <= hi:
        raise ValueError(f"{name} must be an integer in {_span(lo, hi)}{note}, got {_found(value)}")
    return value


def _limit(name: str, value: object, hi: int) -> int | None:
    """An optional limit in ``1..hi``; ``None`` for no limit."""
    if value is None:
        return None
    return _integer(name, value, 1, hi, " (None: no limit)")


def _duration(name: str, value: object, unit: str) -> float | None:
    """An optional time limit: a finite number > 0; ``None`` for no limit."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}")
    try:
        v = float(value)
    except OverflowError:
        v = float("inf")
    if not 0 < v < float("inf"):  # NaN fails both
        raise ValueError(
            f"{name} must be a finite number of {unit} > 0 (None: no limit), got {_found(value)}"
        )
    return v


def _flag(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be a bool, got {type(value).__name__}")
    return value


@dataclass(frozen=True)
class Weights:
    """Evaluation weights of :func:`search` (integers in -1000..1000).

    >>> Weights().as_tuple() == DEFAULT_WEIGHTS.as_tuple()
    True
    >>> Weights(threat=0).threat
    0
    """

    threat: int = 39
    """Each tower with a free path to the goal row (ours minus theirs)."""
    safe: int = 6
    """Each move of the tower to move that does not let the opponent win at once."""
    no_safe: int = 1000
    """Penalty when the tower to move has no such move."""
    mobility: int = 7
    """Each move of each tower (ours minus theirs)."""
    advance: int = 19
    """Each rank a tower has advanced (ours minus theirs)."""
    tempo: int = 47
    """Bonus for the side to move."""
    noise: int = 0
    """Amplitude of a pseudo-random term (seeded by ``search(seed=...)``)."""

    def __post_init__(self) -> None:
        for name in self.__dataclass_fields__:
            _integer(f"Weights.{name}", getattr(self, name), -_c.WEIGHT_MAX, _c.WEIGHT_MAX)

    def as_tuple(self) -> tuple[int, ...]:
        """The weights in the order the C evaluation reads them."""
        return tuple(int(v) for v in astuple(self))


DEFAULT_WEIGHTS = Weights(*_c.DEFAULT_WEIGHTS)


@dataclass(frozen=True)
class SolveResult:
    """The answer of :func:`solve`.

    ``winner`` is ``BLACK``/``GOLD`` or ``None`` when a limit stopped the
    solver; ``distance`` is the number of moves to the end of the round with
    best play (0 for a finished round; ``None`` when unknown, and from
    ``solve(exact=False)``, which proves only the winner); ``pv`` is the
    winner's shortest win against the loser's longest resistance.
    """

    winner: int | None
    distance: int | None
    best_move: Move | None
    pv: tuple[Move, ...]
    nodes: int
    seconds: float
    side_to_move: int
    depth: int
    """The deepest horizon (in moves) the solver completed; 0 from the
    who-wins proof-number search (``exact=False`` without ``max_depth``),
    which has none."""

    @property
    def proven(self) -> bool:
        """Whether the round's winner was proven."""
        return self.winner is not None

    @property
    def side_to_move_wins(self) -> bool | None:
        """Whether the side to move wins, or ``None`` when unknown."""
        return None if self.winner is None else self.winner == self.side_to_move

    def __str__(self) -> str:
        if self.winner is None:
            return f"unknown after {self.nodes} nodes ({self.seconds:.2f} s)"
        if self.distance is None:
            how = f" with {self.best_move}" if self.best_move is not None else ""
            return (
                f"{SIDE_NAMES[self.winner]} wins{how} (distance not computed;"
                f" {self.nodes} nodes, {self.seconds:.2f} s)"
            )
        moves = " ".join(str(m) for m in self.pv)
        return (
            f"{SIDE_NAMES[self.winner]} wins in {self.distance}: {moves}"
            f" ({self.nodes} nodes, {self.seconds:.2f} s)"
        )


@dataclass(frozen=True)
class PointsResult:
    """The answer of :func:`solve_points`: what the round is worth to the side to move.

    ``points`` is 1, 2, 4 or 8 when the side to move wins (the most it can
    force: the rings of the tower that wins, plain 1, Sumo 2, Double 4,
    Triple 8), -1, -2, -4 or -8 when it loses (the fewest it must concede),
    ``None`` when a limit stopped the solver.  ``low`` and ``high`` bound
    the value as far as the solver got (equal to ``points`` when proven;
    from the towers' rings alone when nothing was proven).  ``winner`` is
    who wins the round when that was proven (perhaps without the points).
    ``best_move`` keeps the value: a move of the last threshold proof the
    side to move won (``None`` when every move concedes as much, or when
    not proven).
    """

    points: int | None
    low: int
    high: int
    winner: int | None
    best_move: Move | None
    nodes: int
    seconds: float
    side_to_move: int
    depth: int
    """The horizon (in moves) of the last proof."""

    @property
    def proven(self) -> bool:
        """Whether the round's value in points was proven."""
        return self.points is not None

    def __str__(self) -> str:
        cost = f"{self.nodes} nodes, {self.seconds:.2f} s"
        me, other = SIDE_NAMES[self.side_to_move], SIDE_NAMES[self.side_to_move ^ 1]
        if self.points is None:
            won = "" if self.winner is None else f"{SIDE_NAMES[self.winner]} wins; "
            return f"{won}points unknown, {self.low} to {self.high} for {me} ({cost})"
        how = f" with {self.best_move}" if self.best_move is not None else ""
        if self.points > 0:
            return f"{me} wins {_plural(self.points)}{how} ({cost})"
        return f"{other} wins; {me} concedes {_plural(-self.points)}{how} ({cost})"


def _plural(points: int) -> str:
    return f"{points} point" + ("" if points == 1 else "s")


@dataclass(frozen=True)
class Line:
    """One line of a MultiPV search (:func:`search` with ``multipv``): its
    exact score (from the side to move) and its moves, the root move first.

    >>> r = search(Position(), depth=3, multipv=2)
    >>> [len(x.pv) >= 1 for x in r.lines], r.lines[0].score >= r.lines[1].score
    ([True, True], True)
    """

    score: int
    pv: tuple[Move, ...]

    @property
    def value(self) -> Score:
        """:attr:`score` as a :class:`Score`."""
        return Score.from_raw(self.score)


@dataclass(frozen=True)
class Iteration:
    """One completed iteration of :func:`search` (``nodes`` and ``seconds`` from the start).

    ``seldepth`` and ``pv`` (the search's line, as found) are given to the
    ``on_iteration`` callback; :attr:`SearchResult.iterations` leaves them out.
    """

    depth: int
    score: int
    nodes: int
    seconds: float
    seldepth: int = 0
    pv: tuple[Move, ...] = ()
    lines: tuple[Line, ...] = ()
    """With ``multipv`` or ``root_moves``: the depth's best lines, best first."""

    @property
    def value(self) -> Score:
        """:attr:`score` as a :class:`Score`."""
        return Score.from_raw(self.score)


@dataclass(frozen=True)
class SearchResult:
    """The answer of :func:`search`.

    ``score`` is from the side to move.  ``proven_win_in``/``proven_loss_in``
    give the moves to the end of the round when the score is a proven result
    (for the side to move); ``round_points`` is what the proven round is
    worth to its winner and ``match_won`` whether it ends the match.
    """

    depth: int
    score: int
    pv: tuple[Move, ...]
    best_move: Move | None
    proven_win_in: int | None
    proven_loss_in: int | None
    round_points: int | None
    match_won: bool | None
    nodes: int
    seconds: float
    seldepth: int
    iterations: tuple[Iteration, ...]
    lines: tuple[Line, ...] = ()
    """With ``multipv`` or ``root_moves``: the last finished depth's best lines."""
    lead: Line | None = None
    """With ``multipv`` or ``root_moves``, when a limit or a stop cut a depth
    short: the best move it searched, if its exact score beats the last
    finished depth's best (so the true best of that depth is at least that:
    a lower bound, as Stockfish plays it); else ``None``."""
    lead_depth: int | None = None
    """The depth of :attr:`lead`."""

    @property
    def value(self) -> Score:
        """:attr:`score` as a :class:`Score` (with its tier)."""
        return Score.from_raw(self.score)

    @property
    def nodes_per_second(self) -> float:
        """Search speed."""
        return self.nodes / self.seconds if self.seconds > 0 else 0.0


@dataclass(frozen=True)
class MoveValue:
    """The solved value of one move (see :func:`solve_moves`)."""

    move: Move
    winner: int | None
    distance: int | None
    """Moves to the end of the round, this move included."""


class _Core(Protocol):
    """What runs a search or a solve: the core module (its default Searcher)
    or a core ``Searcher`` (both have the API of ``_ckamisado.pyi``)."""

    def search(
        self,
        pos: _c.Position,
        depth: int = 0,
        time_ms: float = 0,
        node_limit: int = 0,
        weights: tuple[int, ...] | list[int] | None = None,
        seed: int = 0,
        tt_log2: int = 20,
        keep_tt: bool = False,
        on_iteration: Callable[..., object] | None = None,
        multipv: int = 0,
        root_moves: list[int] | None = None,
    ) -> dict[str, Any]: ...

    def solve(
        self,
        pos: _c.Position,
        node_limit: int = 0,
        time_ms: float = 0,
        max_depth: int = 0,
        pv: bool = True,
        tt_log2: int = 0,
        exact: bool = True,
        points: bool = False,
    ) -> dict[str, Any]: ...

    def clear_tt(self) -> None: ...


#: The Searcher made active in this thread by :meth:`Searcher.active`.
_local = threading.local()


def _core() -> _Core:
    """The core of the module functions in this thread: the active Searcher's, or the default."""
    searcher: Searcher | None = getattr(_local, "searcher", None)
    return _c if searcher is None else searcher._core


def clear_tables() -> None:
    """Empty the solver's and the search's transposition tables.

    The solver keeps its table between calls: it holds bounds on exact game
    values, so it only makes later calls faster (a proven position answers
    at once, whatever its limits).  The search starts each call on an empty
    table (a new generation of it).  In a thread where a :class:`Searcher`
    is active, its tables.
    """
    _core().clear_tt()


def _position(pos: PositionLike) -> Position:
    if isinstance(pos, str):
        return Position(pos)
    if not isinstance(pos, Position):
        raise TypeError(f"pos must be a Position or KPN text, got {type(pos).__name__}")
    return pos


def _weights(weights: Weights | None) -> tuple[int, ...]:
    if weights is None:
        return DEFAULT_WEIGHTS.as_tuple()
    if not isinstance(weights, Weights):
        raise TypeError(f"weights must be a Weights or None, got {type(weights).__name__}")
    return weights.as_tuple()


def to_cposition(pos: PositionLike) -> _c.Position:
    """The compiled position (``_ckamisado.Position``) of a position or KPN.

    The KPN is checked by :class:`kamisado.rules.position.Position` first, so errors
    read the same as everywhere else.

    >>> to_cposition(Position()).kpn()
    'obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 1 0 0'
    """
    p = _position(pos)
    if p.outcome is not None:
        raise ValueError("the round is over")
    return _c.Position(p.kpn())


def _move(code: int) -> Move:
    return Move(code & 63, code >> 6)


def _unpack(
    limit: object, names: str, given: tuple[object, ...]
) -> tuple[float | None, int | None, int | None]:
    """``(time, nodes, depth)`` of ``limit``, given instead of the keywords ``names``."""
    if not isinstance(limit, Limit):
        raise TypeError(f"limit must be a Limit or None, got {type(limit).__name__}")
    if any(v is not None for v in given):
        raise TypeError(f"give either limit or {names}, not both")
    if limit.win is not None:
        raise ValueError(
            "Limit.win is KEI's 'go win N'; here the solver's max_depth says the same"
            " (solve(pos, max_depth=N))"
        )
    return limit.time, limit.nodes, limit.depth



def solve(
    pos: PositionLike,
    time_limit: float | None = None,
    node_limit: int | None = None,
    max_depth: int | None = None,
    pv: bool = True,
    *,
    limit: Limit | None = None,
    exact: bool = True,
) -> SolveResult:
    """Prove who wins the round from ``pos`` with best play.

    ``time_limit`` (seconds, finite, > 0) and ``node_limit`` (1 to
    ``NODE_LIMIT_MAX``) stop the solver, which then answers ``winner=None``;
    ``max_depth`` (1 to ``SOLVE_MAX_DEPTH``) looks only for results within
    that many moves.  ``None`` means no limit of that kind.  A wrong type
    raises ``TypeError``, a value out of range ``ValueError``.  For a match
    position the answer is who wins the round.  ``limit`` says the same
    as a :class:`Limit` (``time``, ``nodes``, ``depth``), instead of the three.

    ``exact=False`` proves only who wins, not in how many moves: the answer
    has ``distance=None``, no ``pv``, and ``best_move`` a winning move when
    the side to move wins (``None`` when it loses).  It is much cheaper: a
    depth-first proof-number search (df-pn) with no horizon, which expands
    the move that looks cheapest to prove and stops at the first proof,
    where the exact solver must deepen until it finds the shortest win; the
    single round from the start in about 18,000 nodes instead of 5M
    (``bench/proven.py``).  With ``max_depth`` it is an alpha-beta search
    within that horizon instead.  Its proof numbers have a table of their
    own in the Searcher; a proof of the root goes into the solver's table,
    which both share.

    >>> r = solve("1pyrgn2/o3u3/7b/8/2R1N3/8/6G1/3YPUBO b b 1 0 0")
    >>> r.winner is not None
    True
    >>> solve(Position(), node_limit=1000).winner is None
    True
    >>> r = solve(Position(), exact=False)
    >>> r.winner, r.distance, r.best_move in Position().legal_moves
    (0, None, True)
    """
    if limit is not None:
        time_limit, node_limit, max_depth = _unpack(
            limit, "time_limit, node_limit, max_depth", (time_limit, node_limit, max_depth)
        )
    seconds = _duration("time_limit", time_limit, "seconds")
    nodes = _limit("node_limit", node_limit, NODE_LIMIT_MAX)
    depth = _limit("max_depth", max_depth, SOLVE_MAX_DEPTH)
    _flag("pv", pv)
    _flag("exact", exact)
    p = _position(pos)
    if p.outcome is not None:
        return SolveResult(p.outcome.winner, 0, None, (), 0, 0.0, p.turn, 0)
    cp = _c.Position(p.kpn())
    r = _core().solve(
        cp,
        node_limit=nodes or 0,
        time_ms=0.0 if seconds is None else min(seconds * 1000.0, 1e300),
        max_depth=depth or 0,
        pv=pv,
        exact=exact,
    )
    result = int(r["result"])
    if result == 0:
        return SolveResult(
            None,
            None,
            None,
            (),
            int(r["nodes"]),
            float(r["seconds"]),
            p.turn,
            int(r["depth"]),
        )
    winner = p.turn if result > 0 else p.turn ^ 1
    return SolveResult(
        winner=winner,
        distance=int(r["distance"]) if exact else None,
        best_move=_move(int(r["best_move"])) if int(r["best_move"]) else None,
        pv=tuple(_move(c) for c in r["pv"]),
        nodes=int(r["nodes"]) + int(r["pv_nodes"]),
        seconds=float(r["seconds"]),
        side_to_move=p.turn,
        depth=int(r["depth"]),
    )


def solve_moves(
    pos: PositionLike,
    time_limit: float | None = None,
    node_limit: int | None = None,
    *,
    limit: Limit | None = None,
) -> list[MoveValue]:
    """Solve every legal move of ``pos``: who wins after it, and when.

    Limits apply to each move (as for :func:`solve`; ``limit`` takes no
    ``depth`` here).  Best moves first:
    proven wins for the side to move (shortest first), unknown, then losses
    (longest first).

    >>> vals = solve_moves("obupyrgn/8/8/N7/8/8/8/1GRYPUBO g p 1 0 0")
    >>> all(v.winner == 0 for v in vals)
    True
    """
    if limit is not None:
        time_limit, node_limit, depth = _unpack(
            limit, "time_limit, node_limit", (time_limit, node_limit)
        )
        if depth is not None:
            raise ValueError("solve_moves: a Limit without depth (it solves every move)")
    _duration("time_limit", time_limit, "seconds")
    _limit("node_limit", node_limit, NODE_LIMIT_MAX)
    p = _position(pos)
    side = p.turn
    out: list[MoveValue] = []
    for move in list(p.legal_moves):
        q = p.copy(stack=False)
        q.push(move)
        if q.outcome is not None:
            out.append(MoveValue(move, q.outcome.winner, 1))
            continue
        r = solve(q, time_limit=time_limit, node_limit=node_limit, pv=False)
        dist = None if r.distance is None else r.distance + 1
        out.append(MoveValue(move, r.winner, dist))

    def order(v: MoveValue) -> tuple[int, int]:
        if v.winner is None:
            return (1, 0)
        d = v.distance or 0
        return (0, d) if v.winner == side else (2, -d)

    out.sort(key=order)
    return out


def solve_points(
    pos: PositionLike,
    time_limit: float | None = None,
    node_limit: int | None = None,
    max_depth: int | None = None,
    *,
    limit: Limit | None = None,
) -> PointsResult:
    """Prove what the round from ``pos`` is worth to the side to move, in points.

    Won: the most points it can force, 1, 2, 4 or 8 by the rings of the
    tower that wins (:attr:`kamisado.rules.board.Outcome.points`); lost: the
    fewest it must concede, as a negative number.  It proves who wins first
    (:func:`solve` with ``exact=False``), then threshold games on the same
    solver: "wins with a tower of at least k rings" for k = 1, 2, 3 until
    one fails (lost: "does not lose to a tower of k rings or more" until one
    holds), only as far as the towers' rings allow, so a round without Sumo
    towers costs no more than who wins.  The proofs share the Searcher's
    table (entries of each threshold under keys of their own).  Limits as
    :func:`solve` (they bound the whole solve); a limit gives
    ``points=None`` with the bounds proven so far.

    >>> r = solve_points("1pyrgn2/o3u3/7b/8/2R1N3/8/6G1/3YPUBO b b 1 0 0")
    >>> r.points, r.winner == r.side_to_move
    (1, True)
    >>> r = solve_points("2o++5/3u+1p2/3g4/7G+/1U1B2b+1/4N+++2Y++/O+y+R1r++1n1/5P+2 b g 15 13 9")
    >>> r.points, str(r.best_move)
    (2, 'h5-h8')
    >>> print(solve_points("3rn1py/3bP+3/1G6/o+2B4/1u6/6g1/6R+1/O+1Y+1U+1N1 g p 15 5 1").points)
    -2
    >>> Searcher().solve_points(Position(), node_limit=1000).points is None
    True
    """
    if limit is not None:
        time_limit, node_limit, max_depth = _unpack(
            limit, "time_limit, node_limit, max_depth", (time_limit, node_limit, max_depth)
        )
    seconds = _duration("time_limit", time_limit, "seconds")
    nodes = _limit("node_limit", node_limit, NODE_LIMIT_MAX)
    depth = _limit("max_depth", max_depth, SOLVE_MAX_DEPTH)
    p = _position(pos)
    if p.outcome is not None:
        o = p.outcome
        v = o.points if o.winner == p.turn else -o.points
        return PointsResult(v, v, v, o.winner, None, 0, 0.0, p.turn, 0)
    r = _core().solve(
        _c.Position(p.kpn()),
        node_limit=nodes or 0,
        time_ms=0.0 if seconds is None else min(seconds * 1000.0, 1e300),
        max_depth=depth or 0,
        pv=False,
        points=True,
    )
    result = int(r["result"])
    value = int(r["points"])
    best = int(r["best_move"])
    return PointsResult(
        points=value or None,
        low=int(r["points_lo"]),
        high=int(r["points_hi"]),
        winner=None if not result else p.turn if result > 0 else p.turn ^ 1,
        best_move=_move(best) if best and value else None,
        nodes=int(r["nodes"]),
        seconds=float(r["seconds"]),
        side_to_move=p.turn,
        depth=int(r["depth"]),
    )


def decode_score(
    score: int, pos: PositionLike | None = None
) -> tuple[str, int | None, int | None]:
    """Read a search score: ``(kind, moves, tier)`` (sugar for :meth:`Score.from_raw`).

    ``kind`` is ``'win'``, ``'loss'`` (for the side to move) or ``'eval'``;
    ``moves`` the moves to the end of the round for a proven result; ``tier``
    15 when the round wins the match, else the points it carries.

    Scores are relative to the position searched; ``pos`` is ignored (kept
    for old callers).

    >>> decode_score(WIN_BASE + 256 * 15 - 3)
    ('win', 3, 15)
    >>> decode_score(-25)
    ('eval', None, None)
    """
    del pos
    s = Score.from_raw(score)
    return ("eval", None, None) if not s.is_proven else (s.kind, s.value, s.tier)


def _checked_pv(
    pos: Position, moves: list[Move], complete: bool
) -> tuple[tuple[Move, ...], Position]:
    """The legal prefix of ``moves`` from ``pos`` and the position it reaches.

    With ``complete`` (a proven result), a PV that stops one move short of
    the end of the round (the search scores an immediate win without
    playing it) gets that winning move, the one worth most.
    """
    q = pos.copy(stack=False)
    out: list[Move] = []
    for m in moves:
        if q.outcome is not None or not q.is_legal(m):
            break
        q.push(m)
        out.append(m)
    if complete and q.outcome is None:
        best: tuple[int, str] | None = None
        win: Move | None = None
        for m in list(q.legal_moves):
            mover = q.turn
            q.push(m)
            o = q.outcome
            if o is not None and o.winner == mover:
                key = (o.points, str(m))
                if best is None or key[0] > best[0]:
                    best, win = key, m
            q.pop()
        if win is not None:
            q.push(win)
            out.append(win)
    return tuple(out), q


def search(
    pos: PositionLike,
    depth: int | None = None,
    time_ms: float | None = None,
    nodes: int | None = None,
    seed: int = 0,
    weights: Weights | None = None,
    *,
    limit: Limit | None = None,
    on_iteration: Callable[[Iteration], object] | None = None,
    hash_mib: int = HASH_MIB_DEFAULT,
    multipv: int | None = None,
    root_moves: Iterable[Move | str] | None = None,
) -> SearchResult:
    """Iterative deepening PVS from ``pos``, limited by depth, time and nodes.

    ``depth`` lies in 1..``MAX_DEPTH``, ``time_ms`` is a finite number of
    milliseconds > 0, ``nodes`` lies in 1..``NODE_LIMIT_MAX``; ``None`` means
    no limit of that kind, and at least one limit is needed.  ``seed``
    (0..``SEED_MAX``) shuffles the root moves (and seeds the ``noise``
    weight); the result is the last completed iteration.  A wrong type
    raises ``TypeError``, a value out of range ``ValueError``.

    ``limit`` says the same as a :class:`Limit` instead of the three
    keywords (``time`` in seconds; ``infinite`` alone searches to
    ``MAX_DEPTH``).  ``on_iteration`` is called with each finished
    :class:`Iteration` (its ``seldepth`` and ``pv`` included): a true answer
    ends the search there, an exception ends it and propagates.  A search
    stops by itself once it proves a result that ends the match within its
    depth.  ``hash_mib`` (1..``HASH_MIB_MAX``, default 16) sizes the
    search's transposition table (rounded down to a power of two:
    :func:`hash_entries`); KEI's ``Hash`` option sets it.

    ``multipv`` (1..``MULTIPV_MAX``) asks for that many best lines, in one
    search: at the root the first moves get exact scores, each later one a
    null window at the current k-th best score (and an exact score when it
    beats it), so the k best moves of each depth end with exact scores,
    sharing the search's table, killers and history (``bench/multipv.py``
    compares it with a search per root move).  ``root_moves`` (moves or
    their text, legal in ``pos``) restricts the root's moves.  Either way
    the answer's ``lines`` (and each :class:`Iteration`'s) hold the depth's
    best lines (fewer when there are fewer moves); ``pv`` and ``score`` are
    the first's.  ``multipv=1`` without ``root_moves`` is the plain search.

    >>> r = search(Position(), depth=4)
    >>> r.depth, len(r.pv) >= 1, r.proven_win_in
    (4, True, None)
    """
    if limit is not None:
        seconds, nodes, depth = _unpack(limit, "depth, time_ms, nodes", (depth, time_ms, nodes))
        time_ms = None if seconds is None else seconds * 1000.0
        if limit.infinite and depth is None:
            depth = MAX_DEPTH
    if on_iteration is not None and not callable(on_iteration):
        raise TypeError(
            f"on_iteration must be a callable or None, got {type(on_iteration).__name__}"
        )
    depth = _limit("depth", depth, MAX_DEPTH)
    time_ms = _duration("time_ms", time_ms, "milliseconds")
    nodes = _limit("nodes", nodes, NODE_LIMIT_MAX)
    seed = _integer("seed", seed, 0, SEED_MAX)
    tt_log2 = hash_entries(hash_mib).bit_length() - 1
    k = 0 if multipv is None else _integer("multipv", multipv, 1, MULTIPV_MAX, " (None: one line)")
    w = _weights(weights)
    p = _position(pos)
    if p.outcome is not None:
        raise ValueError("the round is over")
    roots = None if root_moves is None else _root_codes(p, root_moves)
    lines_mode = k > 1 or roots is not None
    if depth is None and time_ms is None and nodes is None:
        raise ValueError("give a depth, a time or a node limit")
    cp = _c.Position(p.kpn())
    report = None
    if on_iteration is not None:
        callback = on_iteration

        def report(
            d: int, s: int, n: int, t: float, sel: int, line: list[int], *rest: Any
        ) -> object:
            got = _lines(p, rest[0]) if rest else ()
            return callback(Iteration(d, s, n, t, sel, tuple(_move(c) for c in line), got))

    extra: dict[str, Any] = {}
    if lines_mode:
        extra = {"multipv": max(k, 1), "root_moves": roots}
    r = _core().search(
        cp,
        depth=depth or 0,
        time_ms=time_ms or 0.0,
        node_limit=nodes or 0,
        weights=w,
        seed=seed,
        tt_log2=tt_log2,
        on_iteration=report,
        **extra,
    )
    score = int(r["score"])
    kind, dist, tier = decode_score(score)
    pv, q = _checked_pv(p, [_move(c) for c in r["pv"]], complete=tier is not None)
    points: int | None = None
    match_won: bool | None = None
    if tier is not None:
        match_won = tier == 15
        points = None if tier == 15 else tier
        # the PV of a proven result ends the round: read the points there
        if q.outcome is not None:
            points = q.outcome.points
    its = tuple(
        Iteration(int(d), int(s), int(n), float(t)) for d, s, n, t in r["iterations"]
    )
    return SearchResult(
        depth=int(r["depth"]),
        score=score,
        pv=pv,
        best_move=pv[0] if pv else None,
        proven_win_in=dist if kind == "win" else None,
        proven_loss_in=dist if kind == "loss" else None,
        round_points=points,
        match_won=match_won,
        nodes=int(r["nodes"]),
        seconds=float(r["seconds"]),
        seldepth=int(r["seldepth"]),
        iterations=its,
        lines=_lines(p, r["lines"]) if lines_mode else (),
        lead=_lines(p, [r["lead"][1:]])[0] if lines_mode and r["lead"] else None,
        lead_depth=int(r["lead"][0]) if lines_mode and r["lead"] else None,
    )


def _root_codes(p: Position, root_moves: Iterable[Move | str]) -> list[int]:
    """The codes of ``root_moves`` (moves or their text), each legal in ``p``."""
    if isinstance(root_moves, str | bytes):
        raise TypeError("root_moves must be moves or their text (a list), not one string")
    codes: list[int] = []
    for m in root_moves:
        move = Move.from_str(m) if isinstance(m, str) else m
        if not isinstance(move, Move):
            raise TypeError(f"root_moves: expected moves or their text, got {type(m).__name__}")
        p.check_move(move)
        codes.append(move.from_square | move.to_square << 6)
    if not codes:
        raise ValueError("root_moves: expected at least one move (None: every move)")
    return codes


def _lines(p: Position, raw: list[tuple[int, list[int]]]) -> tuple[Line, ...]:
    """The core's ``(score, pv)`` lines as :class:`Line` (each pv checked, as ``pv``)."""
    out = []
    for score, codes in raw:
        proven = Score.from_raw(int(score)).is_proven
        line, _ = _checked_pv(p, [_move(c) for c in codes], complete=proven)
        out.append(Line(int(score), line))
    return tuple(out)


def evaluate(pos: PositionLike, weights: Weights | None = None) -> int:
    """The static evaluation of a position in progress, for the side to move.

    >>> evaluate(Position()) == evaluate(Position(), DEFAULT_WEIGHTS)
    True
    """
    w = _weights(weights)
    cp = to_cposition(pos)
    return int(_c.evaluate(cp, w))


def perft(pos: PositionLike, depth: int) -> int:
    """Perft with the compiled move generator (equal to ``Position.perft``).

    ``depth`` lies in 0..``MAX_DEPTH``: ``ValueError`` beyond, ``TypeError``
    for a non-integer.

    >>> perft(Position(), 4)
    107068
    """
    depth = _integer("depth", depth, 0, MAX_DEPTH)
    p = _position(pos)
    if p.outcome is not None:
        return 1 if depth == 0 else 0
    return int(_c.Position(p.kpn()).perft(depth))


class Searcher:
    """A search and a solver with tables of their own, which another thread can stop.

    As a chess engine's thread: the compiled core runs its searches without
    the GIL, so several Searchers search side by side in threads of one
    process (the pure-Python core takes turns).  :meth:`stop`, from any
    thread, ends the running search as at a limit (it answers its last
    finished depth; the first always finishes) and the running solve
    (``winner=None``); the flag stays set, so the Searcher's later searches
    stop at once too, until :meth:`resume`.  A Searcher runs one search and
    one solve at a time (another from a second thread raises
    ``RuntimeError``).

    :meth:`search`, :meth:`solve` and :meth:`solve_moves` take the
    arguments of the module functions.  ``with searcher.active():`` makes
    the module functions use it in this thread, for code that calls them
    (the players of :mod:`kamisado.engine.levels`); :mod:`kamisado.engine.runner` runs a
    job that way in a thread of its own.

    >>> s = Searcher()
    >>> s.search(Position(), depth=4).depth
    4
    >>> s.stop()
    >>> s.stopped, s.search(Position(), depth=9).depth
    (True, 1)
    >>> s.resume()
    >>> with s.active():
    ...     solve("1pyrgn2/o3u3/7b/8/2R1N3/8/6G1/3YPUBO b b 1 0 0").proven
    True
    """

    def __init__(self) -> None:
        self._core = _c.Searcher()

    @property
    def stopped(self) -> bool:
        """Whether :meth:`stop` was called (and not :meth:`resume` since)."""
        return self._core.stopped

    def stop(self) -> None:
        """End the running search or solve, from any thread (see the class)."""
        self._core.stop()

    def resume(self) -> None:
        """Clear the stop flag: later searches run to their limits again."""
        self._core.resume()

    def clear_tables(self) -> None:
        """Empty this Searcher's tables (``RuntimeError`` while it runs)."""
        self._core.clear_tt()

    @property
    def allocations(self) -> int:
        """The tables made (allocated and zeroed) so far: the search's first
        one and each new size, the solver's two on its first use."""
        return self._core.allocations

    @contextmanager
    def active(self) -> Iterator[Searcher]:
        """Within the block, the module functions of this thread use this Searcher."""
        previous = getattr(_local, "searcher", None)
        _local.searcher = self
        try:
            yield self
        finally:
            _local.searcher = previous

    def search(self, pos: PositionLike, *args: Any, **kwargs: Any) -> SearchResult:
        """:func:`search` with this Searcher (the same arguments)."""
        with self.active():
            return search(pos, *args, **kwargs)

    def solve(self, pos: PositionLike, *args: Any, **kwargs: Any) -> SolveResult:
        """:func:`solve` with this Searcher (the same arguments)."""
        with self.active():
            return solve(pos, *args, **kwargs)

    def solve_moves(self, pos: PositionLike, *args: Any, **kwargs: Any) -> list[MoveValue]:
        """:func:`solve_moves` with this Searcher (the same arguments)."""
        with self.active():
            return solve_moves(pos, *args, **kwargs)

    def solve_points(self, pos: PositionLike, *args: Any, **kwargs: Any) -> PointsResult:
        """:func:`solve_points` with this Searcher (the same arguments)."""
        with self.active():
            return solve_points(pos, *args, **kwargs)
