"""The engine side of KEI, the Kamisado Engine Interface (``kamisado engine``).

KEI is a line-based text protocol over standard input and output, modelled
on chess's UCI and specified with example sessions in ``docs/protocol.md``.
This module speaks it for the built-in engine::

    $ kamisado engine --level club
    kei
    id name Kamisado club
    id author the kamisado project
    id backend compiled
    option name Level type combo default club var beginner var novice ...
    option name Seed type spin default 0 min 0 max 2147483647
    keiok
    position startpos moves c1-c5
    go depth 3
    info depth 1 seldepth 1 score cp ... nodes ... nps ... time ... pv ...
    ...
    bestmove b8-b3

The searches run in a thread (a :class:`kamisado.engine.runner.Runner`: the
compiled search releases the GIL), so the engine answers ``isready`` and
``stop`` at once whatever the search is doing; ``stop`` sets the search's
stop flag, and the search answers with the best move of the last completed
depth (with ``MultiPV`` or ``searchmoves``: or the better move of the depth
cut short, written as a ``lowerbound`` line).  Every command that asks a question gets its answer, even on
an error: ``info string error: ...`` then ``bestmove none`` or
``fillchoice none``.  Unknown or malformed commands get an ``info string
error: ...`` line and change nothing.

Limits and scores are :class:`kamisado.engine.limits.Limit` and
:class:`kamisado.engine.limits.Score`, as in :mod:`kamisado.protocol.client`; the search is
the engine's own iterative deepening, which reports each finished depth.
Programs drive engines through :mod:`kamisado.protocol.client`.

This module holds the engine's state machine (:class:`Engine`: commands in,
answers out) and ``main``; the ``go`` command's parser and the time manager
are in :mod:`kamisado.protocol.kei_go`, the jobs that search in
:mod:`kamisado.protocol.kei_jobs`.
"""

from __future__ import annotations

import contextlib
import os
import queue
import sys
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import wait
from typing import IO, Any

from kamisado import __version__ as _version
from kamisado.engine import HASH_MIB_DEFAULT, HASH_MIB_MAX
from kamisado.engine._backend import BACKEND
from kamisado.engine.levels import LEVELS, SEED_MAX, MatchOracle
from kamisado.engine.limits import Limit
from kamisado.engine.runner import Runner
from kamisado.protocol.kei_go import (
    MAX_DEPTH,
    Overrun,
    clip,
    parse_go_command,
    quote,
)
from kamisado.protocol.kei_jobs import Deadline, _job, _Outbox, _Plan
from kamisado.rules.board import START_KPN, KamisadoError
from kamisado.rules.match import FILL, FILLS, OVER, PLAYING, Match
from kamisado.rules.position import Position

__all__ = [
    "AUTHOR",
    "DEFAULT_LEVEL",
    "MULTIPV_MAX",
    "PROTOCOL",
    "START_KPN",
    "OPTION_NAMES",
    "OVERRUN_PROBE_MS",
    "OVERRUN_SAMPLES",
    "STOP_WAIT",
    "THREADS_MAX",
    "Engine",
    "Limit",
    "main",
    "position_seed",
]

#: The handshake command (and the protocol's name).
PROTOCOL = "kei"
AUTHOR = "the kamisado project"
DEFAULT_LEVEL = "club"
#: The most lines ``MultiPV`` may ask for.
MULTIPV_MAX = 256
#: Seconds ``stop`` waits for the stopped job's answer (it comes within milliseconds).
STOP_WAIT = 2.0
#: The most threads a search may use (``Threads``): one (see docs/engine.md, Threads).
THREADS_MAX = 1
#: Searches the engine times before its first ``readyok`` to seed its reserve.
OVERRUN_SAMPLES = 3
#: The milliseconds of each of those searches.
OVERRUN_PROBE_MS = 5
#: The options ``kamisado engine`` declares, as ``setoption`` names them.
OPTION_NAMES = ("Level", "Seed", "MultiPV", "Hash", "Clear Hash", "Threads",
                "LimitStrength", "Ponder", "ProofStore")


def open_proof(where: str) -> MatchOracle | None:
    """The ``ProofStore`` option (``--proof-store``): the match proof store at
    ``where`` that ``perfect`` plays from (``kamisado.proving.play``), or
    ``None`` for an empty value.  A store that is not there raises ``ValueError``.

    >>> print(open_proof("<empty>"))
    None
    """
    if where in ("", "<empty>"):
        return None
    from kamisado.proving.play import open_oracle

    return open_oracle(where)


def position_seed(seed: int, pos: Position) -> int:
    """The seed a move in ``pos`` is chosen with: the ``Seed`` option and the position.

    The same engine seed always plays the same move in the same position, so
    every game replays from its seeds.

    >>> position_seed(1, Position()) == position_seed(1, Position())
    True
    >>> position_seed(1, Position()) != position_seed(2, Position())
    True
    """
    return zlib.crc32(f"{seed}:{pos.kpn()}".encode()) & SEED_MAX


# ---------------------------------------------------------------------------
# The engine: commands in, answers out
# ---------------------------------------------------------------------------


@dataclass
class _Job:
    kind: str  # "go", "fill" or "prepare"
    infinite: bool = False
    stopped: bool = False
    answer: str | None = None  # the job's answer, held during an infinite go
    best: str | None = None  # the first move of the last pv seen
    started: float = field(default_factory=time.monotonic)
    deadline: float | None = None  # answer with the best so far at this time
    due: Deadline = field(default_factory=Deadline)  # the answer's time, as the job sees it
    hash_mib: int = HASH_MIB_DEFAULT  # a set-up's table size
    ponder: bool = False  # until ponderhit (or stop)
    budget: float | None = None  # seconds to think after ponderhit
    best_line: str | None = None  # the last info line of the best move (multipv 1)
    after_best: bool = False  # other info lines came after best_line
    fallback: str | None = None  # the move to play when stopped before any pv


class Engine:
    """The engine's state and its command handlers (one line at a time).

    ``write`` receives every output line.  Jobs run in a thread (a
    :class:`~kamisado.engine.runner.Runner`); their messages wait in a queue and
    wake the loop of :meth:`run` through a pipe, which hands them to
    :meth:`on_worker`.

    ``clock`` (seconds, monotonic) times the ``go`` commands: their
    deadlines and the measured :attr:`overrun` that the engine keeps in
    reserve.  The set-up (:func:`kamisado.protocol.kei_jobs.prepare`: the
    tables, the solver's first use) starts with :meth:`run` and is waited
    for before ``readyok`` (and before a ``go``); :attr:`prepared` counts
    the set-ups done, and the Searcher's ``allocations`` the tables made.
    """

    def __init__(
        self, write: Callable[[str], None], level: str = DEFAULT_LEVEL, seed: int = 0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if level not in LEVELS:
            raise ValueError(f"expected a level ({', '.join(LEVELS)}), found {level!r}")
        self.write = write
        self.clock = clock
        self.overrun = Overrun()
        """The reserve: how late the timed answers came after they were planned."""
        self.prepared = 0
        """Set-ups done (tables made for the ``Hash`` of the time)."""
        self._prepared_for: int | None = None  # the Hash the tables were made for
        self._preparing: _Job | None = None  # the set-up running in the runner
        self.level = level
        self.seed = seed
        self.multipv = 1
        self.hash_mib = HASH_MIB_DEFAULT
        self.threads = 1
        self.limit_strength = False
        self.proof: MatchOracle | None = None  # ProofStore
        self.match = Match(1)
        self.job: _Job | None = None
        self._infinite_after_ponder = False
        self.runner = Runner()
        self.inbox: queue.SimpleQueue[tuple[int, str, str]] = queue.SimpleQueue()
        self.number = 0  # the job whose messages are read; others are dropped
        self._wake_read, self._wake_write = os.pipe()
        os.set_blocking(self._wake_read, False)
        os.set_blocking(self._wake_write, False)
        self.quit = False
        self.commands: dict[str, Callable[[list[str]], None]] = {
            "kei": self.cmd_kei,
            "isready": self.cmd_isready,
            "setoption": self.cmd_setoption,
            "newgame": self.cmd_newgame,
            "position": self.cmd_position,
            "go": self.cmd_go,
            "stop": self.cmd_stop,
            "ponderhit": self.cmd_ponderhit,
            "fill": self.cmd_fill,
            "show": self.cmd_show,
            "quit": self.cmd_quit,
        }

    # -- plumbing --------------------------------------------------------------

    def error(self, message: str) -> None:
        """Report a problem without changing anything."""
        self.write(f"info string error: {message}")

    def handle(self, line: str) -> None:
        """Carry out one command line."""
        words = line.split()
        if not words:
            return
        handler = self.commands.get(words[0])
        if handler is None:
            self.error(
                f"unknown command {quote(words[0])} (expected one of: {', '.join(self.commands)})"
            )
            return
        handler(words[1:])

    def _start(self, job: tuple[Any, ...]) -> None:
        """Run a job in the runner's thread (a stopped one is waited for first)."""
        self.number += 1
        out = _Outbox(self.number, self.inbox, self._wake_write, self.runner)
        self.runner.start(_job, out, job)

    def prepare(self) -> None:
        """Start the set-up for the ``Hash`` of now in the runner, unless done
        or running (:meth:`ready` waits for it)."""
        if self._prepared_for == self.hash_mib or self.job is not None:
            return
        if self._preparing is not None:
            return
        self._preparing = _Job("prepare", hash_mib=self.hash_mib)
        self.job = self._preparing
        self._start(("prepare", self.hash_mib, self.level))

    def ready(self) -> None:
        """Wait until the set-up for the ``Hash`` of now is done (started if
        needed); the first time, measure the overrun (:meth:`measure_overrun`)."""
        while self._prepared_for != self.hash_mib or self._preparing is not None:
            if self._preparing is None:
                if self.job is not None:  # a go or a fill: its own answer first
                    return
                self.prepare()
            self.runner.wait()
            self.on_worker()
        if not self.overrun.seen and self.job is None:
            self.measure_overrun()

    def measure_overrun(self, samples: int = OVERRUN_SAMPLES) -> None:
        """Seed the reserve before the first ``go``: ``samples`` searches of
        :data:`OVERRUN_PROBE_MS` each in the runner's thread, each taken in
        by :attr:`overrun` as late as this thread saw it end after it was
        planned (on a busy machine, threads wait for a CPU)."""
        from kamisado.engine import search

        start = Position()
        for _ in range(samples):
            planned = self.clock() + OVERRUN_PROBE_MS / 1000
            self.runner.start(search, start, limit=Limit(time=OVERRUN_PROBE_MS / 1000))
            self.runner.wait()
            self.overrun.observe((self.clock() - planned) * 1000)

    def _drop_job(self) -> None:
        """Stop the job and drop whatever it still sends."""
        self.runner.stop()
        self.number += 1

    def on_worker(self) -> None:
        """Read the job's messages that are waiting (call when the wake pipe is readable)."""
        with contextlib.suppress(OSError):  # BlockingIOError: read them all
            while os.read(self._wake_read, 4096):
                pass
        while True:
            try:
                number, kind, text = self.inbox.get_nowait()
            except queue.Empty:
                return
            if number == self.number:
                self._message(kind, text)

    def _message(self, kind: str, text: str) -> None:
        job = self.job
        if job is None:
            return
        if job.kind == "prepare":
            if kind == "error":  # reported; the first go makes its tables itself
                self.error(f"set-up: {text}")
            else:
                self.prepared += 1
            self._prepared_for = job.hash_mib
            self.job = self._preparing = None
            return
        if kind == "info":
            self.write(text)
            words = text.split()
            first = "multipv" not in words or words[words.index("multipv") + 1] == "1"
            if first and "pv" in words and words.index("pv") + 1 < len(words):
                job.best = words[words.index("pv") + 1]
                job.best_line, job.after_best = text, False
            else:
                job.after_best = True
        elif kind == "error":
            # still a move (or a fill) whenever there is one: the best so
            # far, else a one-ply search
            self.error(text)
            self._finish(job.answer or self._best_so_far(job))
        else:
            job.answer = text
            if not job.infinite or job.stopped:
                self._finish(text)

    def _finish(self, answer: str | None) -> None:
        job = self.job
        if job is None:
            return
        self.job = None
        if job.kind == "go":
            if job.after_best and job.best_line is not None:
                # the last info before bestmove is always the best move's line
                self.write(job.best_line)
            self.write(f"bestmove {answer or 'none'}")
            if job.due.at is not None and not job.infinite:
                # how late the answer came after it was planned: the reserve
                self.overrun.observe((self.clock() - job.due.at) * 1000)
        else:
            self.write(f"fillchoice {answer or 'none'}")

    def _busy(self, what: str) -> bool:
        if self.job is not None and self.job.kind == "prepare":
            self.ready()
        if self.job is not None:
            self.error(f"{what}: still thinking; send stop first")
            return True
        return False

    # -- commands ----------------------------------------------------------------

    def cmd_kei(self, args: list[str]) -> None:
        """``kei``: the handshake: ``id`` lines, ``option`` lines, ``keiok``."""
        self.write(f"id name Kamisado {self.level} {_version}")
        self.write(f"id author {AUTHOR}")
        self.write(f"id backend {BACKEND}")
        levels = " ".join(f"var {name}" for name in LEVELS)
        self.write(f"option name Level type combo default {self.level} {levels}")
        self.write(f"option name Seed type spin default {self.seed} min 0 max {SEED_MAX}")
        self.write(f"option name MultiPV type spin default 1 min 1 max {MULTIPV_MAX}")
        self.write(
            f"option name Hash type spin default {HASH_MIB_DEFAULT} min 1 max {HASH_MIB_MAX}"
        )
        self.write("option name Clear Hash type button")
        self.write(f"option name Threads type spin default 1 min 1 max {THREADS_MAX}")
        self.write("option name LimitStrength type check default false")
        self.write("option name Ponder type check default false")
        self.write("option name ProofStore type string default <empty>")
        self.write("keiok")

    def cmd_isready(self, args: list[str]) -> None:
        """``isready``: ``readyok`` once the set-up is done (the tables for the
        ``Hash`` of now, the solver's first use); at once while searching."""
        self.ready()
        self.write("readyok")

    def cmd_setoption(self, args: list[str]) -> None:
        """``setoption name NAME value VALUE`` (names case-insensitive);
        ``setoption name NAME`` for a button (``Clear Hash``)."""
        if self._busy("setoption"):
            return
        if len(args) < 2 or args[0] != "name":
            self.error("setoption: expected 'setoption name NAME value VALUE'")
            return
        if "value" not in args:
            name = " ".join(args[1:]).lower()
            if name == "clear hash":
                self.runner.searcher.clear_tables()
            else:
                self.error(
                    f"setoption {clip(name)}: expected 'setoption name NAME value VALUE'"
                    " (only the button Clear Hash takes no value)"
                )
            return
        at = args.index("value")
        name = " ".join(args[1:at]).lower()
        value = " ".join(args[at + 1 :])
        if name == "clear hash":
            self.error("setoption Clear Hash: a button takes no value")
            return
        if name == "level":
            if value not in LEVELS:
                self.error(
                    f"setoption Level: expected one of {', '.join(LEVELS)}, found {quote(value)}"
                )
                return
            self.level = value
        elif name == "seed":
            if not value.isdigit() or int(value) > SEED_MAX:
                self.error(
                    f"setoption Seed: expected a whole number 0..{SEED_MAX}, found {quote(value)}"
                )
                return
            self.seed = int(value)
        elif name == "multipv":
            if not (value.isascii() and value.isdigit()) or not 1 <= int(value) <= MULTIPV_MAX:
                self.error(
                    f"setoption MultiPV: expected a whole number 1..{MULTIPV_MAX}, found {quote(value)}"
                )
                return
            self.multipv = int(value)
        elif name == "hash":
            if not (value.isascii() and value.isdigit()) or not 1 <= int(value) <= HASH_MIB_MAX:
                self.error(
                    f"setoption Hash: expected a whole number of MiB 1..{HASH_MIB_MAX},"
                    f" found {quote(value)}"
                )
                return
            self.hash_mib = int(value)
        elif name == "threads":
            if value.isascii() and value.isdigit() and int(value) == 1:
                self.threads = 1
                return
            self.error(
                f"setoption Threads: this engine searches in one thread (1..{THREADS_MAX}:"
                f" a search with several would not replay from its seed), found {quote(value)}"
            )
            return
        elif name in ("limitstrength", "ponder"):
            if value.lower() not in ("true", "false"):
                self.error(f"setoption {name}: expected true or false, found {quote(value)}")
                return
            if name == "limitstrength":
                self.limit_strength = value.lower() == "true"
            # Ponder only tells the engine that the client may ponder: nothing to keep
        elif name == "proofstore":
            try:
                self.proof = open_proof(value)
            except ValueError as exc:
                self.error(f"setoption ProofStore: {exc}")
        else:
            self.error(
                f"setoption: unknown option {quote(name)} (options: {', '.join(OPTION_NAMES)})"
            )

    def cmd_newgame(self, args: list[str]) -> None:
        """``newgame``: forget the game and the tables (as ``Clear Hash``); the
        position is the start of a single round."""
        if self._busy("newgame"):
            return
        self.match = Match(1)
        self.runner.searcher.clear_tables()

    def cmd_position(self, args: list[str]) -> None:
        """``position (startpos | kpn KPN) [moves TOKEN...]``; tokens may be ``left``/``right``."""
        if self._busy("position"):
            return
        if not args:
            self.error("position: expected 'startpos' or 'kpn KPN', found nothing")
            return
        rest = args[1:]
        if "moves" in rest:
            at = rest.index("moves")
            head, tokens = rest[:at], rest[at + 1 :]
        else:
            head, tokens = rest, []
        if args[0] == "startpos":
            if head:
                self.error(f"position startpos: unexpected {quote(' '.join(head))}")
                return
            kpn = START_KPN
        elif args[0] == "kpn":
            kpn = " ".join(head)
        else:
            self.error(f"position: expected 'startpos' or 'kpn', found {quote(args[0])}")
            return
        try:
            start = Position(kpn)
            match = Match(start.target, start=start)
            for token in tokens:
                try:
                    match.apply(token)
                except KamisadoError as e:
                    raise KamisadoError(f"move {quote(token)}: {e}") from None
        except KamisadoError as e:
            self.error(f"position: {clip(str(e))}")
            return
        self.match = match

    def cmd_go(self, args: list[str]) -> None:
        """``go [movetime MS] [depth N] [nodes N] [infinite] [btime MS] [gtime MS]
        [binc MS] [ginc MS] [movestogo N] [ponder] [searchmoves MOVE...]``:
        answered by ``bestmove``."""
        started = self.clock()  # the go's time starts when it is read
        if self._busy("go"):
            return
        self.ready()  # a go without isready first: the set-up counts in its time
        try:
            go = parse_go_command(args)
        except ValueError as e:
            self.error(str(e))
            self.write("bestmove none")
            return
        match = self.match
        if match.state != PLAYING:
            what = (
                "the match is over"
                if match.state == OVER
                else "the round is over (ask fill)"
            )
            self.error(f"go: {what}")
            self.write("bestmove none")
            return
        pos = match.position
        try:
            budget_ms = go.budget(pos.turn, self.overrun.ms)
        except ValueError as e:
            self.error(str(e))
            self.write("bestmove none")
            return
        if go.limit.win is not None and go.searchmoves:
            self.error("go: win and searchmoves do not go together (the solver sees every move)")
            self.write("bestmove none")
            return
        legal = {str(m) for m in pos.legal_moves}
        wrong = [m for m in go.searchmoves if m not in legal]
        if wrong:
            self.error(f"go searchmoves: {clip(', '.join(wrong))}: not legal in this position")
            self.write("bestmove none")
            return
        limit = go.limit
        # the search's own time: movetime less the reserve (the measured
        # overrun), or the time manager's (which keeps the reserve too)
        times = []
        if limit.movetime is not None:
            times.append(max(limit.movetime - self.overrun.reserve(limit.movetime), 1.0))
        if budget_ms is not None:
            times.append(float(budget_ms))
        think = min(times) / 1000 if times else None
        hard = go.hard_limit(pos.turn) if go.clocks else None
        level = go.bare or (
            self.limit_strength and go.clocks and not limit.any
            and not go.ponder and not go.searchmoves
        )
        job = _Job("go", infinite=limit.infinite or go.ponder, ponder=go.ponder,
                   started=started, due=Deadline(self.clock))
        if think is not None and not go.ponder and not limit.infinite:
            job.due.at = started + think
        if go.searchmoves:
            job.fallback = go.searchmoves[0]
        if level:
            plan = _Plan(level=True)
            if think is not None:
                job.deadline = job.started + think
        elif go.ponder:
            # ponder without a clock: the clock starts at ponderhit
            job.budget = think
            depth = limit.depth or (None if limit.nodes or limit.win else MAX_DEPTH)
            plan = _Plan(
                limit=Limit(depth=depth, nodes=limit.nodes),
                multipv=self.multipv,
                searchmoves=go.searchmoves,
                hash_mib=self.hash_mib,
                win=limit.win,
                deadline=job.due,
            )
        else:
            depth = limit.depth or (None if limit.win else MAX_DEPTH)
            plan = _Plan(
                limit=Limit(time=think, depth=depth, nodes=limit.nodes),
                multipv=self.multipv,
                searchmoves=go.searchmoves,
                hash_mib=self.hash_mib,
                win=limit.win,
                deadline=job.due,
            )
            if hard is not None and not limit.infinite:
                job.deadline = job.started + hard / 1000
            if job.due.at is not None:
                # stopped at its planned time should the search not see it
                job.deadline = min(job.deadline or job.due.at, job.due.at)
        self.job = job
        seed = position_seed(self.seed, pos)
        self._start(("go", pos.copy(stack=False), plan, self.level, seed, self.proof))
        self._infinite_after_ponder = limit.infinite

    def cmd_ponderhit(self, args: list[str]) -> None:
        """``ponderhit``: the expected move was played; think on with the clock of ``go ponder``."""
        job = self.job
        if job is None or not job.ponder:
            self.error("ponderhit: not pondering")
            return
        job.ponder = False
        job.infinite = self._infinite_after_ponder
        if job.infinite:
            return
        if job.answer is not None:
            self._finish(job.answer)
        elif job.budget is not None:
            job.deadline = job.due.at = self.clock() + job.budget

    def cmd_fill(self, args: list[str]) -> None:
        """``fill``: the round's winner chooses; answered by ``fillchoice left|right``."""
        if self._busy("fill"):
            return
        if args:
            self.error(f"fill: takes no arguments, found {quote(' '.join(args))}")
            self.write("fillchoice none")
            return
        if self.match.state != FILL:
            self.error("fill: no round of an unfinished match has just ended")
            self.write("fillchoice none")
            return
        self.job = _Job("fill")
        seed = position_seed(self.seed, self.match.position)
        self._start(("fill", self.match, self.level, seed, self.proof))

    def cmd_stop(self, args: list[str]) -> None:
        """``stop``: answer now with the best move so far (nothing happens when idle)."""
        job = self.job
        if job is None or job.kind == "prepare":
            return
        job.stopped = True
        self.on_worker()  # an answer may be waiting already
        if self.job is not job:
            return
        if job.answer is not None:
            self._finish(job.answer)
            return
        # the stop flag: the job's searches end at once, and it answers
        self.runner.stop()
        if self.runner.wait(STOP_WAIT):
            self.on_worker()
            if self.job is not job:
                return
            if job.answer is not None:
                self._finish(job.answer)
                return
        self._drop_job()  # no answer: the best so far
        self._finish(self._best_so_far(job))

    def _best_so_far(self, job: _Job) -> str | None:
        """What to answer when the job gives nothing more: for a fill a
        fixed choice, for a move the best move so far, else a one-ply search
        (instant); ``None`` only when the position has no move."""
        if job.kind == "fill":
            return FILLS[self.seed % 2]
        best = job.best or job.fallback
        if best is None and self.match.state == PLAYING:
            from kamisado.engine import search

            res = search(self.match.position, limit=Limit(depth=1))
            best = str(res.best_move) if res.best_move else None
        return best

    def cmd_show(self, args: list[str]) -> None:
        """``show``: the position as ``info string`` lines (for people debugging)."""
        m = self.match
        self.write(f"info string position kpn {m.position.kpn()}")
        self.write(f"info string state {m.state} points {m.points[0]} {m.points[1]}")

    def cmd_quit(self, args: list[str]) -> None:
        """``quit``: stop the job and exit."""
        self.quit = True

    # -- the loop ------------------------------------------------------------------

    def run(self, fd: int = 0) -> int:
        """Read commands from file descriptor ``fd`` until ``quit`` or end of input."""
        buffer = b""
        self.prepare()  # the set-up, while the client sends its handshake
        try:
            while not self.quit:
                deadline = None if self.job is None else self.job.deadline
                timeout = None if deadline is None else max(0.0, deadline - self.clock())
                ready = wait([fd, self._wake_read], timeout)
                if self._wake_read in ready:
                    self.on_worker()
                job = self.job
                if job is not None and job.deadline is not None and (
                    self.clock() >= job.deadline
                ):
                    self.cmd_stop([])  # out of time: the best move so far
                if fd not in ready:
                    continue
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                buffer += chunk
                while b"\n" in buffer and not self.quit:
                    raw, buffer = buffer.split(b"\n", 1)
                    self.handle(raw.decode("utf-8", "replace").strip())
        finally:
            self._drop_job()
            if self.runner.wait(STOP_WAIT):  # (a job still running may write to the pipe)
                for end in (self._wake_read, self._wake_write):
                    with contextlib.suppress(OSError):
                        os.close(end)
        return 0


def _writer(stream: IO[str]) -> Callable[[str], None]:
    def write(line: str) -> None:
        stream.write(line + "\n")
        stream.flush()

    return write


def main(argv: Sequence[str] | None = None) -> int:
    """``kamisado engine [--level NAME] [--seed N] [--proof-store PATH_OR_URL]``:
    speak KEI on stdin/stdout."""
    from kamisado.args import Parser, int_between, silence_stdout

    p = Parser(
        prog="kamisado engine",
        description="Speak the Kamisado Engine Interface (KEI, see docs/protocol.md)"
        " on standard input and output.",
    )
    p.add_argument(
        "--level", default=DEFAULT_LEVEL, choices=list(LEVELS), help="how plain 'go' plays"
    )
    p.add_argument("--seed", type=int_between(0, SEED_MAX), default=0,
                   help=f"the Seed option (0..{SEED_MAX}, default 0)")
    p.add_argument("--proof-store", default="", metavar="PATH_OR_URL",
                   help="the ProofStore option: a match proof store perfect plays from")
    args = p.parse_args(argv)
    try:
        proof = open_proof(args.proof_store)
    except ValueError as exc:
        p.error(f"--proof-store: {exc}")
    engine = Engine(_writer(sys.stdout), args.level, args.seed)
    engine.proof = proof
    try:
        return engine.run(sys.stdin.fileno())
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the other side went away: nothing more to say
        silence_stdout()
        return 0


if __name__ == "__main__":  # pragma: no cover
    from kamisado.args import quiet_pipe

    sys.exit(quiet_pipe(lambda: main(sys.argv[1:])))
