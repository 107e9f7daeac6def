"""What an engine and its client say to each other, as Python values.

The errors a client raises, an ``info`` line (:class:`Info`,
:func:`parse_info`), a declared option (:class:`Option`), both clocks for a
``go`` (:class:`Clock`, :func:`go_command`) and the answer to one
(:class:`PlayResult`).  No process and no event loop here: these are read
and written by :mod:`kamisado.protocol.client.engine`.

>>> go_command(Limit(depth=6), Clock(1000, 900))
'go btime 1000 gtime 900 binc 0 ginc 0 depth 6'
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from kamisado.engine.limits import SCORE_KINDS, Limit, Score
from kamisado.protocol.kei_go import quote
from kamisado.rules.board import Move

__all__ = [
    "DEFAULT_TIMEOUT",
    "LOGGER",
    "TIME_GRACE",
    "Clock",
    "EngineError",
    "EngineTerminatedError",
    "EngineTimeoutError",
    "Info",
    "Option",
    "PlayResult",
    "go_command",
    "parse_info",
    "parse_option",
]

#: The client's logger (one name for all of :mod:`kamisado.protocol.client`).
LOGGER = logging.getLogger("kamisado.protocol.client")

#: Seconds to wait for an answer that has no time limit of its own.
DEFAULT_TIMEOUT = 60.0
#: Seconds allowed on top of ``Limit.time`` before an engine counts as hanging.
TIME_GRACE = 5.0


class EngineError(RuntimeError):
    """The engine broke the protocol (an illegal move, a malformed answer)."""


class EngineTerminatedError(EngineError):
    """The engine process exited (or was never able to start)."""


class EngineTimeoutError(EngineError, TimeoutError):
    """The engine did not answer in time; it has been killed."""


@dataclass
class Info:
    """One ``info`` line, parsed (absent fields are ``None``).

    :meth:`as_dict` gives it as python-chess's ``InfoDict`` (only the
    fields the line had; ``time`` in seconds; ``lowerbound``/``upperbound``
    ``True`` when the score is a bound).
    """

    depth: int | None = None
    seldepth: int | None = None
    multipv: int | None = None
    """The line's rank in a ``MultiPV`` search (1 the best)."""
    score: Score | None = None
    bound: str | None = None
    """``"lower"`` or ``"upper"`` when the score is only a bound, else ``None``."""
    nodes: int | None = None
    nps: int | None = None
    hashfull: int | None = None
    """How full the engine's hash table is, in per mille."""
    time: int | None = None
    """Milliseconds since ``go``."""
    currmove: Move | None = None
    currmovenumber: int | None = None
    pv: list[Move] = field(default_factory=list)
    string: str | None = None
    """The text of an ``info string`` line."""

    @property
    def lowerbound(self) -> bool:
        """Whether the true score is at least :attr:`score`."""
        return self.bound == "lower"

    @property
    def upperbound(self) -> bool:
        """Whether the true score is at most :attr:`score`."""
        return self.bound == "upper"

    def as_dict(self) -> dict[str, Any]:
        """The fields given, as python-chess's ``InfoDict`` (``time`` in seconds).

        >>> parse_info("info depth 3 multipv 2 score cp 5 lowerbound time 250 pv c1-c5").as_dict()
        {'depth': 3, 'multipv': 2, 'score': Score(kind='cp', value=5), 'lowerbound': True, \
'time': 0.25, 'pv': [Move.from_str('c1-c5')]}
        """
        out: dict[str, Any] = {}
        for key in ("depth", "seldepth", "multipv", "score"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        if self.bound is not None:
            out[f"{self.bound}bound"] = True
        for key in ("nodes", "nps", "hashfull"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        if self.time is not None:
            out["time"] = self.time / 1000
        for key in ("currmove", "currmovenumber", "string"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        if self.pv:
            out["pv"] = list(self.pv)
        return out


def parse_info(line: str) -> Info:
    """Parse an ``info`` line; malformed fields are skipped (and logged).

    >>> i = parse_info("info depth 4 score win 3 nodes 120 pv c1-c5 b8-b3")
    >>> i.depth, i.score, i.nodes, [str(m) for m in i.pv]
    (4, Score(kind='win', value=3), 120, ['c1-c5', 'b8-b3'])
    >>> parse_info("info string hello there").string
    'hello there'
    >>> i = parse_info("info depth 2 multipv 3 score cp -4 upperbound hashfull 12 pv c1-c5")
    >>> i.multipv, i.bound, i.upperbound, i.hashfull
    (3, 'upper', True, 12)
    """
    words = line.split()
    info = Info()
    i = 1
    while i < len(words):
        key = words[i]
        try:
            if key == "string":
                info.string = line.split(None, 2)[2] if len(words) > 2 else ""
                break
            if key in ("depth", "seldepth", "multipv", "nodes", "nps", "hashfull", "time",
                       "currmovenumber"):
                setattr(info, key, int(words[i + 1]))
                i += 2
            elif key in ("lowerbound", "upperbound"):
                info.bound = key[: -len("bound")]
                i += 1
            elif key == "currmove":
                info.currmove = Move.from_str(words[i + 1])
                i += 2
            elif key == "score":
                kind, value = words[i + 1], int(words[i + 2])
                if kind not in SCORE_KINDS:
                    raise ValueError(kind)
                info.score = Score(kind, value)
                i += 3
            elif key == "pv":
                info.pv = [Move.from_str(w) for w in words[i + 1 :]]
                break
            else:
                LOGGER.debug("info: skipping unknown field %r", key)
                i += 1
        except (IndexError, ValueError):
            LOGGER.warning("info: malformed field %s in %s", quote(key), quote(line))
            i += 1
    return info


@dataclass(frozen=True)
class Option:
    """An option the engine declared in its handshake."""

    name: str
    type: str
    default: str | None = None
    min: int | None = None
    max: int | None = None
    vars: tuple[str, ...] = ()

    def check(self, value: object) -> str:
        """The value as text, or ``ValueError`` when it does not fit."""
        text = str(value).lower() if isinstance(value, bool) else str(value)
        if self.type == "spin":
            try:
                number = int(text)
            except ValueError:
                raise ValueError(
                    f"option {self.name}: expected a whole number, found {value!r}"
                ) from None
            if (self.min is not None and number < self.min) or (
                self.max is not None and number > self.max
            ):
                raise ValueError(
                    f"option {self.name}: expected {self.min}..{self.max}, found {number}"
                )
        elif self.type == "combo" and text not in self.vars:
            raise ValueError(
                f"option {self.name}: expected one of {', '.join(self.vars)}, found {value!r}"
            )
        elif self.type == "check" and text not in ("true", "false"):
            raise ValueError(f"option {self.name}: expected true or false, found {value!r}")
        return text


def parse_option(line: str) -> Option | None:
    """An ``option`` line of the handshake, or ``None`` when it is malformed.

    >>> parse_option("option name Hash type spin default 16 min 1 max 1024")
    Option(name='Hash', type='spin', default='16', min=1, max=1024, vars=())
    >>> parse_option("option name Hash") is None
    True
    """
    words = line.split()
    keys = {"name", "type", "default", "min", "max", "var"}
    fields: dict[str, list[str]] = {}
    vars_: list[str] = []
    key: str | None = None
    for w in words[1:]:
        if w in keys and not (key == "name" and w not in ("type",)):
            key = w
            if key == "var":
                vars_.append("")
            else:
                fields.setdefault(key, [])
            continue
        if key == "var":
            vars_[-1] = f"{vars_[-1]} {w}".strip()
        elif key is not None:
            fields[key].append(w)
    if "name" not in fields or "type" not in fields:
        return None
    try:
        return Option(
            name=" ".join(fields["name"]),
            type=" ".join(fields["type"]),
            default=" ".join(fields["default"]) if "default" in fields else None,
            min=int(fields["min"][0]) if fields.get("min") else None,
            max=int(fields["max"][0]) if fields.get("max") else None,
            vars=tuple(vars_),
        )
    except ValueError:
        return None


@dataclass(frozen=True)
class Clock:
    """Both players' clocks for one move, in milliseconds (UCI's way).

    ``go`` then carries ``btime``/``gtime`` (time left on Black's and
    Gold's clocks), ``binc``/``ginc`` (the increment each gets after a
    move) and, with periods of moves, ``movestogo`` (moves the side to
    move still has to make in its period).

    >>> Clock(9500, 10000, 100, 100).go_words()
    ['btime', '9500', 'gtime', '10000', 'binc', '100', 'ginc', '100']
    >>> Clock(60000, 58000, movestogo=12).go_words()[-2:]
    ['movestogo', '12']
    >>> Clock(1500, 2000).time_left(1)
    2.0
    """

    btime: int
    gtime: int
    binc: int = 0
    ginc: int = 0
    movestogo: int | None = None

    def __post_init__(self) -> None:
        for name in ("btime", "gtime", "binc", "ginc"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 0:
                raise ValueError(f"Clock.{name}: expected milliseconds from 0, found {value!r}")
        if self.movestogo is not None and (
            not isinstance(self.movestogo, int) or self.movestogo < 1
        ):
            raise ValueError(f"Clock.movestogo: expected at least 1, found {self.movestogo!r}")

    def time_left(self, side: int) -> float:
        """Seconds on ``side``'s clock (0 Black, 1 Gold)."""
        return (self.gtime if side else self.btime) / 1000

    def go_words(self) -> list[str]:
        """The words of ``go`` that carry the clocks."""
        words = ["btime", str(self.btime), "gtime", str(self.gtime)]
        words += ["binc", str(self.binc), "ginc", str(self.ginc)]
        if self.movestogo is not None:
            words += ["movestogo", str(self.movestogo)]
        return words


def go_command(limit: Limit | None = None, clock: Clock | None = None) -> str:
    """The ``go`` line for a limit and clocks (either may be absent).

    >>> go_command(Limit(depth=6), Clock(1000, 900))
    'go btime 1000 gtime 900 binc 0 ginc 0 depth 6'
    >>> go_command()
    'go'
    """
    words = (limit or Limit()).go_command().split()
    return " ".join(words[:1] + (clock.go_words() if clock else []) + words[1:])


@dataclass
class PlayResult:
    """The engine's move, with the last ``info`` it sent and all of them."""

    move: Move
    info: Info
    infos: list[Info]
