"""``kamisado solve-match`` and ``kamisado verify-match``.

Each ``main_*`` takes the arguments after the command name and returns the
exit status: 0 done (the value proven, or the bounds when the time ran out),
1 a refused proof or nothing to export, 2 bad arguments, 130 stopped by
SIGINT (what was proven is kept).

>>> main_verify_match(["/nonexistent/proof.json"])
refused: /nonexistent/proof.json: cannot be read as a proof: [Errno 2] No such file or directory: '/nonexistent/proof.json'
1
"""

from __future__ import annotations

import logging
import signal
import sys
import threading
from collections import Counter
from collections.abc import Sequence

from kamisado.args import Parser, die, duration, duration_help, int_between
from kamisado.proving.proof import ProofError, export, verify
from kamisado.proving.rounds import POSITIONS, SOLVER_NODES
from kamisado.proving.run import Progress, solve_match
from kamisado.proving.store import ProofStore
from kamisado.rules.board import SIDE_NAMES, KamisadoError, start_kpn
from kamisado.rules.match import MATCH_NAMES
from kamisado.rules.position import Position

__all__ = ["MATCHES", "main_solve_match", "main_verify_match", "summary"]

#: ``--match`` names and their targets.
MATCHES = {"standard": 3, "long": 7, "marathon": 15}
#: The store when ``--store`` is not given.
DEFAULT_STORE = "match-proof.sqlite"


def summary(prog: Progress, store: ProofStore, target: int) -> str:
    """The last line: the match's value with its first move, or what is proven."""
    name = MATCH_NAMES[target]
    if prog.winner is not None:
        got = store.get(prog.root)
        first = ""
        if got is not None:
            e = got.plan.get(prog.root, {})
            if "move" in e:
                first = f", first move {e['move']}"
            elif "all" in e:
                first = ", whatever the first move"
            else:
                first = ", proven by the single-round solver"
        where = "" if prog.root == start_kpn(target) else " from this round start"
        return f"{SIDE_NAMES[prog.winner]} wins the {name} match{where}{first}"
    proven = store.load(target)
    states = Counter(_state(s) for s in proven)
    shown = ", ".join(f"{k}: {v}" for k, v in sorted(states.items(), reverse=True))
    return (
        f"not proven ({prog.stopped or 'stopped'}): {len(proven)} round starts proven"
        f" ({shown or 'none'}), {prog.open} open"
    )


def _state(start: str) -> str:
    p = Position(start)
    return f"{p.points[0]}-{p.points[1]} {'bg'[p.turn]} opens"


def main_solve_match(argv: Sequence[str]) -> int:
    """``kamisado solve-match --match standard|long|marathon [--start KPN]
    [--workers N | --scheduler ADDRESS] [--store PATH_OR_URL] [--time S]
    [--export FILE]``: prove who wins the match, round start by round start,
    on Dask workers (a LocalCluster of N by default), keeping proven starts in
    the store; a later run resumes from it."""
    p = Parser(prog="kamisado solve-match", description="Prove who wins a Kamisado match, on dask.distributed.")
    p.add_argument("--match", choices=sorted(MATCHES), default="standard")
    p.add_argument("--start", metavar="KPN", help="a round start to prove instead of the match's first")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--workers", type=int_between(1, 1024), default=1, metavar="N",
                       help="a LocalCluster of N worker processes (default 1)")
    where.add_argument("--scheduler", metavar="ADDRESS",
                       help="a running Dask scheduler (dask scheduler / dask worker), e.g. tcp://host:8786")
    p.add_argument("--store", default=DEFAULT_STORE, metavar="PATH_OR_URL",
                   help=f"SQLite file or postgresql:// URL of proven round starts (default {DEFAULT_STORE})")
    p.add_argument("--time", type=duration("s"), metavar="TIME",
                   help=f"stop after this long, in {duration_help('s')} (default: until proven)")
    p.add_argument("--positions", type=int_between(1, 10**7), default=POSITIONS, metavar="N",
                   help=f"round positions a task expands at first (default {POSITIONS})")
    p.add_argument("--solver-nodes", type=int_between(1000, 10**9), default=SOLVER_NODES, metavar="N",
                   help=f"the points solver's nodes at each position (default {SOLVER_NODES})")
    p.add_argument("--export", metavar="FILE", help="write the proof there when the start is proven (at once when the store has it)")
    args = p.parse_args(argv)
    target = MATCHES[args.match]
    root = args.start or start_kpn(target)
    try:
        pos = Position(root)
    except KamisadoError as e:
        return die(f"--start: {e}")
    if pos.target != target or pos.outcome is not None or pos.must_move != -1:
        return die(f"--start: not a round start of a {MATCH_NAMES[target]} match: {root}")
    root = pos.kpn()
    try:
        store = ProofStore(args.store)
        loaded = store.count(target)
    except Exception as e:  # noqa: BLE001 - any database error, said in one line
        return die(f"--store {args.store}: {e}")
    print(f"resumed: {loaded} round starts loaded", flush=True)
    stop = threading.Event()
    status = 0
    got = store.get(root)
    if got is not None:  # proven before: no workers needed
        prog = Progress(root, loaded=loaded, winner=got.winner)
    else:
        prog, status = _run(args, root, store, stop)
    print(summary(prog, store, target), flush=True)
    if args.export:
        try:
            n = export(store, root, args.export)
        except ProofError as e:
            print(f"not exported: {e}", file=sys.stderr)
            return 1
        print(f"exported {n} round starts to {args.export}")
    store.close()
    return status


def _run(args: object, root: str, store: ProofStore, stop: threading.Event) -> tuple[Progress, int]:
    from distributed import Client, LocalCluster

    tty = sys.stderr.isatty()

    def show(prog: Progress) -> None:
        if tty:
            print("\r" + prog.line() + "\033[K", end="", file=sys.stderr, flush=True)

    scheduler = getattr(args, "scheduler", None)
    cluster = None
    status = 0
    # the workers ignore SIGINT (they inherit it): a Ctrl-C stops the run
    # here, between tasks, and the proven starts stay in the store
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        if scheduler:
            client = Client(scheduler)  # type: ignore[no-untyped-call]
        else:
            cluster = LocalCluster(  # type: ignore[no-untyped-call]
                n_workers=getattr(args, "workers", 1), threads_per_worker=1,
                processes=True, dashboard_address=None, silence_logs=logging.ERROR,
            )
            client = Client(cluster)  # type: ignore[no-untyped-call]
        if before is not signal.SIG_IGN:
            signal.signal(signal.SIGINT, lambda *_: stop.set())
        try:
            prog = solve_match(root, store, client, seconds=getattr(args, "time", None),
                               positions=getattr(args, "positions", POSITIONS),
                               solver_nodes=getattr(args, "solver_nodes", SOLVER_NODES),
                               stop=stop, on_progress=show)
        finally:
            client.close()  # type: ignore[no-untyped-call]
    finally:
        signal.signal(signal.SIGINT, before)
        if cluster is not None:
            cluster.close()
    if stop.is_set():
        prog.stopped = "SIGINT"
        status = 130
    if tty:
        print(file=sys.stderr)
    print(prog.line(), flush=True)
    return prog, status


def main_verify_match(argv: Sequence[str]) -> int:
    """``kamisado verify-match FILE``: re-check a proof written by
    ``kamisado solve-match --export`` with the plain rules and the
    single-round solver only; ``verified: ...`` and status 0, or
    ``refused: <where and why>`` and status 1."""
    p = Parser(prog="kamisado verify-match", description="Check a match proof with the rules and the round solver.")
    p.add_argument("file", metavar="FILE")
    args = p.parse_args(argv)
    try:
        v = verify(args.file)
    except ProofError as e:
        print(f"refused: {e}")
        return 1
    print(v.line())
    return 0
