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

The searches run in a worker process, so the engine answers ``isready`` and
``stop`` at once whatever the search is doing (the compiled search holds the
GIL); ``stop`` ends the worker and answers with the best move of the last
completed depth.  Every command that asks a question gets its answer, even on
an error: ``info string error: ...`` then ``bestmove none`` or
``fillchoice none``.  Unknown or malformed commands get an ``info string
error: ...`` line and change nothing.

Limits and scores are :class:`kamisado.limits.Limit` and
:class:`kamisado.limits.Score`, as in :mod:`kamisado.client`; the search is
the engine's own iterative deepening, which reports each finished depth.
Programs drive engines through :mod:`kamisado.client`.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import IO, Any

from kamisado import __version__ as _version
from kamisado._backend import BACKEND
from kamisado.core import START_KPN, KamisadoError, Move, Position
from kamisado.limits import Limit, Score
from kamisado.match import FILL, FILLS, OVER, PLAYING, Match
from kamisado.players import LEVELS, SEED_MAX

__all__ = [
    "AUTHOR",
    "DEFAULT_LEVEL",
    "MAX_DEPTH",
    "PROTOCOL",
    "START_KPN",
    "Engine",
    "Limit",
    "Limits",
    "format_info",
    "main",
    "parse_go",
    "position_seed",
]

#: The handshake command (and the protocol's name).
PROTOCOL = "kei"
AUTHOR = "the kamisado project"
DEFAULT_LEVEL = "club"
#: The deepest iteration the search is asked for.
MAX_DEPTH = 100
#: Milliseconds kept back from ``movetime`` for the answer to travel.
MOVE_OVERHEAD_MS = 10.0
#: The largest movetime or nodes of a ``go`` (the search's node limit).
_GO_NUMBER_MAX = 2**63 - 1


def Limits(
    movetime: int | None = None,
    depth: int | None = None,
    nodes: int | None = None,
    infinite: bool = False,
) -> Limit:
    """The :class:`Limit` of ``go`` arguments, ``movetime`` in milliseconds.

    None at all means "play at your level".

    >>> Limits(movetime=200, nodes=5) == Limit(time=0.2, nodes=5)
    True
    """
    time = None if movetime is None else movetime / 1000
    return Limit(time=time, depth=depth, nodes=nodes, infinite=infinite)


def parse_go(words: Sequence[str]) -> Limit:
    """Read the arguments of ``go``.

    >>> parse_go(["movetime", "200", "depth", "6"])
    Limit(time=0.2, depth=6, nodes=None, infinite=False)
    >>> parse_go(["depth", "x"])
    Traceback (most recent call last):
    ...
    ValueError: go depth: expected a whole number from 1, found 'x'
    >>> parse_go(["nodes", "9" * 20])
    Traceback (most recent call last):
    ...
    ValueError: go nodes: at most 9223372036854775807, found 99999999999999999999
    """
    given: dict[str, Any] = {}
    i = 0
    while i < len(words):
        word = words[i]
        if word == "infinite":
            given["infinite"] = True
            i += 1
            continue
        if word not in ("movetime", "depth", "nodes"):
            raise ValueError(
                f"go: unknown limit {word!r} (expected movetime, depth, nodes or infinite)"
            )
        if i + 1 >= len(words):
            raise ValueError(f"go {word}: expected a number after it, found nothing")
        text = words[i + 1]
        # ASCII digits only: str.isdigit() also takes '²' and '١'
        if not (text.isascii() and text.isdigit()) or not text.strip("0"):
            raise ValueError(f"go {word}: expected a whole number from 1, found {text!r}")
        digits = text.lstrip("0")
        most = MAX_DEPTH if word == "depth" else _GO_NUMBER_MAX
        if len(digits) > len(str(most)) or int(digits) > most:
            raise ValueError(f"go {word}: at most {most}, found {digits}")
        given[word] = int(digits)
        i += 2
    return Limits(**given)


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
# The worker process: searches and level play
# ---------------------------------------------------------------------------


def format_info(info: dict[str, Any]) -> str:
    """An ``info`` line from a dict of depth, seldepth, score, nodes, nps, time, pv.

    The score is a :class:`Score` (a ``(kind, value)`` pair is read as one).

    >>> format_info({"depth": 2, "score": ("cp", 14), "nodes": 30, "pv": ["c1-c5"]})
    'info depth 2 score cp 14 nodes 30 pv c1-c5'
    >>> format_info({"depth": 9, "score": Score("win", 3)})
    'info depth 9 score win 3'
    """
    parts = ["info"]
    for key in ("depth", "seldepth"):
        if key in info:
            parts += [key, str(info[key])]
    if "score" in info:
        score = info["score"]
        if not isinstance(score, Score):
            score = Score(*score)
        parts += ["score", str(score)]
    for key in ("nodes", "nps", "time"):
        if key in info:
            parts += [key, str(info[key])]
    if info.get("pv"):
        parts += ["pv", *info["pv"]]
    return " ".join(parts)


def _complete_pv(pos: Position, pv: list[Move]) -> list[Move]:
    """A proven line cut short by the transposition table, finished by the solver."""
    from kamisado.engine import solve

    q = pos.copy(stack=False)
    for m in pv:
        if q.outcome is not None or not q.is_legal(m):
            return pv
        q.push(m)
    if q.outcome is not None:
        return pv
    rest = solve(q, limit=Limit(time=0.1))
    return pv + list(rest.pv) if rest.winner is not None else pv


def _search_job(conn: Connection, pos: Position, limits: Limit, seed: int) -> str | None:
    """One search of the engine, an ``info`` after each depth it finishes.

    The search stops by itself at the limits, or once it proves a result
    that ends the match within its depth (the engine's one rule).
    """
    from kamisado.engine import Iteration, search

    start = time.monotonic()
    time_s = None
    if limits.movetime is not None:
        time_s = max(limits.movetime - MOVE_OVERHEAD_MS, 1.0) / 1000
    limit = Limit(time=time_s, depth=limits.depth or MAX_DEPTH, nodes=limits.nodes)
    best: str | None = None

    def report(it: Iteration) -> None:
        nonlocal best
        moves = list(it.pv)
        score = it.value
        if score.is_proven and len(moves) < score.value:
            moves = _complete_pv(pos, moves)
        pv = [str(m) for m in moves]
        secs = time.monotonic() - start
        info: dict[str, Any] = {
            "depth": it.depth,
            "seldepth": it.seldepth,
            "score": score,
            "nodes": it.nodes,
            "nps": int(it.nodes / secs) if secs > 0 else 0,
            "time": int(secs * 1000),
            "pv": pv,
        }
        conn.send(("info", format_info(info)))
        if pv:
            best = pv[0]

    search(pos, limit=limit, seed=seed, on_iteration=report)
    return best


def _worker(conn: Connection) -> None:  # pragma: no cover - runs in the worker process
    from kamisado.players import player

    # a Ctrl-C in the terminal is for the engine process, which ends the worker
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        try:
            if job[0] == "go":
                _, pos, limits, level, seed = job
                if limits.any:
                    move = _search_job(conn, pos, limits, seed)
                else:
                    move = str(player(level, seed).choose_move(pos))
                conn.send(("bestmove", move or "none"))
            elif job[0] == "fill":
                _, match, level, seed = job
                conn.send(("fillchoice", player(level, seed).choose_fill(match)))
        except Exception as e:  # report, never die silently
            conn.send(("error", f"{type(e).__name__}: {e}"))


# ---------------------------------------------------------------------------
# The engine: commands in, answers out
# ---------------------------------------------------------------------------


@dataclass
class _Job:
    kind: str  # "go" or "fill"
    infinite: bool = False
    stopped: bool = False
    answer: str | None = None  # the worker's answer, held during an infinite go
    best: str | None = None  # the first move of the last pv seen
    started: float = field(default_factory=time.monotonic)


class Engine:
    """The engine's state and its command handlers (one line at a time).

    ``write`` receives every output line.  Jobs go to a worker process; the
    caller feeds the worker's messages to :meth:`on_worker` (see
    :meth:`run`).
    """

    def __init__(
        self, write: Callable[[str], None], level: str = DEFAULT_LEVEL, seed: int = 0
    ) -> None:
        if level not in LEVELS:
            raise ValueError(f"expected a level ({', '.join(LEVELS)}), found {level!r}")
        self.write = write
        self.level = level
        self.seed = seed
        self.match = Match(1)
        self.job: _Job | None = None
        self.proc: BaseProcess | None = None
        self.conn: Connection | None = None
        self.quit = False
        self.commands: dict[str, Callable[[list[str]], None]] = {
            "kei": self.cmd_kei,
            "isready": self.cmd_isready,
            "setoption": self.cmd_setoption,
            "newgame": self.cmd_newgame,
            "position": self.cmd_position,
            "go": self.cmd_go,
            "stop": self.cmd_stop,
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
                f"unknown command {words[0]!r} (expected one of: {', '.join(self.commands)})"
            )
            return
        handler(words[1:])

    def _worker_conn(self) -> Connection:
        if self.proc is None or not self.proc.is_alive() or self.conn is None:
            # fork is safe here: the engine process has a single thread
            if "fork" in multiprocessing.get_all_start_methods():
                ctx: Any = multiprocessing.get_context("fork")
            else:  # pragma: no cover - not Linux
                ctx = multiprocessing.get_context("spawn")
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=_worker, args=(child,), daemon=True)
            proc.start()
            child.close()
            self.proc, self.conn = proc, parent
        return self.conn

    def _kill_worker(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.join()
        if self.conn is not None:
            self.conn.close()
        self.proc = self.conn = None

    def on_worker(self) -> None:
        """Read the worker's messages that are waiting (call when its pipe is readable)."""
        conn = self.conn
        while conn is not None and not conn.closed:
            try:
                if not conn.poll():
                    return
                kind, text = conn.recv()
            except (EOFError, OSError):
                self._kill_worker()
                if self.job is not None:
                    self.error("the search worker ended unexpectedly")
                    self._finish(None)
                return
            self._message(kind, text)

    def _message(self, kind: str, text: str) -> None:
        job = self.job
        if job is None:
            return
        if kind == "info":
            self.write(text)
            words = text.split()
            if "pv" in words and words.index("pv") + 1 < len(words):
                job.best = words[words.index("pv") + 1]
        elif kind == "error":
            self.error(text)
            self._finish(None)
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
            self.write(f"bestmove {answer or 'none'}")
        else:
            self.write(f"fillchoice {answer or 'none'}")

    def _busy(self, what: str) -> bool:
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
        self.write("keiok")

    def cmd_isready(self, args: list[str]) -> None:
        """``isready``: answered at once with ``readyok``, even while searching."""
        self.write("readyok")

    def cmd_setoption(self, args: list[str]) -> None:
        """``setoption name NAME value VALUE`` (names case-insensitive)."""
        if self._busy("setoption"):
            return
        if len(args) < 2 or args[0] != "name" or "value" not in args:
            self.error("setoption: expected 'setoption name NAME value VALUE'")
            return
        at = args.index("value")
        name = " ".join(args[1:at]).lower()
        value = " ".join(args[at + 1 :])
        if name == "level":
            if value not in LEVELS:
                self.error(
                    f"setoption Level: expected one of {', '.join(LEVELS)}, found {value!r}"
                )
                return
            self.level = value
        elif name == "seed":
            if not value.isdigit() or int(value) > SEED_MAX:
                self.error(
                    f"setoption Seed: expected a whole number 0..{SEED_MAX}, found {value!r}"
                )
                return
            self.seed = int(value)
        else:
            self.error(f"setoption: unknown option {name!r} (options: Level, Seed)")

    def cmd_newgame(self, args: list[str]) -> None:
        """``newgame``: forget the game; the position is the start of a single round."""
        if self._busy("newgame"):
            return
        self.match = Match(1)

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
                self.error(f"position startpos: unexpected {' '.join(head)!r}")
                return
            kpn = START_KPN
        elif args[0] == "kpn":
            kpn = " ".join(head)
        else:
            self.error(f"position: expected 'startpos' or 'kpn', found {args[0]!r}")
            return
        try:
            start = Position(kpn)
            match = Match(start.target, start=start)
            for token in tokens:
                try:
                    match.apply(token)
                except KamisadoError as e:
                    raise KamisadoError(f"move {token!r}: {e}") from None
        except KamisadoError as e:
            self.error(f"position: {e}")
            return
        self.match = match

    def cmd_go(self, args: list[str]) -> None:
        """``go [movetime MS] [depth N] [nodes N] [infinite]``: answered by ``bestmove``."""
        if self._busy("go"):
            return
        try:
            limits = parse_go(args)
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
        self.job = _Job("go", infinite=limits.infinite)
        seed = position_seed(self.seed, pos)
        self._worker_conn().send(("go", pos.copy(stack=False), limits, self.level, seed))

    def cmd_fill(self, args: list[str]) -> None:
        """``fill``: the round's winner chooses; answered by ``fillchoice left|right``."""
        if self._busy("fill"):
            return
        if args:
            self.error(f"fill: takes no arguments, found {' '.join(args)!r}")
            self.write("fillchoice none")
            return
        if self.match.state != FILL:
            self.error("fill: no round of an unfinished match has just ended")
            self.write("fillchoice none")
            return
        self.job = _Job("fill")
        seed = position_seed(self.seed, self.match.position)
        self._worker_conn().send(("fill", self.match, self.level, seed))

    def cmd_stop(self, args: list[str]) -> None:
        """``stop``: answer now with the best move so far (nothing happens when idle)."""
        job = self.job
        if job is None:
            return
        job.stopped = True
        self.on_worker()  # an answer may be waiting already
        if self.job is not job:
            return
        if job.answer is not None:
            self._finish(job.answer)
            return
        self._kill_worker()
        if job.kind == "fill":
            self._finish(FILLS[self.seed % 2])
            return
        best = job.best
        if best is None:  # nothing searched yet: a one-ply search is instant
            from kamisado.engine import search

            res = search(self.match.position, limit=Limit(depth=1))
            best = str(res.best_move) if res.best_move else None
        self._finish(best)

    def cmd_show(self, args: list[str]) -> None:
        """``show``: the position as ``info string`` lines (for people debugging)."""
        m = self.match
        self.write(f"info string position kpn {m.position.kpn()}")
        self.write(f"info string state {m.state} points {m.points[0]} {m.points[1]}")

    def cmd_quit(self, args: list[str]) -> None:
        """``quit``: end the worker and exit."""
        self.quit = True

    # -- the loop ------------------------------------------------------------------

    def run(self, fd: int = 0) -> int:
        """Read commands from file descriptor ``fd`` until ``quit`` or end of input."""
        buffer = b""
        try:
            while not self.quit:
                ready = wait([fd] if self.conn is None else [fd, self.conn])
                if self.conn is not None and self.conn in ready:
                    self.on_worker()
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
            self._kill_worker()
        return 0


def _writer(stream: IO[str]) -> Callable[[str], None]:
    def write(line: str) -> None:
        stream.write(line + "\n")
        stream.flush()

    return write


def main(argv: Sequence[str] | None = None) -> int:
    """``kamisado engine [--level NAME] [--seed N]``: speak KEI on stdin/stdout."""
    from kamisado.cli import Parser, int_between

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
    args = p.parse_args(argv)
    engine = Engine(_writer(sys.stdout), args.level, args.seed)
    try:
        return engine.run(sys.stdin.fileno())
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the other side went away
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
