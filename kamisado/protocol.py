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

The searches run in a thread (a :class:`kamisado.runner.Runner`: the
compiled search releases the GIL), so the engine answers ``isready`` and
``stop`` at once whatever the search is doing; ``stop`` sets the search's
stop flag, and the search answers with the best move of the last completed
depth (with ``MultiPV`` or ``searchmoves``: or the better move of the depth
cut short, written as a ``lowerbound`` line).  Every command that asks a question gets its answer, even on
an error: ``info string error: ...`` then ``bestmove none`` or
``fillchoice none``.  Unknown or malformed commands get an ``info string
error: ...`` line and change nothing.

Limits and scores are :class:`kamisado.limits.Limit` and
:class:`kamisado.limits.Score`, as in :mod:`kamisado.client`; the search is
the engine's own iterative deepening, which reports each finished depth.
Programs drive engines through :mod:`kamisado.client`.
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
from typing import IO, Any, Protocol

from kamisado import __version__ as _version
from kamisado._backend import BACKEND
from kamisado.core import START_KPN, KamisadoError, Move, Position
from kamisado.limits import MATCH_TIER, Limit, Score
from kamisado.match import FILL, FILLS, OVER, PLAYING, Match
from kamisado.players import LEVELS, SEED_MAX
from kamisado.runner import Runner

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
    "Go",
    "parse_go",
    "parse_go_command",
    "time_budget",
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
#: The largest number in a ``go`` (the search's node limit).
_GO_NUMBER_MAX = 2**63 - 1
#: The time manager shares the clock over this many moves when no ``movestogo`` is given.
MOVES_HORIZON = 20
#: The share of the increment the time manager spends on each move.
INC_SHARE = 0.8
#: Milliseconds a clock-managed move always leaves on the clock.
SAFETY_MS = 50
#: The most lines ``MultiPV`` may ask for.
MULTIPV_MAX = 256
#: Entries in the search's transposition table (``hashfull`` is estimated from it).
TT_ENTRIES = 1 << 20
#: Seconds ``stop`` waits for the stopped job's answer (it comes within milliseconds).
STOP_WAIT = 2.0


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


def time_budget(time_left: int, inc: int = 0, movestogo: int | None = None) -> int:
    """Milliseconds to think on a move with ``time_left`` ms on the clock.

    The time manager of ``go btime MS gtime MS binc MS ginc MS [movestogo N]``:
    the remaining time shared over ``movestogo`` moves (else over
    :data:`MOVES_HORIZON`), plus :data:`INC_SHARE` of the increment, never
    more than the time left less :data:`SAFETY_MS` and the answer's
    :data:`MOVE_OVERHEAD_MS`; at least 1 ms.

    >>> time_budget(60000), time_budget(60000, 1000), time_budget(60000, movestogo=10)
    (3000, 3800, 6000)
    >>> time_budget(60000, movestogo=1), time_budget(100, 5000), time_budget(0)
    (59940, 40, 1)
    """
    left = max(time_left, 0)
    share = left / (movestogo or MOVES_HORIZON) + INC_SHARE * max(inc, 0)
    cap = left - SAFETY_MS - MOVE_OVERHEAD_MS
    return max(1, int(min(share, cap)))


_CLOCKS = ("btime", "gtime", "binc", "ginc", "movestogo")
_KEYWORDS = ("movetime", "depth", "nodes", "infinite", "ponder", "searchmoves", *_CLOCKS)


@dataclass(frozen=True)
class Go:
    """A parsed ``go`` command: its :class:`Limit`, clocks, ``ponder`` and ``searchmoves``.

    Clock times and increments are milliseconds (``b`` Black, ``g`` Gold).

    >>> g = parse_go_command("btime 60000 gtime 1000 ginc 500".split())
    >>> g.clocks, g.budget(0), g.budget(1), g.limit.any
    (True, 3000, 450, False)
    """

    limit: Limit = field(default_factory=Limit)
    btime: int | None = None
    gtime: int | None = None
    binc: int | None = None
    ginc: int | None = None
    movestogo: int | None = None
    ponder: bool = False
    searchmoves: tuple[str, ...] = ()

    @property
    def clocks(self) -> bool:
        """Whether any clock field was given."""
        return any(getattr(self, k) is not None for k in _CLOCKS)

    @property
    def bare(self) -> bool:
        """A ``go`` with nothing at all after it."""
        return self == Go()

    def time_left(self, turn: int) -> int | None:
        """The clock of side ``turn`` (0 Black, 1 Gold), or None when not given."""
        return self.btime if turn == 0 else self.gtime

    def budget(self, turn: int) -> int | None:
        """:func:`time_budget` for side ``turn``; None without clocks.

        Raises ``ValueError`` when clocks were given but not the mover's.
        """
        if not self.clocks:
            return None
        left = self.time_left(turn)
        if left is None:
            side, word = ("Black", "btime") if turn == 0 else ("Gold", "gtime")
            raise ValueError(f"go: {side} is to move but no {word} was given")
        inc = (self.binc if turn == 0 else self.ginc) or 0
        return time_budget(left, inc, self.movestogo)

    def hard_limit(self, turn: int) -> int | None:
        """The most milliseconds the mover may take: its time left less :data:`SAFETY_MS`."""
        left = self.time_left(turn)
        return None if left is None else max(left - SAFETY_MS, 1)


def _whole(word: str, text: str, low: int, most: int) -> int:
    # ASCII digits only: str.isdigit() also takes '²' and '١'
    if not (text.isascii() and text.isdigit()) or int(text) < low:
        raise ValueError(f"go {word}: expected a whole number from {low}, found {text!r}")
    digits = text.lstrip("0") or "0"
    if len(digits) > len(str(most)) or int(digits) > most:
        raise ValueError(f"go {word}: at most {most}, found {digits}")
    return int(digits)


def parse_go_command(words: Sequence[str]) -> Go:
    """Read the arguments of ``go``: limits, clocks, ``ponder``, ``searchmoves``.

    >>> parse_go_command("btime 500 gtime 400 movestogo 3".split()).movestogo
    3
    >>> parse_go_command("searchmoves c1-c5 d1-d4 depth 3".split()).searchmoves
    ('c1-c5', 'd1-d4')
    >>> parse_go_command(["btime", "-5"])
    Traceback (most recent call last):
    ...
    ValueError: go btime: expected a whole number from 0, found '-5'
    """
    given: dict[str, Any] = {}
    clocks: dict[str, Any] = {}
    i = 0
    while i < len(words):
        word = words[i]
        if word in ("infinite", "ponder"):
            (given if word == "infinite" else clocks)[word] = True
            i += 1
            continue
        if word == "searchmoves":
            j = i + 1
            while j < len(words) and words[j] not in _KEYWORDS:
                try:
                    Move.from_str(words[j])
                except (KamisadoError, ValueError):
                    raise ValueError(
                        f"go searchmoves: expected a move like c1-c5, found {words[j]!r}"
                    ) from None
                j += 1
            if j == i + 1:
                raise ValueError("go searchmoves: expected moves after it, found nothing")
            clocks["searchmoves"] = tuple(words[i + 1 : j])
            i = j
            continue
        if word not in _KEYWORDS:
            raise ValueError(
                f"go: unknown limit {word!r} (expected {', '.join(_KEYWORDS)})"
            )
        if i + 1 >= len(words):
            raise ValueError(f"go {word}: expected a number after it, found nothing")
        text = words[i + 1]
        if word in ("btime", "gtime", "binc", "ginc"):
            clocks[word] = _whole(word, text, 0, _GO_NUMBER_MAX)
        elif word == "movestogo":
            clocks[word] = _whole(word, text, 1, _GO_NUMBER_MAX)
        else:
            given[word] = _whole(word, text, 1, MAX_DEPTH if word == "depth" else _GO_NUMBER_MAX)
        i += 2
    return Go(Limits(**given), **clocks)


def parse_go(words: Sequence[str]) -> Limit:
    """Read the limits of ``go`` (see :func:`parse_go_command` for all of it).

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
    return parse_go_command(words).limit


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
# The jobs: searches and level play, in the runner's thread
# ---------------------------------------------------------------------------


class _Sender(Protocol):
    """Where a job sends its messages ``(kind, text)``, and whether it was stopped."""

    def send(self, message: tuple[str, str]) -> None: ...

    @property
    def stopped(self) -> bool: ...


class _Outbox:
    """A job's messages to the engine: onto its queue, tagged with the job's
    number (the engine drops those of jobs it gave up), and a byte down a
    pipe that wakes the engine's loop."""

    def __init__(self, number: int, inbox: queue.SimpleQueue[tuple[int, str, str]],
                 wake: int, runner: Runner) -> None:
        self.number = number
        self.inbox = inbox
        self.wake = wake
        self.runner = runner

    def send(self, message: tuple[str, str]) -> None:
        self.inbox.put((self.number, *message))
        with contextlib.suppress(OSError):  # full (the engine will read), or closed
            os.write(self.wake, b"\0")

    @property
    def stopped(self) -> bool:
        """Whether the engine stopped the job (``stop``, its deadline)."""
        return self.runner.searcher.stopped


def format_info(info: dict[str, Any]) -> str:
    """An ``info`` line from a dict of KEI's fields (a subset, any order).

    The fields: depth, seldepth, multipv, score (a :class:`Score`; a
    ``(kind, value)`` pair is read as one), bound (``"lower"`` or
    ``"upper"``), nodes, nps, hashfull, time, currmove, currmovenumber, pv.

    >>> format_info({"depth": 2, "score": ("cp", 14), "nodes": 30, "pv": ["c1-c5"]})
    'info depth 2 score cp 14 nodes 30 pv c1-c5'
    >>> format_info({"depth": 9, "score": Score("win", 3)})
    'info depth 9 score win 3'
    >>> format_info({"depth": 3, "multipv": 2, "score": ("cp", 5), "bound": "lower"})
    'info depth 3 multipv 2 score cp 5 lowerbound'
    """
    parts = ["info"]
    for key in ("depth", "seldepth", "multipv"):
        if key in info:
            parts += [key, str(info[key])]
    if "score" in info:
        score = info["score"]
        if not isinstance(score, Score):
            score = Score(*score)
        parts += ["score", str(score)]
        if info.get("bound"):
            parts.append(f"{info['bound']}bound")
    for key in ("nodes", "nps", "hashfull", "time", "currmove", "currmovenumber"):
        if key in info:
            parts += [key, str(info[key])]
    if info.get("pv"):
        parts += ["pv", *info["pv"]]
    return " ".join(parts)


def _hashfull(nodes: int) -> int:
    """The table's fill in per mille, estimated: one entry per node searched at most."""
    return min(1000, nodes * 1000 // TT_ENTRIES)


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


@dataclass(frozen=True)
class _Plan:
    """What the job does for a ``go``: play at the level, or search."""

    level: bool = False
    limit: Limit = field(default_factory=Limit)  # time: the search's own, in seconds
    multipv: int = 1
    searchmoves: tuple[str, ...] = ()

    @property
    def by_root_moves(self) -> bool:
        return self.multipv > 1 or bool(self.searchmoves)


def _search_job(conn: _Sender, pos: Position, limit: Limit, seed: int) -> str | None:
    """One search of the engine, an ``info`` after each depth it finishes.

    The search stops by itself at the limits, or once it proves a result
    that ends the match within its depth (the engine's one rule).
    """
    from kamisado.engine import Iteration, search

    start = time.monotonic()
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
            "hashfull": _hashfull(it.nodes),
            "time": int(secs * 1000),
            "pv": pv,
        }
        conn.send(("info", format_info(info)))
        if pv:
            best = pv[0]

    search(pos, limit=limit, seed=seed, on_iteration=report)
    if best is None and pos.outcome is None:
        # out of time before the first depth gave a move (a starved thread
        # on a loaded machine, a movetime of a few ms): a one-ply search,
        # instant, so that a position with moves never gets "bestmove none"
        r = search(pos, limit=Limit(depth=1), seed=seed)
        best = str(r.best_move) if r.best_move is not None else None
    return best


def _leads(found: list[tuple[int, int, list[Move], int]], previous: int | None) -> bool:
    """Whether the root move scored last (``found[-1]``) is a new lead of its
    unfinished depth: better than the moves scored before it and than
    ``previous``, the last finished depth's best.  The moves scored so far
    have exact scores at the depth, so the depth's true best is at least it.

    >>> m = Move.from_str("c1-c5")
    >>> _leads([(9, 0, [m], 2)], 7), _leads([(9, 0, [m], 2)], 9), _leads([(9, 0, [m], 2)], None)
    (True, False, False)
    >>> _leads([(12, 0, [m], 2), (10, 1, [m], 2)], 9)  # not the best so far
    False
    """
    raw = found[-1][0]
    return previous is not None and raw > previous and all(f[0] < raw for f in found[:-1])


def _lead_line(
    lead: tuple[int, int, list[Move], int], depth: int, nodes: int, biggest: int, start: float
) -> str:
    """The ``lowerbound`` line of a lead (see :func:`_leads`).

    >>> m = Move.from_str("c1-c5")
    >>> print(_lead_line((9, 0, [m], 2), 3, 50, 40, time.monotonic() + 60))
    info depth 3 seldepth 2 multipv 1 score cp 9 lowerbound nodes 50 nps 0 hashfull 0 time 0 pv c1-c5
    """
    raw, _, moves, seldepth = lead
    secs = max(0.0, time.monotonic() - start)
    return format_info({
        "depth": depth,
        "seldepth": seldepth,
        "multipv": 1,
        "score": Score.from_raw(raw),
        "bound": "lower",
        "nodes": nodes,
        "nps": int(nodes / secs) if secs > 0 else 0,
        "hashfull": _hashfull(biggest),
        "time": int(secs * 1000),
        "pv": [str(x) for x in moves],
    })


def _lines_job(conn: _Sender, pos: Position, plan: _Plan, seed: int) -> str | None:
    """``MultiPV`` and ``searchmoves``: an iterative deepening over the root moves.

    Depth ``d`` searches each (allowed) root move's position to ``d - 1``
    with the engine's own search (depth 1: the static evaluation) and
    reports the best ``multipv`` lines.  The moves are searched one by one,
    each from scratch, so this costs about as many searches as there are
    root moves, each a depth shallower.

    A depth cut short by the limits is not reported in full, but the root
    moves it finished have exact scores at that depth: when the best of them
    is better than the last finished depth's best, the true best at the cut
    depth is at least that, so it is reported as ``multipv 1 ... lowerbound``
    and played (as Stockfish does); otherwise the answer is the best move of
    the last finished depth and nothing is claimed.  While a depth runs, each
    such lead is also sent as a ``("bound", line)`` message, so that the
    engine can do the same if the job gives no answer after a ``stop``.  A
    stopped job searches no further root move: its depth is cut short.
    """
    from kamisado.review import search_root_move

    start = time.monotonic()
    limit = plan.limit
    end = None if limit.time is None else start + limit.time
    most = MAX_DEPTH if limit.depth is None else limit.depth
    allowed = set(plan.searchmoves)
    roots: list[tuple[Move, Position]] = []
    for m in pos.legal_moves:
        if allowed and str(m) not in allowed:
            continue
        q = pos.copy(stack=False)
        q.push(m)
        roots.append((m, q))
    nodes = 0
    best: str | None = None
    previous: int | None = None  # the best score of the last finished depth
    for depth in range(1, most + 1):
        found: list[tuple[int, int, list[Move], int]] = []  # score, index, pv, seldepth
        biggest = 0
        lead: tuple[int, int, list[Move], int] | None = None  # beats the last depth
        for k, (m, q) in enumerate(roots):
            left_s = left_n = None
            if q.outcome is None and depth > 1:  # a search: within the limits left
                left_s = None if end is None else end - time.monotonic()
                left_n = None if limit.nodes is None else limit.nodes - nodes
                if (
                    (left_s is not None and left_s <= 0)
                    or (left_n is not None and left_n <= 0)
                    or conn.stopped
                ):
                    break
                conn.send(("info", format_info(
                    {"depth": depth, "currmove": str(m), "currmovenumber": k + 1}
                )))
            r = search_root_move(pos, m, q, depth, time=left_s, nodes=left_n, seed=seed)
            nodes += r.nodes
            biggest = max(biggest, r.nodes)
            if not r.complete:
                break  # cut short by the time or node limit
            found.append((r.raw, k, list(r.pv), r.seldepth))
            if _leads(found, previous):
                lead = found[-1]
                conn.send(("bound", _lead_line(lead, depth, nodes, biggest, start)))
        else:
            found.sort(key=lambda f: (-f[0], f[1]))
            secs = time.monotonic() - start
            for n, (raw, _, moves, seldepth) in enumerate(found[: plan.multipv], 1):
                score = Score.from_raw(raw)
                if score.is_proven and len(moves) < score.value:
                    moves = _complete_pv(pos, moves)
                conn.send(("info", format_info({
                    "depth": depth,
                    "seldepth": seldepth,
                    "multipv": n,
                    "score": score,
                    "nodes": nodes,
                    "nps": int(nodes / secs) if secs > 0 else 0,
                    "hashfull": _hashfull(biggest),
                    "time": int(secs * 1000),
                    "pv": [str(x) for x in moves],
                })))
            best = str(found[0][2][0]) if found else None
            previous = found[0][0] if found else None
            settled = all(
                Score.from_raw(f[0]).is_proven and Score.from_raw(f[0]).tier == MATCH_TIER
                for f in (found if plan.multipv > 1 else found[:1])
            )
            if settled and (plan.multipv > 1 or found[0][0] > 0):
                break
            continue
        # a depth cut short: its lead, if any, is the best move now
        if lead is not None:
            conn.send(("info", _lead_line(lead, depth, nodes, biggest, start)))
            best = str(lead[2][0])
        break
    return best


def _job(conn: _Sender, job: tuple[Any, ...]) -> None:
    """Carry out one job of the engine, ``("go", pos, plan, level, seed)`` or
    ``("fill", match, level, seed)``: its answer (or an error) is its last message."""
    from kamisado.players import player

    try:
        if job[0] == "go":
            _, pos, plan, level, seed = job
            if plan.level:
                move: str | None = str(player(level, seed).choose_move(pos))
            elif plan.by_root_moves:
                move = _lines_job(conn, pos, plan, seed)
            else:
                move = _search_job(conn, pos, plan.limit, seed)
            conn.send(("bestmove", move or "none"))
        else:
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
    answer: str | None = None  # the job's answer, held during an infinite go
    best: str | None = None  # the first move of the last pv seen
    started: float = field(default_factory=time.monotonic)
    deadline: float | None = None  # answer with the best so far at this time
    ponder: bool = False  # until ponderhit (or stop)
    budget: float | None = None  # seconds to think after ponderhit
    best_line: str | None = None  # the last info line of the best move (multipv 1)
    after_best: bool = False  # other info lines came after best_line
    fallback: str | None = None  # the move to play when stopped before any pv
    bound: str | None = None  # a lowerbound line of the depth running (MultiPV/searchmoves)


class Engine:
    """The engine's state and its command handlers (one line at a time).

    ``write`` receives every output line.  Jobs run in a thread (a
    :class:`~kamisado.runner.Runner`); their messages wait in a queue and
    wake the loop of :meth:`run` through a pipe, which hands them to
    :meth:`on_worker`.
    """

    def __init__(
        self, write: Callable[[str], None], level: str = DEFAULT_LEVEL, seed: int = 0
    ) -> None:
        if level not in LEVELS:
            raise ValueError(f"expected a level ({', '.join(LEVELS)}), found {level!r}")
        self.write = write
        self.level = level
        self.seed = seed
        self.multipv = 1
        self.limit_strength = False
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
                f"unknown command {words[0]!r} (expected one of: {', '.join(self.commands)})"
            )
            return
        handler(words[1:])

    def _start(self, job: tuple[Any, ...]) -> None:
        """Run a job in the runner's thread (a stopped one is waited for first)."""
        self.number += 1
        out = _Outbox(self.number, self.inbox, self._wake_write, self.runner)
        self.runner.start(_job, out, job)

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
        if kind == "info":
            self.write(text)
            words = text.split()
            first = "multipv" not in words or words[words.index("multipv") + 1] == "1"
            if first and "pv" in words and words.index("pv") + 1 < len(words):
                job.best = words[words.index("pv") + 1]
                job.best_line, job.after_best = text, False
                job.bound = None  # a finished depth, or the lead written by the job
            else:
                job.after_best = True
        elif kind == "bound":
            job.bound = text  # written only if a stopped job gives no answer
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
        self.write(f"option name MultiPV type spin default 1 min 1 max {MULTIPV_MAX}")
        self.write("option name LimitStrength type check default false")
        self.write("option name Ponder type check default false")
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
        elif name == "multipv":
            if not (value.isascii() and value.isdigit()) or not 1 <= int(value) <= MULTIPV_MAX:
                self.error(
                    f"setoption MultiPV: expected a whole number 1..{MULTIPV_MAX}, found {value!r}"
                )
                return
            self.multipv = int(value)
        elif name in ("limitstrength", "ponder"):
            if value.lower() not in ("true", "false"):
                self.error(f"setoption {name}: expected true or false, found {value!r}")
                return
            if name == "limitstrength":
                self.limit_strength = value.lower() == "true"
            # Ponder only tells the engine that the client may ponder: nothing to keep
        else:
            self.error(
                f"setoption: unknown option {name!r}"
                " (options: Level, Seed, MultiPV, LimitStrength, Ponder)"
            )

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
        """``go [movetime MS] [depth N] [nodes N] [infinite] [btime MS] [gtime MS]
        [binc MS] [ginc MS] [movestogo N] [ponder] [searchmoves MOVE...]``:
        answered by ``bestmove``."""
        if self._busy("go"):
            return
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
            budget_ms = go.budget(pos.turn)
        except ValueError as e:
            self.error(str(e))
            self.write("bestmove none")
            return
        legal = {str(m) for m in pos.legal_moves}
        wrong = [m for m in go.searchmoves if m not in legal]
        if wrong:
            self.error(f"go searchmoves: {', '.join(wrong)}: not legal in this position")
            self.write("bestmove none")
            return
        limit = go.limit
        # the search's own time: movetime less the overhead, or the time manager's
        times = []
        if limit.movetime is not None:
            times.append(max(limit.movetime - MOVE_OVERHEAD_MS, 1.0))
        if budget_ms is not None:
            times.append(float(budget_ms))
        think = min(times) / 1000 if times else None
        hard = go.hard_limit(pos.turn) if go.clocks else None
        level = go.bare or (
            self.limit_strength and go.clocks and not limit.any
            and not go.ponder and not go.searchmoves
        )
        job = _Job("go", infinite=limit.infinite or go.ponder, ponder=go.ponder)
        if go.searchmoves:
            job.fallback = go.searchmoves[0]
        if level:
            plan = _Plan(level=True)
            if think is not None:
                job.deadline = job.started + think
        elif go.ponder:
            # ponder without a clock: the clock starts at ponderhit
            job.budget = think
            depth = limit.depth or (None if limit.nodes else MAX_DEPTH)
            plan = _Plan(
                limit=Limit(depth=depth, nodes=limit.nodes),
                multipv=self.multipv,
                searchmoves=go.searchmoves,
            )
        else:
            depth = limit.depth or MAX_DEPTH
            plan = _Plan(
                limit=Limit(time=think, depth=depth, nodes=limit.nodes),
                multipv=self.multipv,
                searchmoves=go.searchmoves,
            )
            if hard is not None and not limit.infinite:
                job.deadline = job.started + hard / 1000
        self.job = job
        seed = position_seed(self.seed, pos)
        self._start(("go", pos.copy(stack=False), plan, self.level, seed))
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
            job.deadline = time.monotonic() + job.budget

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
        self._start(("fill", self.match, self.level, seed))

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
        if job.bound is not None and job.kind != "fill":
            # the depth stopped has a move proven better than the last depth's best
            self.write(job.bound)
            job.best = job.bound.split(" pv ", 1)[1].split()[0]
            job.best_line, job.after_best = job.bound, False
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
        try:
            while not self.quit:
                deadline = None if self.job is None else self.job.deadline
                timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
                ready = wait([fd, self._wake_read], timeout)
                if self._wake_read in ready:
                    self.on_worker()
                job = self.job
                if job is not None and job.deadline is not None and (
                    time.monotonic() >= job.deadline
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
