"""The search over round starts, its tasks on ``dask.distributed``.

:func:`solve_match` keeps the AND/OR graph of round starts: the root, the
open starts each task reported, which start waits on which.  Each task is
:func:`kamisado.proving.rounds.prove_start` on one start with the values of
every child start its tasks reported before; it sets out to prove the side the
openers' pattern favours and reports the open child starts of one
candidate proof, whose number is the start's proof number.  The queue is
best-first by proof number: the children of the start with the fewest
open children go first (the most-proving starts: they close a parent
soonest), the deepest score first among equals.  A proven start goes to
the store at once, and so do the child starts a task settled at their
first position (:attr:`~kamisado.proving.rounds.StartResult.settled`); the
start waiting on it is searched again at once when
its candidate is closed (every child proven for it) or broken (a child
won by the other side: the search then offers its next move), and
otherwise its other children move up the queue.  A start whose budget ran
out with nothing open is queued again with twice the budget; one that
reported open starts waits for them, its children behind those of
finished candidates (:data:`EXHAUSTED`).  The search stops when the
root is proven, the time is up, the queue is empty or ``stop`` is set.

>>> from distributed import Client, LocalCluster
>>> from kamisado.proving.store import ProofStore
>>> with LocalCluster(n_workers=1, processes=False) as cl, Client(cl) as client:
...     out = solve_match("ou+yng+rpb/8/8/8/8/8/8/B+RN+UOPGY g - 3 2 2", ProofStore(":memory:"), client)
>>> out.winner, out.proven
(1, 1)
"""

from __future__ import annotations

import heapq
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from distributed import Client, Future, wait

from kamisado.engine import Searcher
from kamisado.proving.rounds import POSITIONS, SOLVER_NODES, StartResult, prove_start
from kamisado.proving.store import ProofStore
from kamisado.proving.symmetry import canonical, image, twins
from kamisado.rules.position import Position

__all__ = ["EXHAUSTED", "MAX_DOUBLINGS", "Progress", "prove_task", "solve_match"]

#: How many times a start's budget may double before it is left open.
MAX_DOUBLINGS = 6
#: Added to the proof number of a start whose task ran out of budget: its
#: candidate is unfinished, its true proof number larger than it says.
EXHAUSTED = 1000


@dataclass
class Progress:
    """Where a run stands: starts proven by this run's tasks, loaded from
    the store, open (reported by some task, not proven), tasks done, the
    proven starts' images stored with them (:mod:`~kamisado.proving.symmetry`),
    CPU seconds of the tasks, wall seconds, and the open set's size after
    each task."""

    root: str
    winner: int | None = None
    proven: int = 0
    loaded: int = 0
    open: int = 0
    tasks: int = 0
    twins: int = 0
    cpu: float = 0.0
    wall: float = 0.0
    growth: list[int] = field(default_factory=list)
    stopped: str = ""

    def line(self) -> str:
        """The live line: proven, open, per second.

        >>> Progress("x", proven=12, open=30, tasks=40, wall=6.0).line()
        'round starts proven 12, open 30, 2.0/s, tasks 40, 6 s'
        """
        rate = self.proven / self.wall if self.wall > 0 else 0.0
        return (
            f"round starts proven {self.proven}, open {self.open}, {rate:.1f}/s,"
            f" tasks {self.tasks}, {self.wall:.0f} s"
        )


_tables = threading.local()


def prove_task(start: str, known: dict[str, int], positions: int, solver_nodes: int) -> StartResult:
    """One task: :func:`~kamisado.proving.rounds.prove_start` in the solver
    tables of this worker thread, kept from one of its tasks to the next.

    A worker of several threads (``dask worker --nthreads 4``, or a
    ``LocalCluster`` of threads in the caller's process) would otherwise
    share the process's default tables: a solve in one thread while
    another's runs gets fresh empty tables each time, and a task left
    running after :func:`solve_match` returns would change what the
    process's own solver calls find within their node limits.

    >>> prove_task("ou+yng+rpb/8/8/8/8/8/8/B+RN+UOPGY g - 3 2 2", {}, 100, 10_000).winner
    1
    """
    searcher: Searcher | None = getattr(_tables, "searcher", None)
    if searcher is None:
        searcher = _tables.searcher = Searcher()
    with searcher.active():
        return prove_start(start, known, positions, solver_nodes)


def _depth(start: str) -> int:
    p = Position(start)
    return -(p.points[0] + p.points[1])


def solve_match(
    root: str,
    store: ProofStore,
    client: Client,
    *,
    seconds: float | None = None,
    positions: int = POSITIONS,
    solver_nodes: int = SOLVER_NODES,
    stop: threading.Event | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    clock: Callable[[], float] = time.monotonic,
    symmetry: bool = True,
) -> Progress:
    """Prove who wins the match from the round start ``root`` (KPN), on the
    Dask ``client``'s workers, keeping proven starts in ``store``.

    ``seconds`` bounds the run (``None``: no bound; time by ``clock``);
    ``positions`` and ``solver_nodes`` are each task's first budget
    (:func:`~kamisado.proving.rounds.prove_start`).  ``on_progress`` is
    called after each finished task.  With ``symmetry`` each proven start's
    images under the board's symmetries are stored with it (their proofs
    mapped), and a child start is searched once for all its images.
    Returns the run's :class:`Progress`; its ``winner`` is the root's value
    when proven.
    """
    target = Position(root).target
    known = store.load(target)
    prog = Progress(root, loaded=len(known))
    t0 = clock()
    children: dict[str, list[str]] = {}
    asked: dict[str, set[str]] = {}  # every child start a start's tasks named
    parents: dict[str, set[str]] = {}
    sides: dict[str, int | None] = {}
    doublings: dict[str, int] = {}
    queue: list[tuple[int, int, int, str]] = []
    queued: set[str] = set()
    running: dict[Future[StartResult], str] = {}
    count = 0
    open_set: set[str] = set()
    spent: set[str] = set()  # starts whose last task ran out of budget
    slots = max(1, 2 * len(client.scheduler_info().get("workers", {}) or {1: None}))

    def key(c: str) -> str:
        """The start searched for ``c`` and its images (``children`` keeps
        each start as its parent's task named it: that is the start whose
        value the parent needs)."""
        return canonical(c) if symmetry else c

    def left(p: str) -> int:
        """``p``'s proof number: its candidate's child starts not proven."""
        return sum(1 for c in children.get(p, ()) if c not in known)

    def enqueue(s: str, rank: int) -> None:
        nonlocal count
        if s in known or s in running.values():
            return
        count += 1
        queued.add(s)
        heapq.heappush(queue, (rank, _depth(s), count, s))

    def check(p: str) -> None:
        """Search ``p`` again at once when its candidate is closed (every
        child start proven for it) or broken (one won by the other side);
        else its other children move up the queue (its proof number fell)."""
        kids = children.get(p, [])
        if any(known.get(c, sides.get(p)) != sides.get(p) for c in kids) or all(c in known for c in kids):
            enqueue(p, -1)
            return
        n = left(p) + (EXHAUSTED if p in spent else 0)
        for c in kids:
            if key(c) in queued:
                enqueue(key(c), n)

    def keep(r: StartResult) -> None:
        """Store the proven start ``r`` and its images; the starts waiting
        on it are looked at again."""
        s = r.start
        proved = [r]
        if symmetry:
            proved += [image(r, name) for t, name in twins(s) if t not in known and t != s]
        for q in proved:
            if q.start in known:
                continue
            store.put(q, target)
            known[q.start] = int(q.winner)  # type: ignore[arg-type]
            open_set.discard(q.start)
            prog.twins += q is not r
        prog.proven += 1
        for p in parents.pop(key(s), set()) | parents.pop(s, set()):
            if p not in known and p in children:
                check(p)

    def handle(s: str, r: StartResult) -> None:
        prog.tasks += 1
        prog.cpu += r.seconds
        for c, w in r.settled.items():  # child starts the solver settled at their start
            if c not in known:
                keep(StartResult(start=c, winner=w, plan={c: {"points": True}}))
        asked.setdefault(s, set()).update(r.settled)
        if r.winner is not None:
            keep(r)
            return
        children[s] = list(dict.fromkeys(r.open))
        asked.setdefault(s, set()).update(r.open)
        if r.exhausted:
            spent.add(s)
        else:
            spent.discard(s)
        sides[s] = r.side
        open_set.add(s)
        n = left(s) + (EXHAUSTED if r.exhausted else 0)
        for c in children[s]:
            c = key(c)
            parents.setdefault(c, set()).add(s)
            open_set.add(c)
            enqueue(c, n)
        if any(c in known for c in children[s]):
            check(s)  # a child was proven while this task ran
        elif r.exhausted and not children[s] and doublings.get(s, 0) < MAX_DOUBLINGS:
            doublings[s] = doublings.get(s, 0) + 1  # nothing to wait for: a bigger budget
            enqueue(s, n)

    if root in known:
        prog.winner = known[root]
        return prog
    enqueue(root, 0)
    while True:
        prog.wall = clock() - t0
        if root in known:
            prog.winner = known[root]
            break
        if stop is not None and stop.is_set():
            prog.stopped = "stopped"
            break
        if seconds is not None and prog.wall >= seconds:
            prog.stopped = "time"
            break
        while queue and len(running) < slots:
            *_, s = heapq.heappop(queue)
            if s not in queued:
                continue  # a stale entry: it was queued again with a better key
            queued.discard(s)
            if s in known:
                continue
            budget = positions << doublings.get(s, 0)
            mine = {c: known[c] for c in asked.get(s, ()) if c in known}
            f = client.submit(prove_task, s, mine, budget, solver_nodes, pure=False)
            running[f] = s
        if not running:
            prog.stopped = "nothing left to try"
            break
        try:
            done = wait(list(running), timeout=0.25, return_when="FIRST_COMPLETED").done  # type: ignore[no-untyped-call]
        except TimeoutError:
            continue
        for f in done:
            s = running.pop(f)
            handle(s, f.result())
            prog.open = len(open_set)
            prog.growth.append(prog.open)
        prog.wall = clock() - t0
        if on_progress is not None:
            on_progress(prog)
    for f in running:
        f.cancel()  # type: ignore[no-untyped-call]
    prog.open = len(open_set)
    return prog
