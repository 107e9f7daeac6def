"""What every ``kamisado`` command shares on its command line.

:class:`Parser` (errors in one line, exit 2), the argparse types
:func:`int_between` and :func:`duration` (every option that takes a time:
a bare number in the option's own unit, or with a unit, ``500ms``, ``2s``,
``1.5m``, ``1h``, ``2d``; :func:`read_duration`), :func:`die` and
:func:`take_kpn`, and the stops noted from a command's first instruction
(:func:`note_early_signals`).  The commands live in their wings (``kamisado analyse`` in
:mod:`kamisado.engine.analysis`, ``kamisado engine`` in
:mod:`kamisado.protocol.kei`, ...); :mod:`kamisado.cli` dispatches to them.
This module imports only the standard library and the rules.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Literal, NoReturn, overload

from kamisado.rules.board import MalformedError

__all__ = [
    "DURATION_UNITS",
    "EARLY_SIGNAL_COMMANDS",
    "SIGPIPE_STATUS",
    "Parser",
    "die",
    "duration",
    "duration_help",
    "int_between",
    "needs_extra",
    "note_early_signals",
    "read_duration",
    "take_early_signals",
    "quiet_pipe",
    "silence_stdout",
    "take_kpn",
]

#: The exit status when standard output is a pipe whose reader has gone
#: (``kamisado analyse --review game.kmr | head``): 128 + SIGPIPE, what a
#: shell reports for any Unix tool that a closed pipe ends.
SIGPIPE_STATUS = 141


def die(message: str) -> int:
    print(f"kamisado: {message}", file=sys.stderr)
    return 2


def needs_extra(what: str, extra: str) -> str:
    """The one line saying that ``what`` needs an optional dependency that
    is not installed, and how to install it.

    >>> needs_extra("--queue", "queue")
    "--queue needs the 'queue' extra: in the kamisado clone, .venv/bin/pip install -e '.[queue]'"
    """
    return f"{what} needs the {extra!r} extra: in the kamisado clone, .venv/bin/pip install -e '.[{extra}]'"


def _stdout_gone() -> bool:
    """Whether standard output is a pipe (or socket) whose reader has gone."""
    try:
        import select

        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(ev & select.POLLERR for _, ev in poller.poll(0))
    except (AttributeError, OSError, ValueError):  # no poll (Windows), no real stdout
        return True


def quiet_pipe(run: Callable[[], int]) -> int:
    """``run()``'s exit status, or :data:`SIGPIPE_STATUS` with nothing on
    standard error when standard output is closed under it (piped into
    ``head``, say), as for any Unix tool.

    Python's recipe (the ``signal`` module's notes on SIGPIPE): the rest of
    the output goes to ``/dev/null``, so the flush at exit cannot fail again.
    A broken pipe that is not standard output's is a real error and is raised.
    """
    try:
        status = run()
        sys.stdout.flush()
    except BrokenPipeError:
        if not _stdout_gone():
            raise
        silence_stdout()
        return SIGPIPE_STATUS
    return status


def silence_stdout() -> None:
    """Send what is left of standard output to ``/dev/null`` (its reader has
    gone), so the flush at exit cannot fail again."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a real file: nothing to flush there
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on standard error, exit 2.

    Every ``kamisado`` command parses with it, so a bad option reads like any
    other error of the command line: ``kamisado analyse: --depth: expected a
    whole number 1..64, found '0'``, with no usage lines.

    >>> p = Parser(prog="kamisado demo")
    >>> _ = p.add_argument("--n", type=int_between(1, 9))
    >>> p.parse_args(["--n", "3"]).n
    3
    """

    def error(self, message: str) -> NoReturn:
        message = message.removeprefix("argument ")
        self.exit(2, f"{self.prog}: {message}\n")


def int_between(lo: int, hi: int) -> Callable[[str], int]:
    """An argparse ``type``: a whole number in ``lo..hi``.

    >>> int_between(1, 64)("12")
    12
    >>> int_between(1, 64)("0")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected a whole number 1..64, found '0'
    """

    def read(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = lo - 1
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(
                f"expected a whole number {lo}..{hi}, found {text!r}"
            )
        return value

    read.__name__ = "whole number"
    return read


#: The units a duration may carry (``500ms``, ``2s``, ``1.5m``, ``1h``, ``2d``),
#: each with its length in milliseconds.  A bare number is in the option's own unit.
DURATION_UNITS: dict[str, int] = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}
_UNIT_WORDS = {"ms": "milliseconds", "s": "seconds", "m": "minutes", "h": "hours", "d": "days"}
_DURATION_RE = re.compile(
    r"\s*(?P<sign>[+-]?)(?P<int>\d*)(?:\.(?P<frac>\d*))?(?:[eE](?P<exp>[+-]?\d+))?"
    r"\s*(?P<unit>ms|s|m|h|d)?\s*"
)


def duration_help(unit: str) -> str:
    """What an option's help says of its durations: the bare number's unit, and
    that a unit may be given.

    >>> duration_help("ms")
    'milliseconds, or with a unit: 500ms, 2s, 1m'
    >>> duration_help("d")
    'days, or with a unit: 12h, 30d'
    """
    examples = "12h, 30d" if unit in ("h", "d") else "500ms, 2s, 1m"
    return f"{_UNIT_WORDS[unit]}, or with a unit: {examples}"


def read_duration(text: str, unit: str) -> float:
    """The duration ``text`` in ``unit`` (one of :data:`DURATION_UNITS`): a bare
    number is already in ``unit``, or the number carries a unit of its own.

    Exact in decimal (``1.1s`` is 1100 ms, not 1100.0000000000002).  Anything
    but a number and a unit raises ``ValueError`` (``nan``, ``inf``, ``5x``);
    the sign is the caller's to check, and the result is always finite.

    >>> read_duration("1.5s", "ms"), read_duration("500ms", "s"), read_duration("2", "s")
    (1500.0, 0.5, 2.0)
    >>> read_duration("1m", "s"), read_duration("12h", "d"), read_duration("1.1s", "ms")
    (60.0, 0.5, 1100.0)
    >>> read_duration("5x", "ms")
    Traceback (most recent call last):
    ...
    ValueError: expected a duration: milliseconds, or with a unit: 500ms, 2s, 1m; found '5x'
    """
    m = _DURATION_RE.fullmatch(text)
    digits = (m["int"] + (m["frac"] or "")) if m else ""
    if m is None or not digits:
        raise ValueError(f"expected a duration: {duration_help(unit)}; found {text!r}")
    # the number as digits * 10**exp, then one division of whole numbers: exact
    # to the float (no fractions import for every command's start)
    exp = int(m["exp"] or 0) - len(m["frac"] or "")
    if exp > 400:
        raise ValueError(f"expected a duration, found {text!r} (too long)")
    if exp < -400 - len(digits):  # 1e-500 is 0
        return 0.0
    top: int = int(digits) * 10 ** max(exp, 0) * DURATION_UNITS[m["unit"] or unit]
    bottom: int = 10 ** max(-exp, 0) * DURATION_UNITS[unit]
    try:
        value = top / bottom
    except OverflowError:  # 1e400: no duration
        raise ValueError(f"expected a duration, found {text!r} (too long)") from None
    return -value if m["sign"] == "-" and value else value


def _shown(value: float, unit: str) -> str:
    """``value`` (in ``unit``) as a duration in the largest unit that holds it
    whole: ``_shown(60000, "ms") == "1m"``."""
    ms = value * DURATION_UNITS[unit]
    if ms != int(ms):
        return f"{value:g}{unit}"
    for name, size in sorted(DURATION_UNITS.items(), key=lambda kv: -kv[1]):
        if int(ms) % size == 0:
            return f"{int(ms) // size}{name}"
    return f"{value:g}{unit}"  # pragma: no cover - every whole ms is some ms


@overload
def duration(
    unit: str, least: float | None = None, most: float | None = None,
    *, whole: Literal[False] = False,
) -> Callable[[str], float]: ...
@overload
def duration(
    unit: str, least: float | None = None, most: float | None = None,
    *, whole: Literal[True],
) -> Callable[[str], int]: ...
def duration(
    unit: str, least: float | None = None, most: float | None = None, *, whole: bool = False,
) -> Callable[[str], float] | Callable[[str], int]:
    """An argparse ``type`` for every option that takes a time: a duration read
    by :func:`read_duration`, returned in ``unit`` (the option's bare-number unit).

    ``least`` ``None``: above 0; else at least ``least`` (``-math.inf``: any
    sign, for a command that checks the range itself); ``most``: at most that
    (all in ``unit``).  ``whole``: an ``int``, refusing a fraction of ``unit``.

    >>> duration("ms")("2s"), duration("s")("250ms"), duration("ms", whole=True)("1.5s")
    (2000.0, 0.25, 1500)
    >>> duration("ms")("0")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected a positive duration: milliseconds, or with a unit: 500ms, 2s, 1m; found '0'
    >>> duration("ms", 20, 60000, whole=True)("2m")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected a duration of 20ms..1m: milliseconds, or with a unit: 500ms, 2s, 1m; found '2m'
    >>> duration("ms", 0, whole=True)("0.5")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected whole milliseconds, found '0.5'
    """
    if least is None:
        what = "a positive duration" + ("" if most is None else f" of at most {_shown(most, unit)}")
    elif least == -math.inf and most is None:  # the command checks the range itself
        what = "a duration"
    elif most is None:
        what = f"a duration of {_shown(least, unit)} or more" if least else "a duration of 0 or more"
    else:
        what = f"a duration of {_shown(least, unit)}..{_shown(most, unit)}"

    def read(text: str) -> float:
        try:
            value = read_duration(text, unit)
            fits = (value > 0 if least is None else value >= least) and (
                most is None or value <= most
            )
        except ValueError:
            fits = False
        if not fits:
            raise argparse.ArgumentTypeError(
                f"expected {what}: {duration_help(unit)}; found {text!r}"
            )
        if whole and value != int(value):
            raise argparse.ArgumentTypeError(f"expected whole {_UNIT_WORDS[unit]}, found {text!r}")
        return int(value) if whole else value

    read.__name__ = "duration"
    return read


def take_kpn(words: Sequence[str], keep_numbers: int = 0) -> tuple[str, list[str]]:
    """Split a KPN given as one quoted argument or as separate words.

    ``keep_numbers`` is how many trailing numeric words belong to the
    command rather than to the KPN (perft's depth).
    """
    words = list(words)
    if not words:
        raise MalformedError("expected a position in KPN, found nothing")
    if " " in words[0].strip() or len(words) < 3 or words[1] not in ("b", "g"):
        return words[0], words[1:]
    n = 3
    digits = 0
    while n + digits < len(words) and words[n + digits].isdigit():
        digits += 1
    if digits - keep_numbers >= 3:
        n += 3
    return " ".join(words[:n]), words[n:]


#: The commands whose stops (SIGINT, SIGTERM) are noted from their first instruction.
EARLY_SIGNAL_COMMANDS = ("tournament", "web", "bot")

#: The signals noted so far (numbers, in order), until :func:`take_early_signals`.
_NOTED: list[int] = []


def _note_early(number: int, frame: object) -> None:
    _NOTED.append(number)


def note_early_signals(argv: Sequence[str]) -> bool:
    """Note SIGINT and SIGTERM from now on when ``argv`` runs one of
    :data:`EARLY_SIGNAL_COMMANDS` (``kamisado tournament``, ``kamisado web``, ``kamisado bot``).

    :mod:`kamisado.cli` calls it before its heavier imports: a stop that
    comes while Python still loads the command's modules (a few hundred
    milliseconds on a busy machine) is kept for the command, which takes it
    (:func:`take_early_signals`) as a stop once it handles signals itself.
    Returns whether it did (not outside the main thread, nor for other commands).
    """
    if not argv or argv[0] not in EARLY_SIGNAL_COMMANDS:
        return False
    if threading.current_thread() is not threading.main_thread():
        return False
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, _note_early)
    return True


def take_early_signals() -> list[int]:
    """The signals :func:`note_early_signals` noted so far, forgetting them."""
    came = list(_NOTED)
    _NOTED.clear()
    return came
