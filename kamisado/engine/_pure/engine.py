"""The pure-Python engine: the whole API of the compiled core, slower but the same.

A drop-in replacement for :mod:`kamisado.engine._ckamisado` (the API of its stub
``_ckamisado.pyi``: the constants, :class:`Position`, :func:`search`,
:func:`solve`, :func:`evaluate`, :func:`clear_tt`, :func:`square_colours`,
the same arguments, checks, errors and answers) for machines without a C
compiler; :mod:`kamisado.engine._backend` picks it when the extension is missing
or ``KAMISADO_PURE_PYTHON=1`` is set.

Moves, passes, deadlocks and KPN are those of :class:`kamisado.rules.position.Position`
(``move_codes``, ``push_code``, ``pop_code``).  The search
(:mod:`kamisado.engine._pure.search`) is a faithful port of the C search, so the same
position, depth, weights and seed give the same score, line and node count;
the solver (:mod:`kamisado.engine._pure.solve`) gives the same exact values (winner
and distance).  Tables and shared helpers are in :mod:`kamisado.engine._pure.board`.

>>> p = Position()
>>> len(p.moves()), p.perft(2)
(102, 1150)
>>> r = search(Position("obupyrgn/8/8/N7/8/8/8/1GRYPUBO g p 1 0 0"), depth=3)
>>> r["depth"], len(r["pv"]) >= 1
(3, True)
>>> s = solve(Position("1pyrgn2/o3u3/7b/8/2R1N3/8/6G1/3YPUBO b b 1 0 0"))
>>> s["result"], s["distance"] == len(s["pv"])
(1, True)
>>> search(p, depth=121)
Traceback (most recent call last):
...
ValueError: depth must be an integer in 0..120 (0: no limit), got 121
"""

from __future__ import annotations

import math
import operator
import threading
from collections.abc import Sequence
from typing import Any, Protocol

from kamisado.engine._pure import search as _search
from kamisado.engine._pure import solve as _solve
from kamisado.engine._pure.board import (
    DEFAULT_WEIGHTS,
    EVAL_MAX,
    MATE,
    MAX_DEPTH,
    NODE_LIMIT_MAX,
    NWEIGHTS,
    SEED_MAX,
    SOLVE_MAX_DEPTH,
    TT_LOG2_MAX,
    TT_LOG2_MIN,
    WEIGHT_MAX,
    WIN_BASE,
    WIN_MIN,
    can_win_now,
    full_hash,
    make,
    occupancy,
)
from kamisado.rules import position as _core
from kamisado.rules.board import SQUARE_COLOUR, START_KPN

__all__ = [
    "DEFAULT_WEIGHTS",
    "EVAL_MAX",
    "MATE",
    "MAX_DEPTH",
    "NODE_LIMIT_MAX",
    "NWEIGHTS",
    "SEED_MAX",
    "SOLVE_MAX_DEPTH",
    "TT_LOG2_MAX",
    "TT_LOG2_MIN",
    "WEIGHT_MAX",
    "WIN_BASE",
    "WIN_MIN",
    "Position",
    "Searcher",
    "clear_tt",
    "evaluate",
    "search",
    "solve",
    "square_colours",
]

# ---------------------------------------------------------------------------
# Argument checks: the messages of the compiled core's (see _ckamisado.c)
# ---------------------------------------------------------------------------

#: The most lines of ``search(multipv=)`` (the compiled core's ``MAXMOVES``).
MAXMOVES = 256
_NODE_LIMIT_RANGE = "an integer in 0..2**63-1 (0: no limit)"
_TT_RANGE = (
    f"an integer in {TT_LOG2_MIN}..{TT_LOG2_MAX}"
    " (a table of 2**tt_log2 16-byte entries, 4 GiB at most)"
)


def _found(o: object) -> str:
    """The value found, for a message: its repr, or the size of a huge integer."""
    if isinstance(o, int) and o.bit_length() > 256:
        return f"an integer of {o.bit_length()} bits"
    return repr(o)


def _type_error(name: str, expected: str, o: object) -> TypeError:
    return TypeError(f"{name} must be {expected}, got {type(o).__name__}")


def _int(o: object, name: str, lo: int, hi: int, expected: str) -> int:
    """An int or an object with ``__index__`` (never a bool) in ``lo..hi``."""
    if isinstance(o, bool) or not hasattr(type(o), "__index__"):
        raise _type_error(name, "an integer", o)
    n = operator.index(o)  # type: ignore[arg-type]
    if not lo <= n <= hi:
        raise ValueError(f"{name} must be {expected}, got {_found(n)}")
    return n


def _bool(o: object, name: str) -> bool:
    if not isinstance(o, bool):
        raise _type_error(name, "a bool", o)
    return o


def _time_ms(o: object) -> float:
    expected = "a finite number of milliseconds >= 0 (0: no limit)"
    if isinstance(o, bool) or not (isinstance(o, float) or hasattr(type(o), "__index__")):
        raise _type_error("time_ms", "a number", o)
    try:
        d = float(o)  # type: ignore[arg-type]
    except OverflowError:
        raise ValueError(f"time_ms must be {expected}, got {_found(o)}") from None
    if not math.isfinite(d) or d < 0:
        raise ValueError(f"time_ms must be {expected}, got {_found(o)}")
    return d


def _tt_log2(o: object, allow_zero: bool) -> int:
    expected = f"0 (the table as it is) or {_TT_RANGE}" if allow_zero else _TT_RANGE
    v = _int(o, "tt_log2", 0, TT_LOG2_MAX, expected)
    if v < TT_LOG2_MIN and not (allow_zero and v == 0):
        raise ValueError(f"tt_log2 must be {expected}, got {_found(o)}")
    return v


def _weights(o: object) -> list[int]:
    """None (the defaults) or a tuple or list of NWEIGHTS integers in range."""
    if o is None:
        return list(DEFAULT_WEIGHTS)
    if not isinstance(o, tuple | list):
        raise _type_error("weights", "None, a tuple or a list of integers", o)
    if len(o) != NWEIGHTS:
        raise ValueError(f"weights must hold {NWEIGHTS} integers, got {len(o)}")
    span = f"an integer in -{WEIGHT_MAX}..{WEIGHT_MAX}"
    return [_int(v, f"weights[{i}]", -WEIGHT_MAX, WEIGHT_MAX, span) for i, v in enumerate(o)]


def _position(o: object, function: str) -> Position:
    if not isinstance(o, Position):
        raise TypeError(
            f"{function}() argument 1 must be kamisado.engine._pure.engine.Position,"
            f" not {type(o).__name__}"
        )
    return o


def _in_progress(pos: Position) -> None:
    if pos._p.outcome is not None:
        raise ValueError("the round is over")


# ---------------------------------------------------------------------------
# The position
# ---------------------------------------------------------------------------


class _HasKpn(Protocol):
    def kpn(self) -> str: ...


class Position:
    """A position with its Zobrist key: from KPN text or an object with ``kpn()``.

    Malformed KPN (non-ASCII or NUL characters included) raises ``ValueError``;
    ``push`` of an int that is not a legal move code raises ``ValueError`` and
    changes nothing; ``pop`` with no move pushed raises ``IndexError``.

    >>> p = Position("obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 3 0 0")
    >>> p.push(2 | 34 << 6)
    >>> p.must_move, p.turn, p.check()
    (6, 1, True)
    >>> p.pop(), p.kpn(match=False)
    (2178, 'obupyrgn/8/8/8/8/8/8/NGRYPUBO b -')
    """

    __slots__ = ("_p", "_hash", "_occ", "_undo")

    def __init__(self, kpn: str | _HasKpn = START_KPN) -> None:
        if isinstance(kpn, str):
            text: object = kpn
        else:
            if not hasattr(kpn, "kpn"):
                raise _type_error("kpn", "a KPN string or an object with a kpn() method", kpn)
            text = kpn.kpn()
            if not isinstance(text, str):
                raise _type_error("kpn() of the object given", "a str", text)
        assert isinstance(text, str)
        for i, ch in enumerate(text):
            if ch == "\0" or ord(ch) > 127:
                raise ValueError(f"a KPN is ASCII text without NUL, found {ch!r} at index {i}")
        self._p = _core.Position(text)
        self._hash = full_hash(self._p)
        self._occ = occupancy(self._p.board)
        self._undo: list[tuple[int, int]] = []

    def moves(self) -> list[int]:
        """Legal moves as ``from | to << 6``, in the compiled core's order."""
        return self._p.move_codes()

    def push(self, code: int) -> None:
        """Make a legal move; ``ValueError`` (and no change) if the int is not one."""
        if isinstance(code, bool) or not hasattr(type(code), "__index__"):
            raise _type_error("code", "an integer", code)
        n = operator.index(code)
        if not 0 <= n <= 4095 or n not in self._p.move_codes():
            over = ": the round is over" if self._p.outcome is not None else ""
            raise ValueError(f"illegal move code {_found(code)}{over}")
        self._undo.append((self._hash, self._occ))
        self._hash, self._occ = make(self._p, n, self._hash, self._occ)

    def pop(self) -> int:
        """Take back the last move and return its code; ``IndexError`` if none."""
        if not self._undo:
            raise IndexError("pop from a position with no moves")
        self._hash, self._occ = self._undo.pop()
        return self._p.pop_code()

    def kpn(self, match: bool = True) -> str:
        """The position as KPN; ``match`` (a bool) writes the three match fields."""
        return self._p.kpn(_bool(match, "match"))

    def passes(self) -> tuple[tuple[int, int, int], ...]:
        """``(side, colour, square)`` of each pass applied after the last move."""
        return tuple((x.side, x.colour, x.square) for x in self._p.passes())

    def perft(self, depth: int) -> int:
        """Move sequences of ``depth`` moves, ``depth`` in 0..MAX_DEPTH."""
        d = _int(depth, "depth", 0, MAX_DEPTH, f"an integer in 0..{MAX_DEPTH}")
        return self._p.copy(stack=False).perft(d)

    def copy(self) -> Position:
        """An independent copy, with the moves pushed so far."""
        new = Position.__new__(Position)
        new._p = self._p.copy()
        new._hash = self._hash
        new._occ = self._occ
        new._undo = self._undo[:]
        return new

    def check(self) -> bool:
        """Whether the incremental key and occupancy agree with a recomputation."""
        return self._hash == full_hash(self._p) and self._occ == occupancy(self._p.board)

    def can_win_now(self) -> bool:
        """Whether the side to move can reach the goal row at once."""
        if self._p.outcome is not None:
            return False
        return can_win_now(self._p, self._occ)

    @property
    def outcome(self) -> tuple[int, int, str, int] | None:
        """``None``, or ``(winner, colour, reason, rings)`` as ``core.Outcome``."""
        o = self._p.outcome
        return None if o is None else (o.winner, o.colour, o.reason, o.rings)

    @property
    def turn(self) -> int:
        """The side to move."""
        return self._p.turn

    @property
    def must_move(self) -> int:
        """The colour that must move, or -1."""
        return self._p.must_move

    @property
    def hash(self) -> int:
        """The Zobrist key (the compiled core's)."""
        return self._hash

    @property
    def ply(self) -> int:
        """Moves pushed."""
        return len(self._undo)

    @property
    def target(self) -> int:
        """Points needed to win the match."""
        return self._p.target

    @property
    def points(self) -> tuple[int, int]:
        """``(Black's points, Gold's points)``."""
        return (self._p.points[0], self._p.points[1])

    @property
    def board(self) -> tuple[int, ...]:
        """Tower id per square, or -1."""
        return tuple(self._p.board)

    @property
    def rings(self) -> tuple[int, ...]:
        """Rings per tower id."""
        return tuple(self._p.rings)

    def __repr__(self) -> str:
        return f"_pyengine.Position({self._p.kpn()!r})"


# ---------------------------------------------------------------------------
# The module functions
# ---------------------------------------------------------------------------


def square_colours() -> tuple[int, ...]:
    """The colour of every square, rank 1 first.

    >>> square_colours()[:8]
    (0, 1, 2, 3, 4, 5, 6, 7)
    """
    return tuple(SQUARE_COLOUR)


def clear_tt() -> None:
    """Empty the default Searcher's tables (those not in use in another thread)."""
    if _DEFAULT._se_owner is None:
        _DEFAULT._se.clear()
    if _DEFAULT._sv_owner is None:
        _DEFAULT._sv.clear()


def evaluate(pos: Position, weights: tuple[int, ...] | list[int] | None = None) -> int:
    """The static evaluation of a round in progress, for the side to move.

    >>> evaluate(Position()) == evaluate(Position(), DEFAULT_WEIGHTS)
    True
    """
    p = _position(pos, "evaluate")
    w = _weights(weights)
    _in_progress(p)
    return _search.evaluator(p._p, w, 0)(p._occ, p._hash)


class Searcher:
    """A search and a solver with tables of their own (C's ``Searcher``).

    Searches of different Searchers may run in threads of one process; in
    pure Python they share the GIL, so they take turns.  :meth:`stop` sets a
    flag that the search and the solver look at every 1024 nodes: the
    search answers its last finished depth (the first depth always
    finishes), the solver answers "stopped".  The flag stays set, so every
    later search or solve of this Searcher stops at once, until
    :meth:`resume`.

    >>> s = Searcher()
    >>> s.search(Position(), depth=3)["depth"]
    3
    >>> s.stop()
    >>> s.stopped, s.search(Position(), depth=9)["depth"], s.solve(Position())["stopped"]
    (True, 1, True)
    >>> s.resume()
    >>> s.stopped
    False
    """

    def __init__(self) -> None:
        self._se = _search.Table()
        self._sv = _solve.Table()
        self._stop = False
        self._se_owner: int | None = None
        self._sv_owner: int | None = None

    @property
    def stopped(self) -> bool:
        """Whether :meth:`stop` was called (and not :meth:`resume` since)."""
        return self._stop

    @property
    def generation(self) -> int:
        """The generation of the search table: a new one per search that does not keep it."""
        return self._se.generation

    @property
    def allocations(self) -> int:
        """The tables made so far (a search's first, a new size, the solver's two), as in C."""
        return self._se.allocations + self._sv.allocations

    def stop(self) -> None:
        """End the running search or solve as at a limit (from any thread)."""
        self._stop = True

    def resume(self) -> None:
        """Clear the stop flag."""
        self._stop = False

    def clear_tt(self) -> None:
        """Empty this Searcher's tables; ``RuntimeError`` while it runs."""
        if self._se_owner is not None or self._sv_owner is not None:
            raise RuntimeError("clear_tt: the Searcher is running")
        self._se.clear()
        self._sv.clear()

    def search(
        self,
        pos: Position,
        depth: int = 0,
        time_ms: float = 0,
        node_limit: int = 0,
        weights: tuple[int, ...] | list[int] | None = None,
        seed: int = 0,
        tt_log2: int = 20,
        keep_tt: bool = False,
        on_iteration: _search.OnIteration | None = None,
        multipv: int = 0,
        root_moves: Sequence[int] | None = None,
    ) -> dict[str, Any]:
        """Iterative deepening PVS, as the compiled ``search``: the same keys and values.

        ``multipv`` (0..MAXMOVES, 0: the plain search) and ``root_moves``
        (legal move codes, or None) search the root's moves in one search
        for that many best lines, each with an exact score: the answer's
        ``lines`` (``(score, pv)``, best first) and ``on_iteration``'s
        seventh argument.

        ``depth`` in 0..MAX_DEPTH, ``time_ms`` finite >= 0, ``node_limit`` in
        0..NODE_LIMIT_MAX (0: no limit of that kind, but one is needed);
        ``weights`` None or NWEIGHTS ints in -WEIGHT_MAX..WEIGHT_MAX; ``seed``
        in 0..SEED_MAX; ``tt_log2`` in TT_LOG2_MIN..TT_LOG2_MAX.  Answers
        ``depth``, ``score``, ``pv`` (codes), ``nodes``, ``seconds``,
        ``seldepth`` and ``iterations`` (``(depth, score, nodes, seconds)``).
        ``on_iteration`` (None or a callable) is called after each finished
        iteration with ``(depth, score, nodes, seconds, seldepth, pv)``: a true
        answer ends the search there, an exception ends it and propagates; a
        search started from the callback raises ``RuntimeError``.

        >>> r = Searcher().search(Position(), depth=2)
        >>> r["depth"], len(r["iterations"])
        (2, 2)
        """
        p = _position(pos, "search")
        d = _int(depth, "depth", 0, MAX_DEPTH, f"an integer in 0..{MAX_DEPTH} (0: no limit)")
        ms = _time_ms(time_ms)
        nodes = _int(node_limit, "node_limit", 0, NODE_LIMIT_MAX, _NODE_LIMIT_RANGE)
        w = _weights(weights)
        s = _int(seed, "seed", 0, SEED_MAX, "an integer in 0..2**64-1")
        log2 = _tt_log2(tt_log2, allow_zero=False)
        keep = _bool(keep_tt, "keep_tt")
        if on_iteration is not None and not callable(on_iteration):
            raise _type_error("on_iteration", "a callable or None", on_iteration)
        k = _int(multipv, "multipv", 0, MAXMOVES,
                 f"an integer in 0..{MAXMOVES} (0: a plain search)")
        roots = _root_moves(p, root_moves)
        _in_progress(p)
        if d <= 0 and ms <= 0 and not nodes:
            raise ValueError("give a depth, a time or a node limit")
        me = threading.get_ident()
        if self._se_owner is not None:
            if self._se_owner == me:
                raise RuntimeError(
                    "search: a search is running (called from its on_iteration callback)"
                )
            raise RuntimeError("search: this Searcher is searching in another thread")
        self._se_owner = me
        try:
            return _search.run(
                p._p.copy(stack=False), p._hash, p._occ, d or MAX_DEPTH, ms, nodes, w, s, log2,
                keep, on_iteration, self._se, self, k, roots,
            )
        finally:
            self._se_owner = None



    def solve(
        self,
        pos: Position,
        node_limit: int = 0,
        time_ms: float = 0,
        max_depth: int = 0,
        pv: bool = True,
        tt_log2: int = 0,
        exact: bool = True,
        points: bool = False,
    ) -> dict[str, Any]:
        """Prove who wins the round, as the compiled ``solve``: the same keys and values.

        ``node_limit`` in 0..NODE_LIMIT_MAX, ``time_ms`` finite >= 0,
        ``max_depth`` in 0..SOLVE_MAX_DEPTH (0: no limit of that kind);
        ``tt_log2`` 0 (keep the table) or TT_LOG2_MIN..TT_LOG2_MAX.  Answers
        ``result`` (1 the side to move wins, -1 it loses, 0 stopped by a limit),
        ``distance``, ``best_move``, ``pv``, ``nodes``, ``pv_nodes``,
        ``seconds``, ``depth`` and ``stopped``.  The table of proven bounds is
        kept between calls.  ``points``: also what the round is worth to the
        side to move, ``points`` (1, 2, 4, 8 won, -1 .. -8 lost, 0 unknown)
        and its bounds ``points_lo``, ``points_hi`` (``exact`` and ``pv`` are
        then ignored; ``result`` is who wins when that alone was proven).

        >>> r = Searcher().solve(Position(), node_limit=500)
        >>> r["result"], r["stopped"]
        (0, True)
        """
        p = _position(pos, "solve")
        nodes = _int(node_limit, "node_limit", 0, NODE_LIMIT_MAX, _NODE_LIMIT_RANGE)
        ms = _time_ms(time_ms)
        span = f"an integer in 0..{SOLVE_MAX_DEPTH} (0: no limit)"
        d = _int(max_depth, "max_depth", 0, SOLVE_MAX_DEPTH, span)
        want_pv = _bool(pv, "pv")
        want_exact = _bool(exact, "exact")
        want_points = _bool(points, "points")
        log2 = _tt_log2(tt_log2, allow_zero=True)
        _in_progress(p)
        if self._sv_owner is not None:
            raise RuntimeError("solve: this Searcher is solving in another thread")
        self._sv_owner = threading.get_ident()
        try:
            return _solve.run(
                p._p.copy(stack=False), p._hash, p._occ, nodes, ms, d, want_pv, log2, self._sv,
                self, want_exact, want_points,
            )
        finally:
            self._sv_owner = None


#: The Searcher of the module functions.
_DEFAULT = Searcher()


def _root_moves(p: Position, root_moves: object) -> list[int]:
    """The codes of ``root_moves`` (None: all), checked as the compiled core does."""
    if root_moves is None:
        return []
    if isinstance(root_moves, str | bytes) or not isinstance(root_moves, Sequence):
        raise TypeError("root_moves must be a list of move codes or None")
    legal = p._p.move_codes() if p._p.outcome is None else []
    out: list[int] = []
    for item in root_moves:
        code = _int(item, "root_moves[i]", 0, 4095, "a legal move code")
        if code not in legal:
            raise ValueError(f"root_moves: illegal move code {code}")
        if code not in out:
            out.append(code)
    if not out:
        raise ValueError("root_moves: expected at least one move")
    return out


def _module_searcher(solver: bool) -> Searcher:
    """The default Searcher, or a fresh one while it runs in another thread."""
    owner = _DEFAULT._sv_owner if solver else _DEFAULT._se_owner
    if owner is None or owner == threading.get_ident():
        return _DEFAULT
    return Searcher()


def search(
    pos: Position,
    depth: int = 0,
    time_ms: float = 0,
    node_limit: int = 0,
    weights: tuple[int, ...] | list[int] | None = None,
    seed: int = 0,
    tt_log2: int = 20,
    keep_tt: bool = False,
    on_iteration: _search.OnIteration | None = None,
    multipv: int = 0,
    root_moves: Sequence[int] | None = None,
) -> dict[str, Any]:
    """:meth:`Searcher.search` with the default Searcher (the compiled ``search``).

    >>> r = search(Position(), depth=2)
    >>> r["depth"], len(r["iterations"])
    (2, 2)
    """
    return _module_searcher(False).search(
        pos, depth, time_ms, node_limit, weights, seed, tt_log2, keep_tt, on_iteration,
        multipv, root_moves,
    )


def solve(
    pos: Position,
    node_limit: int = 0,
    time_ms: float = 0,
    max_depth: int = 0,
    pv: bool = True,
    tt_log2: int = 0,
    exact: bool = True,
    points: bool = False,
) -> dict[str, Any]:
    """:meth:`Searcher.solve` with the default Searcher (the compiled ``solve``).

    >>> r = solve(Position(), node_limit=500)
    >>> r["result"], r["stopped"]
    (0, True)
    """
    return _module_searcher(True).solve(
        pos, node_limit, time_ms, max_depth, pv, tt_log2, exact, points
    )
