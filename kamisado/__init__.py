"""Kamisado: the rules, the engine, the engine protocol, pictures, and two front ends.

The names most programs need are here; everything else lives in its wing
(``docs/architecture.md``): :mod:`kamisado.rules`, :mod:`kamisado.engine`,
:mod:`kamisado.protocol`, :mod:`kamisado.pictures`, :mod:`kamisado.web` and
:mod:`kamisado.tui`.

>>> import kamisado
>>> pos = kamisado.Position()
>>> str(pos.push_move("c1-c5"))
'c1-c5'
>>> pos
Position('obupyrgn/8/8/2R5/8/8/8/NG1YPUBO g b 1 0 0')
>>> match = kamisado.Match(3)
>>> _ = match.push_move("c1-c5")
>>> text = kamisado.write_record(kamisado.Record({"Black": "Ann"}, match))
>>> again = kamisado.read_record(text)
>>> again.headers["Black"], again.match.position.kpn()
('Ann', 'obupyrgn/8/8/2R5/8/8/8/NG1YPUBO g b 3 0 0')
>>> kamisado.solve(kamisado.Position("o1upyrgn/8/8/1P6/6Bb/N6O/8/1GRY1U2 b p 1 0 0")).distance
1
>>> kamisado.board_svg(pos).startswith("<svg")
True

The rules (:class:`Position`, :class:`Move`, :class:`Match`,
:class:`Record` and the errors) are imported with the package; the engine
(:func:`search`, :func:`solve`), :class:`SimpleEngine` and
:func:`board_svg` load on first use, so a program that needs only the rules
loads only the standard library.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kamisado.rules.board import (
    BLACK,
    GOLD,
    START_KPN,
    AmbiguousMoveError,
    IllegalMoveError,
    KamisadoError,
    MalformedError,
    Move,
    Outcome,
)
from kamisado.rules.match import Match
from kamisado.rules.position import Position
from kamisado.rules.record import Record
from kamisado.rules.record import load as load_record
from kamisado.rules.record import read as read_record
from kamisado.rules.record import save as save_record
from kamisado.rules.record import write as write_record

if TYPE_CHECKING:
    from kamisado.engine import search, solve
    from kamisado.pictures.svg import board as board_svg
    from kamisado.protocol.client import SimpleEngine

__all__ = [
    "BLACK",
    "GOLD",
    "START_KPN",
    "AmbiguousMoveError",
    "IllegalMoveError",
    "KamisadoError",
    "MalformedError",
    "Match",
    "Move",
    "Outcome",
    "Position",
    "Record",
    "SimpleEngine",
    "board_svg",
    "load_record",
    "read_record",
    "save_record",
    "search",
    "solve",
    "write_record",
]
__version__ = "0.1.0"

#: Names loaded on first use: (module, attribute).
_LAZY = {
    "search": ("kamisado.engine", "search"),
    "solve": ("kamisado.engine", "solve"),
    "SimpleEngine": ("kamisado.protocol.client", "SimpleEngine"),
    "board_svg": ("kamisado.pictures.svg", "board"),
}


def __getattr__(name: str) -> Any:
    """Load the engine, the client and the board picture on first use."""
    if name not in _LAZY:
        raise AttributeError(f"module 'kamisado' has no attribute {name!r}")
    import importlib

    module, attr = _LAZY[name]
    value = getattr(importlib.import_module(module), attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
