"""The engine's command-line face: ``kamisado analyse``, ``solve`` and ``best``.

Each ``main_*`` takes the arguments after the command name and returns the
exit status; errors go to standard error with status 2 and nothing on
standard output, like the rest of the command line.

>>> main_solve(["obupyrgn/8/8/N7/8/8/8/1GRYPUBO g p 1 0 0"])
b wins in 16
0
>>> main_best(["2b3n1/4U3/5u1B/3o4/1pN2Or1/4y1P1/g7/1G1R3Y g u 3 0 0", "--level", "club"])
f6-a1
0
>>> main_analyse(["obu1yrgn/8/8/P7/8/3p3U/8/NGRY2BO g g 1 0 0", "--lines", "1"])
1. g8-g2 win in 3 pv g8-g2 h1-h2 f8-f1
best g8-g2
g wins in 3
0
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from kamisado import engine
from kamisado.args import Parser, die, duration, duration_help, int_between, take_kpn
from kamisado.engine.levels import LEVELS, SEED_MAX, player
from kamisado.engine.limits import Limit, Score
from kamisado.engine.review import (
    LINES_LIMIT,
    LINES_MAX,
    SOLVE_NODES,
    best_lines,
    format_line,
)
from kamisado.rules import record
from kamisado.rules.board import KamisadoError
from kamisado.rules.position import Position

__all__ = ["format_score", "main_analyse", "main_best", "main_solve"]

SIDE_LETTERS = "bg"


def _position(words: Sequence[str]) -> Position:
    kpn, rest = take_kpn(words)
    if rest:
        raise KamisadoError(f"unexpected arguments after the KPN: {' '.join(rest)}")
    pos = Position(kpn)
    if pos.outcome is not None:
        raise KamisadoError("the round is over: there is nothing to search")
    return pos


def format_score(score: int) -> str:
    """A search score as people read it: ``+35``, ``win in 7`` or ``loss in 4``.

    Sugar for ``Score.from_raw(score).describe()``.

    >>> format_score(35), format_score(engine.WIN_BASE + 256 - 7)
    ('+35', 'win in 7')
    """
    return Score.from_raw(score).describe()


def _parser(name: str, description: str, nargs: str = "+") -> Parser:
    p = Parser(prog=f"kamisado {name}", description=description)
    p.add_argument("kpn", metavar="KPN", nargs=nargs, help="a position in KPN (one quoted argument)")
    return p


def main_analyse(argv: Sequence[str]) -> int:
    """``kamisado analyse KPN [--lines N] [--time TIME] [--depth N] [--nodes N] [--seed N]``,
    ``kamisado analyse --graph FILE RECORD [--nodes N] [--time TIME] [--depth N]``, or
    ``kamisado analyse --review RECORD [--lines N] [--nodes N] [--time TIME] [--depth N]``.

    Prints one line per completed depth (depth, score, nodes, time), then the
    principal variation, and ``<side> wins in N`` when the result is proven.
    With ``--lines N`` the best N moves instead (MultiPV,
    :func:`kamisado.engine.review.best_lines`), one line each (``1. c1-c5 win in 7
    pv ...``), best first, the solver's proofs winning over the search's
    scores.  With ``--graph`` the argument is a match record instead: every
    position of it is searched (:func:`kamisado.engine.review.evaluations`, by
    default ``DEFAULT_NODES`` nodes each, no clock) and the evaluation curve
    is written to FILE as SVG; one line per position is printed.  With
    ``--review`` every move of the record is printed with the solver's
    verdicts before and after it (:func:`kamisado.engine.review.annotate`, by
    default ``SOLVE_NODES`` nodes a position), and a move that threw away a
    proven win gets ``??`` and the best three moves of its position (every
    move gets its position's best N with ``--lines N``); after each round's
    last move a line gives the round's winner, the points it brought and
    Black's chance to win the match before and after the round
    (:func:`kamisado.engine.review.round_ends`).
    """
    p = _parser("analyse", "Search a position: depth, score, principal variation.", "*")
    p.add_argument("--lines", type=int_between(1, LINES_MAX), default=None, metavar="N",
                   help=f"print the best N moves, each with its score and line"
                   f" (MultiPV, 1..{LINES_MAX}; with --review: for every move)")
    p.add_argument("--graph", metavar="FILE",
                   help="the argument is a match record: write its evaluation curve"
                   " (every position, Black's view) to FILE as SVG")
    p.add_argument("--review", metavar="RECORD",
                   help="annotate a match record: each move with the solver's verdicts,"
                   " ?? where it threw away a proven win, and the best three moves there;"
                   " at each round's end, Black's match chance before and after it")
    p.add_argument("--nodes", type=int_between(1, engine.NODE_LIMIT_MAX), default=None,
                   metavar="N", help="stop after N nodes (each position's budget with"
                   " --graph: default 20000, no clock, so the curve is reproducible;"
                   f" the solver's with --review: default {SOLVE_NODES})")
    p.add_argument("--time", type=duration("ms"), default=None, metavar="TIME",
                   help=f"thinking time in {duration_help('ms')} (default 1000 ms; with"
                   " --graph per position, and no default)")
    p.add_argument("--depth", type=int_between(1, engine.MAX_DEPTH), default=None,
                   metavar="N", help=f"stop at this depth (1..{engine.MAX_DEPTH})")
    p.add_argument("--seed", type=int_between(0, SEED_MAX), default=0, metavar="N",
                   help=f"seed of the search's move shuffle (0..{SEED_MAX}, default 0)")
    args = p.parse_args(argv)
    if args.review is not None:
        if args.graph is not None:
            return die("--review and --graph do not go together: give one")
        if args.kpn:
            return die("--review takes the record as its value; unexpected arguments:"
                        f" {' '.join(args.kpn)}")
        return _review(args)
    if args.graph is not None:
        if args.lines is not None:
            return die("--lines does not go with --graph")
        return _graph(args)
    try:
        pos = _position(args.kpn)
        limit = Limit(time=(args.time or 1000.0) / 1000, depth=args.depth, nodes=args.nodes)
        if args.lines is not None:
            return _lines(pos, args.lines, limit, args.seed)
        r = engine.search(pos, limit=limit, seed=args.seed)
    except (KamisadoError, ValueError) as e:
        return die(str(e))
    for it in r.iterations:
        print(f"depth {it.depth} score {it.value.describe()} nodes {it.nodes}"
              f" time {it.seconds * 1000:.0f}")
    print(f"pv {' '.join(str(m) for m in r.pv)}")
    print(f"best {r.best_move}")
    if r.proven_win_in is not None:
        print(f"{SIDE_LETTERS[pos.turn]} wins in {r.proven_win_in}")
    elif r.proven_loss_in is not None:
        print(f"{SIDE_LETTERS[pos.turn ^ 1]} wins in {r.proven_loss_in}")
    return 0


def _lines(pos: Position, n: int, limit: Limit, seed: int) -> int:
    """``analyse KPN --lines N``: the best N moves, then the best and any proof."""
    lines = best_lines(pos, n=n, limit=limit, seed=seed)
    for rank, line in enumerate(lines, 1):
        print(format_line(rank, line))
    top = lines[0]
    print(f"best {top.move}")
    if top.score.kind == "win":
        print(f"{SIDE_LETTERS[pos.turn]} wins in {top.score.value}")
    elif top.score.kind == "loss":
        print(f"{SIDE_LETTERS[pos.turn ^ 1]} wins in {top.score.value}")
    return 0


def _load_record(path: str) -> record.Record | int:
    """The match record in the file ``path``, or the exit status after saying
    in one line why it cannot be read."""
    try:
        return record.load(path)
    except OSError as e:
        return die(f"cannot read {path}: {e.strerror}")
    except KamisadoError as e:
        return die(f"{path}: {e}")


def _review(args: argparse.Namespace) -> int:
    """``analyse --review RECORD``: every move with its verdicts and marks."""
    from kamisado.engine.review import (
        Note,
        annotate,
        format_note,
        format_round_end,
        round_ends,
    )

    path = args.review
    rec = _load_record(path)
    if isinstance(rec, int):
        return rec
    if args.time is None and args.depth is None:
        limit = LINES_LIMIT
    else:
        limit = Limit(time=None if args.time is None else args.time / 1000, depth=args.depth)

    def show(note: Note) -> None:
        print(format_note(note), flush=True)
        if note.blunder or args.lines is not None:
            for rank, line in enumerate(
                best_lines(note.kpn, n=args.lines or 3, limit=limit, seed=args.seed), 1
            ):
                print(f"  {format_line(rank, line)}", flush=True)
        if note.index in ends:
            print(format_round_end(ends[note.index]), flush=True)

    ends = {end.index: end for end in round_ends(rec)}
    notes = annotate(rec, nodes=args.nodes or SOLVE_NODES, on_note=show)
    marked = sum(n.blunder for n in notes)
    print(f"{path}: {len(notes)} moves, {marked} threw away a proven win")
    return 0


def _graph(args: argparse.Namespace) -> int:
    """``analyse --graph FILE RECORD``: the record's evaluation curve as SVG."""
    from kamisado.engine import review
    from kamisado.pictures import graph

    if len(args.kpn) != 1:
        return die(f"--graph takes one match record, found {' '.join(args.kpn)!r}")
    path = args.kpn[0]
    rec = _load_record(path)
    if isinstance(rec, int):
        return rec
    points = review.evaluations(rec, nodes=args.nodes, ms=args.time, depth=args.depth,
                               seed=args.seed,
                               on_point=lambda pt: print(graph.format_point(pt), flush=True))
    black, gold = rec.headers.get("Black", ""), rec.headers.get("Gold", "")
    players = f"{black or 'Black'} - {gold or 'Gold'}: " if black or gold else ""
    title = f"{players}{record.result_text(rec)}"
    try:
        with open(args.graph, "w", encoding="utf-8") as f:
            f.write(graph.evaluation_svg(points, title=title) + "\n")
    except OSError as e:
        return die(f"cannot write {args.graph}: {e.strerror}")
    print(f"{args.graph}: {len(points)} positions")
    return 0


def main_solve(argv: Sequence[str]) -> int:
    """``kamisado solve KPN [--time S] [--winner | --points]``: one line, ``<b|g> wins in <N>``
    or ``unknown``; with ``--winner`` (who wins only, much faster),
    ``<b|g> wins`` and a winning move when the side to move wins; with
    ``--points`` what the round is worth to the side to move
    (:func:`kamisado.engine.solve_points`): ``<b|g> wins <P> points``, then
    ``(+P for <b|g>)`` or ``(-P for <b|g>)`` from the side to move, and the
    move that keeps it; ``unknown (<lo> to <hi> for <b|g>)`` when the time
    runs out.

    >>> main_solve(["2b3n1/4U3/5u1B/3o4/1pN2Or1/4y1P1/g7/1G1R3Y g u 3 0 0", "--winner"])
    g wins with f6-a1
    0
    >>> main_solve(["3rn1py/3bP+3/1G6/o+2B4/1u6/6g1/6R+1/O+1Y+1U+1N1 g p 15 5 1", "--points"])
    b wins 2 points (-2 for g)
    0
    """
    p = _parser("solve", "Prove who wins the round with best play.")
    p.add_argument("--time", type=duration("s"), default=60.0, metavar="TIME",
                   help=f"give up after this long, in {duration_help('s')} (default 60 s)")
    how = p.add_mutually_exclusive_group()
    how.add_argument("--winner", action="store_true",
                     help="prove only who wins, not in how many moves (much faster):"
                     " prints '<b|g> wins' and, when the side to move wins, a winning move")
    how.add_argument("--points", action="store_true",
                     help="prove what the round is worth to the side to move: the most points"
                     " (1, 2, 4, 8) it can force when it wins, the fewest it must concede"
                     " when it loses: prints '<b|g> wins <P> points (+P for <b|g>)'")
    args = p.parse_args(argv)
    try:
        pos = _position(args.kpn)
        if args.points:
            pr = engine.solve_points(pos, limit=Limit(time=args.time))
        else:
            r = engine.solve(pos, limit=Limit(time=args.time), pv=False, exact=not args.winner)
    except (KamisadoError, ValueError) as e:
        return die(str(e))
    if args.points:
        me = SIDE_LETTERS[pos.turn]
        if pr.points is None:
            won = "" if pr.winner is None else f"{SIDE_LETTERS[pr.winner]} wins, "
            print(f"{won}points unknown ({pr.low:+d} to {pr.high:+d} for {me})")
            return 0
        winner = pos.turn if pr.points > 0 else pos.turn ^ 1
        keep = f" with {pr.best_move}" if pr.best_move is not None else ""
        n = abs(pr.points)
        print(f"{SIDE_LETTERS[winner]} wins {n} point{'s' if n > 1 else ''}"
              f" ({pr.points:+d} for {me}){keep}")
        return 0
    if r.winner is None:
        print("unknown")
    elif r.distance is None:
        win = f" with {r.best_move}" if r.winner == pos.turn and r.best_move else ""
        print(f"{SIDE_LETTERS[r.winner]} wins{win}")
    else:
        print(f"{SIDE_LETTERS[r.winner]} wins in {r.distance}")
    return 0


def main_best(argv: Sequence[str]) -> int:
    """``kamisado best KPN (--level NAME | --time TIME) [--seed N]``: the move, square form."""
    p = _parser("best", "Print the engine's move for a position.")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--level", choices=list(LEVELS), help="play at this level")
    g.add_argument("--time", type=duration("ms"), metavar="TIME",
                   help=f"search for this long, in {duration_help('ms')}")
    p.add_argument("--seed", type=int_between(0, SEED_MAX), default=0, metavar="N",
                   help=f"seed of the level's choices (0..{SEED_MAX}, default 0)")
    args = p.parse_args(argv)
    try:
        pos = _position(args.kpn)
        if args.level is not None:
            move = player(args.level, seed=args.seed).choose_move(pos)
        else:
            r = engine.search(pos, limit=Limit(time=args.time / 1000), seed=args.seed)
            assert r.best_move is not None
            move = r.best_move
    except (KamisadoError, ValueError) as e:
        return die(str(e))
    print(move)
    return 0
