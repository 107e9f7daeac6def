"""What every ``kamisado`` command shares on its command line.

:class:`Parser` (errors in one line, exit 2), the argparse types
:func:`int_between` and :func:`positive_number`, :func:`die` and
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
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from typing import NoReturn

from kamisado.rules.board import MalformedError

__all__ = [
    "EARLY_SIGNAL_COMMANDS",
    "SIGPIPE_STATUS",
    "Parser",
    "die",
    "int_between",
    "needs_extra",
    "note_early_signals",
    "positive_number",
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
    "--queue needs the 'queue' extra: pip install 'kamisado[queue]'"
    """
    return f"{what} needs the {extra!r} extra: pip install 'kamisado[{extra}]'"


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


def positive_number(unit: str) -> Callable[[str], float]:
    """An argparse ``type``: a finite number above 0 (``nan`` and ``inf`` refused).

    >>> positive_number("ms")("250")
    250.0
    >>> positive_number("ms")("inf")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected a positive number of ms, found 'inf'
    """

    def read(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and value > 0):
            raise argparse.ArgumentTypeError(
                f"expected a positive number of {unit}, found {text!r}"
            )
        return value

    read.__name__ = "number"
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
EARLY_SIGNAL_COMMANDS = ("tournament",)

#: The signals noted so far (numbers, in order), until :func:`take_early_signals`.
_NOTED: list[int] = []


def _note_early(number: int, frame: object) -> None:
    _NOTED.append(number)


def note_early_signals(argv: Sequence[str]) -> bool:
    """Note SIGINT and SIGTERM from now on when ``argv`` runs one of
    :data:`EARLY_SIGNAL_COMMANDS` (``kamisado tournament``).

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
