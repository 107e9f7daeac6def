"""The jobs of KEI's engine side: searches and level play, in the runner's thread.

The engine (:mod:`kamisado.protocol.kei`) runs one job at a time in a
:class:`kamisado.engine.runner.Runner`: :func:`_job` plays at a level, runs
the engine's own search (:func:`_search_job`, an ``info`` line after each
finished depth), for ``MultiPV`` and ``searchmoves`` the same search
keeping several lines at its root (:func:`_lines_job`), or for ``go win N``
the solver (:func:`_win_job`).  A job's messages go back through an
:class:`_Outbox`; :func:`format_info` writes KEI's ``info`` lines.

Every step after the main search (a proven line finished by the solver,
the solver of ``go win N``) is bounded by what the ``go`` has left: the
:class:`Deadline` the engine shares with the job.  :func:`prepare` is the
engine's set-up (its tables allocated and touched, the solver's first use),
done before it answers ``readyok``.
"""

from __future__ import annotations

import contextlib
import os
import queue
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from kamisado.engine import HASH_MIB_DEFAULT, hash_entries
from kamisado.engine.limits import Limit, Score
from kamisado.engine.runner import Runner
from kamisado.protocol.kei_go import MAX_DEPTH
from kamisado.rules.board import Move
from kamisado.rules.position import Position

__all__ = ["PV_SOLVE_MAX", "TT_ENTRIES", "Deadline", "format_info", "prepare"]

#: Entries in the search's transposition table (``hashfull`` is estimated from it).
TT_ENTRIES = 1 << 20
#: The most seconds the solver spends finishing one proven line (less when
#: the ``go`` has less left: :func:`_complete_pv`).
PV_SOLVE_MAX = 0.1
#: The least seconds worth giving the solver to finish a line (less left: the line as it is).
PV_SOLVE_MIN = 0.002


class Deadline:
    """When the ``go``'s answer is due, on the engine's clock; shared by the
    engine (which sets it, e.g. at ``ponderhit``) and the job (which reads it).

    ``at`` is None while the go has no time limit (depth, nodes, infinite,
    pondering).

    >>> now = [10.0]
    >>> d = Deadline(lambda: now[0], 10.25)
    >>> d.left()
    0.25
    >>> now[0] = 11.0; d.left(), Deadline(lambda: now[0]).left()
    (-0.75, None)
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic,
                 at: float | None = None) -> None:
        self.clock = clock
        self.at = at

    def left(self) -> float | None:
        """Seconds until the answer is due (negative: late); None without a deadline."""
        at = self.at
        return None if at is None else at - self.clock()


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


def _hashfull(nodes: int, entries: int = TT_ENTRIES) -> int:
    """The table's fill in per mille, estimated: one entry per node searched at most.

    >>> _hashfull(500, 1000), _hashfull(5000, 1000), _hashfull(5000)
    (500, 1000, 4)
    """
    return min(1000, nodes * 1000 // entries)


def _solve_time(left: float | None) -> float | None:
    """Seconds for one extra solve with ``left`` seconds to the answer: at
    most :data:`PV_SOLVE_MAX` and half of what is left (the solver looks at
    its clock every 1024 nodes, and the answer must still be written);
    None when that is under :data:`PV_SOLVE_MIN` (no time for it).

    >>> _solve_time(None), _solve_time(5.0), _solve_time(0.05), _solve_time(0.003)
    (0.1, 0.1, 0.025, None)
    """
    most = PV_SOLVE_MAX if left is None else min(PV_SOLVE_MAX, left / 2)
    return most if most >= PV_SOLVE_MIN else None


def _complete_pv(pos: Position, pv: list[Move], left: float | None = None) -> list[Move]:
    """A proven line cut short by the transposition table, finished by the
    solver within :func:`_solve_time` of ``left`` (the seconds the ``go``
    has left, None: no limit); the line as it is when there is no time."""
    from kamisado.engine import solve

    seconds = _solve_time(left)
    if seconds is None:
        return pv
    q = pos.copy(stack=False)
    for m in pv:
        if q.outcome is not None or not q.is_legal(m):
            return pv
        q.push(m)
    if q.outcome is not None:
        return pv
    rest = solve(q, limit=Limit(time=seconds))
    return pv + list(rest.pv) if rest.winner is not None else pv


def prepare(hash_mib: int = HASH_MIB_DEFAULT, level: str | None = None) -> None:
    """The engine's set-up, in the job's thread (with its Searcher active):
    the search's table of ``hash_mib`` MiB and the solver's tables allocated
    and touched (a one-ply search, a one-node solve, then emptied), the
    opening book read and the level's player made, so that the first ``go``
    pays for none of it."""
    from kamisado.engine import book, clear_tables, search, solve
    from kamisado.engine.levels import player

    start = Position()
    search(start, limit=Limit(depth=1), hash_mib=hash_mib)
    solve(start, limit=Limit(nodes=1))
    clear_tables()
    book.entries()
    if level is not None:
        player(level, 0)


@dataclass(frozen=True)
class _Plan:
    """What the job does for a ``go``: play at the level, or search."""

    level: bool = False
    limit: Limit = field(default_factory=Limit)  # time: the search's own, in seconds
    multipv: int = 1
    searchmoves: tuple[str, ...] = ()
    hash_mib: int = HASH_MIB_DEFAULT
    win: int | None = None  # go win N: a win within N moves
    deadline: Deadline = field(default_factory=Deadline, compare=False)  # the answer's

    @property
    def by_root_moves(self) -> bool:
        return self.multipv > 1 or bool(self.searchmoves)

    @property
    def entries(self) -> int:
        """The entries of the search's table (``Hash``)."""
        return hash_entries(self.hash_mib)


def _within(limit: Limit, deadline: Deadline) -> Limit:
    """``limit`` with its time cut to what ``deadline`` leaves (the thread
    may start late on a busy machine)."""
    left = deadline.left()
    if limit.time is None or left is None or left >= limit.time:
        return limit
    return replace(limit, time=max(left, 0.001))


def _search_job(
    conn: _Sender, pos: Position, limit: Limit, seed: int, hash_mib: int = HASH_MIB_DEFAULT,
    deadline: Deadline | None = None,
) -> str | None:
    """One search of the engine, an ``info`` after each depth it finishes.

    The search stops by itself at the limits, or once it proves a result
    that ends the match within its depth (the engine's one rule).
    ``hash_mib`` sizes its table (the ``Hash`` option); a proven line is
    finished within what ``deadline`` leaves.
    """
    from kamisado.engine import Iteration, search

    due = deadline if deadline is not None else Deadline()
    limit = _within(limit, due)
    start = time.monotonic()
    best: str | None = None

    def report(it: Iteration) -> None:
        nonlocal best
        moves = list(it.pv)
        score = it.value
        if score.is_proven and len(moves) < score.value:
            moves = _complete_pv(pos, moves, due.left())
        pv = [str(m) for m in moves]
        secs = time.monotonic() - start
        info: dict[str, Any] = {
            "depth": it.depth,
            "seldepth": it.seldepth,
            "score": score,
            "nodes": it.nodes,
            "nps": int(it.nodes / secs) if secs > 0 else 0,
            "hashfull": _hashfull(it.nodes, hash_entries(hash_mib)),
            "time": int(secs * 1000),
            "pv": pv,
        }
        conn.send(("info", format_info(info)))
        if pv:
            best = pv[0]

    search(pos, limit=limit, seed=seed, on_iteration=report, hash_mib=hash_mib)
    if best is None and pos.outcome is None:
        # out of time before the first depth gave a move (a starved thread
        # on a loaded machine, a movetime of a few ms): a one-ply search,
        # instant, so that a position with moves never gets "bestmove none"
        r = search(pos, limit=Limit(depth=1), seed=seed)
        best = str(r.best_move) if r.best_move is not None else None
    return best


def _win_job(conn: _Sender, pos: Position, plan: _Plan, seed: int) -> str | None:
    """``go win N``: a win for the side to move within N moves, by the solver.

    The solver looks for results within N moves (moves of both sides, as
    ``score win N`` counts them), within the ``go``'s time and nodes.  A
    win found is written as ``info depth N score win D ... pv ...`` (D at
    most N, the shortest win) and its first move played.  Otherwise an
    ``info string`` says why (no win within N, a proven loss, the limits or
    a stop came first) and the engine's search answers within the limits
    left (to depth N when the ``go`` gave no other limit), so that a
    position with moves never gets ``bestmove none``.
    """
    from kamisado.engine import solve

    assert plan.win is not None
    start = time.monotonic()
    limit = _within(plan.limit, plan.deadline)
    r = solve(pos, limit=Limit(time=limit.time, nodes=limit.nodes, depth=plan.win))
    secs = time.monotonic() - start
    if r.winner == pos.turn and r.distance is not None and r.distance <= plan.win and r.pv:
        conn.send(("info", format_info({
            "depth": plan.win,
            "seldepth": len(r.pv),
            "score": Score("win", r.distance),
            "nodes": r.nodes,
            "nps": int(r.nodes / secs) if secs > 0 else 0,
            "time": int(secs * 1000),
            "pv": [str(m) for m in r.pv],
        })))
        return str(r.pv[0])
    if r.winner is None:
        why = (
            "stopped before it was proven" if conn.stopped
            else f"no win within {plan.win} moves"
            if r.depth >= plan.win else "the limits came first"
        )
    elif r.winner == pos.turn:
        why = f"the win takes {r.distance} moves, more than {plan.win}"
    else:
        why = f"the side to move loses in {r.distance}"
    conn.send(("info", f"info string go win {plan.win}: {why}; searching instead"))
    left = None if limit.time is None else max(limit.time - secs, 0.001)
    if left is None and limit.nodes is None and limit.depth is None:
        rest = Limit(depth=max(1, min(plan.win, MAX_DEPTH)))
    else:
        rest = Limit(time=left, nodes=limit.nodes, depth=limit.depth)
    return _search_job(conn, pos, rest, seed, plan.hash_mib, plan.deadline)


def _lines_job(conn: _Sender, pos: Position, plan: _Plan, seed: int) -> str | None:
    """``MultiPV`` and ``searchmoves``: one search whose root keeps several lines.

    The engine's search with ``multipv`` (and ``root_moves`` for
    ``searchmoves``): at each finished depth its best ``MultiPV`` lines,
    each with an exact score, are written as ``info ... multipv K ...``
    (``nodes`` the search's so far).  A depth cut short (the limits, a
    ``stop``) is not reported in full; when the best move it searched beats
    the last finished depth's best (an exact score, so the depth's best is
    at least that), it is written as ``info depth D ... multipv 1 score ...
    lowerbound ... pv ...`` and played (as Stockfish does); otherwise the
    answer is the first move of the last finished depth.
    """
    from kamisado.engine import Iteration, search

    start = time.monotonic()
    best: str | None = None
    entries = hash_entries(plan.hash_mib)
    due = plan.deadline

    def report(it: Iteration) -> None:
        nonlocal best
        secs = time.monotonic() - start
        for n, line in enumerate(it.lines[: plan.multipv], 1):
            moves = list(line.pv)
            score = line.value
            if score.is_proven and len(moves) < score.value:
                moves = _complete_pv(pos, moves, due.left())
            conn.send(("info", format_info({
                "depth": it.depth,
                "seldepth": it.seldepth,
                "multipv": n,
                "score": score,
                "nodes": it.nodes,
                "nps": int(it.nodes / secs) if secs > 0 else 0,
                "hashfull": _hashfull(it.nodes, entries),
                "time": int(secs * 1000),
                "pv": [str(x) for x in moves],
            })))
        if it.lines and it.lines[0].pv:
            best = str(it.lines[0].pv[0])

    r = search(
        pos,
        limit=_within(plan.limit, due),
        seed=seed,
        on_iteration=report,
        hash_mib=plan.hash_mib,
        multipv=plan.multipv,
        root_moves=plan.searchmoves or None,
    )
    if r.lead is not None and r.lead.pv:
        # a depth cut short found a move better than the last depth's best:
        # the depth's best is at least that, so it is written as a lower bound
        # and played (as Stockfish does)
        secs = time.monotonic() - start
        moves = list(r.lead.pv)
        score = r.lead.value
        if score.is_proven and len(moves) < score.value:
            moves = _complete_pv(pos, moves, due.left())
        conn.send(("info", format_info({
            "depth": r.lead_depth,
            "seldepth": max(r.seldepth, len(moves)),
            "multipv": 1,
            "score": score,
            "bound": "lower",
            "nodes": r.nodes,
            "nps": int(r.nodes / secs) if secs > 0 else 0,
            "hashfull": _hashfull(r.nodes, entries),
            "time": int(secs * 1000),
            "pv": [str(x) for x in moves],
        })))
        best = str(moves[0])
    if best is None and pos.outcome is None:
        # out of time before the first depth finished: a one-ply search (see _search_job)
        r = search(pos, limit=Limit(depth=1), seed=seed, root_moves=plan.searchmoves or None)
        best = str(r.best_move) if r.best_move is not None else None
    return best


def _job(conn: _Sender, job: tuple[Any, ...]) -> None:
    """Carry out one job of the engine, ``("go", pos, plan, level, seed, proof)``,
    ``("fill", match, level, seed, proof)`` (``proof``: the match proof
    ``perfect`` plays from, or ``None``) or ``("prepare", hash_mib, level)``: its
    answer (or an error) is its last message."""
    from kamisado.engine.levels import player

    try:
        if job[0] == "prepare":
            prepare(job[1], job[2])
            conn.send(("prepared", str(job[1])))
        elif job[0] == "go":
            _, pos, plan, level, seed, proof = job
            if plan.level:
                move: str | None = str(player(level, seed, proof).choose_move(pos))
            elif plan.win is not None:
                move = _win_job(conn, pos, plan, seed)
            elif plan.by_root_moves:
                move = _lines_job(conn, pos, plan, seed)
            else:
                move = _search_job(conn, pos, plan.limit, seed, plan.hash_mib, plan.deadline)
            conn.send(("bestmove", move or "none"))
        else:
            _, match, level, seed, proof = job
            conn.send(("fillchoice", player(level, seed, proof).choose_fill(match)))
    except Exception as e:  # report, never die silently
        conn.send(("error", f"{type(e).__name__}: {e}"))
