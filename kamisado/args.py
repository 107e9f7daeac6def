"""What every ``kamisado`` command shares on its command line.

:class:`Parser` (errors in one line, exit 2), the argparse types
:func:`int_between` and :func:`positive_number`, :func:`die` and
:func:`take_kpn`.  The commands live in their wings (``kamisado analyse`` in
:mod:`kamisado.engine.analysis`, ``kamisado engine`` in
:mod:`kamisado.protocol.kei`, ...); :mod:`kamisado.cli` dispatches to them.
This module imports only the standard library and the rules.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn

from kamisado.rules.board import MalformedError

__all__ = ["Parser", "die", "int_between", "positive_number", "take_kpn"]


def die(message: str) -> int:
    print(f"kamisado: {message}", file=sys.stderr)
    return 2


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
