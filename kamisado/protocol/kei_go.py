"""KEI's ``go`` command: its parser, its limits and clocks, and the time manager.

:func:`parse_go_command` reads the arguments of ``go`` into a :class:`Go`
(limits as a :class:`kamisado.engine.limits.Limit`, the clocks,
``ponder`` and ``searchmoves``); :func:`time_budget` shares a clock over the
moves to come.  The engine side of KEI (:mod:`kamisado.protocol.kei`) turns
a :class:`Go` into a job (:mod:`kamisado.protocol.kei_jobs`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from kamisado.engine.limits import Limit
from kamisado.rules.board import KamisadoError, Move

__all__ = [
    "QUOTE_MAX",
    "INC_SHARE",
    "MAX_DEPTH",
    "WIN_MAX",
    "MOVES_HORIZON",
    "MOVE_OVERHEAD_MS",
    "OVERRUN_DECAY",
    "OVERRUN_MAX_MS",
    "RESERVE_SHARE",
    "SAFETY_MS",
    "Go",
    "Overrun",
    "Limits",
    "clip",
    "parse_go",
    "parse_go_command",
    "quote",
    "time_budget",
]

#: The most characters of a line an error names (a 2 MB line is not echoed back).
QUOTE_MAX = 200


def clip(text: str, most: int = QUOTE_MAX) -> str:
    """``text``, or its first ``most`` characters and how long it was.

    >>> clip("c1-c5")
    'c1-c5'
    >>> clip("x" * 1000, 5)
    'xxxxx... (1000 characters)'
    """
    if len(text) <= most:
        return text
    return f"{text[:most]}... ({len(text)} characters)"


def quote(text: str, most: int = QUOTE_MAX) -> str:
    """``repr`` of :func:`clip`: how an error names what it was given.

    >>> quote("bogus"), quote("y" * 300)[-20:]
    ("'bogus'", "... (300 characters)'")
    """
    return repr(clip(text, most))


#: The deepest iteration the search is asked for.
MAX_DEPTH = 100
#: The longest win ``go win N`` looks for (the solver's horizon, ``SOLVE_MAX_DEPTH``).
WIN_MAX = 4000
#: Milliseconds kept back from ``movetime`` for the answer to travel, at
#: least: the reserve is the engine's measured overrun (:class:`Overrun`).
MOVE_OVERHEAD_MS = 10.0
#: The share of a measured overrun still reserved one timed answer later.
OVERRUN_DECAY = 0.9
#: The largest share of a ``movetime`` the reserve keeps back.
RESERVE_SHARE = 0.75
#: The largest overrun the reserve takes in (a single stall of seconds does
#: not starve every later move).
OVERRUN_MAX_MS = 250.0
#: The largest number in a ``go`` (the search's node limit).
_GO_NUMBER_MAX = 2**63 - 1
#: The time manager shares the clock over this many moves when no ``movestogo`` is given.
MOVES_HORIZON = 20
#: The share of the increment the time manager spends on each move.
INC_SHARE = 0.8
#: Milliseconds a clock-managed move always leaves on the clock.
SAFETY_MS = 50


def Limits(
    movetime: int | None = None,
    depth: int | None = None,
    nodes: int | None = None,
    infinite: bool = False,
    win: int | None = None,
) -> Limit:
    """The :class:`Limit` of ``go`` arguments, ``movetime`` in milliseconds.

    None at all means "play at your level".

    >>> Limits(movetime=200, nodes=5) == Limit(time=0.2, nodes=5)
    True
    """
    time = None if movetime is None else movetime / 1000
    return Limit(time=time, depth=depth, nodes=nodes, infinite=infinite, win=win)


class Overrun:
    """How late the engine's answers come after it planned them: the reserve.

    Each timed answer (``movetime``, a clock) is planned for a time (the
    ``go``'s start plus the time to think); :meth:`observe` takes how many
    milliseconds after it ``bestmove`` was written (a starved thread, the
    answer's trip through the engine's loop, an extra step).  :attr:`ms`
    is a running maximum that decays: each answer keeps
    :data:`OVERRUN_DECAY` of the excess over ``floor`` (at least
    :data:`MOVE_OVERHEAD_MS`), so one late answer raises the reserve at
    once and it comes down again over a few dozen answers on time.  The
    engine thinks ``movetime`` less :meth:`reserve` and shares its clock
    less it.

    >>> o = Overrun()
    >>> o.ms, o.reserve(100)
    (10.0, 10.0)
    >>> o.observe(40.0); o.ms
    40.0
    >>> o.observe(-3.0); round(o.ms, 1)
    37.0
    >>> o.observe(10_000.0); o.ms, o.reserve(100)
    (250.0, 75.0)
    """

    def __init__(self, floor: float = MOVE_OVERHEAD_MS, decay: float = OVERRUN_DECAY,
                 most: float = OVERRUN_MAX_MS) -> None:
        if not (0 <= decay < 1 and 0 <= floor <= most):
            raise ValueError(
                f"Overrun: expected 0 <= decay < 1 and 0 <= floor <= most,"
                f" found decay {decay}, floor {floor}, most {most}"
            )
        self.floor = floor
        self.decay = decay
        self.most = most
        self.ms = floor
        """The reserve in milliseconds: the decayed maximum of the overruns seen."""
        self.seen = 0
        """How many answers were observed."""

    def observe(self, late_ms: float) -> None:
        """Take in one answer, ``late_ms`` after it was planned (negative: early)."""
        self.seen += 1
        decayed = self.floor + (self.ms - self.floor) * self.decay
        self.ms = max(decayed, min(late_ms, self.most))

    def reserve(self, allowed_ms: float) -> float:
        """The milliseconds kept back from ``allowed_ms``: :attr:`ms`, at
        most :data:`RESERVE_SHARE` of it (the search keeps the rest)."""
        return min(self.ms, allowed_ms * RESERVE_SHARE)


def time_budget(time_left: int, inc: int = 0, movestogo: int | None = None,
                overhead: float = MOVE_OVERHEAD_MS) -> int:
    """Milliseconds to think on a move with ``time_left`` ms on the clock.

    The time manager of ``go btime MS gtime MS binc MS ginc MS [movestogo N]``:
    the remaining time shared over ``movestogo`` moves (else over
    :data:`MOVES_HORIZON`), plus :data:`INC_SHARE` of the increment, never
    more than the time left less :data:`SAFETY_MS` and the answer's
    ``overhead`` (the engine's measured :class:`Overrun`, at least
    :data:`MOVE_OVERHEAD_MS`); at least 1 ms.

    >>> time_budget(60000), time_budget(60000, 1000), time_budget(60000, movestogo=10)
    (3000, 3800, 6000)
    >>> time_budget(60000, movestogo=1), time_budget(100, 5000), time_budget(0)
    (59940, 40, 1)
    >>> time_budget(100, 5000, overhead=30)
    20
    """
    left = max(time_left, 0)
    share = left / (movestogo or MOVES_HORIZON) + INC_SHARE * max(inc, 0)
    cap = left - SAFETY_MS - overhead
    return max(1, int(min(share, cap)))


_CLOCKS = ("btime", "gtime", "binc", "ginc", "movestogo")
_KEYWORDS = ("movetime", "depth", "nodes", "win", "infinite", "ponder", "searchmoves", *_CLOCKS)


@dataclass(frozen=True)
class Go:
    """A parsed ``go`` command: its :class:`Limit`, clocks, ``ponder`` and ``searchmoves``.

    Clock times and increments are milliseconds (``b`` Black, ``g`` Gold).

    >>> g = parse_go_command("btime 60000 gtime 1000 ginc 500".split())
    >>> g.clocks, g.budget(0), g.budget(1), g.limit.any
    (True, 3000, 450, False)
    """

    limit: Limit = field(default_factory=Limit)
    btime: int | None = None
    gtime: int | None = None
    binc: int | None = None
    ginc: int | None = None
    movestogo: int | None = None
    ponder: bool = False
    searchmoves: tuple[str, ...] = ()

    @property
    def clocks(self) -> bool:
        """Whether any clock field was given."""
        return any(getattr(self, k) is not None for k in _CLOCKS)

    @property
    def bare(self) -> bool:
        """A ``go`` with nothing at all after it."""
        return self == Go()

    def time_left(self, turn: int) -> int | None:
        """The clock of side ``turn`` (0 Black, 1 Gold), or None when not given."""
        return self.btime if turn == 0 else self.gtime

    def budget(self, turn: int, overhead: float = MOVE_OVERHEAD_MS) -> int | None:
        """:func:`time_budget` for side ``turn`` (``overhead``: the reserve); None without clocks.

        Raises ``ValueError`` when clocks were given but not the mover's.
        """
        if not self.clocks:
            return None
        left = self.time_left(turn)
        if left is None:
            side, word = ("Black", "btime") if turn == 0 else ("Gold", "gtime")
            raise ValueError(f"go: {side} is to move but no {word} was given")
        inc = (self.binc if turn == 0 else self.ginc) or 0
        return time_budget(left, inc, self.movestogo, overhead)

    def hard_limit(self, turn: int) -> int | None:
        """The most milliseconds the mover may take: its time left less :data:`SAFETY_MS`."""
        left = self.time_left(turn)
        return None if left is None else max(left - SAFETY_MS, 1)


def _whole(word: str, text: str, low: int, most: int) -> int:
    # ASCII digits only: str.isdigit() also takes '²' and '١'
    if not (text.isascii() and text.isdigit()) or int(text) < low:
        raise ValueError(f"go {word}: expected a whole number from {low}, found {quote(text)}")
    digits = text.lstrip("0") or "0"
    if len(digits) > len(str(most)) or int(digits) > most:
        raise ValueError(f"go {word}: at most {most}, found {clip(digits)}")
    return int(digits)


def parse_go_command(words: Sequence[str]) -> Go:
    """Read the arguments of ``go``: limits, clocks, ``ponder``, ``searchmoves``.

    >>> parse_go_command("btime 500 gtime 400 movestogo 3".split()).movestogo
    3
    >>> parse_go_command("searchmoves c1-c5 d1-d4 depth 3".split()).searchmoves
    ('c1-c5', 'd1-d4')
    >>> parse_go_command(["btime", "-5"])
    Traceback (most recent call last):
    ...
    ValueError: go btime: expected a whole number from 0, found '-5'
    >>> parse_go_command("depth 2 depth 3".split())
    Traceback (most recent call last):
    ...
    ValueError: go: depth is given twice (each limit at most once)
    """
    given: dict[str, Any] = {}
    clocks: dict[str, Any] = {}
    i = 0
    seen: set[str] = set()
    while i < len(words):
        word = words[i]
        if word in seen:
            raise ValueError(f"go: {word} is given twice (each limit at most once)")
        seen.add(word)
        if word in ("infinite", "ponder"):
            (given if word == "infinite" else clocks)[word] = True
            i += 1
            continue
        if word == "searchmoves":
            j = i + 1
            while j < len(words) and words[j] not in _KEYWORDS:
                try:
                    Move.from_str(words[j])
                except (KamisadoError, ValueError):
                    raise ValueError(
                        f"go searchmoves: expected a move like c1-c5, found {quote(words[j])}"
                    ) from None
                j += 1
            if j == i + 1:
                raise ValueError("go searchmoves: expected moves after it, found nothing")
            clocks["searchmoves"] = tuple(words[i + 1 : j])
            i = j
            continue
        if word not in _KEYWORDS:
            raise ValueError(
                f"go: unknown limit {quote(word)} (expected {', '.join(_KEYWORDS)})"
            )
        if i + 1 >= len(words):
            raise ValueError(f"go {word}: expected a number after it, found nothing")
        text = words[i + 1]
        if word in ("btime", "gtime", "binc", "ginc"):
            clocks[word] = _whole(word, text, 0, _GO_NUMBER_MAX)
        elif word == "movestogo":
            clocks[word] = _whole(word, text, 1, _GO_NUMBER_MAX)
        else:
            most = {"depth": MAX_DEPTH, "win": WIN_MAX}.get(word, _GO_NUMBER_MAX)
            given[word] = _whole(word, text, 1, most)
        i += 2
    return Go(Limits(**given), **clocks)


def parse_go(words: Sequence[str]) -> Limit:
    """Read the limits of ``go`` (see :func:`parse_go_command` for all of it).

    >>> parse_go(["movetime", "200", "depth", "6"])
    Limit(time=0.2, depth=6, nodes=None, infinite=False, win=None)
    >>> parse_go(["depth", "x"])
    Traceback (most recent call last):
    ...
    ValueError: go depth: expected a whole number from 1, found 'x'
    >>> parse_go(["nodes", "9" * 20])
    Traceback (most recent call last):
    ...
    ValueError: go nodes: at most 9223372036854775807, found 99999999999999999999
    """
    return parse_go_command(words).limit
