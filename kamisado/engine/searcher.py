"""A search and a solver with tables of their own: :class:`Searcher`.

>>> Searcher().allocations
0
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from kamisado.engine._backend import impl as _c
from kamisado.engine._calls import PositionLike, _local
from kamisado.engine.results import MoveValue, PointsResult, SearchResult, SolveResult
from kamisado.engine.searching import search
from kamisado.engine.solving import solve, solve_moves, solve_points


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

    >>> from kamisado.rules.position import Position
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
