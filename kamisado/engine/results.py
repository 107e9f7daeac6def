"""What the engine answers: the results of :func:`~kamisado.engine.solve`,
:func:`~kamisado.engine.solve_points` and :func:`~kamisado.engine.search`,
and the evaluation's :class:`Weights`.

>>> decode_score(-25)
('eval', None, None)
"""

from __future__ import annotations

from dataclasses import astuple, dataclass

from kamisado.engine._backend import impl as _c
from kamisado.engine._calls import PositionLike, _integer
from kamisado.engine.limits import Score
from kamisado.rules.board import SIDE_NAMES, Move


@dataclass(frozen=True)
class Weights:
    """Evaluation weights of :func:`search` (integers in -1000..1000).

    >>> Weights().as_tuple() == DEFAULT_WEIGHTS.as_tuple()
    True
    >>> Weights(threat=0).threat
    0
    """

    threat: int = 39
    """Each tower with a free path to the goal row (ours minus theirs)."""
    safe: int = 6
    """Each move of the tower to move that does not let the opponent win at once."""
    no_safe: int = 1000
    """Penalty when the tower to move has no such move."""
    mobility: int = 7
    """Each move of each tower (ours minus theirs)."""
    advance: int = 19
    """Each rank a tower has advanced (ours minus theirs)."""
    tempo: int = 47
    """Bonus for the side to move."""
    noise: int = 0
    """Amplitude of a pseudo-random term (seeded by ``search(seed=...)``)."""

    def __post_init__(self) -> None:
        for name in self.__dataclass_fields__:
            _integer(f"Weights.{name}", getattr(self, name), -_c.WEIGHT_MAX, _c.WEIGHT_MAX)

    def as_tuple(self) -> tuple[int, ...]:
        """The weights in the order the C evaluation reads them."""
        return tuple(int(v) for v in astuple(self))


DEFAULT_WEIGHTS = Weights(*_c.DEFAULT_WEIGHTS)


@dataclass(frozen=True)
class SolveResult:
    """The answer of :func:`solve`.

    ``winner`` is ``BLACK``/``GOLD`` or ``None`` when a limit stopped the
    solver; ``distance`` is the number of moves to the end of the round with
    best play (0 for a finished round; ``None`` when unknown, and from
    ``solve(exact=False)``, which proves only the winner); ``pv`` is the
    winner's shortest win against the loser's longest resistance.
    """

    winner: int | None
    distance: int | None
    best_move: Move | None
    pv: tuple[Move, ...]
    nodes: int
    seconds: float
    side_to_move: int
    depth: int
    """The deepest horizon (in moves) the solver completed; 0 from the
    who-wins proof-number search (``exact=False`` without ``max_depth``),
    which has none."""

    @property
    def proven(self) -> bool:
        """Whether the round's winner was proven."""
        return self.winner is not None

    @property
    def side_to_move_wins(self) -> bool | None:
        """Whether the side to move wins, or ``None`` when unknown."""
        return None if self.winner is None else self.winner == self.side_to_move

    def __str__(self) -> str:
        if self.winner is None:
            return f"unknown after {self.nodes} nodes ({self.seconds:.2f} s)"
        if self.distance is None:
            how = f" with {self.best_move}" if self.best_move is not None else ""
            return (
                f"{SIDE_NAMES[self.winner]} wins{how} (distance not computed;"
                f" {self.nodes} nodes, {self.seconds:.2f} s)"
            )
        moves = " ".join(str(m) for m in self.pv)
        return (
            f"{SIDE_NAMES[self.winner]} wins in {self.distance}: {moves}"
            f" ({self.nodes} nodes, {self.seconds:.2f} s)"
        )


@dataclass(frozen=True)
class PointsResult:
    """The answer of :func:`solve_points`: what the round is worth to the side to move.

    ``points`` is 1, 2, 4 or 8 when the side to move wins (the most it can
    force: the rings of the tower that wins, plain 1, Sumo 2, Double 4,
    Triple 8), -1, -2, -4 or -8 when it loses (the fewest it must concede),
    ``None`` when a limit stopped the solver.  ``low`` and ``high`` bound
    the value as far as the solver got (equal to ``points`` when proven;
    from the towers' rings alone when nothing was proven).  ``winner`` is
    who wins the round when that was proven (perhaps without the points).
    ``best_move`` keeps the value: a move of the last threshold proof the
    side to move won (``None`` when every move concedes as much, or when
    not proven).
    """

    points: int | None
    low: int
    high: int
    winner: int | None
    best_move: Move | None
    nodes: int
    seconds: float
    side_to_move: int
    depth: int
    """The horizon (in moves) of the last proof."""

    @property
    def proven(self) -> bool:
        """Whether the round's value in points was proven."""
        return self.points is not None

    def __str__(self) -> str:
        cost = f"{self.nodes} nodes, {self.seconds:.2f} s"
        me, other = SIDE_NAMES[self.side_to_move], SIDE_NAMES[self.side_to_move ^ 1]
        if self.points is None:
            won = "" if self.winner is None else f"{SIDE_NAMES[self.winner]} wins; "
            return f"{won}points unknown, {self.low} to {self.high} for {me} ({cost})"
        how = f" with {self.best_move}" if self.best_move is not None else ""
        if self.points > 0:
            return f"{me} wins {_plural(self.points)}{how} ({cost})"
        return f"{other} wins; {me} concedes {_plural(-self.points)}{how} ({cost})"


def _plural(points: int) -> str:
    return f"{points} point" + ("" if points == 1 else "s")


@dataclass(frozen=True)
class Line:
    """One line of a MultiPV search (:func:`search` with ``multipv``): its
    exact score (from the side to move) and its moves, the root move first.

    >>> from kamisado.engine import Position, search
    >>> r = search(Position(), depth=3, multipv=2)
    >>> [len(x.pv) >= 1 for x in r.lines], r.lines[0].score >= r.lines[1].score
    ([True, True], True)
    """

    score: int
    pv: tuple[Move, ...]

    @property
    def value(self) -> Score:
        """:attr:`score` as a :class:`Score`."""
        return Score.from_raw(self.score)


@dataclass(frozen=True)
class Iteration:
    """One completed iteration of :func:`search` (``nodes`` and ``seconds`` from the start).

    ``seldepth`` and ``pv`` (the search's line, as found) are given to the
    ``on_iteration`` callback; :attr:`SearchResult.iterations` leaves them out.
    """

    depth: int
    score: int
    nodes: int
    seconds: float
    seldepth: int = 0
    pv: tuple[Move, ...] = ()
    lines: tuple[Line, ...] = ()
    """With ``multipv`` or ``root_moves``: the depth's best lines, best first."""

    @property
    def value(self) -> Score:
        """:attr:`score` as a :class:`Score`."""
        return Score.from_raw(self.score)


@dataclass(frozen=True)
class SearchResult:
    """The answer of :func:`search`.

    ``score`` is from the side to move.  ``proven_win_in``/``proven_loss_in``
    give the moves to the end of the round when the score is a proven result
    (for the side to move); ``round_points`` is what the proven round is
    worth to its winner and ``match_won`` whether it ends the match.
    """

    depth: int
    score: int
    pv: tuple[Move, ...]
    best_move: Move | None
    proven_win_in: int | None
    proven_loss_in: int | None
    round_points: int | None
    match_won: bool | None
    nodes: int
    seconds: float
    seldepth: int
    iterations: tuple[Iteration, ...]
    lines: tuple[Line, ...] = ()
    """With ``multipv`` or ``root_moves``: the last finished depth's best lines."""
    lead: Line | None = None
    """With ``multipv`` or ``root_moves``, when a limit or a stop cut a depth
    short: the best move it searched, if its exact score beats the last
    finished depth's best (so the true best of that depth is at least that:
    a lower bound, as Stockfish plays it); else ``None``."""
    lead_depth: int | None = None
    """The depth of :attr:`lead`."""

    @property
    def value(self) -> Score:
        """:attr:`score` as a :class:`Score` (with its tier)."""
        return Score.from_raw(self.score)

    @property
    def nodes_per_second(self) -> float:
        """Search speed."""
        return self.nodes / self.seconds if self.seconds > 0 else 0.0


@dataclass(frozen=True)
class MoveValue:
    """The solved value of one move (see :func:`solve_moves`)."""

    move: Move
    winner: int | None
    distance: int | None
    """Moves to the end of the round, this move included."""


def _weights(weights: Weights | None) -> tuple[int, ...]:
    if weights is None:
        return DEFAULT_WEIGHTS.as_tuple()
    if not isinstance(weights, Weights):
        raise TypeError(f"weights must be a Weights or None, got {type(weights).__name__}")
    return weights.as_tuple()


def decode_score(
    score: int, pos: PositionLike | None = None
) -> tuple[str, int | None, int | None]:
    """Read a search score: ``(kind, moves, tier)`` (sugar for :meth:`Score.from_raw`).

    ``kind`` is ``'win'``, ``'loss'`` (for the side to move) or ``'eval'``;
    ``moves`` the moves to the end of the round for a proven result; ``tier``
    15 when the round wins the match, else the points it carries.

    Scores are relative to the position searched; ``pos`` is ignored (kept
    for old callers).

    >>> from kamisado.engine._calls import WIN_BASE
    >>> decode_score(WIN_BASE + 256 * 15 - 3)
    ('win', 3, 15)
    >>> decode_score(-25)
    ('eval', None, None)
    """
    del pos
    s = Score.from_raw(score)
    return ("eval", None, None) if not s.is_proven else (s.kind, s.value, s.tier)
