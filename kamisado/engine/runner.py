"""Run the engine in a thread of its own, and stop it with a flag.

A :class:`Runner` runs one job at a time (a search, a level's move, any
function that calls :mod:`kamisado.engine`) in a thread, with its own
:class:`~kamisado.engine.Searcher` active there: the compiled search runs
without the GIL, so the caller's thread goes on (reads commands, draws the
screen), and :meth:`Runner.stop` sets the Searcher's stop flag, which ends
every search and solve of the job at once (a search answers its last
finished depth, a solve "unknown"), so the job returns soon with the best
it has.  Nothing is killed and no process is started: the KEI engine
(:mod:`kamisado.protocol.kei`) and the terminal game (:mod:`kamisado.tui`) run
the computer this way.  A process pool stays only where it buys
parallelism (the web app's, which serves many games at once).

>>> from kamisado.rules.position import Position
>>> from kamisado.engine import search
>>> runner = Runner()
>>> future = runner.start(search, Position(), depth=4)
>>> runner.result().depth
4
>>> future.done()
True

A long search, stopped: it answers its last finished depth at once.

>>> _ = runner.start(search, Position(), time_ms=60_000)
>>> runner.stop()
>>> r = runner.result(timeout=10)
>>> r.depth >= 1 and r.best_move in Position().legal_moves
True
>>> runner.running
False
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, ParamSpec, TypeVar

from kamisado.engine import Searcher

__all__ = ["Runner"]

P = ParamSpec("P")
T = TypeVar("T")


class Runner:
    """Runs one job at a time in a thread, with a Searcher that :meth:`stop` stops.

    :meth:`start` hands back a :class:`concurrent.futures.Future` of the
    job's answer (``asyncio.wrap_future`` awaits it); :meth:`result` waits
    for the last job's answer and raises its exception.

    >>> runner = Runner()
    >>> runner.start(sum, [1, 2, 3]).result()
    6
    >>> _ = runner.start(int, "x")
    >>> runner.result()
    Traceback (most recent call last):
    ...
    ValueError: invalid literal for int() with base 10: 'x'
    """

    def __init__(self, searcher: Searcher | None = None) -> None:
        self.searcher = searcher if searcher is not None else Searcher()
        """The Searcher active in the job's thread."""
        self._thread: threading.Thread | None = None
        self._future: Future[Any] | None = None

    @property
    def running(self) -> bool:
        """Whether a job is running."""
        return self._thread is not None and self._thread.is_alive()

    def start(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        """Run ``fn(*args, **kwargs)`` in a new thread with :attr:`searcher` active.

        A job still running is stopped and waited for first; the stop flag
        is then cleared for the new job.
        """
        if self.running:
            self.stop()
            self.wait()
        self.searcher.resume()
        future: Future[T] = Future()
        future.set_running_or_notify_cancel()
        searcher = self.searcher

        def body() -> None:
            try:
                with searcher.active():
                    value = fn(*args, **kwargs)
            except BaseException as e:  # noqa: BLE001 - handed to the caller
                future.set_exception(e)
            else:
                future.set_result(value)

        self._future = future
        self._thread = threading.Thread(target=body, name="kamisado-runner", daemon=True)
        self._thread.start()
        return future

    def stop(self) -> None:
        """Stop the job's searches (from any thread; it returns soon); nothing when idle."""
        self.searcher.stop()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the job to end (at most ``timeout`` seconds); whether it has."""
        if self._thread is not None:
            self._thread.join(timeout)
        return not self.running

    def result(self, timeout: float | None = None) -> Any:
        """The last job's answer, once it ends; its exception if it raised.

        ``TimeoutError`` after ``timeout`` seconds, ``RuntimeError`` when no
        job was started.
        """
        if self._future is None:
            raise RuntimeError("the runner has run nothing")
        return self._future.result(timeout)

    def close(self, timeout: float | None = 5.0) -> None:
        """Stop the job and wait for it (at most ``timeout`` seconds)."""
        self.stop()
        self.wait(timeout)
