"""What every call of the engine's front shares: its limits (the core's
constants), the checks of its arguments (``TypeError`` for a wrong type,
``ValueError`` out of range) and the core that runs it (the module's, or the
:class:`~kamisado.engine.Searcher` active in this thread).

>>> _integer("depth", 3, 1, MAX_DEPTH)
3
>>> _limit("nodes", 0, NODE_LIMIT_MAX)
Traceback (most recent call last):
...
ValueError: nodes must be an integer in 1..2**63-1 (None: no limit), got 0
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Protocol

from kamisado.engine._backend import impl as _c
from kamisado.engine.limits import Limit
from kamisado.rules.board import Move
from kamisado.rules.position import Position

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


class _Active(Protocol):
    """A Searcher made active (:meth:`kamisado.engine.Searcher.active`): its core."""

    _core: _Core


#: The Searcher made active in this thread by :meth:`Searcher.active`.
_local = threading.local()


def _core() -> _Core:
    """The core of the module functions in this thread: the active Searcher's, or the default."""
    searcher: _Active | None = getattr(_local, "searcher", None)
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
