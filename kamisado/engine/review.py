"""Analysis that teaches: the best few moves of a position, and the moves
of a match that threw away a proven win.

:func:`best_lines` is MultiPV: the best ``n`` root moves of a position, each
with its :class:`~kamisado.engine.limits.Score` and principal variation.  The
solver (:func:`kamisado.engine.solve_moves`) proves what it can within a
node budget and a proven line wins over a heuristic score; the rest are
ranked by an iterative deepening over the root moves, each root move
searched by :func:`search_root_move` (the same function the KEI engine's
``MultiPV`` uses, :mod:`kamisado.protocol.kei`).

:func:`annotate` replays a match record and marks every move after which
the solver proves that the mover lost a round it had proven won (``??``,
as Lichess marks a blunder).

>>> from kamisado.rules.match import Match
>>> m = Match(1, start="obu1yrgn/8/8/P7/8/3p3U/8/NGRY2BO g g 1 0 0")
>>> for token in ["g8-a2", "h3-d7", "d7-d8"]:
...     _ = m.apply(token)
>>> [format_note(n) for n in annotate(m, nodes=20_000)][0]
'round 1 move 1 Gold g8-a2 ?? threw away a win in 3 (before: g wins in 3; after: b wins in 2)'
>>> print(best_lines(m.rounds[0].start, n=1)[0])
g8-g2 win in 3 pv g8-g2 h1-h2 f8-f1
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from kamisado import engine
from kamisado.engine.equity import equity_of
from kamisado.engine.limits import MATCH_TIER, WIN_BASE, Limit, Score
from kamisado.pictures.graph import Point
from kamisado.rules.board import BLACK, RING_POINTS, SIDE_LETTERS, SIDE_NAMES, Move
from kamisado.rules.match import Match
from kamisado.rules.position import Position
from kamisado.rules.record import Record, replay

__all__ = [
    "BLUNDER",
    "DEFAULT_NODES",
    "LINES_MAX",
    "LINES_LIMIT",
    "LINE_SOLVE_NODES",
    "SOLVE_NODES",
    "Line",
    "Note",
    "RootSearch",
    "RoundEnd",
    "Verdict",
    "annotate",
    "best_lines",
    "blunders",
    "evaluations",
    "format_line",
    "format_note",
    "format_round_end",
    "round_ends",
    "search_root_move",
]

#: The mark of a move that threw away a proven win.
BLUNDER = "??"
#: The most lines :func:`best_lines` is asked for on the command line.
LINES_MAX = 256
#: :func:`best_lines`'s default search limit (no clock: the answer is reproducible).
LINES_LIMIT = Limit(nodes=400_000)
#: :func:`best_lines`'s solver budget for each root move (nodes).
LINE_SOLVE_NODES = 20_000
#: :func:`annotate`'s solver budget for each position (nodes): a typical
#: single-round record annotates in about a second with the compiled engine.
SOLVE_NODES = 200_000


# ---------------------------------------------------------------------------
# One root move's search: the step both MultiPVs (here and KEI's) repeat
# ---------------------------------------------------------------------------


def _from_child(raw: int, same_side: bool) -> int:
    """A child's search score as the parent's: negated unless the opponent passed,
    a proven result one move further away.

    >>> _from_child(-30, False), _from_child(-30, True)
    (30, -30)
    >>> [str(Score.from_raw(_from_child(s * (WIN_BASE + 256 - 2), False))) for s in (1, -1)]
    ['loss 3', 'win 3']
    """
    value = raw if same_side else -raw
    if value > WIN_BASE:
        return value - 1
    if value < -WIN_BASE:
        return value + 1
    return value


def _ended_score(pos: Position, child: Position) -> int:
    """The search score of a root move that ended the round (``child`` is after it).

    >>> p = Position("o1upyrgn/8/8/1P6/6Bb/N6O/8/1GRY1U2 b p 1 0 0")
    >>> q = p.copy(stack=False)
    >>> q.push(Move.from_str("b5-b8"))
    >>> Score.from_raw(_ended_score(p, q))
    Score(kind='win', value=1)
    """
    assert child.outcome is not None
    side = child.outcome.winner
    points = RING_POINTS[child.outcome.rings]
    tier = MATCH_TIER if pos.points[side] + points >= pos.target else points
    raw = WIN_BASE + 256 * tier - 1
    return raw if side == pos.turn else -raw


@dataclass(frozen=True)
class RootSearch:
    """One root move searched to a depth (:func:`search_root_move`).

    ``raw`` is the engine's integer score for the side to move at the root
    (:meth:`Score.from_raw` reads it); ``pv`` starts with the move;
    ``complete`` is false when the limits cut the search short (its score
    is then not the depth's).
    """

    move: Move
    raw: int
    pv: tuple[Move, ...]
    seldepth: int
    nodes: int
    complete: bool

    @property
    def score(self) -> Score:
        """:attr:`raw` as a :class:`Score`."""
        return Score.from_raw(self.raw)


def search_root_move(
    pos: Position,
    move: Move,
    child: Position,
    depth: int,
    *,
    time: float | None = None,
    nodes: int | None = None,
    seed: int = 0,
) -> RootSearch:
    """Search root move ``move`` of ``pos`` (``child`` is the position after it)
    to ``depth``: its child to ``depth - 1`` with the engine's own search.

    A move that ends the round scores the round (a proven result in one
    move); at depth 1 the child's static evaluation is the score.  Deeper,
    ``time`` (seconds) and ``nodes`` limit the child's search; a search cut
    short by them comes back with ``complete`` false.  A child whose side to
    move is the root's mover again (the opponent passed) keeps its sign.

    >>> p = Position()
    >>> m = Move.from_str("c1-c5")
    >>> q = p.copy(stack=False)
    >>> q.push(m)
    >>> r = search_root_move(p, m, q, 3)
    >>> r.complete, r.pv[0] == m, len(r.pv) >= 2, r.score.is_proven
    (True, True, True, False)
    >>> search_root_move(p, m, q, 1).nodes
    0
    """
    if child.outcome is not None:
        return RootSearch(move, _ended_score(pos, child), (move,), 1, 0, True)
    same = child.turn == pos.turn
    if depth <= 1:
        value = engine.evaluate(child)
        return RootSearch(move, value if same else -value, (move,), 1, 0, True)
    r = engine.search(child, limit=Limit(time=time, depth=depth - 1, nodes=nodes), seed=seed)
    complete = r.depth >= depth - 1 or bool(r.match_won)
    return RootSearch(
        move, _from_child(r.score, same), (move, *r.pv), r.seldepth + 1, r.nodes, complete
    )


# ---------------------------------------------------------------------------
# MultiPV
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Line:
    """One of :func:`best_lines`: a root move, its score for the side to move,
    and its principal variation (which starts with the move).

    ``depth`` is the search depth behind a heuristic score, ``None`` where
    the solver proved the line.

    >>> str(Line(Move.from_str("c1-c5"), Score("cp", 12), (Move.from_str("c1-c5"),), 3))
    'c1-c5 +12 pv c1-c5'
    """

    move: Move
    score: Score
    pv: tuple[Move, ...]
    depth: int | None

    @property
    def proven(self) -> bool:
        """Whether the line's result is proven."""
        return self.score.is_proven

    def __str__(self) -> str:
        return f"{self.move} {self.score.describe()} pv {' '.join(str(m) for m in self.pv)}"


def format_line(rank: int, line: Line) -> str:
    """A line as ``kamisado analyse --lines`` prints it.

    >>> format_line(1, Line(Move.from_str("c1-c5"), Score("win", 7), (), None))
    '1. c1-c5 win in 7 pv '
    """
    return f"{rank}. {line}"


def _order(score: Score) -> tuple[int, int]:
    """Best first: proven wins (shortest first), evaluations (highest first),
    proven losses (longest first), as :func:`kamisado.engine.solve_moves`."""
    if score.kind == "win":
        return (0, score.value)
    if score.kind == "loss":
        return (2, -score.value)
    return (1, -score.value)


def _deepen(
    pos: Position, roots: list[tuple[Move, Position]], limit: Limit, seed: int
) -> tuple[dict[Move, RootSearch], int]:
    """An iterative deepening over ``roots`` within ``limit`` (for the whole):
    each root move's search at the deepest depth finished for every one, and
    that depth."""
    start = time.monotonic()
    end = None if limit.time is None else start + limit.time
    most = engine.MAX_DEPTH if limit.depth is None else min(limit.depth, engine.MAX_DEPTH)
    used = 0
    done: dict[Move, RootSearch] = {}
    finished = 0
    for depth in range(1, most + 1):
        found: dict[Move, RootSearch] = {}
        for m, q in roots:
            left_s = left_n = None
            if q.outcome is None and depth > 1:
                left_s = None if end is None else end - time.monotonic()
                left_n = None if limit.nodes is None else limit.nodes - used
                if (left_s is not None and left_s <= 0) or (left_n is not None and left_n <= 0):
                    return done, finished
            r = search_root_move(pos, m, q, depth, time=left_s, nodes=left_n, seed=seed)
            used += r.nodes
            if not r.complete:
                return done, finished
            found[m] = r
        done, finished = found, depth
        if all(r.score.is_proven for r in done.values()):
            break
    return done, finished


def _proven_pv(child: Position, move: Move, nodes: int) -> tuple[Move, ...]:
    """The solver's line after ``move`` (the line from ``child``), or just the move."""
    if child.outcome is not None:
        return (move,)
    s = engine.solve(child, limit=Limit(nodes=max(nodes, 1)))
    return (move, *s.pv) if s.winner is not None else (move,)


def best_lines(
    pos: Position | str,
    n: int = 3,
    limit: Limit = LINES_LIMIT,
    seed: int = 0,
    *,
    solve_nodes: int = LINE_SOLVE_NODES,
) -> list[Line]:
    """The best ``n`` root moves of ``pos``, best first, with scores and lines.

    Every root move is first given to the solver (``solve_nodes`` nodes
    each; 0: no solver); the moves it proves get their proven result (``win
    in N`` / ``loss in N`` for the side to move) and the solver's line.  The
    others are searched with an iterative deepening over the root moves
    (:func:`search_root_move`) within ``limit`` for the whole, and keep the
    scores of the deepest depth finished for every one of them.  Order:
    proven or found wins (shortest first), evaluations (highest first),
    losses (longest first), then the order of the legal moves.

    >>> pos = "obupyrgn/8/8/N7/8/8/8/1GRYPUBO g p 1 0 0"
    >>> lines = best_lines(pos, n=2, limit=Limit(depth=3), solve_nodes=0)
    >>> [(str(x.move), x.score.describe(), x.depth, len(x.pv)) for x in lines]
    [('d8-d3', '-43', 3, 3), ('d8-d5', '-84', 3, 3)]
    """
    p = Position(pos) if isinstance(pos, str) else pos
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"best_lines: n must be a whole number from 1, found {n!r}")
    if p.outcome is not None:
        raise ValueError("the round is over")
    roots: list[tuple[Move, Position]] = []
    for m in list(p.legal_moves):
        q = p.copy(stack=False)
        q.push(m)
        roots.append((m, q))
    order = {m: k for k, (m, _) in enumerate(roots)}
    proven: dict[Move, Score] = {}
    if solve_nodes:
        for v in engine.solve_moves(p, limit=Limit(nodes=solve_nodes)):
            if v.winner is not None and v.distance is not None:
                kind = "win" if v.winner == p.turn else "loss"
                proven[v.move] = Score(kind, v.distance)
    open_roots = [(m, q) for m, q in roots if m not in proven]
    searched, depth = _deepen(p, open_roots, limit, seed) if open_roots else ({}, 0)
    lines: list[Line] = []
    for m, _ in roots:
        if m in proven:
            lines.append(Line(m, proven[m], (m,), None))
        elif m in searched:
            r = searched[m]
            lines.append(Line(m, r.score, r.pv, depth))
    lines.sort(key=lambda x: (*_order(x.score), order[x.move]))
    children = dict(roots)
    return [
        Line(x.move, x.score, _proven_pv(children[x.move], x.move, solve_nodes), None)
        if x.move in proven else x
        for x in lines[:n]
    ]


# ---------------------------------------------------------------------------
# Blunders: a proven win thrown away
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    """The solver's word on a position: ``winner`` (``BLACK``/``GOLD``) wins
    the round in ``distance`` moves with best play (0: the round is over).

    >>> str(Verdict(0, 7))
    'b wins in 7'
    """

    winner: int
    distance: int

    def __str__(self) -> str:
        return f"{SIDE_LETTERS[self.winner]} wins in {self.distance}"


@dataclass(frozen=True)
class Note:
    """What :func:`annotate` says about one move.

    ``index`` is the move's step in :func:`kamisado.rules.record.replay` (the
    position after the move, as the web review and the evaluation graph
    count); ``kpn`` the position before the move, ``mover`` the side that
    made it.  ``before`` and ``after`` are the solver's verdicts on the
    positions before and after the move, ``None`` where it found no proof
    within its budget.
    """

    index: int
    round: int
    ply: int
    move: Move
    mover: int
    kpn: str
    before: Verdict | None
    after: Verdict | None

    @property
    def blunder(self) -> bool:
        """Whether the move threw away a proven win: the mover had one before,
        the opponent has one after."""
        return (
            self.before is not None
            and self.before.winner == self.mover
            and self.after is not None
            and self.after.winner != self.mover
        )

    @property
    def mark(self) -> str:
        """``??`` for a blunder, else nothing."""
        return BLUNDER if self.blunder else ""

    def describe(self) -> str:
        """The blunder in words (``threw away a win in 7``), else nothing."""
        if not self.blunder:
            return ""
        assert self.before is not None
        return f"threw away a win in {self.before.distance}"


def format_note(note: Note) -> str:
    """A note as one line: where, who, the move, its mark, the verdicts.

    >>> m = Move.from_str("c1-c5")
    >>> format_note(Note(1, 1, 1, m, 0, "", Verdict(0, 7), Verdict(1, 4)))
    'round 1 move 1 Black c1-c5 ?? threw away a win in 7 (before: b wins in 7; after: g wins in 4)'
    >>> format_note(Note(1, 1, 1, m, 0, "", None, None))
    'round 1 move 1 Black c1-c5 (before: unknown; after: unknown)'
    """
    head = f"round {note.round} move {note.ply} {SIDE_NAMES[note.mover]} {note.move}"
    if note.blunder:
        head += f" {note.mark} {note.describe()}"
    before = "unknown" if note.before is None else str(note.before)
    after = "unknown" if note.after is None else str(note.after)
    return f"{head} (before: {before}; after: {after})"


def _verdict(pos: Position, nodes: int) -> Verdict | None:
    if pos.outcome is not None:
        return Verdict(pos.outcome.winner, 0)
    s = engine.solve(pos, limit=Limit(nodes=nodes), pv=False)
    if s.winner is None or s.distance is None:
        return None
    return Verdict(s.winner, s.distance)


def annotate(
    record_or_match: Record | Match,
    *,
    nodes: int = SOLVE_NODES,
    on_note: Callable[[Note], object] | None = None,
) -> list[Note]:
    """A :class:`Note` for every move of a match: who the solver proves wins
    the round before and after it, and whether it threw away a proven win.

    Each position is solved once (:func:`kamisado.engine.solve`), within
    ``nodes`` nodes.  A position the solver cannot prove within that budget
    has no verdict, and a move with a missing verdict is never marked: a
    blunder is marked only where both the win before and the loss after are
    proven.  The verdicts are about the round (a round lost may still leave
    the match to play for).  ``on_note`` is called with each note as it is
    found (for progress).

    >>> m = Match(1, start="obu1yrgn/8/8/P7/8/3p3U/8/NGRY2BO g g 1 0 0")
    >>> for token in ["g8-g2", "h1-h2", "f8-f1"]:
    ...     _ = m.apply(token)
    >>> [(n.mark, str(n.before), str(n.after)) for n in annotate(m, nodes=20_000)]
    [('', 'g wins in 3', 'g wins in 2'), ('', 'g wins in 2', 'g wins in 1'), ('', 'g wins in 1', 'g wins in 0')]
    """
    if isinstance(nodes, bool) or not isinstance(nodes, int) or not (
        1 <= nodes <= engine.NODE_LIMIT_MAX
    ):
        raise ValueError(
            f"annotate: nodes must be a whole number 1..{engine.NODE_LIMIT_MAX}, found {nodes!r}"
        )
    notes: list[Note] = []
    before_pos: Position | None = None
    before: Verdict | None = None
    for index, step in enumerate(replay(record_or_match)):
        after = _verdict(step.position, nodes)
        if step.move is not None and before_pos is not None and step.ply > 0:
            note = Note(index, step.round, step.ply, step.move, before_pos.turn,
                        before_pos.kpn(), before, after)
            notes.append(note)
            if on_note is not None:
                on_note(note)
        before_pos, before = step.position, after
    return notes


def blunders(notes: Sequence[Note]) -> list[Note]:
    """The notes of the moves that threw away a proven win.

    >>> blunders([])
    []
    """
    return [n for n in notes if n.blunder]


# ---------------------------------------------------------------------------
# Round ends: what each round did to the match
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class RoundEnd:
    """The end of one round of a match (:func:`round_ends`).

    ``index`` is the step of the round's last position in
    :func:`kamisado.rules.record.replay` (as :attr:`Note.index` counts), ``winner``
    the side that won the round, ``points`` what the win brought and
    ``score`` the match's points after it (Black's, Gold's).  ``before`` and
    ``after`` are Black's chance to win the match
    (:func:`kamisado.engine.equity.equity_of`) at the round's start and after the
    round: at the next round's start, with the new points and rings and the
    loser to open, or 1.0 / 0.0 once the match is over.
    """

    index: int
    round: int
    winner: int
    points: int
    score: tuple[int, int]
    before: float
    after: float


def _percent(p: float) -> str:
    """A chance in whole percent; one not yet certain never shows as 0% or 100%.

    >>> _percent(0.0), _percent(0.004), _percent(0.641), _percent(0.998), _percent(1.0)
    ('0%', '1%', '64%', '99%', '100%')
    """
    if 0.0 < p < 1.0:
        return f"{min(99, max(1, round(100 * p)))}%"
    return f"{round(100 * p)}%"


def format_round_end(end: RoundEnd) -> str:
    """A round's end as one line: the winner, the points, Black's match chance.

    >>> format_round_end(RoundEnd(40, 2, 1, 2, (1, 2), 0.64, 0.31))
    "round 2: Gold wins 2 points (score 1-2); Black's match chance 64% -> 31%"
    """
    pts = f"{end.points} point" if end.points == 1 else f"{end.points} points"
    return (
        f"round {end.round}: {SIDE_NAMES[end.winner]} wins {pts}"
        f" (score {end.score[0]}-{end.score[1]});"
        f" Black's match chance {_percent(end.before)} -> {_percent(end.after)}"
    )


def round_ends(record_or_match: Record | Match) -> list[RoundEnd]:
    """Every round of a match that ended on the board, in order, with Black's
    chance to win the match before and after it (:class:`RoundEnd`).

    The match is played again from its first round's start, and the chance
    is read from it (:func:`kamisado.engine.equity.equity_of`) at each round's start
    and right after its last move.  A round still in progress, or one cut
    short (a resignation, a clock), has no entry.  Free of search: cheap.

    >>> m = Match(1, start="obu1yrgn/8/8/P7/8/3p3U/8/NGRY2BO g g 1 0 0")
    >>> for token in ["g8-g2", "h1-h2", "f8-f1"]:
    ...     _ = m.apply(token)
    >>> (end,) = round_ends(m)
    >>> end.index, end.round, SIDE_NAMES[end.winner], end.points, end.score
    (3, 1, 'Gold', 1, (0, 1))
    >>> round(end.before, 2), end.after
    (0.26, 0.0)
    """
    match = record_or_match.match if isinstance(record_or_match, Record) else record_or_match
    ended = [i for i, step in enumerate(replay(match)) if step.outcome is not None]
    live = Match(match.target, series=match.series, start=match.rounds[0].start)
    ends: list[RoundEnd] = []
    for number, rnd in enumerate(match.rounds, 1):
        if rnd.outcome is None or number > len(ended):
            break
        if number > 1 and not match.series:
            assert rnd.fill is not None
            live.choose_fill(rnd.fill)
        before = equity_of(live, BLACK)
        points = live.points[:]
        for move in rnd.moves:
            live.push_move(move)
        winner = rnd.outcome.winner
        ends.append(RoundEnd(
            ended[number - 1], number, winner, live.points[winner] - points[winner],
            (live.points[0], live.points[1]), before, equity_of(live, BLACK),
        ))
    return ends


#: The node budget of each position's search in :func:`evaluations` when none is given.
DEFAULT_NODES = 20_000


def _match(record_or_match: Record | Match) -> Match:
    return record_or_match.match if isinstance(record_or_match, Record) else record_or_match


def evaluations(
    record_or_match: Record | Match,
    *,
    nodes: int | None = None,
    ms: float | None = None,
    depth: int | None = None,
    seed: int = 0,
    on_point: Callable[[Point], object] | None = None,
) -> list[Point]:
    """The engine's evaluation of every position of a match, from Black's point of view.

    One :class:`Point` per step of :func:`kamisado.rules.record.replay` (each
    round's start, then the position after each move).  Each position is
    searched with :func:`kamisado.engine.search` limited by ``nodes``,
    ``ms`` (milliseconds) and ``depth``; with none of them by
    :data:`DEFAULT_NODES` nodes.  Without ``ms`` the points do not depend
    on the clock.  A position that ends a round is proven (distance 0) and
    carries the round's result in ``round_end``.  ``on_point`` is called with
    each point as it is found (for progress).

    >>> from kamisado.rules.position import Position
    >>> m = Match(1, start=Position("o1upyrgn/8/8/1P6/6Bb/N6O/8/1GRY1U2 b p 1 0 0"))
    >>> _ = m.push_move("b5-b8")
    >>> [(p.proven, p.round_end) for p in evaluations(m, nodes=1000)]
    [((0, 1), None), ((0, 0), 'Black +1 (1-0)')]
    """
    if nodes is None and ms is None and depth is None:
        nodes = DEFAULT_NODES
    limit = Limit(time=None if ms is None else ms / 1000, nodes=nodes, depth=depth)
    match = _match(record_or_match)
    score = [0, 0] if match.series else match.rounds[0].start.points[:]
    points: list[Point] = []
    for index, step in enumerate(replay(record_or_match)):
        pos = step.position
        move = "" if step.move is None else str(step.move)
        o = step.outcome
        if o is not None:
            gained = 1 if match.series else o.points
            score[o.winner] += gained
            end = f"{SIDE_NAMES[o.winner]} +{gained} ({score[0]}-{score[1]})"
            point = Point(index, step.round, None, (o.winner, 0), move, step.ply, end,
                          pos.kpn())
        else:
            value = engine.search(pos, limit=limit, seed=seed).value
            proven: tuple[int, int] | None = None
            cp: int | None = None
            if value.is_proven:
                winner = pos.turn if value.kind == "win" else pos.turn ^ 1
                proven = (winner, value.value)
            else:
                cp = value.value if pos.turn == BLACK else -value.value
            point = Point(index, step.round, cp, proven, move, step.ply, None, pos.kpn())
        points.append(point)
        if on_point is not None:
            on_point(point)
    return points
