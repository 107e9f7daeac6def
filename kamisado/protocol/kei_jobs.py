"""The jobs of KEI's engine side: searches and level play, in the runner's thread.

The engine (:mod:`kamisado.protocol.kei`) runs one job at a time in a
:class:`kamisado.engine.runner.Runner`: :func:`_job` plays at a level, runs
the engine's own search (:func:`_search_job`, an ``info`` line after each
finished depth) or, for ``MultiPV`` and ``searchmoves``, a search of each
root move (:func:`_lines_job`).  A job's messages go back through an
:class:`_Outbox`; :func:`format_info` writes KEI's ``info`` lines.
"""

from __future__ import annotations

import contextlib
import os
import queue
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

from kamisado.engine import HASH_MIB_DEFAULT, hash_entries
from kamisado.engine.limits import MATCH_TIER, Limit, Score
from kamisado.engine.runner import Runner
from kamisado.protocol.kei_go import MAX_DEPTH
from kamisado.rules.board import Move
from kamisado.rules.position import Position

__all__ = ["TT_ENTRIES", "format_info"]

#: Entries in the search's transposition table (``hashfull`` is estimated from it).
TT_ENTRIES = 1 << 20


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
    hash_mib: int = HASH_MIB_DEFAULT
    win: int | None = None  # go win N: a win within N moves

    @property
    def by_root_moves(self) -> bool:
        return self.multipv > 1 or bool(self.searchmoves)

    @property
    def entries(self) -> int:
        """The entries of the search's table (``Hash``)."""
        return hash_entries(self.hash_mib)


def _search_job(
    conn: _Sender, pos: Position, limit: Limit, seed: int, hash_mib: int = HASH_MIB_DEFAULT
) -> str | None:
    """One search of the engine, an ``info`` after each depth it finishes.

    The search stops by itself at the limits, or once it proves a result
    that ends the match within its depth (the engine's one rule).
    ``hash_mib`` sizes its table (the ``Hash`` option).
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
    limit = plan.limit
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
    return _search_job(conn, pos, rest, seed, plan.hash_mib)


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
    from kamisado.engine.review import search_root_move

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
    from kamisado.engine.levels import player

    try:
        if job[0] == "go":
            _, pos, plan, level, seed = job
            if plan.level:
                move: str | None = str(player(level, seed).choose_move(pos))
            elif plan.win is not None:
                move = _win_job(conn, pos, plan, seed)
            elif plan.by_root_moves:
                move = _lines_job(conn, pos, plan, seed)
            else:
                move = _search_job(conn, pos, plan.limit, seed, plan.hash_mib)
            conn.send(("bestmove", move or "none"))
        else:
            _, match, level, seed = job
            conn.send(("fillchoice", player(level, seed).choose_fill(match)))
    except Exception as e:  # report, never die silently
        conn.send(("error", f"{type(e).__name__}: {e}"))
