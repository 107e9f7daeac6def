"""Running a tournament's games: :class:`Tournament` (for ``kamisado tournament``).

Every engine, built-in ones included, runs as its own KEI subprocess
(:mod:`kamisado.protocol.kei`) driven by :mod:`kamisado.protocol.client`, so
a crash, a hang, an illegal move or a flag fall loses that game and harms
nothing else.  Engines are kept from one game to the next (each new game
gets its seed and ``newgame``) and restarted as the restart policy says
(:data:`RESTARTS`: by default only after a crash, a timeout or a protocol
error).  :meth:`Tournament.request_stop` (Ctrl-C, SIGTERM) ends the run at
once: the engines are killed, the games in progress are dropped (``--resume``
plays them), the finished ones are kept.  Every move is asked with
limits, never a bare ``go``; an answer later than the clock (or the
movetime) plus the margin loses on time.  Each finished game is written as a
match record (:mod:`kamisado.rules.record`, with how it ended and each
engine move's comment: its score and depth, the time it took and both clocks
after it) into the output directory.

What is played is set in :mod:`kamisado.protocol.tournament_config`; the
results and the files of the output directory are in
:mod:`kamisado.protocol.tournament_results`; the command line is
:mod:`kamisado.protocol.tournament_cli`.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TextIO

from kamisado.engine.levels import SEED_MAX
from kamisado.protocol.client import (
    Clock,
    EngineError,
    EngineTerminatedError,
    EngineTimeoutError,
    Info,
    KeiEngine,
)
from kamisado.protocol.elo import format_table
from kamisado.protocol.tournament_config import (
    Config,
    Game,
    opening_match,
    parse_match_type,
    schedule,
)
from kamisado.protocol.tournament_results import (
    GameResult,
    _atomic_write,
    read_state,
    result_of_record,
    write_state,
)
from kamisado.rules.board import SIDE_NAMES, KamisadoError, MalformedError
from kamisado.rules.match import FILL, OVER, Match
from kamisado.rules.record import Comment, GameEnd, Record, load, write

__all__ = [
    "DEFAULT_TIMEOUT",
    "HANDSHAKE_TIMEOUT",
    "NOT_STARTED",
    "RESTARTS",
    "STOP_WITHIN",
    "BrokenPlayerError",
    "OptionsError",
    "Tournament",
]

#: Seconds an engine has to start and finish the handshake (``kei`` .. ``keiok``).
HANDSHAKE_TIMEOUT = 20.0
#: Seconds to wait for answers without a time limit of their own, unless ``--timeout``.
DEFAULT_TIMEOUT = 60.0


#: In a forfeit's detail: the player could not start (or finish the handshake).
NOT_STARTED = "could not start: "

#: Seconds a stop (Ctrl-C, SIGTERM) takes at most to end the run, its engines
#: killed and its output printed: engines are killed at once, not asked to quit.
STOP_WITHIN = 2.0

#: The restart policies (``--restart``), as in cutechess-cli: ``auto`` keeps an
#: engine for the next game unless it crashed, timed out or broke the
#: protocol in this one; ``on`` starts both engines afresh for every game;
#: ``off`` keeps every engine that is still running.
RESTARTS = ("auto", "on", "off")


class BrokenPlayerError(RuntimeError):
    """A player's engine could not start or finish the handshake (the run stops)."""

    def __init__(self, player: str, reason: str) -> None:
        super().__init__(f"player {player!r} {NOT_STARTED}{reason}")
        self.player = player


class OptionsError(ValueError):
    """A player's option is not one its engine declared, or its value does not fit."""


class _Stopped(Exception):
    """The tournament is stopping: the game in progress is dropped."""


class _LostOnTime(Exception):
    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def _clock_text(seconds: float) -> str:
    seconds = max(seconds, 0.0)
    return f"{int(seconds // 60)}:{seconds % 60:04.1f}"


# -- the tournament ----------------------------------------------------------------------


class Tournament:
    """A tournament in an output directory: plays, records, resumes, rates."""

    def __init__(
        self,
        config: Config,
        out: Path,
        concurrency: int = 1,
        log: Callable[[str], None] = print,
        engine_stderr: TextIO | None = None,
        forfeit_broken: bool = False,
        debug: TextIO | None = None,
        progress: Callable[[int, str | None], None] | None = None,
        restart: str = "auto",
        on_start: Callable[[], None] | None = None,
    ) -> None:
        config.check()
        if restart not in RESTARTS:
            raise ValueError(f"restart: expected one of {', '.join(RESTARTS)}, found {restart!r}")
        self.config = config
        self.out = out
        self.concurrency = max(1, concurrency)
        self.log = log
        self.players = {p.name: p for p in config.players}
        self.games = schedule(config)
        self.results: dict[int, GameResult] = {}
        self.engine_stderr = engine_stderr
        #: A player that cannot start forfeits its games (and is not rated)
        #: instead of stopping the run with :class:`BrokenPlayerError`.
        self.forfeit_broken = forfeit_broken
        #: Where every line to and from the engines goes (``--debug``).
        self.debug = debug
        #: ``progress(game, line)`` during a game, ``progress(game, None)`` after it.
        self.progress = progress
        #: When an engine is started afresh (see :data:`RESTARTS`).
        self.restart = restart
        #: Called once, when the first game's engines have both started.
        self.on_start = on_start
        #: How many engine processes were started (handshake done).
        self.starts = 0
        self._stopping = False
        self._running: set[KeiEngine] = set()  # every engine process we hold
        self._idle: dict[str, list[KeiEngine]] = {}  # kept for the next game, by player
        self._tasks: list[asyncio.Task[None]] = []

    # -- stopping -----------------------------------------------------------

    @property
    def stopped(self) -> bool:
        """Whether :meth:`request_stop` was called."""
        return self._stopping

    def request_stop(self) -> None:
        """Stop the run now (safe in a signal handler run by the event loop).

        Every engine process is killed at once (its whole process group),
        the games in progress are dropped without a record and no game
        starts after this; :meth:`run` then returns.  The finished games stay
        finished, so ``--resume`` plays exactly the rest.  Besides
        cancelling the workers, the stop is a flag checked before every
        game and every question, so a cancel that gets lost cannot keep the
        run going.
        """
        self._stopping = True
        for engine in list(self._running):
            engine.kill_group()
        for task in self._tasks:
            task.cancel()

    # -- state ------------------------------------------------------------

    def save_state(self) -> None:
        """Write ``state.json`` (the configuration and the finished games) and ``results.tsv``."""
        write_state(self.out, self.config, self.results)

    @staticmethod
    def read_config(out: Path) -> tuple[Config, list[int]]:
        """The configuration and the finished game numbers saved in ``out``."""
        config, finished = Tournament.read_state(out)
        return config, sorted(finished)

    @staticmethod
    def read_state(out: Path) -> tuple[Config, dict[int, dict[str, Any]]]:
        """The configuration and the finished games (by number) saved in ``out``."""
        return read_state(out)

    def load_finished(
        self, numbers: Iterable[int], seconds: dict[int, float] | None = None
    ) -> None:
        """Read finished games back from their records (a missing or broken one is replayed)."""
        by_number = {g.number: g for g in self.games}
        for n in numbers:
            game = by_number.get(n)
            if game is None:
                continue
            path = self.out / game.filename
            try:
                result = result_of_record(game, load(path))
            except (OSError, KamisadoError) as e:
                self.log(f"game {n}: {e}; it will be played again")
                continue
            result.seconds = (seconds or {}).get(n, 0.0)
            self.results[n] = result

    # -- engines ---------------------------------------------------------------

    def _tracer(self, label: str) -> Callable[[str, str], None] | None:
        debug = self.debug
        if debug is None:
            return None

        def trace(direction: str, line: str) -> None:
            stamp = datetime.datetime.now().isoformat(timespec="milliseconds")
            debug.write(f"{stamp} {label} {direction} {line}\n")
            debug.flush()

        return trace

    async def _popen(self, name: str, label: str) -> KeiEngine:
        spec = self.players[name]
        if self._stopping:
            raise _Stopped
        engine = await KeiEngine.popen(
            spec.command(),
            timeout=self.config.timeout or DEFAULT_TIMEOUT,
            setup_timeout=HANDSHAKE_TIMEOUT,
            setpgrp=True,  # a Ctrl-C stops the tournament, which ends its engines
            stderr=self.engine_stderr
            if self.engine_stderr is not None
            else asyncio.subprocess.DEVNULL,
            trace=self._tracer(label),
        )
        self._running.add(engine)
        self.starts += 1
        if self._stopping:  # asked while it started
            engine.kill_group()
            self._running.discard(engine)
            raise _Stopped
        return engine

    async def _acquire(self, name: str, seed: int, label: str) -> KeiEngine:
        """An engine for ``name``'s next game: a kept one (seeded, ``newgame``) or a new one."""
        idle = self._idle.get(name, [])
        while idle:
            engine = idle.pop()
            if engine.returncode is not None:  # it died while kept
                await _close(engine)
                self._running.discard(engine)
                continue
            engine.trace = self._tracer(label)
            try:
                await self._configure(engine, name, self._seed_option(engine, name, seed))
                await engine.newgame()
            except EngineError:  # it broke while kept: start a new one
                await self._release(engine, keep=False)
                continue
            return engine
        return await self._start(name, seed, label)

    async def _release(self, engine: KeiEngine, name: str = "", keep: bool = True) -> None:
        """After a game: keep ``engine`` for ``name``'s next game, or end it."""
        if keep and name and not self._stopping and engine.returncode is None:
            self._idle.setdefault(name, []).append(engine)
            return
        self._running.discard(engine)
        if self._stopping:
            engine.kill_group()
            with contextlib.suppress(EngineError):
                await engine._kill()
        else:
            await _close(engine)

    async def _close_idle(self) -> None:
        """End every kept engine (at the end of the run)."""
        idle = [e for engines in self._idle.values() for e in engines]
        self._idle.clear()
        for engine in idle:
            await self._release(engine, keep=False)

    def _seed_option(self, engine: KeiEngine, name: str, seed: int) -> dict[str, object]:
        """``{"Seed": seed}`` when the engine declared a Seed the player does not set."""
        given = {k.lower() for k, _ in self.players[name].options}
        option = {k.lower(): v for k, v in engine.options.items()}.get("seed")
        if option is None or "seed" in given:
            return {}
        try:
            return {option.name: option.check(seed)}
        except ValueError:  # a seed the engine cannot take: its own default
            return {}

    def _player_options(self, engine: KeiEngine, name: str) -> dict[str, object]:
        """The player's options (and LimitStrength for a built-in level)."""
        spec = self.players[name]
        options: dict[str, object] = dict(spec.options)
        given = {k.lower() for k in options}
        strength = {k.lower(): v for k, v in engine.options.items()}.get("limitstrength")
        if spec.spec.startswith("level:") and strength is not None and (
            "limitstrength" not in given
        ):
            # a built-in level plays at its level, within the clocks
            options[strength.name] = "true"
        return options

    async def _configure(self, engine: KeiEngine, name: str, options: dict[str, object]) -> None:
        if options:
            try:
                await engine.configure(options)
            except ValueError as e:
                raise OptionsError(f"player {name!r}: {e}") from None

    async def _start(self, name: str, seed: int, label: str) -> KeiEngine:
        engine = await self._popen(name, label)
        try:
            options = self._player_options(engine, name)
            options.update(self._seed_option(engine, name, seed))
            await self._configure(engine, name, options)
            await engine.newgame()
        except BaseException:
            await self._release(engine, keep=False)
            raise
        return engine

    async def check_options(self) -> None:
        """Start each player with options once and check them against its declared options.

        An option the engine did not declare, or a value that does not fit,
        raises :class:`OptionsError`; an engine that cannot start raises
        :class:`BrokenPlayerError` (nothing, with ``forfeit_broken``).
        """
        for spec in self.config.players:
            if not spec.options:
                continue
            try:
                engine = await self._popen(spec.name, f"check {spec.name}")
            except EngineError as e:
                if self._stopping:
                    raise _Stopped from e
                if self.forfeit_broken:
                    continue
                raise BrokenPlayerError(spec.name, _one_line(str(e))) from e
            kept = False
            try:
                declared = {k.lower(): v for k, v in engine.options.items()}
                for key, value in spec.options:
                    option = declared.get(key.lower())
                    if option is None:
                        raise OptionsError(
                            f"player {spec.name!r}: its engine has no option {key!r}"
                            f" (it has: {', '.join(engine.options) or 'none'})"
                        )
                    try:
                        option.check(value)
                    except ValueError as e:
                        raise OptionsError(f"player {spec.name!r}: {e}") from None
                if self.restart != "on":  # set up, and kept for its first game
                    await self._configure(
                        engine, spec.name, self._player_options(engine, spec.name)
                    )
                    kept = True
            finally:
                await self._release(engine, spec.name, keep=kept)

    # -- playing ---------------------------------------------------------------

    def new_match(self, game: Game) -> Match:
        """The match a game starts from: the match type's start, or the game's opening."""
        target, series = parse_match_type(self.config.match)
        if game.opening:
            return opening_match(game.opening, target, series)
        return Match(target, series=series)

    async def play_game(self, game: Game) -> GameResult:
        """Play one game to the end (or an early end) and write its record."""
        match = self.new_match(game)
        config = self.config
        limit = config.limit()
        tc = config.time_control()
        margin = config.margin / 1000
        movetime = limit.time
        clocks = [tc.base / 1000, tc.base / 1000] if tc else None
        made = [0, 0]
        comments: dict[tuple[int, int], Comment] = {}  # each move's, for the record
        engines: list[KeiEngine | None] = [None, None]
        end: GameEnd | None = None
        loop = asyncio.get_running_loop()
        t0 = time.monotonic()
        side = 0
        timed = False  # whether the question in progress is under a clock or movetime
        allowed: float | None = None  # its seconds (clock or movetime), margin aside
        names = (game.black, game.gold)
        culprit: int | None = None  # the side whose engine broke down, if any
        settled = False  # the game came to an end (not cut off): its engines may be kept
        try:
            for side, name, seed in (
                (0, game.black, 2 * game.seed),
                (1, game.gold, 2 * game.seed + 1),
            ):
                label = f"game {game.number} {SIDE_NAMES[side]} {name}"
                try:
                    engines[side] = await self._acquire(name, seed % (SEED_MAX + 1), label)
                except EngineError as e:
                    if self._stopping:
                        raise _Stopped from e
                    if not self.forfeit_broken:
                        raise BrokenPlayerError(name, _one_line(str(e))) from e
                    reason = "crash" if isinstance(e, EngineTerminatedError) else "no answer"
                    end = GameEnd(1 - side, reason, _one_line(NOT_STARTED + str(e)))
                    break
            if end is None and self.on_start is not None:
                on_start, self.on_start = self.on_start, None
                on_start()
            while end is None and match.state != OVER:
                if self._stopping:
                    raise _Stopped
                if match.state == FILL:
                    side = match.current_winner()
                    engine = engines[side]
                    assert engine is not None
                    timed = clocks is not None
                    allowed = clocks[side] if clocks is not None else None
                    started = loop.time()
                    choice = await engine.fill(
                        match, timeout=config.timeout if allowed is None else allowed + margin
                    )
                    elapsed = loop.time() - started
                    if clocks is not None and allowed is not None:
                        self._charge(clocks, side, elapsed, margin, names[side], "fill")
                    match.choose_fill(choice)
                else:
                    side = match.position.turn
                    engine = engines[side]
                    assert engine is not None
                    clock = None
                    if clocks is not None and tc is not None:
                        clock = Clock(
                            round(clocks[0] * 1000),
                            round(clocks[1] * 1000),
                            tc.inc,
                            tc.inc,
                            tc.movestogo(made[side]),
                        )
                        allowed = clocks[side]
                    else:
                        allowed = movetime
                    timed = allowed is not None
                    started = loop.time()
                    answer = await engine.play(
                        match,
                        limit,
                        clock=clock,
                        timeout=config.timeout if allowed is None else allowed + margin,
                    )
                    elapsed = loop.time() - started
                    if clocks is not None and tc is not None:
                        self._charge(clocks, side, elapsed, margin, names[side], "move")
                        clocks[side] += tc.inc / 1000
                        made[side] += 1
                        if tc.moves and made[side] % tc.moves == 0:
                            clocks[side] += tc.base / 1000
                    elif movetime is not None and elapsed > movetime + margin:
                        raise _LostOnTime(
                            f"{names[side]} answered after {_ms(elapsed)}; movetime"
                            f" {_ms(movetime)} + margin {_ms(margin)}"
                        )
                    key = (len(match.rounds), len(match.current.moves) + 1)
                    comments[key] = _comment(answer.info, elapsed, clocks)
                    match.push_move(answer.move)
                self._show(game, match, clocks)
            settled = True
        except EngineError as e:
            if self._stopping:  # its engines were killed: no forfeit, no record
                raise _Stopped from e
            end, culprit = self._forfeit(e, side, timed, clocks, allowed, margin, names)
            settled = True
        except _LostOnTime as e:
            end, culprit = GameEnd(1 - side, "time", e.detail), side
            settled = True
        finally:
            if self.progress is not None:
                self.progress(game.number, None)
            for at, engine in enumerate(engines):
                if engine is not None:
                    keep = settled and (
                        self.restart == "off" or (self.restart == "auto" and at != culprit)
                    )
                    await self._release(engine, names[at], keep=keep)
        if self._stopping:  # stopped as the game ended: --resume plays it
            raise _Stopped
        extra = {
            "Event": f"kamisado tournament, {config.format}",
            "Game": str(game.number),
            "Seed": str(game.seed),
            "Time control": config.describe(),
            "Black engine": self.players[game.black].spec,
            "Gold engine": self.players[game.gold].spec,
        }
        for side_name, name in zip(SIDE_NAMES, names, strict=True):
            if self.players[name].options:
                extra[f"{side_name} options"] = " ".join(self.players[name].option_words())
        if game.opening:
            extra["Opening"] = game.opening
        rec = Record.new(
            match,
            black=game.black,
            gold=game.gold,
            date=datetime.date.today().isoformat(),
            end=end,
            **extra,
        )
        rec.comments.update(comments)
        _atomic_write(self.out / game.filename, write(rec))
        result = result_of_record(game, rec)
        result.seconds = time.monotonic() - t0
        return result

    @staticmethod
    def _forfeit(
        e: EngineError,
        side: int,
        timed: bool,
        clocks: list[float] | None,
        allowed: float | None,
        margin: float,
        names: tuple[str, str],
    ) -> tuple[GameEnd, int]:
        """How a game ends when ``side``'s engine failed with ``e`` (and that side)."""
        if isinstance(e, EngineTimeoutError):
            if timed:
                what = "on its clock" if clocks is not None else "of movetime"
                return GameEnd(
                    1 - side,
                    "time",
                    f"{names[side]} did not answer within {_ms(allowed or 0)} {what}"
                    f" + margin {_ms(margin)}; it was killed",
                ), side
            return GameEnd(1 - side, "no answer", _one_line(str(e))), side
        if isinstance(e, EngineTerminatedError):
            return GameEnd(1 - side, "crash", _one_line(str(e))), side
        return GameEnd(1 - side, "illegal move", _one_line(str(e))), side

    @staticmethod
    def _charge(
        clocks: list[float], side: int, elapsed: float, margin: float, name: str, what: str
    ) -> None:
        """Take ``elapsed`` off the clock: later than the clock plus the margin loses."""
        left = clocks[side] - elapsed
        if left < -margin:
            raise _LostOnTime(
                f"{name} answered its {what} after {_ms(elapsed)} with {_ms(clocks[side])}"
                f" on its clock + margin {_ms(margin)}"
            )
        clocks[side] = max(left, 0.0)

    def _show(self, game: Game, match: Match, clocks: list[float] | None) -> None:
        if self.progress is None:
            return
        moves = sum(len(r.moves) for r in match.rounds)
        text = f"game {game.number}: {moves} moves, {match.points[0]}-{match.points[1]}"
        if clocks is not None:
            text += f", {_clock_text(clocks[0])} {_clock_text(clocks[1])}"
        self.progress(game.number, text)

    async def run(self) -> None:
        """Play every game not finished yet, ``concurrency`` at a time.

        Returns early, without an error, after :meth:`request_stop`
        (:attr:`stopped` tells).
        """
        try:
            await self.check_options()
        except _Stopped:
            return
        self.out.mkdir(parents=True, exist_ok=True)
        pending = [g for g in self.games if g.number not in self.results]
        self.save_state()
        queue: asyncio.Queue[Game] = asyncio.Queue()
        for g in pending:
            queue.put_nowait(g)
        total = len(self.games)

        async def worker() -> None:
            while not self._stopping:
                try:
                    game = queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
                try:
                    result = await self.play_game(game)
                except _Stopped:
                    return
                self.results[game.number] = result
                self.save_state()
                self.log(result.summary(total))

        self._tasks = [
            asyncio.ensure_future(worker())
            for _ in range(min(self.concurrency, len(pending)) or 1)
        ]
        tasks = self._tasks
        if self._stopping:  # asked before the workers were there
            for task in tasks:
                task.cancel()
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            self._tasks = []
            await self._close_idle()
        for task in tasks:
            if not task.cancelled() and task.exception() is not None:
                raise task.exception()  # type: ignore[misc]

    # -- ratings -------------------------------------------------------------------

    def broken(self) -> set[str]:
        """The players whose engine could not start in some game (never rated)."""
        names = set()
        for r in self.results.values():
            if r.end.early and r.end.detail.startswith(NOT_STARTED):
                names.add(r.game.black if r.end.winner == 1 else r.game.gold)
        return names

    def results_list(self) -> list[tuple[str, str, float]]:
        """``(black, gold, score of black)`` for every finished game between rated players."""
        broken = self.broken()
        return [
            (r.game.black, r.game.gold, r.black_score)
            for _, r in sorted(self.results.items())
            if r.game.black not in broken and r.game.gold not in broken
        ]

    def table(self, anchor: str | None = None) -> str:
        """The cross table with Elo ratings and 95% error bars."""
        broken = self.broken()
        return format_table(
            self.results_list(),
            anchor=anchor,
            players=[p.name for p in self.config.players if p.name not in broken],
        )


def _comment(info: Info, elapsed: float, clocks: list[float] | None) -> Comment:
    """A move's comment for its record: the engine's last score and depth (as
    its ``info`` gave them), the seconds the move took and both clocks after it.

    >>> from kamisado.engine.limits import Score
    >>> _comment(Info(depth=7, score=Score("cp", -12)), 0.2504, [1.5, 2.0]).text()
    '-0.12/7 0.250s b=0:01.500 g=0:02.000'
    >>> _comment(Info(depth=3), 1.0, None).text()  # no score: no depth either
    '1.000s'
    """
    used = max(0, round(elapsed * 1000))
    both = None if clocks is None else (round(clocks[0] * 1000), round(clocks[1] * 1000))
    if info.score is not None:
        with contextlib.suppress(MalformedError):  # a score out of KEI's range: left out
            return Comment((info.score.kind, info.score.value), info.depth, used, both)
    return Comment(None, None, used, both)


def _one_line(text: str) -> str:
    return " ".join(text.split())


async def _close(engine: KeiEngine) -> None:
    try:
        await engine.quit(timeout=2.0)
    except asyncio.CancelledError:
        engine.kill_group()
        raise
