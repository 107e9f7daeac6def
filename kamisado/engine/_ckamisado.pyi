"""Type stubs of the compiled core (kamisado/engine/_ckamisado.c).

Every entry point checks its arguments: a wrong type raises ``TypeError``
(integers are ``int`` or have ``__index__``, never ``bool``; ``time_ms`` is an
int or a float; flags are ``bool``), a value out of range ``ValueError``
saying what was expected and what was found, e.g. ``tt_log2 must be an
integer in 10..28 (...), got 64``.  The ranges are the constants below.

``search(on_iteration=f)`` calls ``f(depth, score, nodes, seconds, seldepth,
pv)`` after each finished iteration (the ones listed in ``iterations``;
``nodes`` and ``seconds`` count from the start, ``pv`` is move codes): a true
answer ends the search there, an exception ends it and propagates, and a
search started from inside ``f`` raises ``RuntimeError``.

``search(multipv=k)`` (1..256; 0, the default: the plain search) or
``search(root_moves=[codes])`` (legal codes; ``ValueError`` otherwise) is one
search whose root gives the k best moves exact scores: the answer gets
``lines``, a list of ``(score, pv)`` best first, and ``lead``, ``None`` or
``(depth, score, pv)`` for a depth cut short whose best searched move beats
the last finished depth's best; ``on_iteration`` gets a seventh argument, the
depth's lines.

A :class:`Searcher` owns a search table and a solver table; its ``search``
and ``solve`` run without the GIL (the compiled core; the pure-Python one
takes turns), so searches of different Searchers run side by side in
threads, and ``stop()`` ends one from another thread within 1024 nodes (a
search answers its last finished depth; the first always finishes).  The
stop flag stays set until ``resume()``.  A Searcher runs one search and one
solve at a time: another from a second thread raises ``RuntimeError``.  The
module functions ``search``, ``solve`` and ``clear_tt`` use a default
Searcher (a fresh one while it runs in another thread).
"""

from collections.abc import Callable
from typing import Any, Protocol

MATE: int
WIN_BASE: int
WIN_MIN: int
EVAL_MAX: int
NWEIGHTS: int
DEFAULT_WEIGHTS: tuple[int, ...]
#: The deepest ``search(depth=)`` and ``Position.perft(depth)``.
MAX_DEPTH: int
#: The deepest ``solve(max_depth=)``.
SOLVE_MAX_DEPTH: int
#: ``tt_log2`` lies in ``TT_LOG2_MIN..TT_LOG2_MAX`` (tables of 16-byte entries).
TT_LOG2_MIN: int
TT_LOG2_MAX: int
#: ``node_limit`` lies in ``0..NODE_LIMIT_MAX`` (0: no limit).
NODE_LIMIT_MAX: int
#: ``seed`` lies in ``0..SEED_MAX``.
SEED_MAX: int
#: Each weight lies in ``-WEIGHT_MAX..WEIGHT_MAX``.
WEIGHT_MAX: int

class _HasKpn(Protocol):
    def kpn(self) -> str: ...

class Position:
    """A compiled position: from KPN text or a core Position (via its KPN).

    Malformed KPN (non-ASCII or NUL characters included) raises ``ValueError``;
    ``push`` of an int that is not a legal move code raises ``ValueError`` and
    changes nothing; ``pop`` with no move pushed raises ``IndexError``.
    """

    def __init__(self, kpn: str | _HasKpn = ...) -> None: ...
    def moves(self) -> list[int]: ...
    def push(self, code: int) -> None: ...
    def pop(self) -> int: ...
    def kpn(self, match: bool = True) -> str: ...
    def passes(self) -> tuple[tuple[int, int, int], ...]: ...
    def perft(self, depth: int) -> int: ...
    def copy(self) -> Position: ...
    def check(self) -> bool: ...
    def can_win_now(self) -> bool: ...
    @property
    def outcome(self) -> tuple[int, int, str, int] | None: ...
    @property
    def turn(self) -> int: ...
    @property
    def must_move(self) -> int: ...
    @property
    def hash(self) -> int: ...
    @property
    def ply(self) -> int: ...
    @property
    def target(self) -> int: ...
    @property
    def points(self) -> tuple[int, int]: ...
    @property
    def board(self) -> tuple[int, ...]: ...
    @property
    def rings(self) -> tuple[int, ...]: ...

class Searcher:
    """A search and a solver with tables of their own (see the module's notes)."""

    def __init__(self) -> None: ...
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
        on_iteration: Callable[..., object] | None = None,
        multipv: int = 0,
        root_moves: list[int] | None = None,
    ) -> dict[str, Any]: ...
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
    ) -> dict[str, Any]: ...
    def stop(self) -> None: ...
    def resume(self) -> None: ...
    def clear_tt(self) -> None: ...
    @property
    def stopped(self) -> bool: ...
    @property
    def generation(self) -> int: ...
    @property
    def allocations(self) -> int: ...

def solve(
    pos: Position,
    node_limit: int = 0,
    time_ms: float = 0,
    max_depth: int = 0,
    pv: bool = True,
    tt_log2: int = 0,
    exact: bool = True,
    points: bool = False,
) -> dict[str, Any]: ...
def search(
    pos: Position,
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
def evaluate(pos: Position, weights: tuple[int, ...] | list[int] | None = None) -> int: ...
def clear_tt() -> None: ...
def square_colours() -> tuple[int, ...]: ...
