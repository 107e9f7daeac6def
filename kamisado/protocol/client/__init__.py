"""Drive any KEI engine: an asyncio client and a blocking one.

KEI, the Kamisado Engine Interface, is specified in ``docs/protocol.md``;
``kamisado engine`` speaks it for the built-in engine.  This module is the
other side, in the manner of python-chess's ``chess.engine``:
:meth:`KeiEngine.popen` starts an engine as an ``asyncio`` subprocess and
:class:`SimpleEngine` wraps it for code without an event loop (it runs a
private event loop in a thread).

>>> import sys
>>> from kamisado.rules.position import Position
>>> with SimpleEngine.popen([sys.executable, "-m", "kamisado.protocol.kei"]) as engine:
...     result = engine.play(Position(), Limit(depth=3))
...     engine.name.startswith("Kamisado"), result.move in Position().legal_moves
(True, True)

Everything the engine says is checked: a move that is malformed or illegal
in the position sent raises :class:`EngineError` naming the move and the
position; an engine that exits raises :class:`EngineTerminatedError`; one
that does not answer in time raises :class:`EngineTimeoutError` (and is
killed, since its answers can no longer be matched to the questions).

:class:`Limit` and :class:`Score` are those of :mod:`kamisado.engine.limits`, which
the engine API, the KEI engine and the tools share.

The client's modules: :mod:`~kamisado.protocol.client.messages` (errors,
``info`` lines, options, clocks), :mod:`~kamisado.protocol.client.process`
(the engine's process group and pipes),
:mod:`~kamisado.protocol.client.engine` (:class:`KeiEngine`, the asyncio
client, and :class:`AnalysisResult`) and
:mod:`~kamisado.protocol.client.simple` (:class:`SimpleEngine`, the blocking
one).  Import from here.
"""

from __future__ import annotations

from kamisado.engine.limits import Limit, Score
from kamisado.protocol.client.engine import (
    AnalysisComplete,
    AnalysisResult,
    KeiEngine,
    popen_engine,
)
from kamisado.protocol.client.messages import (
    DEFAULT_TIMEOUT,
    Clock,
    EngineError,
    EngineTerminatedError,
    EngineTimeoutError,
    Info,
    Option,
    PlayResult,
    go_command,
    parse_info,
)
from kamisado.protocol.client.simple import SimpleAnalysisResult, SimpleEngine

__all__ = [
    "DEFAULT_TIMEOUT",
    "Clock",
    "EngineError",
    "EngineTerminatedError",
    "EngineTimeoutError",
    "AnalysisComplete",
    "AnalysisResult",
    "Info",
    "KeiEngine",
    "Limit",
    "Option",
    "PlayResult",
    "Score",
    "SimpleAnalysisResult",
    "SimpleEngine",
    "go_command",
    "parse_info",
    "popen_engine",
]
