"""Keeping the log readable while something keeps failing.

A failure that repeats (the database down: every game held tried again
each second, each a traceback) is logged once per interval with a count
(:class:`Repeats`): the first failure of a streak in full, with its
traceback; later ones counted, and the count written when the interval
ends, in one line with how many different things (games) it was about and
the last reason.  The clock is passed in, so the tests need not wait.

>>> import logging, sys
>>> log = logging.getLogger("noise-doctest")
>>> log.addHandler(logging.StreamHandler(sys.stdout)); log.propagate = False
>>> now = [0.0]
>>> repeats = Repeats(log, interval_s=60.0, clock=lambda: now[0])
>>> for second in range(30):
...     now[0] = float(second)
...     for game in ("g1", "g2"):
...         _ = repeats.failed("could not reload a game", game, OSError("the database is down"))
could not reload a game (g1)
OSError: the database is down
>>> now[0] = 61.0
>>> repeats.flush()
could not reload a game: 59 more times in 60 s (2 different; last: g2: OSError: the database is down)
>>> now[0] = 62.0
>>> repeats.failed("could not reload a game", "g1", OSError("still down"))  # the streak goes on: one line
could not reload a game (g1): OSError: still down (failing since 62 s)
True
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["REPEAT_INTERVAL_S", "Repeats", "reason"]

#: How often a failure that keeps repeating is written to the log (seconds).
REPEAT_INTERVAL_S = 60.0
#: At most this many different subjects are remembered per kind of failure.
MAX_SUBJECTS = 10_000


def reason(exc: BaseException | None) -> str:
    """A failure in one line: its type and message.

    >>> reason(OSError("connection refused\\n  (at host db)"))
    'OSError: connection refused (at host db)'
    """
    if exc is None:
        return "failed"
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


@dataclass
class _Window:
    """One kind of failure's current interval: the failures counted after
    its first, and every subject it was about (the first's too)."""

    opened: float
    streak_since: float
    count: int = 0
    subjects: set[str] = field(default_factory=set)
    last: str = ""


class Repeats:
    """Failures by kind (``what``, a fixed message: "could not reload a
    game"), each kind logged at most once per ``interval_s``: the first
    failure at once (with its traceback when it starts a streak, else one
    line), the others counted and summed up in one line when the interval
    ends (:meth:`flush`, called by the next failure and, on an event loop,
    by a timer when the interval is over)."""

    def __init__(
        self,
        logger: logging.Logger,
        interval_s: float = REPEAT_INTERVAL_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.log = logger
        self.interval_s = interval_s
        self.clock = clock
        self._windows: dict[str, _Window] = {}
        self._levels: dict[str, int] = {}
        #: when each kind's last window closed with failures (the streak goes on)
        self._closed: dict[str, tuple[float, float]] = {}

    def failed(
        self,
        what: str,
        subject: object = None,
        exc: BaseException | None = None,
        *,
        level: int = logging.ERROR,
        traceback: bool = True,
    ) -> bool:
        """Note one failure of kind ``what`` about ``subject`` (a game id,
        or ``None``) with ``exc``; returns whether it was written now.
        ``traceback``: whether the first of a streak carries ``exc``'s
        traceback (a refusal that says all in its message need not)."""
        now = self.clock()
        self._flush(now, what)
        window = self._windows.get(what)
        about = "" if subject is None else str(subject)
        if window is not None:
            window.count += 1
            if about and len(window.subjects) < MAX_SUBJECTS:
                window.subjects.add(about)
            window.last = f"{about}: {reason(exc)}" if about else reason(exc)
            return False
        closed = self._closed.pop(what, None)
        going_on = closed is not None and now - closed[0] < self.interval_s
        since = closed[1] if going_on and closed is not None else now
        self._windows[what] = _Window(now, since, subjects={about} if about else set())
        self._levels[what] = level
        head = f"{what} ({about})" if about else what
        if going_on:
            self.log.log(level, "%s: %s (failing since %.0f s)", head, reason(exc), now - since)
        elif exc is not None and traceback:  # a new streak: the whole story once (its traceback ends with the reason)
            self.log.log(level, "%s", head, exc_info=exc)
        else:
            self.log.log(level, "%s: %s", head, reason(exc))
        self._later()
        return True

    def flush(self) -> None:
        """Write the count of every interval that has ended."""
        now = self.clock()
        for what in list(self._windows):
            self._flush(now, what)

    def _flush(self, now: float, what: str) -> None:
        window = self._windows.get(what)
        if window is None or now - window.opened < self.interval_s:
            return
        del self._windows[what]
        self._closed[what] = (window.opened + self.interval_s, window.streak_since)
        if window.count:
            subjects = f"{len(window.subjects)} different; " if window.subjects else ""
            self.log.log(
                self._levels.get(what, logging.ERROR),
                "%s: %d more time%s in %g s (%slast: %s)",
                what, window.count, "" if window.count == 1 else "s", self.interval_s, subjects, window.last,
            )

    def _later(self) -> None:
        # on an event loop, the count is written when the interval ends even
        # if no failure comes after it
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        loop.call_later(self.interval_s + 0.01, self.flush)
