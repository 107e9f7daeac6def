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
engine processes are held by :mod:`kamisado.protocol.tournament_engines`;
a game's clocks, forfeits, resignations and record headers are
:mod:`kamisado.protocol.tournament_game`; the results and the files of the
output directory are in :mod:`kamisado.protocol.tournament_results`; the
command line is :mod:`kamisado.protocol.tournament_cli`.
"""

from __future__ import annotations

import asyncio
import datetime
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TextIO

from kamisado.engine import Searcher, SolveResult
from kamisado.engine.levels import SEED_MAX
from kamisado.engine.limits import Score
from kamisado.protocol.client import Clock, EngineError, EngineTerminatedError, KeiEngine
from kamisado.protocol.elo import SPRT, format_table
from kamisado.protocol.tournament_config import (
    Config,
    Game,
    opening_match,
    parse_match_type,
    schedule,
    swiss_bye,
    swiss_games_per_round,
    swiss_round,
    swiss_rounds,
)
from kamisado.protocol.tournament_engines import (
    NOT_STARTED,
    RESTARTS,
    BrokenPlayerError,
    EnginePool,
    Stopped,
    one_line,
)
from kamisado.protocol.tournament_game import (
    LostOnTime,
    charge,
    clock_text,
    comment,
    forfeit,
    headers,
    ms,
    resign,
)
from kamisado.protocol.tournament_results import (
    GameResult,
    _atomic_write,
    read_state,
    result_of_record,
    write_state,
)
from kamisado.rules.board import SIDE_NAMES, KamisadoError
from kamisado.rules.match import FILL, OVER, Match
from kamisado.rules.record import Comment, GameEnd, Record, load, write

__all__ = ["STOP_WITHIN", "Tournament"]

#: Seconds a stop (Ctrl-C, SIGTERM) takes at most to end the run, its engines
#: killed and its output printed: engines are killed at once, not asked to quit.
STOP_WITHIN = 2.0

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
        rating_interval: int = 0,
        anchor: str | None = None,
    ) -> None:
        config.check()
        if restart not in RESTARTS:
            raise ValueError(f"restart: expected one of {', '.join(RESTARTS)}, found {restart!r}")
        self.config = config
        self.out = out
        self.concurrency = max(1, concurrency)
        self.log = log
        self.players = {p.name: p for p in config.players}
        #: The games scheduled so far (a Swiss tournament's grow round by round).
        self.games = schedule(config)
        #: How many games the whole tournament has.
        self.total = (
            swiss_rounds(config) * swiss_games_per_round(config)
            if config.format == "swiss"
            else len(self.games)
        )
        #: A Swiss tournament's byes so far, one per round with an odd number of players.
        self.byes: list[str] = []
        self._rounds = 1  # Swiss rounds paired so far
        self.results: dict[int, GameResult] = {}
        #: The SPRT (``--sprt``) and its verdict once decided (``'H0'``, ``'H1'``).
        self.sprt = SPRT.parse(config.sprt) if config.sprt else None
        self.verdict: str | None = None
        #: Print the table every this many finished games (0: only at the end).
        self.rating_interval = rating_interval
        #: The player rated at 0 in the tables (``None``: the mean is 0).
        self.anchor = anchor
        #: A player that cannot start forfeits its games (and is not rated)
        #: instead of stopping the run with :class:`BrokenPlayerError`.
        self.forfeit_broken = forfeit_broken
        #: ``progress(game, line)`` during a game, ``progress(game, None)`` after it.
        self.progress = progress
        #: When an engine is started afresh (see :data:`RESTARTS`).
        self.restart = restart
        #: Called once, when the first game's engines have both started.
        self.on_start = on_start
        #: How many engine processes were started (handshake done).
        self._stopping = False
        #: The engine processes, kept between games as ``restart`` says.
        self.engines = EnginePool(
            self.players,
            timeout=config.timeout,
            stopping=lambda: self._stopping,
            stderr=engine_stderr,
            debug=debug,
            restart=restart,
        )
        self._tasks: list[asyncio.Task[None]] = []
        self._solvers: set[Searcher] = set()  # the adjudicators of the games in progress
        self._solver_pool: list[Searcher] = []  # adjudicators between games
        self._used_solvers: set[Searcher] = set()  # those whose table this game used

    # -- stopping -----------------------------------------------------------

    @property
    def stopped(self) -> bool:
        """Whether :meth:`request_stop` was called (not counting an SPRT's end)."""
        return self._stopping and self.verdict is None

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
        for solver in list(self._solvers):
            solver.stop()
        self.engines.kill_all()
        for task in self._tasks:
            task.cancel()

    def kill_engines(self) -> None:
        """SIGKILL every engine's process group now, without waiting for anything.

        Plain system calls only, so that a signal handler may call it (a
        second Ctrl-C or SIGTERM); an engine still starting is killed by
        the start itself once it sees the stop
        (:meth:`~kamisado.protocol.tournament_engines.EnginePool.popen`).
        """
        self.engines.kill_all()

    def abandon(self) -> None:
        """The stop's deadline passed (:data:`STOP_WITHIN`): kill every engine's
        group again and stop waiting for their pipes, which a process that
        left its group may still hold open."""
        self._stopping = True
        self.kill_engines()
        self.engines.abandon_pipes()
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
        """Read finished games back from their records (a missing or broken one is replayed).

        A Swiss tournament's rounds are paired again from the results read
        back, round by round, as they were paired when played.
        """
        numbers = set(numbers)
        self._load(numbers, self.games, seconds or {})
        while (
            self.config.format == "swiss"
            and self._rounds < swiss_rounds(self.config)
            and all(g.number in self.results for g in self.games)
        ):
            before = len(self.games)
            self._pair_next()
            self._load(numbers, self.games[before:], seconds or {})

    def _load(self, numbers: set[int], games: list[Game], seconds: dict[int, float]) -> None:
        for game in games:
            n = game.number
            if n not in numbers:
                continue
            path = self.out / game.filename
            try:
                result = result_of_record(game, load(path))
            except (OSError, KamisadoError) as e:
                self.log(f"game {n}: {e}; it will be played again")
                continue
            result.seconds = seconds.get(n, 0.0)
            self.results[n] = result

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
        solver: Searcher | None = None
        if config.adjudicate_proven is not None:
            # a solver with a table of the game's own (emptied before its first
            # proof), so that no game's adjudication depends on another's
            solver = self._solver_pool.pop() if self._solver_pool else Searcher()
            solver.resume()
            self._solvers.add(solver)
            self._used_solvers.discard(solver)
        streaks = [[0, 0], [0, 0]]  # per side: its moves in a row scored losing, winning
        try:
            for side, name, seed in (
                (0, game.black, 2 * game.seed),
                (1, game.gold, 2 * game.seed + 1),
            ):
                label = f"game {game.number} {SIDE_NAMES[side]} {name}"
                try:
                    engines[side] = await self.engines.acquire(name, seed % (SEED_MAX + 1), label)
                except EngineError as e:
                    if self._stopping:
                        raise Stopped from e
                    if not self.forfeit_broken:
                        raise BrokenPlayerError(name, one_line(str(e))) from e
                    reason = "crash" if isinstance(e, EngineTerminatedError) else "no answer"
                    end = GameEnd(1 - side, reason, one_line(NOT_STARTED + str(e)))
                    break
            if end is None and self.on_start is not None:
                on_start, self.on_start = self.on_start, None
                on_start()
            while end is None and match.state != OVER:
                if self._stopping:
                    raise Stopped
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
                        charge(clocks, side, elapsed, margin, names[side], "fill")
                    match.choose_fill(choice)
                else:
                    if solver is not None:
                        end = await self._prove(match, solver)
                        if end is not None:
                            break
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
                        charge(clocks, side, elapsed, margin, names[side], "move")
                        clocks[side] += tc.inc / 1000
                        made[side] += 1
                        if tc.moves and made[side] % tc.moves == 0:
                            clocks[side] += tc.base / 1000
                    elif movetime is not None and elapsed > movetime + margin:
                        raise LostOnTime(
                            f"{names[side]} answered after {ms(elapsed)}; movetime"
                            f" {ms(movetime)} + margin {ms(margin)}"
                        )
                    key = (len(match.rounds), len(match.current.moves) + 1)
                    comments[key] = comment(answer.info, elapsed, clocks)
                    match.push_move(answer.move)
                    if config.resign_score is not None and match.state != OVER:
                        end = self._resign(match, streaks, side, answer.info.score, names)
                self._show(game, match, clocks)
            settled = True
        except EngineError as e:
            if self._stopping:  # its engines were killed: no forfeit, no record
                raise Stopped from e
            end, culprit = forfeit(e, side, timed, clocks, allowed, margin, names)
            settled = True
        except LostOnTime as e:
            end, culprit = GameEnd(1 - side, "time", e.detail), side
            settled = True
        finally:
            if solver is not None:
                self._solvers.discard(solver)
                if not self._stopping:
                    self._solver_pool.append(solver)
            if self.progress is not None:
                self.progress(game.number, None)
            for at, engine in enumerate(engines):
                if engine is not None:
                    keep = settled and (
                        self.restart == "off" or (self.restart == "auto" and at != culprit)
                    )
                    await self.engines.release(engine, names[at], keep=keep)
        if self._stopping:  # stopped as the game ended: --resume plays it
            raise Stopped
        rec = Record.new(
            match,
            black=game.black,
            gold=game.gold,
            date=datetime.date.today().isoformat(),
            end=end,
            **headers(config, game, self.players),
        )
        rec.comments.update(comments)
        _atomic_write(self.out / game.filename, write(rec))
        result = result_of_record(game, rec)
        result.seconds = time.monotonic() - t0
        return result

    async def _prove(self, match: Match, solver: Searcher) -> GameEnd | None:
        """The proven end of a round that decides the match (``--adjudicate-proven``), if any."""
        deciding = [match.points[w] + 1 >= match.target for w in (0, 1)]
        if not any(deciding):
            return None
        ms = self.config.adjudicate_proven
        assert ms is not None
        if self._stopping:
            raise Stopped
        clear = solver not in self._used_solvers
        self._used_solvers.add(solver)

        def prove() -> SolveResult:
            if clear:
                solver.clear_tables()
            return solver.solve(match.position, ms / 1000, exact=False, pv=False)

        result = await asyncio.to_thread(prove)
        if self._stopping:
            raise Stopped
        winner = result.winner
        if winner is None or not deciding[winner]:
            return None
        return GameEnd(
            winner,
            "adjudication",
            f"proven: {SIDE_NAMES[winner]} wins with best play (solver,"
            f" {result.seconds * 1000:.0f} ms, {result.nodes} nodes)",
        )

    def _resign(
        self,
        match: Match,
        streaks: list[list[int]],
        side: int,
        score: Score | None,
        names: tuple[str, str],
    ) -> GameEnd | None:
        """The resign rule (:func:`~kamisado.protocol.tournament_game.resign`) with
        the configured ``resign_score`` and ``resign_moves``."""
        limit, moves = self.config.resign_score, self.config.resign_moves
        assert limit is not None and moves is not None
        return resign(match, streaks, side, score, names, limit, moves)

    def _show(self, game: Game, match: Match, clocks: list[float] | None) -> None:
        if self.progress is None:
            return
        moves = sum(len(r.moves) for r in match.rounds)
        text = f"game {game.number}: {moves} moves, {match.points[0]}-{match.points[1]}"
        if clocks is not None:
            text += f", {clock_text(clocks[0])} {clock_text(clocks[1])}"
        self.progress(game.number, text)

    async def run(self) -> None:
        """Play every game not finished yet, ``concurrency`` at a time.

        A Swiss tournament plays round by round, each paired from the
        results before it.  Returns early, without an error, after
        :meth:`request_stop` (:attr:`stopped` tells) or once the SPRT
        decided (:attr:`verdict`).
        """
        try:
            await self.engines.check_options(self.forfeit_broken)
        except Stopped:
            return
        self.out.mkdir(parents=True, exist_ok=True)
        self.save_state()
        try:
            self._decide()
            while not self._stopping:
                pending = [g for g in self.games if g.number not in self.results]
                if pending:
                    await self._play(pending)
                if not self._next_round():
                    break
        finally:
            await self.engines.close_idle(at_once=self.stopped)

    def _next_round(self) -> bool:
        """Pair a Swiss tournament's next round when the last one is over (``False``: none)."""
        if self.config.format != "swiss" or self._stopping:
            return False
        if any(g.number not in self.results for g in self.games):
            return False  # a game of this round is missing (it broke): not paired on
        if self._rounds >= swiss_rounds(self.config):
            return False
        self._pair_next()
        return True

    def _pair_next(self) -> None:
        """Add the next Swiss round's games (and note the last round's bye)."""
        played = self._played()
        bye = swiss_bye(self.config, played, self.byes)
        if bye is not None:
            self.byes.append(bye)
        self._rounds += 1
        self.games += swiss_round(self.config, self._rounds, played, self.byes)

    def _played(self) -> list[tuple[str, str, float]]:
        """``(black, gold, score of black)`` of every finished game, in game order."""
        return [
            (r.game.black, r.game.gold, r.black_score) for _, r in sorted(self.results.items())
        ]

    async def _play(self, pending: list[Game]) -> None:
        """Play ``pending``, ``concurrency`` games at a time."""
        queue: asyncio.Queue[Game] = asyncio.Queue()
        for g in pending:
            queue.put_nowait(g)

        async def worker() -> None:
            while not self._stopping:
                try:
                    game = queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
                try:
                    result = await self.play_game(game)
                except Stopped:
                    return
                self.results[game.number] = result
                self.save_state()
                self.log(result.summary(self.total))
                self._report()

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
        for task in tasks:
            if not task.cancelled() and task.exception() is not None:
                raise task.exception()  # type: ignore[misc]

    # -- reports -----------------------------------------------------------------

    def sprt_counts(self) -> tuple[int, int, int]:
        """``(losses, draws, wins)`` of the first player against the second, so far."""
        first = self.config.players[0].name
        counts = [0, 0, 0]
        for r in self.results.values():
            score = r.black_score if r.game.black == first else 1.0 - r.black_score
            counts[int(score * 2)] += 1
        return counts[0], counts[1], counts[2]

    def sprt_line(self) -> str:
        """The SPRT's status: the LLR, the bounds and the verdict once decided."""
        assert self.sprt is not None
        losses, draws, wins = self.sprt_counts()
        names = [p.name for p in self.config.players]
        return (
            f"{self.sprt.line(self.sprt.llr((losses, draws, wins)))}"
            f" ({names[0]} vs {names[1]}: {wins} won, {draws} drawn, {losses} lost)"
        )

    def sprt_decided(self) -> bool:
        """Whether the SPRT accepted a hypothesis with the games finished so far."""
        return self._decide(stop=False)

    def _decide(self, stop: bool = True) -> bool:
        """Whether the SPRT has decided (noting its verdict); a decision stops the run."""
        if self.sprt is None:
            return False
        if self.verdict is None:
            self.verdict = self.sprt.verdict(self.sprt.llr(self.sprt_counts()))
        if self.verdict is not None and stop and not self._stopping:
            self._conclude()
        return self.verdict is not None

    def _conclude(self) -> None:
        """End the run once the SPRT decided: the games in progress are dropped
        (their engines killed, as on a stop), the engines kept between games quit."""
        self._stopping = True
        for solver in list(self._solvers):
            solver.stop()
        self.engines.kill_busy()
        for task in self._tasks:
            if task is not asyncio.current_task():
                task.cancel()

    def _report(self) -> None:
        """After a game: the SPRT's line, and the table every ``rating_interval`` games."""
        if self.sprt is not None and self.verdict is None:
            self._decide()
            self.log(self.sprt_line())
        if self.rating_interval and len(self.results) % self.rating_interval == 0:
            self.log(
                f"\nafter {len(self.results)} of {self.total} games:\n"
                + self.table(self.anchor)
                + "\n"
            )

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
