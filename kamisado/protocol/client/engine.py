"""The asyncio client: :class:`KeiEngine` runs one engine process and asks it
for moves, analyses and fills; :class:`AnalysisResult` is an analysis in
progress.

>>> import asyncio, sys
>>> from kamisado.rules.position import Position
>>> async def first_move() -> bool:
...     async with await popen_engine([sys.executable, "-m", "kamisado.protocol.kei"]) as engine:
...         result = await engine.play(Position(), Limit(depth=2))
...     return result.move in Position().legal_moves
>>> asyncio.run(first_move())
True
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
from collections.abc import Callable, Mapping, Sequence
from typing import IO, Any

from kamisado.engine.limits import Limit
from kamisado.protocol.client.messages import (
    DEFAULT_TIMEOUT,
    LOGGER,
    TIME_GRACE,
    Clock,
    EngineError,
    EngineTerminatedError,
    EngineTimeoutError,
    Info,
    Option,
    PlayResult,
    go_command,
    parse_info,
    parse_option,
)
from kamisado.protocol.client.process import abandon_pipes, end_started, kill_group
from kamisado.protocol.kei_go import clip, quote
from kamisado.rules.board import KamisadoError, MalformedError, Move
from kamisado.rules.match import FILL, FILLS, PLAYING, Match
from kamisado.rules.position import Position

__all__ = ["AnalysisComplete", "AnalysisResult", "KeiEngine", "popen_engine"]


def _round_line(match: Match) -> str:
    """The ``position`` line of the match's current round: its start and its moves."""
    rnd = match.current
    moves = " ".join(str(m) for m in rnd.moves)
    return f"position kpn {rnd.start.kpn()}" + (f" moves {moves}" if moves else "")


def _position_command(game: Match | Position | str) -> tuple[str, Position]:
    """The ``position`` line for a match, position or KPN, and the position it sets."""
    if isinstance(game, Match):
        if game.state != PLAYING:
            raise ValueError(
                f"the match is not in a round in progress (state {game.state!r})"
            )
        return _round_line(game), game.position
    pos = Position(game) if isinstance(game, str) else game
    if pos.outcome is not None:
        raise ValueError("the round is over: there is no move to ask for")
    return f"position kpn {pos.kpn()}", pos


def _legal_line(pos: Position, moves: Sequence[Move]) -> bool:
    """Whether ``moves`` can be played one after the other from ``pos``."""
    q = pos.copy(stack=False)
    for m in moves:
        if q.outcome is not None or not q.is_legal(m):
            return False
        q.push(m)
    return True


class KeiEngine:
    """An engine process spoken to over KEI (use :meth:`popen`).

    ``id`` holds the ``id`` lines (``name``, ``author``), ``options`` the
    declared options by name.  Commands are sent one at a time.
    """

    def __init__(
        self, process: asyncio.subprocess.Process, command: Sequence[str], timeout: float
    ) -> None:
        self.process = process
        self.command = list(command)
        self.timeout = timeout
        self.id: dict[str, str] = {}
        self.options: dict[str, Option] = {}
        self._lock = asyncio.Lock()
        self._dead: str | None = None
        #: The option values set by :meth:`configure`, by lower-case name.
        self._configured: dict[str, str] = {}
        #: Sees every line sent (``'>'``) and read (``'<'``); see :meth:`popen`.
        self.trace: Callable[[str, str], None] | None = None

    # -- start and stop ------------------------------------------------------

    @classmethod
    async def popen(
        cls,
        command: str | Sequence[str],
        *,
        timeout: float = DEFAULT_TIMEOUT,
        setup_timeout: float = 20.0,
        cwd: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        stderr: int | IO[Any] | None = None,
        setpgrp: bool = False,
        trace: Callable[[str, str], None] | None = None,
    ) -> KeiEngine:
        """Start ``command`` (a list, or a string split like a shell) and shake hands.

        ``timeout`` is the default wait for answers without a time limit;
        ``setup_timeout`` bounds the handshake.  ``stderr`` is passed to the
        subprocess (``asyncio.subprocess.DEVNULL`` to silence it).
        ``setpgrp=True`` starts the engine in a session of its own, so that a
        Ctrl-C in the terminal reaches only the client (which then ends the
        engine itself).  Either way the engine gets a process group of its
        own, and ending it (a timeout, :meth:`quit`) kills that whole group:
        an engine started through a wrapper script leaves nothing behind.
        ``trace(direction, line)`` sees every line on the wire, the
        handshake included: ``'>'`` sent to the engine, ``'<'`` read from it.
        """
        argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not argv:
            raise ValueError("expected an engine command, found nothing")
        # Started in a task of its own and shielded: a cancel (a stop) that
        # came while asyncio connects the pipes would make asyncio kill the
        # leader alone and then wait for the pipes to close, for ever when a
        # wrapper script's child holds them.  Instead the start finishes and
        # the whole group is killed.
        starting = asyncio.ensure_future(asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=stderr,
            cwd=cwd,
            env=dict(env) if env is not None else None,
            limit=1 << 20,
            **({"start_new_session": True} if setpgrp else {"process_group": 0}),
        ))
        try:
            process = await asyncio.shield(starting)
        except asyncio.CancelledError:
            await end_started(starting)
            raise
        except OSError as e:
            raise EngineTerminatedError(
                f"engine {shlex.join(argv)!r} could not start: {e}"
            ) from e
        engine = cls(process, argv, timeout)
        engine.trace = trace
        try:
            await engine._handshake(setup_timeout)
        except BaseException:
            await engine._kill()
            raise
        return engine

    @property
    def name(self) -> str:
        """The engine's ``id name`` (else its command)."""
        return self.id.get("name") or shlex.join(self.command)

    @property
    def returncode(self) -> int | None:
        """The exit status once the process has ended."""
        return self.process.returncode

    async def quit(self, timeout: float = 5.0) -> None:
        """Send ``quit`` and wait for the process to exit (killing it after ``timeout``)."""
        if self.process.returncode is None and self._dead is None:
            try:
                self._send("quit")
                async with asyncio.timeout(timeout):
                    await self.process.wait()
            except (TimeoutError, EngineError, ConnectionError):
                pass
        await self._kill()

    def kill_group(self) -> None:
        """Kill the engine's whole process group at once (without waiting).

        The group is the engine's own (see :meth:`popen`), so a wrapper
        script's children go with it.
        """
        kill_group(self.process)

    def abandon_pipes(self) -> None:
        """Stop waiting for the engine's pipes (see :func:`~kamisado.protocol.client.process.abandon_pipes`)."""
        abandon_pipes(self.process)

    async def _kill(self) -> None:
        self.kill_group()
        try:
            async with asyncio.timeout(2.0):
                await asyncio.shield(self.process.wait())
        except TimeoutError:
            # a process outside the group still holds the pipes: abandon them
            self.abandon_pipes()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(2.0):
                    await asyncio.shield(self.process.wait())
        # whatever the group started and left behind after the leader exited
        self.kill_group()
        if self.process.stdin is not None:
            self.process.stdin.close()

    async def __aenter__(self) -> KeiEngine:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.quit()

    # -- the wire ------------------------------------------------------------

    def _send(self, line: str) -> None:
        if self._dead is not None:
            raise EngineTerminatedError(
                f"engine {self.name!r} is no longer usable: {self._dead}"
            )
        stdin = self.process.stdin
        assert stdin is not None
        if self.process.returncode is not None or stdin.is_closing():
            raise EngineTerminatedError(
                f"engine {self.name!r} has exited (status {self.process.returncode})"
            )
        LOGGER.debug("%s << %s", self.name, line)
        if self.trace is not None:
            self.trace(">", line)
        stdin.write(line.encode() + b"\n")

    async def _readline(self, deadline: float, waiting_for: str) -> str:
        # ``asyncio.timeout``, not ``asyncio.wait_for``: on Python 3.11 the
        # latter returns the line and drops a cancel that arrives in the same
        # turn of the loop as the line (CPython gh-86296), so a stopped
        # tournament played on
        stdout = self.process.stdout
        assert stdout is not None
        try:
            async with asyncio.timeout_at(deadline):
                raw = await stdout.readline()
        except TimeoutError:
            self._dead = f"no {waiting_for} in time"
            await self._kill()
            raise EngineTimeoutError(
                f"engine {self.name!r} did not answer {waiting_for} in time; it has been killed"
            ) from None
        except ValueError as e:  # a line longer than the stream's limit
            self._dead = "an overlong line"
            await self._kill()
            raise EngineError(f"engine {self.name!r} sent an overlong line: {e}") from None
        if not raw:
            try:
                async with asyncio.timeout(2.0):
                    status = await self.process.wait()
            except TimeoutError:  # closed its output but lives on
                await self._kill()
                status = self.process.returncode or -9
            self._dead = f"it exited with status {status}"
            raise EngineTerminatedError(
                f"engine {self.name!r} terminated (exit status {status})"
                f" while we waited for {waiting_for}"
            )
        line = raw.decode("utf-8", "replace").strip()
        LOGGER.debug("%s >> %s", self.name, line)
        if self.trace is not None:
            self.trace("<", line)
        return line

    def _deadline(self, timeout: float | None) -> float:
        return asyncio.get_running_loop().time() + (
            self.timeout if timeout is None else timeout
        )

    async def _handshake(self, timeout: float) -> None:
        async with self._lock:
            deadline = self._deadline(timeout)
            self._send("kei")
            while True:
                line = await self._readline(deadline, "'keiok'")
                words = line.split()
                if not words:
                    continue
                if words[0] == "keiok":
                    break
                if words[0] == "id" and len(words) >= 2:
                    self.id[words[1]] = " ".join(words[2:])
                elif words[0] == "option":
                    option = parse_option(line)
                    if option is None:
                        LOGGER.warning("%s: malformed option line %s", self.name, quote(line))
                    else:
                        self.options[option.name] = option

    # -- commands --------------------------------------------------------------

    async def ping(self, timeout: float | None = None) -> None:
        """``isready`` and wait for ``readyok``."""
        async with self._lock:
            await self._ping(timeout)

    async def _ping(self, timeout: float | None) -> None:
        deadline = self._deadline(timeout)
        self._send("isready")
        while True:
            line = await self._readline(deadline, "'readyok'")
            if line == "readyok":
                return
            self._unexpected(line)

    def _unexpected(self, line: str) -> None:
        if line.startswith("info string"):
            LOGGER.info("%s: %s", self.name, clip(line[len("info string ") :]))
        elif line:
            LOGGER.warning("%s: ignoring unexpected line %s", self.name, quote(line))

    async def configure(self, options: Mapping[str, object]) -> None:
        """Set options (checked against those the engine declared), then ``isready``."""
        lines = []
        for name, value in options.items():
            declared = {k.lower(): v for k, v in self.options.items()}.get(name.lower())
            if declared is None:
                raise ValueError(
                    f"engine {self.name!r} has no option {name!r}"
                    f" (it has: {', '.join(self.options) or 'none'})"
                )
            lines.append(f"setoption name {declared.name} value {declared.check(value)}")
            self._configured[declared.name.lower()] = declared.check(value)
        async with self._lock:
            for line in lines:
                self._send(line)
            await self._ping(None)

    async def newgame(self) -> None:
        """``newgame``, then ``isready``."""
        async with self._lock:
            self._send("newgame")
            await self._ping(None)

    async def play(
        self,
        game: Match | Position | str,
        limit: Limit | None = None,
        *,
        timeout: float | None = None,
        on_info: Callable[[Info], None] | None = None,
        stop_after: float | None = None,
        clock: Clock | None = None,
    ) -> PlayResult:
        """Ask for a move in ``game`` (a match, a position or a KPN); check it.

        ``clock`` sends both clocks with the ``go`` (``go btime MS gtime MS
        binc MS ginc MS [movestogo N]``, then any limits).  ``timeout``
        (seconds) defaults to ``limit.time`` plus 5 s, else the time on the
        mover's clock plus 5 s, else the engine's default; it counts from
        just before the ``position`` line is sent.  ``on_info`` sees each ``info`` line as it comes.
        ``stop_after`` sends ``stop`` after that many seconds (needed with
        ``Limit(infinite=True)``).
        """
        limit = limit or Limit()
        if limit.infinite and stop_after is None:
            raise ValueError("an infinite search needs stop_after")
        line, pos = _position_command(game)
        if timeout is None:
            timeout = self.timeout if limit.time is None else limit.time + TIME_GRACE
            if clock is not None and limit.time is None:
                timeout = clock.time_left(pos.turn) + TIME_GRACE
            if stop_after is not None:
                timeout = min(timeout, stop_after + TIME_GRACE)
        async with self._lock:
            deadline = self._deadline(timeout)
            self._send(line)
            self._send(go_command(limit, clock))
            stopper = None
            if stop_after is not None:
                stopper = asyncio.get_running_loop().call_later(stop_after, self._stop)
            infos: list[Info] = []
            try:
                while True:
                    text = await self._readline(deadline, "'bestmove'")
                    words = text.split()
                    if not words:
                        continue
                    if words[0] == "info":
                        info = self._info(text, pos)
                        if info is not None:
                            infos.append(info)
                            if on_info is not None:
                                on_info(info)
                        continue
                    if words[0] != "bestmove":
                        self._unexpected(text)
                        continue
                    move = self._check_move(words[1:], pos)
                    return PlayResult(move, infos[-1] if infos else Info(), infos)
            finally:
                if stopper is not None:
                    stopper.cancel()

    def _stop(self) -> None:
        with contextlib.suppress(EngineError, ConnectionError):
            self._send("stop")

    def _info(self, text: str, pos: Position) -> Info | None:
        """An ``info`` line of a search from ``pos``: ``None`` for an ``info
        string`` (logged as unexpected); a pv that is not legal from ``pos``
        is logged and dropped."""
        info = parse_info(text)
        if info.string is not None:
            self._unexpected(text)
            return None
        if info.pv and not _legal_line(pos, info.pv):
            LOGGER.warning("%s: dropping an illegal pv in %r: %s", self.name, pos.kpn(), clip(text))
            info.pv = []
        return info

    def _multipv_lines(self, multipv: int | None) -> tuple[list[str], list[str]]:
        """The ``setoption`` lines before and after a search with ``multipv`` lines."""
        if multipv is None:
            return [], []
        if isinstance(multipv, bool) or not isinstance(multipv, int) or multipv < 1:
            raise ValueError(f"multipv: expected a whole number from 1, found {multipv!r}")
        declared = {k.lower(): v for k, v in self.options.items()}.get("multipv")
        if declared is None:
            if multipv == 1:
                return [], []
            raise ValueError(f"engine {self.name!r} has no MultiPV option (multipv={multipv})")
        before = self._configured.get("multipv", declared.default or "1")
        if str(multipv) == before:
            return [], []
        set_to = declared.check(multipv)
        return (
            [f"setoption name {declared.name} value {set_to}"],
            [f"setoption name {declared.name} value {before}"],
        )

    async def analysis(
        self,
        game: Match | Position | str,
        limit: Limit | None = None,
        *,
        multipv: int | None = None,
        root_moves: Sequence[Move | str] | None = None,
        timeout: float | None = None,
    ) -> AnalysisResult:
        """Start analysing ``game``; its infos come as the engine sends them.

        As python-chess's ``analysis``: ``limit`` ``None`` searches until
        :meth:`AnalysisResult.stop` (``go infinite``); ``multipv`` sets the
        engine's ``MultiPV`` option for this search only; ``root_moves``
        restricts the moves searched (``searchmoves``).  The result is an
        async iterator of info dicts (:meth:`Info.as_dict`), ending at
        ``bestmove``; :attr:`AnalysisResult.info` and
        :attr:`AnalysisResult.multipv` hold the latest line of each rank.
        The engine takes no other command until the analysis ends (``async
        with`` stops it on leaving the block).  ``timeout`` bounds the wait
        for ``bestmove`` when a ``limit`` is given (``limit.time`` + 5 s,
        else the engine's default).
        """
        limit = Limit(infinite=True) if limit is None or not limit.any else limit
        line, pos = _position_command(game)
        before, after = self._multipv_lines(multipv)
        searchmoves: list[str] = []
        for m in root_moves or ():
            move = Move.from_str(m) if isinstance(m, str) else m
            pos.check_move(move)
            searchmoves.append(str(move))
        go = go_command(limit)
        if searchmoves:
            go += " searchmoves " + " ".join(searchmoves)
        if timeout is None:
            timeout = self.timeout if limit.time is None else limit.time + TIME_GRACE
        await self._lock.acquire()
        try:
            for text in before:
                self._send(text)
            self._send(line)
            self._send(go)
        except BaseException:
            self._lock.release()
            raise
        result = AnalysisResult(self, pos, after)
        loop = asyncio.get_running_loop()
        deadline = None if limit.infinite else self._deadline(timeout)
        result._task = loop.create_task(result._read(deadline))
        return result

    async def analyse(
        self,
        game: Match | Position | str,
        limit: Limit,
        *,
        multipv: int | None = None,
        root_moves: Sequence[Move | str] | None = None,
        timeout: float | None = None,
    ) -> dict[str, Any] | list[dict[str, Any]]:
        """Analyse ``game`` within ``limit``: the last info dict, or with ``multipv`` a list.

        As python-chess's ``analyse``: without ``multipv`` one dict (the
        best line: ``score``, ``pv``, ``depth``, ``nodes``, ``time`` in
        seconds, ... as :meth:`Info.as_dict`); with ``multipv=N`` a list of
        up to N dicts, best first (fewer when the position has fewer moves).
        """
        if limit is None or not limit.any or limit.infinite:
            raise ValueError("analyse needs a finite limit (time, depth, nodes or win)")
        result = await self.analysis(
            game, limit, multipv=multipv, root_moves=root_moves, timeout=timeout
        )
        await result.wait()
        if multipv is None:
            return dict(result.info)
        return [dict(i) for i in result.multipv if i]

    def _check_move(self, words: list[str], pos: Position) -> Move:
        kpn = pos.kpn()
        if not words or words[0] == "none":
            raise EngineError(f"engine {self.name!r} gave no move in position {kpn!r}")
        text = words[0]
        try:
            move = Move.from_str(text)
        except (MalformedError, ValueError) as e:
            raise EngineError(
                f"engine {self.name!r} sent a malformed move {quote(text)} in position {kpn!r}:"
                f" {clip(str(e))}"
            ) from None
        try:
            pos.check_move(move)
        except KamisadoError as e:
            raise EngineError(
                f"engine {self.name!r} sent an illegal move {text} in position {kpn!r}: {e}"
            ) from None
        return move

    async def fill(self, match: Match, *, timeout: float | None = None) -> str:
        """Ask the winner of the round just ended: ``'left'`` or ``'right'``."""
        if match.state != FILL:
            raise ValueError(
                f"a fill is asked only after a round of an unfinished match ends (state {match.state!r})"
            )
        line = _round_line(match)
        async with self._lock:
            deadline = self._deadline(timeout)
            self._send(line)
            self._send("fill")
            while True:
                text = await self._readline(deadline, "'fillchoice'")
                words = text.split()
                if not words or words[0] != "fillchoice":
                    self._unexpected(text)
                    continue
                choice = words[1] if len(words) > 1 else ""
                if choice not in FILLS:
                    raise EngineError(
                        f"engine {self.name!r} sent an invalid fill choice {quote(choice)}"
                        f" (expected left or right) after position {match.position.kpn()!r}"
                    )
                return choice


class AnalysisComplete(Exception):
    """:meth:`AnalysisResult.get` after the last info (python-chess's name)."""


class AnalysisResult:
    """A running analysis (:meth:`KeiEngine.analysis`): an async iterator of info dicts.

    ``info`` is the latest best line (``multipv`` 1), ``multipv`` the
    latest line of each rank; a line with a score or a pv replaces its
    rank's dict, progress lines (``currmove``) only update it.
    :meth:`stop` asks for the answer now, :meth:`wait` waits for it
    (a :class:`PlayResult`, or ``None`` when the engine had no move).
    """

    def __init__(self, engine: KeiEngine, pos: Position, after: list[str]) -> None:
        self.engine = engine
        self.position = pos
        self.multipv: list[dict[str, Any]] = [{}]
        self.infos: list[Info] = []
        self._after = after
        self._queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self._done: asyncio.Future[PlayResult | None] = (
            asyncio.get_running_loop().create_future()
        )
        self._task: asyncio.Task[None] | None = None
        self._killer: asyncio.Task[None] | None = None
        self._stopped = False

    @property
    def info(self) -> dict[str, Any]:
        """The latest best line (the merged dict of ``multipv`` 1)."""
        return self.multipv[0]

    def _take(self, info: Info) -> dict[str, Any]:
        d = info.as_dict()
        rank = (info.multipv or 1) - 1
        while len(self.multipv) <= rank:
            self.multipv.append({})
        if info.score is not None or info.pv:
            self.multipv[rank] = dict(d)
        else:
            self.multipv[rank].update(d)
        return d

    async def _read(self, deadline: float | None) -> None:
        engine = self.engine
        try:
            while True:
                when = deadline if deadline is not None else (
                    asyncio.get_running_loop().time() + 10**9
                )
                text = await engine._readline(when, "'bestmove'")
                words = text.split()
                if not words:
                    continue
                if words[0] == "info":
                    info = engine._info(text, self.position)
                    if info is not None:
                        self.infos.append(info)
                        self._queue.put_nowait(self._take(info))
                    continue
                if words[0] != "bestmove":
                    engine._unexpected(text)
                    continue
                answer: PlayResult | None = None
                if len(words) > 1 and words[1] != "none":
                    move = engine._check_move(words[1:], self.position)
                    answer = PlayResult(move, self.infos[-1] if self.infos else Info(), self.infos)
                for line in self._after:
                    engine._send(line)
                if not self._done.done():
                    self._done.set_result(answer)
                return
        except BaseException as e:
            if not self._done.done():
                self._done.set_exception(e)
                self._done.exception()  # retrieved: wait() raises it
            if isinstance(e, asyncio.CancelledError):
                raise
        finally:
            self._queue.put_nowait(None)
            engine._lock.release()

    def stop(self) -> None:
        """Ask the engine for its answer now (``stop``); nothing once it answered.

        An engine that gives no ``bestmove`` within its ``timeout`` after
        the ``stop`` is killed (:meth:`wait` then raises
        :class:`EngineTerminatedError`), as one that misses a time limit.
        """
        if not self._done.done() and not self._stopped:
            self._stopped = True
            self.engine._stop()
            asyncio.get_running_loop().call_later(self.engine.timeout, self._overdue)

    def _overdue(self) -> None:
        """No ``bestmove`` in time after ``stop``: end the engine (its answers
        could no longer be matched to the questions)."""
        if not self._done.done():
            self.engine._dead = "no 'bestmove' in time after stop"
            self._killer = asyncio.get_running_loop().create_task(self.engine._kill())

    async def wait(self) -> PlayResult | None:
        """The engine's answer, once it comes (the move, the last info, all infos)."""
        return await asyncio.shield(self._done)

    def would_block(self) -> bool:
        """Whether :meth:`get` would wait (no info waiting, the analysis still running)."""
        return self._queue.empty() and not self._done.done()

    def empty(self) -> bool:
        """Whether no info is waiting to be read."""
        return self._queue.qsize() == 0 or (
            self._queue.qsize() == 1 and self._done.done()
        )

    async def get(self) -> dict[str, Any]:
        """The next info dict; :class:`AnalysisComplete` after the last."""
        item = await self._queue.get()
        if item is None:
            self._queue.put_nowait(None)  # every later get ends too
            raise AnalysisComplete
        return item

    def __aiter__(self) -> AnalysisResult:
        return self

    async def __anext__(self) -> dict[str, Any]:
        try:
            return await self.get()
        except AnalysisComplete:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> AnalysisResult:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.stop()
        with contextlib.suppress(EngineError):
            await self.wait()



async def popen_engine(command: str | Sequence[str], **kwargs: Any) -> KeiEngine:
    """Start an engine: ``await popen_engine(["kamisado", "engine"])`` (see :meth:`KeiEngine.popen`)."""
    return await KeiEngine.popen(command, **kwargs)
