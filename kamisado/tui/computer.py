"""Where the computer player thinks, so that the screen never waits for it.

Every level thinks in a thread of the app's own process, through a
:class:`kamisado.engine.runner.Runner`: the compiled search releases the GIL, so
the app keeps drawing meanwhile, and :meth:`Thinker.stop` (a new match, the
app closing) sets the search's stop flag instead of ending a process.

>>> import asyncio
>>> from kamisado.tui.computer import think_move
>>> from kamisado.engine.levels import Player
>>> from kamisado.rules.position import Position
>>> move, _ = asyncio.run(Thinker().run(think_move, Player("beginner", 1), Position()))
>>> move in Position().legal_moves
True
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

from kamisado.engine.levels import Player
from kamisado.engine.runner import Runner
from kamisado.rules.board import Move
from kamisado.rules.match import Match
from kamisado.rules.position import Position

__all__ = ["THINK_TIMEOUT", "Thinker", "think_fill", "think_move"]

#: Seconds before a computer that gives no answer is given up (and stopped).
THINK_TIMEOUT = 300.0

T = TypeVar("T")


class Thinker:
    """Runs the computer's functions in its thread, one at a time."""

    def __init__(self) -> None:
        self.runner = Runner()
        """The computer's thread and its Searcher."""

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in the computer's thread (a job still running is stopped first).

        Cancelled (the app moved on) or out of time, the job is stopped.
        """
        future = self.runner.start(fn, *args)
        try:
            return await asyncio.wait_for(asyncio.wrap_future(future), THINK_TIMEOUT)
        except (asyncio.CancelledError, TimeoutError):
            self.runner.stop()
            raise

    @property
    def running(self) -> bool:
        """Whether the computer is thinking."""
        return self.runner.running

    def stop(self) -> None:
        """Make the computer answer at once (its searches stop)."""
        self.runner.stop()

    def close(self) -> None:
        """Stop the computer and wait for its thread (a moment)."""
        self.runner.close()


def think_move(player: Player, pos: Position) -> tuple[Move, Player]:
    """The player's move in ``pos`` and the player afterwards (its random state moved on).

    Runs in the computer's thread (:mod:`kamisado.tui.computer`); the player
    comes back with its random state moved on, so its choices stay
    replayable from its seed.

    >>> from kamisado.engine.levels import player
    >>> move, after = think_move(player("beginner", 1), Position())
    >>> move in Position().legal_moves
    True
    """
    return player.choose_move(pos), player


def think_fill(player: Player, match: Match) -> tuple[str, Player]:
    """The player's fill (``'left'`` or ``'right'``) after winning a round of ``match``."""
    return player.choose_fill(match), player
