"""Work done in the server's process pool: computer moves and analysis.

The server runs the engine in worker processes
(``concurrent.futures.ProcessPoolExecutor``), or on a job queue's workers:
not because it needs the GIL (the compiled search releases it) but for the
cores, and so a computer move never competes with the event loop for its
process's time.  These functions take and return plain data only.

>>> computer_action(1, False, "obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 1 0 0", [], "beginner", 7) in {
...     str(m) for m in __import__("kamisado").Position().legal_moves}
True
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from kamisado.engine.limits import Limit
from kamisado.rules.board import SIDE_LETTERS
from kamisado.rules.match import FILL, Match
from kamisado.rules.position import Position

if TYPE_CHECKING:
    from kamisado.proving.play import ProofOracle

__all__ = [
    "PROOF_STORE_ENV",
    "analyse",
    "computer_action",
    "die_with_parent",
    "proof_oracle",
    "use_proof_store",
    "replay_match",
    "report_looks",
    "review",
    "solver_reply",
    "start_worker",
]


#: Linux prctl(2) option: the signal this process gets when its parent dies.
PR_SET_PDEATHSIG = 1
#: How often the watcher thread checks that the server is still the parent.
PARENT_POLL_S = 0.5
#: How much nicer than the server its pool workers run (``nice(2)``): the
#: computer's thinking gives way to the server's event loop, so a person's
#: move is answered at once while every core is busy thinking (the computer
#: still gets every core the server leaves idle).
WORKER_NICE = 10


def start_worker(parent: int) -> None:
    """The pool's initializer: run below the server's priority
    (:data:`WORKER_NICE`), leave Ctrl-C to the server (a terminal sends
    SIGINT to its whole process group; the server stops its pool) and end
    when the server ``parent`` dies (:func:`die_with_parent`)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(os, "nice"):
        with contextlib.suppress(OSError):
            os.nice(WORKER_NICE)
    die_with_parent(parent)


def die_with_parent(parent: int) -> None:
    """The pool's initializer: end this worker when the server ``parent`` dies.

    A ``kill -9`` of the server gives its workers no notice and they would
    live on, parented to init (issue 10).  On Linux the kernel sends this
    process SIGKILL when its parent dies (``PR_SET_PDEATHSIG``, set with
    ``prctl`` through ctypes); the server may have died before that was
    set, so the parent is checked right after.  Everywhere but Windows
    (where the parent pid does not change) a daemon thread also checks every
    :data:`PARENT_POLL_S` seconds that the parent is still ``parent`` and
    ends the process at once if not (the fallback where prctl is missing).
    """
    if sys.platform.startswith("linux"):
        import ctypes

        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if sys.platform == "win32":
        return
    if os.getppid() != parent:
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_S)
        os._exit(1)

    threading.Thread(target=watch, name="kamisado-parent-watch", daemon=True).start()


def replay_match(target: int, series: bool, start_kpn: str, tokens: list[str]) -> Match:
    """The match reached by playing ``tokens`` (moves or fills) from the start."""
    match = Match(target, series=series, start=start_kpn)
    for token in tokens:
        match.apply(token)
    return match


#: An environment variable: ``KAMISADO_PROOF_STORE=PATH_OR_URL`` (``kamisado
#: web --proof-store``) is the match proof store the computer's ``perfect``
#: plays from and the review reads "proven" from (docs/match-proof.md).
PROOF_STORE_ENV = "KAMISADO_PROOF_STORE"


def proof_oracle() -> ProofOracle | None:
    """The match proof of :data:`PROOF_STORE_ENV` (opened once a process), or ``None``."""
    where = os.environ.get(PROOF_STORE_ENV, "")
    return _oracle(where) if where else None


def use_proof_store(where: str) -> None:
    """``--proof-store`` of ``kamisado web`` and ``kamisado worker``: the
    store must be there (``ValueError`` says why not, and nothing is made);
    this process and the pool's workers it starts then use it
    (:data:`PROOF_STORE_ENV`)."""
    from kamisado.proving.play import open_oracle

    open_oracle(where).store.close()
    os.environ[PROOF_STORE_ENV] = where


@lru_cache(maxsize=2)
def _oracle(where: str) -> ProofOracle:
    from kamisado.proving.play import open_oracle

    return open_oracle(where)


def computer_action(
    target: int, series: bool, start_kpn: str, tokens: list[str], level: str, seed: int
) -> str:
    """The computer's next action in a game: a move in square form or a fill."""
    from kamisado.engine.levels import player

    match = replay_match(target, series, start_kpn, tokens)
    pl = player(level, seed, proof_oracle() if level == "perfect" else None)
    if match.state == FILL:
        return pl.choose_fill(match)
    return str(pl.choose_move(match.position))


#: An environment variable: ``KAMISADO_ANALYSIS_NODES=N`` makes :func:`analyse`
#: search ``N`` nodes from empty tables (each search, the solver and the
#: lines) instead of for ``time_ms``, so the same position gets the same
#: answer on any machine (``tools/screenshots.py``).
ANALYSIS_NODES_ENV = "KAMISADO_ANALYSIS_NODES"


def analyse(kpn: str, time_ms: float = 400.0, lines: int = 0) -> dict[str, Any]:
    """The engine's view of a position: a search, then the solver's proof.

    Returns ``{"over": bool, "best": "c1-c5", "pv": [...], "depth": n,
    "score": n, "kind": "eval"|"win"|"loss", "moves": n|None, "side": "b"|"g",
    "solved": {"winner": "b"|"g", "distance": n} | None}`` (``kind`` and
    ``moves`` for the side to move).  With ``lines`` > 0 also ``"lines"``:
    the best ``lines`` moves (:func:`kamisado.engine.review.best_lines`, MultiPV,
    searched for ``time_ms`` more), each ``{"move", "kind": "eval"|"win"|"loss",
    "value", "pv"}`` (``value``: the evaluation, or the moves to the end of
    the round of a proven result, for the side to move).

    >>> a = analyse("obu1yrgn/8/8/P7/8/3p3U/8/NGRY2BO g g 1 0 0", 50, lines=2)
    >>> a["lines"][0]
    {'move': 'g8-g2', 'kind': 'win', 'value': 3, 'pv': ['g8-g2', 'h1-h2', 'f8-f1']}
    >>> from kamisado.rules.board import START_KPN
    >>> len(a["lines"]), "lines" in analyse(START_KPN, 50)
    (2, False)
    """
    from kamisado.engine import clear_tables, search, solve

    pos = Position(kpn)
    side = SIDE_LETTERS[pos.turn]
    if pos.outcome is not None:
        return {"over": True, "side": side}
    nodes = os.environ.get(ANALYSIS_NODES_ENV, "")
    seconds = None if (nodes.isascii() and nodes.isdigit()) and int(nodes) > 0 else time_ms / 1000.0
    if seconds is None:
        clear_tables()
    limit = Limit(time=seconds, nodes=int(nodes) if seconds is None else None)
    r = search(pos, limit=limit)
    score = r.value
    solved = None
    if pos.target == 1 or score.is_proven:
        s = solve(pos, limit=limit)
        if s.winner is not None:
            solved = {
                "winner": SIDE_LETTERS[s.winner],
                "distance": s.distance,
                "pv": [str(m) for m in s.pv],
            }
    out: dict[str, Any] = {
        "over": False,
        "side": side,
        "best": str(r.best_move) if r.best_move else None,
        "pv": [str(m) for m in r.pv],
        "depth": r.depth,
        "score": r.score,
        "kind": score.kind if score.is_proven else "eval",
        "moves": score.moves,
        "solved": solved,
    }
    if lines > 0:
        from kamisado.engine.review import LINES_LIMIT, best_lines

        lines_limit = limit if seconds is None else Limit(time=seconds, nodes=LINES_LIMIT.nodes)
        out["lines"] = [
            {
                "move": str(x.move),
                "kind": x.score.kind if x.score.is_proven else "eval",
                "value": x.score.value,
                "pv": [str(m) for m in x.pv],
            }
            for x in best_lines(pos, n=lines, limit=lines_limit)
        ]
        _proven_by_lines(out)
    return out


def _proven_by_lines(out: dict[str, Any]) -> None:
    """Make the headline agree with the lines: when the search gave only an
    evaluation but the best line is proven (the lines give every root move
    to the solver first), the position is proven too, since the best move
    wins, or even the best move loses.  ``solved``, ``kind``, ``moves``,
    ``best`` and ``pv`` are then the best line's.

    >>> out = {"side": "b", "kind": "eval", "moves": None, "solved": None, "best": "a1-a2", "pv": ["a1-a2"],
    ...        "lines": [{"move": "c1-c5", "kind": "loss", "value": 18, "pv": ["c1-c5", "d8-d1"]}]}
    >>> _proven_by_lines(out)
    >>> out["solved"], out["kind"], out["moves"], out["best"]
    ({'winner': 'g', 'distance': 18, 'pv': ['c1-c5', 'd8-d1']}, 'loss', 18, 'c1-c5')
    """
    top = (out.get("lines") or [None])[0]
    if out["solved"] is not None or out["kind"] != "eval" or top is None or top["kind"] == "eval":
        return
    side = out["side"]
    winner = side if top["kind"] == "win" else ("g" if side == "b" else "b")
    out["solved"] = {"winner": winner, "distance": top["value"], "pv": list(top["pv"])}
    out.update(kind=top["kind"], moves=top["value"], best=top["move"], pv=list(top["pv"]))


def solver_reply(kpn: str, time_limit: float = 2.0) -> str:
    """The defender's best move (the longest resistance when lost), for puzzles:
    ``kamisado.lessons.puzzle_reply`` when that module is there."""
    try:
        from kamisado.lessons import puzzle_reply  # type: ignore[attr-defined, unused-ignore]
    except ImportError:
        pass
    else:
        reply: str = puzzle_reply(kpn)
        return reply
    from kamisado.engine import search, solve

    pos = Position(kpn)
    s = solve(pos, limit=Limit(time=time_limit))
    if s.best_move is not None:
        return str(s.best_move)
    r = search(pos, limit=Limit(time=0.3))
    assert r.best_move is not None
    return str(r.best_move)


def puzzle_step(kpn: str, move: str, side: int, bound: int | None,
                accepted: list[str] | None) -> dict[str, Any]:
    """A puzzle move judged, and the defender's reply
    (:func:`kamisado.lessons.puzzle_step`)."""
    from kamisado.lessons import puzzle_step as step

    return step(kpn, move, side, bound, accepted)


def evaluation_svg(
    target: int, series: bool, start_kpn: str, tokens: list[str], nodes: int,
    width: int = 720, words: dict[str, str] | None = None,
) -> str:
    """The evaluation graph of a game (:func:`kamisado.pictures.graph.evaluation_svg`),
    each position searched with ``nodes`` nodes, drawn ``width`` wide in ``words``."""
    from kamisado.engine.review import evaluations
    from kamisado.pictures import graph

    match = replay_match(target, series, start_kpn, tokens)
    height = max(240, min(320, round(width * 0.45)))
    return graph.evaluation_svg(evaluations(match, nodes=nodes), width=width, height=height, words=words)


#: Each position's solver budget in :func:`review` when the server gives none.
REVIEW_NODES = 200_000


def review(
    target: int, series: bool, start_kpn: str, tokens: list[str], nodes: int = REVIEW_NODES
) -> dict[str, Any]:
    """The marks of a game's moves (:func:`kamisado.engine.review.annotate`, ``nodes``
    nodes a position): ``{"nodes": n, "marks": [...]}``, one mark a move,
    ``{"step": i, "round", "ply", "move", "side": "b"|"g", "mark": "??"|"",
    "lost": n|None, "before": verdict|None, "after": verdict|None}``, where
    ``step`` counts as ``/api/games/{id}/steps`` does, ``lost`` is the
    distance of the proven win a blunder threw away, and a verdict is
    ``{"winner": "b"|"g", "distance": n}`` (``None``: not proven).  Also
    ``"rounds"``: one entry a round that ended on the board
    (:func:`kamisado.engine.review.round_ends`), ``{"step": i, "round", "winner":
    "b"|"g", "points": n, "score": [black, gold], "before": p, "after": p}``,
    ``step`` the round's last position, ``before``/``after`` Black's chance
    (0 to 1) to win the match at the round's start and after the round.
    With a match proof store (:data:`PROOF_STORE_ENV`) a mark whose
    positions it covers also has ``"match": {"before": "b"|"g"|None,
    "after": ...}`` (who wins the match, proven) and is marked ``??`` where
    the move threw away a proven match win; the others have ``"match": None``.

    >>> r = review(1, False, "obu1yrgn/8/8/P7/8/3p3U/8/NGRY2BO g g 1 0 0",
    ...            ["g8-a2", "h3-d7", "d7-d8"], 20_000)
    >>> [(m["step"], m["mark"], m["lost"]) for m in r["marks"]]
    [(1, '??', 3), (2, '', None), (3, '', None)]
    >>> r["marks"][0]["after"]
    {'winner': 'b', 'distance': 2}
    >>> [(e["step"], e["winner"], e["points"], e["score"], e["after"]) for e in r["rounds"]]
    [(3, 'b', 1, [1, 0], 1.0)]
    """
    from kamisado.engine.review import BLUNDER, Verdict, annotate, round_ends

    def verdict(v: Verdict | None) -> dict[str, Any] | None:
        return None if v is None else {"winner": SIDE_LETTERS[v.winner], "distance": v.distance}

    def side(w: int | None) -> str | None:
        return None if w is None else SIDE_LETTERS[w]

    match = replay_match(target, series, start_kpn, tokens)
    oracle = proof_oracle()
    marks = []
    for n in annotate(match, nodes=nodes):
        proven = None
        if oracle is not None:
            from kamisado.proving.play import judge

            proven = judge(oracle, n.kpn, str(n.move), nodes)
        marks.append({
            "step": n.index,
            "round": n.round,
            "ply": n.ply,
            "move": str(n.move),
            "side": SIDE_LETTERS[n.mover],
            "mark": BLUNDER if n.blunder or (proven is not None and proven.thrown) else "",
            "lost": n.before.distance if n.blunder and n.before is not None else None,
            "before": verdict(n.before),
            "after": verdict(n.after),
            "match": None if proven is None else {"before": side(proven.before), "after": side(proven.after)},
        })
    rounds = [
        {
            "step": e.index,
            "round": e.round,
            "winner": SIDE_LETTERS[e.winner],
            "points": e.points,
            "score": list(e.score),
            "before": e.before,
            "after": e.after,
        }
        for e in round_ends(match)
    ]
    return {"nodes": nodes, "marks": marks, "rounds": rounds}


def report_looks(kpns: list[str], nodes: int, solve_nodes: int) -> list[list[Any]]:
    """A game report's look at each position (:func:`kamisado.engine.report.look_at`:
    the solver within ``solve_nodes`` nodes, else a search of ``nodes``), as
    plain data (:meth:`kamisado.engine.report.Look.to_json`): one slice of a
    report, so that a computer move waits for at most one slice.

    >>> report_looks(["obu1yrgn/8/8/P7/8/3p3U/8/NGRY2BO g g 1 0 0"], 1_000, 20_000)
    [[1, 3, None, None]]
    """
    from kamisado.engine.report import look_at

    return [look_at(Position(kpn), nodes, solve_nodes).to_json() for kpn in kpns]
