"""Game clocks, derived rather than ticked (docs/web.md, "Clocks").

A clock is stored as each side's time left *as of the last action* and the
time that action was committed; the running side's time now is
``left - (now - since)``.  Nothing ticks in memory, so a server restart
neither loses time nor gives any away, and any process can tell whether a
side has run out (its *deadline*) from the stored state alone.

Two kinds of control:

* real time, ``initial`` seconds each plus ``increment`` seconds added
  after every move (Fischer): ``TimeControl(180, 2)`` is 3+2;
* correspondence, ``days`` a move: each move's clock starts again at the
  full allowance (nothing is banked).

All times are in milliseconds, ``now`` is passed in (an injected time
source: tests drive it by hand); the server's is :func:`now_ms`, which
the web modules call through this module (``clocks.now_ms()``), so a test
that replaces it here moves every clock of the server at once.

>>> tc = TimeControl(initial=60, increment=2)
>>> c = ClockState.start(tc)
>>> c = c.begin("b", now=1_000)          # Black's clock starts
>>> c.left("b", now=11_000)              # 10 s later
50000
>>> c = c.switch("g", now=11_000)        # Black moved: +2 s, Gold's turn
>>> c.left("b", now=99_000), c.left("g", now=12_000)
(52000, 59000)
>>> c.deadline(), c.flagged(now=71_000), c.flagged(now=71_001)
(71000, None, 'g')
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any

__all__ = ["DAY_MS", "PRESETS", "QUICK_SPEEDS", "ClockState", "TimeControl", "now_ms", "parse_control"]

DAY_MS = 86_400_000
#: Real-time controls offered in the page, as (initial minutes, increment seconds).
PRESETS: tuple[tuple[int, int], ...] = ((1, 0), (3, 2), (5, 3), (10, 5), (15, 10))
#: The speeds of the lobby's quick pairing (:mod:`kamisado.web.community.seeks`), as the
#: ``seek`` frame names them: the real-time presets, then 1 and 3 days a move.
QUICK_SPEEDS: tuple[str, ...] = (*(f"{m}+{s}" for m, s in PRESETS), "1d", "3d")
SIDES = ("b", "g")
#: The shortest initial time of a real-time control, in seconds.
INITIAL_MIN_S = 15.0


def now_ms() -> int:
    """Milliseconds since the epoch: the server's time source for the clocks
    (and for presence and leases)."""
    return int(time.time() * 1000)


@dataclass(frozen=True)
class TimeControl:
    """A time control: ``initial`` + ``increment`` seconds (real time), or
    ``days`` a move (correspondence; ``initial`` and ``increment`` unused).

    >>> TimeControl(300, 3).name
    '5+3'
    >>> TimeControl(days=2).name
    '2 days'
    """

    initial: float = 0.0
    increment: float = 0.0
    days: int = 0

    def __post_init__(self) -> None:
        if self.days:
            if self.days not in (1, 2, 3, 7):
                raise ValueError(f"clock: expected 1, 2, 3 or 7 days a move, found {self.days}")
            return
        if not INITIAL_MIN_S <= self.initial <= 3 * 3600:
            raise ValueError(
                f"clock: expected an initial time of {INITIAL_MIN_S:g} s to 3 h,"
                f" found {self.initial:g} s"
            )
        if not 0 <= self.increment <= 180:
            raise ValueError(f"clock: expected an increment of 0 to 180 s, found {self.increment:g} s")

    @property
    def correspondence(self) -> bool:
        """Whether the control is days a move."""
        return self.days > 0

    @property
    def initial_ms(self) -> int:
        """Each side's time at the start."""
        return self.days * DAY_MS if self.days else round(self.initial * 1000)

    @property
    def increment_ms(self) -> int:
        """Time added after each move (real time only)."""
        return 0 if self.days else round(self.increment * 1000)

    @property
    def name(self) -> str:
        """``3+2`` (minutes + seconds) or ``2 days``."""
        if self.days:
            return f"{self.days} day" + ("s" if self.days > 1 else "")
        minutes = self.initial / 60
        return f"{minutes:g}+{self.increment:g}"

    def to_json(self) -> dict[str, Any]:
        """The wire form: ``{"initial": S, "increment": S}`` or ``{"days": N}``."""
        return {"days": self.days} if self.days else {"initial": self.initial, "increment": self.increment}


def parse_control(obj: object) -> TimeControl | None:
    """The ``clock`` field of a create request (``None``: no clock).

    >>> parse_control({"initial": 180, "increment": 2})
    TimeControl(initial=180.0, increment=2.0, days=0)
    >>> parse_control({"days": 3}).name
    '3 days'
    >>> parse_control({"initial": "fast"})
    Traceback (most recent call last):
    ...
    ValueError: clock: expected initial and increment in seconds, found {'initial': 'fast'}
    """
    if obj is None:
        return None
    if not isinstance(obj, dict):
        raise ValueError(f"clock: expected an object, found {type(obj).__name__}")
    if set(obj) == {"days"}:
        days = obj["days"]
        if not isinstance(days, int) or isinstance(days, bool):
            raise ValueError(f"clock: expected a whole number of days, found {days!r}")
        return TimeControl(days=days)
    if set(obj) <= {"initial", "increment"} and "initial" in obj:
        values = [obj.get(k, 0) for k in ("initial", "increment")]
        if all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
            return TimeControl(float(values[0]), float(values[1]))
    raise ValueError(f"clock: expected initial and increment in seconds, found {obj!r}")


@dataclass(frozen=True)
class ClockState:
    """Both sides' time left as of ``since`` (ms), and whose clock runs
    (``None``: stopped, before the first move and after the end)."""

    control: TimeControl
    b: int
    g: int
    running: str | None = None
    since: int = 0

    @classmethod
    def start(cls, control: TimeControl) -> ClockState:
        """Both clocks full and stopped."""
        return cls(control, control.initial_ms, control.initial_ms)

    def _set(self, side: str, left: int, running: str | None, since: int) -> ClockState:
        if side == "b":
            return replace(self, b=left, running=running, since=since)
        return replace(self, g=left, running=running, since=since)

    def left(self, side: str, now: int) -> int:
        """``side``'s time left at ``now`` (never below zero)."""
        stored = self.b if side == "b" else self.g
        if side != self.running:
            return stored
        return max(0, stored - max(0, now - self.since))

    def begin(self, side: str, now: int) -> ClockState:
        """Start ``side``'s clock (the first move awaited)."""
        if side not in SIDES:
            raise ValueError(f"clock: expected side 'b' or 'g', found {side!r}")
        if self.control.correspondence:  # a fresh allowance for every move
            return self._set(side, self.control.initial_ms, running=side, since=now)
        return replace(self, running=side, since=now)

    def switch(self, to: str | None, now: int) -> ClockState:
        """The running side acted at ``now``: its time is charged (plus the
        increment), then ``to``'s clock starts (``None``: the game waits for
        nobody, e.g. it ended)."""
        out = self
        side = self.running
        if side is not None:
            left = self.left(side, now) + self.control.increment_ms
            out = self._set(side, left, running=None, since=now)
        return out.begin(to, now) if to is not None else out

    def stop(self, now: int) -> ClockState:
        """Stop the clocks (the game is over), charging the running side."""
        side = self.running
        if side is None:
            return self
        return self._set(side, self.left(side, now), running=None, since=now)

    def deadline(self) -> int | None:
        """When the running side's flag falls (ms), or ``None``."""
        if self.running is None:
            return None
        return self.since + (self.b if self.running == "b" else self.g)

    def flagged(self, now: int) -> str | None:
        """The side whose time has run out at ``now`` (strictly after its deadline)."""
        d = self.deadline()
        return self.running if d is not None and now > d else None

    def view(self, now: int) -> dict[str, Any]:
        """The ``clock`` field of a state frame: each side's ms left at
        ``now`` and whose clock runs."""
        return {"b": self.left("b", now), "g": self.left("g", now), "running": self.running,
                "control": self.control.to_json()}
