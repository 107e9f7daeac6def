"""The blocking client: :class:`SimpleEngine` runs the asyncio client
(:class:`~kamisado.protocol.client.engine.KeiEngine`) on a private event
loop in a thread, for code without an event loop of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Coroutine, Mapping, Sequence
from concurrent.futures import Future
from types import TracebackType
from typing import Any, TypeVar

from kamisado.engine.limits import Limit
from kamisado.protocol.client.engine import AnalysisComplete, AnalysisResult, KeiEngine
from kamisado.protocol.client.messages import (
    EngineError,
    EngineTerminatedError,
    Option,
    PlayResult,
)
from kamisado.rules.match import Match
from kamisado.rules.position import Position

__all__ = ["SimpleAnalysisResult", "SimpleEngine"]

T = TypeVar("T")


class SimpleAnalysisResult:
    """A running analysis of a :class:`SimpleEngine`: an iterator of info dicts.

    As python-chess's: iterate (it ends at ``bestmove``), :meth:`stop`,
    :meth:`wait`, ``info``, ``multipv``; ``with`` stops it on leaving.
    """

    def __init__(self, simple: SimpleEngine, inner: AnalysisResult) -> None:
        self._simple = simple
        self.inner = inner

    @property
    def info(self) -> dict[str, Any]:
        """See :attr:`AnalysisResult.info`."""
        return self._simple._call(lambda: dict(self.inner.info))

    @property
    def multipv(self) -> list[dict[str, Any]]:
        """See :attr:`AnalysisResult.multipv`."""
        return self._simple._call(lambda: [dict(i) for i in self.inner.multipv])

    def stop(self) -> None:
        """See :meth:`AnalysisResult.stop`."""
        self._simple._call(self.inner.stop)

    def wait(self) -> PlayResult | None:
        """See :meth:`AnalysisResult.wait`."""
        return self._simple._run(self.inner.wait())

    def would_block(self) -> bool:
        """See :meth:`AnalysisResult.would_block`."""
        return self._simple._call(self.inner.would_block)

    def empty(self) -> bool:
        """See :meth:`AnalysisResult.empty`."""
        return self._simple._call(self.inner.empty)

    def get(self) -> dict[str, Any]:
        """See :meth:`AnalysisResult.get`."""
        return self._simple._run(self.inner.get())

    def next(self) -> dict[str, Any] | None:
        """The next info dict, or ``None`` after the last."""
        try:
            return self.get()
        except AnalysisComplete:
            return None

    def __iter__(self) -> SimpleAnalysisResult:
        return self

    def __next__(self) -> dict[str, Any]:
        try:
            return self.get()
        except AnalysisComplete:
            raise StopIteration from None

    def __enter__(self) -> SimpleAnalysisResult:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
        with contextlib.suppress(EngineError):
            self.wait()


class SimpleEngine:
    """A blocking KEI engine: the async client on a private event loop thread.

    >>> import sys
    >>> from kamisado.rules.match import Match
    >>> engine = SimpleEngine.popen([sys.executable, "-m", "kamisado.protocol.kei", "--level", "beginner"])
    >>> m = Match(3)
    >>> move = engine.play(m).move
    >>> move in m.legal_moves()
    True
    >>> engine.quit()
    """

    def __init__(
        self, engine: KeiEngine, loop: asyncio.AbstractEventLoop, thread: threading.Thread
    ) -> None:
        self.engine = engine
        self._loop = loop
        self._thread = thread

    @classmethod
    def popen(cls, command: str | Sequence[str], **kwargs: Any) -> SimpleEngine:
        """Start an engine (arguments as :meth:`KeiEngine.popen`)."""
        loop = asyncio.new_event_loop()
        ready = threading.Event()

        def run() -> None:
            asyncio.set_event_loop(loop)
            loop.call_soon(ready.set)
            loop.run_forever()

        thread = threading.Thread(target=run, name="kamisado-engine-loop", daemon=True)
        thread.start()
        ready.wait()
        try:
            engine = asyncio.run_coroutine_threadsafe(
                KeiEngine.popen(command, **kwargs), loop
            ).result()
        except BaseException:
            cls._stop_loop(loop, thread)
            raise
        return cls(engine, loop, thread)

    @staticmethod
    def _stop_loop(loop: asyncio.AbstractEventLoop, thread: threading.Thread) -> None:
        loop.call_soon_threadsafe(loop.stop)
        thread.join()
        loop.close()

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        if self._loop.is_closed():
            coro.close()
            raise EngineTerminatedError(f"engine {self.engine.name!r} has been closed")
        future: Future[T] = asyncio.run_coroutine_threadsafe(coro, self._loop)
        return future.result()

    @property
    def name(self) -> str:
        """The engine's name."""
        return self.engine.name

    @property
    def id(self) -> dict[str, str]:
        """The engine's ``id`` lines."""
        return self.engine.id

    @property
    def options(self) -> dict[str, Option]:
        """The engine's declared options."""
        return self.engine.options

    def ping(self, timeout: float | None = None) -> None:
        """See :meth:`KeiEngine.ping`."""
        self._run(self.engine.ping(timeout))

    def configure(self, options: Mapping[str, object]) -> None:
        """See :meth:`KeiEngine.configure`."""
        self._run(self.engine.configure(options))

    def newgame(self) -> None:
        """See :meth:`KeiEngine.newgame`."""
        self._run(self.engine.newgame())

    def play(
        self, game: Match | Position | str, limit: Limit | None = None, **kwargs: Any
    ) -> PlayResult:
        """See :meth:`KeiEngine.play`."""
        return self._run(self.engine.play(game, limit, **kwargs))

    def fill(self, match: Match, **kwargs: Any) -> str:
        """See :meth:`KeiEngine.fill`."""
        return self._run(self.engine.fill(match, **kwargs))

    def analyse(
        self, game: Match | Position | str, limit: Limit, **kwargs: Any
    ) -> dict[str, Any] | list[dict[str, Any]]:
        """See :meth:`KeiEngine.analyse`: an info dict, or with ``multipv`` a list.

        >>> import sys
        >>> with SimpleEngine.popen([sys.executable, "-m", "kamisado.protocol.kei"]) as engine:
        ...     lines = engine.analyse(Position(), Limit(depth=3), multipv=2)
        ...     info = engine.analyse(Position(), Limit(depth=3))
        >>> [d["multipv"] for d in lines], lines[0]["depth"], sorted(info)
        ([1, 2], 3, ['depth', 'hashfull', 'nodes', 'nps', 'pv', 'score', 'seldepth', 'time'])
        """
        return self._run(self.engine.analyse(game, limit, **kwargs))

    def analysis(
        self, game: Match | Position | str, limit: Limit | None = None, **kwargs: Any
    ) -> SimpleAnalysisResult:
        """See :meth:`KeiEngine.analysis`: an iterator of info dicts that can be stopped.

        >>> import sys
        >>> with SimpleEngine.popen([sys.executable, "-m", "kamisado.protocol.kei"]) as engine:
        ...     with engine.analysis(Position()) as analysis:
        ...         for info in analysis:
        ...             if info.get("depth", 0) >= 3:
        ...                 break
        ...     result = analysis.wait()
        >>> result.move in Position().legal_moves, analysis.info["depth"] >= 3
        (True, True)
        """
        return SimpleAnalysisResult(self, self._run(self.engine.analysis(game, limit, **kwargs)))

    def _call(self, fn: Callable[[], T]) -> T:
        """Run ``fn()`` in the event loop's thread (the analysis' state lives there);
        once the engine is closed, here (nothing changes it any more)."""
        if self._loop.is_closed():
            return fn()

        async def call() -> T:
            return fn()

        return self._run(call())

    def quit(self) -> None:
        """Quit the engine and end the private event loop (safe to call twice)."""
        if self._loop.is_closed():
            return
        try:
            self._run(self.engine.quit())
        finally:
            self._stop_loop(self._loop, self._thread)

    close = quit

    def __enter__(self) -> SimpleEngine:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.quit()
