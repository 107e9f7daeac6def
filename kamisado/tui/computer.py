"""Where the computer player thinks, so that the screen never waits for it.

The quick levels (``beginner`` to ``club``, at most a few tens of
milliseconds a move) think in a thread; the others in a process of their own
(the engine's search holds the GIL), started once and stopped with the app.

>>> import asyncio
>>> from kamisado.tui import think_move
>>> from kamisado.players import Player
>>> from kamisado.core import Position
>>> move, _ = asyncio.run(Thinker().run("beginner", think_move, Player("beginner", 1), Position()))
>>> move in Position().legal_moves
True
"""

from __future__ import annotations

import asyncio
import multiprocessing
import sys
from collections.abc import Callable
from multiprocessing.pool import Pool
from typing import Any, TypeVar

__all__ = ["THINK_TIMEOUT", "THREAD_LEVELS", "Thinker"]

#: Levels quick enough to think in a thread of the app's own process.
THREAD_LEVELS = frozenset({"beginner", "novice", "casual", "club"})
#: Seconds before a computer that gives no answer (a crashed process) is given up.
THINK_TIMEOUT = 300.0

T = TypeVar("T")


class Thinker:
    """Runs the computer's functions: in a thread, or in its one process."""

    def __init__(self) -> None:
        self.pool: Pool | None = None
        """The computer's process (``None`` until a slow level first needs it)."""

    async def run(self, level: str, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in a thread (quick levels) or in the computer's process."""
        if level in THREAD_LEVELS:
            return await asyncio.to_thread(fn, *args)
        pool = self.start()
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()

        def done(value: T) -> None:
            loop.call_soon_threadsafe(_settle, future, value, None)

        def failed(error: BaseException) -> None:
            loop.call_soon_threadsafe(_settle, future, None, error)

        pool.apply_async(fn, args, callback=done, error_callback=failed)
        return await asyncio.wait_for(future, THINK_TIMEOUT)

    def start(self) -> Pool:
        """The computer's process (started once, on the first need)."""
        if self.pool is None:
            # Textual replaces the standard streams with objects that have no
            # file descriptor, which starting a process cannot pass on
            streams = sys.stdout, sys.stderr
            sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
            try:
                self.pool = multiprocessing.get_context("spawn").Pool(1)
            finally:
                sys.stdout, sys.stderr = streams
        return self.pool

    def close(self) -> None:
        """Stop the computer's process at once (whatever it is thinking about)."""
        if self.pool is not None:
            self.pool.terminate()
            self.pool.join()
            self.pool = None


def _settle(
    future: asyncio.Future[Any], value: object, error: BaseException | None
) -> None:
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(value)
