"""A game report, as lichess gives one after its computer analysis: for each
side the moves that threw away a proven win (blunders), the moves that lost
ground by the evaluation (mistakes, inaccuracies) and an accuracy figure.

Every position of the match (:func:`kamisado.rules.record.replay`: each
round's start, then the position after each move) is *looked at* once
(:func:`look_at`): the solver (:func:`kamisado.engine.solve`) within a node
budget, then, when it proves nothing, a search (:func:`kamisado.engine.search`)
within a node budget, from empty tables.  No clock is read: the same match
gives the same report on any machine.  :func:`build_report` then reads the
looks (cheap, no search); :func:`report` does both.

Each position gets a *win percentage* for the side to move
(:func:`win_percent`): 100 or 0 when a result of the round is proven (by the
solver or the search), else ``100 / (1 + exp(-WIN_SLOPE * evaluation))``.
A move's *loss* is the mover's win percentage before it minus the mover's
win percentage after it (never below 0).  Then, for each move:

* **blunder** (``??``): the solver proved a win for the mover before the
  move and a win for the opponent after it (:attr:`kamisado.engine.review.Note.blunder`);
* **mistake** (``?``): otherwise a loss of :data:`MISTAKE` (20) points or more;
* **inaccuracy** (``?!``): otherwise a loss of :data:`INACCURACY` (10) points or more;

and its accuracy is lichess's ``103.1668 * exp(-0.04354 * loss) - 3.1669``,
held within 0..100 (:func:`move_accuracy`).  A side's accuracy is the mean of
its moves' accuracies, rounded to one decimal (``None`` for a side that made
no move).  The verdicts are about the round being played, so a match of
several rounds is reported round by round (each entry has its round and ply).

>>> from kamisado.rules.match import Match
>>> m = Match(1, start="obu1yrgn/8/8/P7/8/3p3U/8/NGRY2BO g g 1 0 0")
>>> for token in ["g8-a2", "h3-d7", "d7-d8"]:
...     _ = m.apply(token)
>>> r = report(m, nodes=2_000, solve_nodes=20_000)
>>> [(e.ply, e.side, e.kind, e.lost) for e in r.entries]
[(1, 1, 'blunder', 3), (2, 0, '', None), (3, 0, '', None)]
>>> r.sides[0].accuracy, r.sides[1].accuracy, r.sides[1].blunders
(100.0, 0.0, 1)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from kamisado import engine
from kamisado.engine.limits import Limit, Score
from kamisado.engine.review import Verdict
from kamisado.rules.board import SIDE_LETTERS
from kamisado.rules.match import Match
from kamisado.rules.position import Position
from kamisado.rules.record import Record, replay

__all__ = [
    "INACCURACY",
    "KINDS",
    "MISTAKE",
    "REPORT_NODES",
    "REPORT_SOLVE_NODES",
    "WIN_SLOPE",
    "Entry",
    "Look",
    "Report",
    "SideReport",
    "build_report",
    "classify",
    "look_at",
    "match_positions",
    "move_accuracy",
    "report",
    "win_percent",
]

#: The search's node budget for each position the solver does not prove.
REPORT_NODES = 20_000
#: The solver's node budget for each position.
REPORT_SOLVE_NODES = 50_000
#: The slope of the evaluation's win percentage: an evaluation of +250 for
#: the side to move is about 73%, +500 about 88%.
WIN_SLOPE = 0.004
#: The least loss of win percentage that makes a mistake.
MISTAKE = 20.0
#: The least loss of win percentage that makes an inaccuracy.
INACCURACY = 10.0
#: The kinds of an entry, worst first, and the marks they are written with.
KINDS = {"blunder": "??", "mistake": "?", "inaccuracy": "?!"}


@dataclass(frozen=True)
class Look:
    """What the engine saw in one position: the solver's ``verdict`` (``None``:
    no proof within its budget) and, where it proved nothing, the search's
    ``score`` for the side to move (``None`` when the round is over or proven)."""

    verdict: Verdict | None
    score: Score | None

    def to_json(self) -> list[Any]:
        """``[winner or None, distance or None, kind or None, value or None]``:
        plain data for a job's result.

        >>> Look(Verdict(1, 4), None).to_json(), Look(None, Score("cp", -30)).to_json()
        ([1, 4, None, None], [None, None, 'cp', -30])
        """
        v, s = self.verdict, self.score
        return [None if v is None else v.winner, None if v is None else v.distance,
                None if s is None else s.kind, None if s is None else s.value]

    @staticmethod
    def from_json(data: Sequence[Any]) -> Look:
        """The look :meth:`to_json` wrote.

        >>> Look.from_json([None, None, "win", 3])
        Look(verdict=None, score=Score(kind='win', value=3))
        """
        winner, distance, kind, value = data
        verdict = None if winner is None else Verdict(int(winner), int(distance))
        score = None if kind is None else Score(str(kind), int(value))
        return Look(verdict, score)


def look_at(pos: Position, nodes: int = REPORT_NODES, solve_nodes: int = REPORT_SOLVE_NODES) -> Look:
    """The solver's verdict on ``pos`` within ``solve_nodes`` nodes, and when it
    proves nothing, a search of ``nodes`` nodes; both from empty tables, so
    the answer does not depend on what was searched before.

    >>> look_at(Position("obu1yrgn/8/8/P7/8/3p3U/8/NGRY2BO g g 1 0 0"), 1_000, 20_000)
    Look(verdict=Verdict(winner=1, distance=3), score=None)
    """
    if pos.outcome is not None:
        return Look(Verdict(pos.outcome.winner, 0), None)
    engine.clear_tables()
    s = engine.solve(pos, limit=Limit(nodes=solve_nodes), pv=False)
    if s.winner is not None and s.distance is not None:
        return Look(Verdict(s.winner, s.distance), None)
    engine.clear_tables()
    return Look(None, engine.search(pos, limit=Limit(nodes=nodes)).value)


def match_positions(record_or_match: Record | Match) -> list[Position]:
    """Every position of a match in :func:`kamisado.rules.record.replay`'s order."""
    return [step.position for step in replay(record_or_match)]


def win_percent(look: Look, side: int, turn: int) -> float:
    """``side``'s chance to win the round, in percent, from ``look`` at a
    position where ``turn`` is to move.

    >>> win_percent(Look(Verdict(0, 3), None), 0, 1), win_percent(Look(Verdict(0, 3), None), 1, 0)
    (100.0, 0.0)
    >>> round(win_percent(Look(None, Score("cp", 250)), 0, 0), 1), win_percent(Look(None, Score("cp", 0)), 1, 0)
    (73.1, 50.0)
    >>> win_percent(Look(None, Score("loss", 5)), 1, 0)
    100.0
    """
    if look.verdict is not None:
        return 100.0 if look.verdict.winner == side else 0.0
    assert look.score is not None
    s = look.score
    if s.kind in ("win", "loss"):
        mover_wins = s.kind == "win"
        return 100.0 if mover_wins == (side == turn) else 0.0
    cp = s.value if side == turn else -s.value
    return 100.0 / (1.0 + math.exp(-WIN_SLOPE * cp))


def move_accuracy(loss: float) -> float:
    """A move's accuracy from its loss of win percentage (lichess's formula), 0..100.

    >>> move_accuracy(0.0) > 99.99, round(move_accuracy(10.0), 1), round(move_accuracy(30.0), 1), move_accuracy(100.0)
    (True, 63.6, 24.8, 0.0)
    """
    return max(0.0, min(100.0, 103.1668 * math.exp(-0.04354 * max(0.0, loss)) - 3.1669))


@dataclass(frozen=True)
class Entry:
    """One move of the report.

    ``step`` is the index of the position after the move in
    :func:`kamisado.rules.record.replay` (as the web review counts),
    ``number`` the move's number in the whole match (from 1: the page's
    ``?ply=``), ``round`` and ``ply`` the move's round and its number in it,
    ``side`` the mover.  ``before``/``after`` are the mover's win percentages
    before and after, ``loss`` their difference (at least 0), ``kind`` one of
    :data:`KINDS` or ``""``, ``lost`` the distance of the proven win a blunder
    threw away.
    """

    step: int
    number: int
    round: int
    ply: int
    move: str
    side: int
    before: float
    after: float
    loss: float
    accuracy: float
    kind: str
    lost: int | None

    @property
    def mark(self) -> str:
        """``??``, ``?``, ``?!`` or nothing."""
        return KINDS.get(self.kind, "")

    def to_json(self) -> dict[str, Any]:
        """The entry as plain data (``side`` as ``b``/``g``, percentages to one decimal)."""
        return {
            "step": self.step, "ply": self.number, "round": self.round, "round_ply": self.ply,
            "move": self.move, "side": SIDE_LETTERS[self.side], "kind": self.kind,
            "mark": self.mark, "lost": self.lost, "before": round(self.before, 1),
            "after": round(self.after, 1), "loss": round(self.loss, 1),
            "accuracy": round(self.accuracy, 1),
        }


@dataclass(frozen=True)
class SideReport:
    """One side's figures: its moves, counts of each kind, accuracy (``None``: no move)."""

    side: int
    moves: int
    blunders: int
    mistakes: int
    inaccuracies: int
    accuracy: float | None

    def to_json(self) -> dict[str, Any]:
        """The side's figures as plain data."""
        return {"side": SIDE_LETTERS[self.side], "moves": self.moves, "blunders": self.blunders,
                "mistakes": self.mistakes, "inaccuracies": self.inaccuracies,
                "accuracy": self.accuracy}


@dataclass(frozen=True)
class Report:
    """A match's report: every move (:class:`Entry`) and each side's figures."""

    entries: tuple[Entry, ...]
    sides: tuple[SideReport, SideReport]

    def to_json(self) -> dict[str, Any]:
        """The report as plain data: ``{"sides": [black, gold], "entries": [...]}``
        (every move's entry, marked or not)."""
        return {"sides": [s.to_json() for s in self.sides],
                "entries": [e.to_json() for e in self.entries]}


def classify(before: Look, after: Look, mover: int, loss: float) -> str:
    """The kind of a move (a key of :data:`KINDS`, or ``""``) from the looks
    before and after it, its mover and its loss of win percentage.

    >>> won, lost = Look(Verdict(0, 5), None), Look(Verdict(1, 4), None)
    >>> classify(won, lost, 0, 100.0), classify(won, lost, 1, 0.0)
    ('blunder', '')
    >>> e = Look(None, Score("cp", 0))
    >>> classify(e, e, 0, 20.0), classify(e, e, 0, 19.9), classify(e, e, 0, 10.0), classify(e, e, 0, 9.9)
    ('mistake', 'inaccuracy', 'inaccuracy', '')
    """
    b, a = before.verdict, after.verdict
    if b is not None and a is not None and b.winner == mover and a.winner != mover:
        return "blunder"
    if loss >= MISTAKE:
        return "mistake"
    if loss >= INACCURACY:
        return "inaccuracy"
    return ""


def _side(side: int, entries: Sequence[Entry]) -> SideReport:
    own = [e for e in entries if e.side == side]
    count = {k: sum(1 for e in own if e.kind == k) for k in KINDS}
    accuracy = round(sum(e.accuracy for e in own) / len(own), 1) if own else None
    return SideReport(side, len(own), count["blunder"], count["mistake"], count["inaccuracy"], accuracy)


def build_report(record_or_match: Record | Match, looks: Sequence[Look]) -> Report:
    """The report of a match from a look at each of its positions
    (``looks[i]`` for step ``i`` of :func:`kamisado.rules.record.replay`);
    no search.  ``ValueError`` when the counts differ."""
    steps = list(replay(record_or_match))
    if len(looks) != len(steps):
        raise ValueError(f"build_report: {len(steps)} positions, {len(looks)} looks")
    entries: list[Entry] = []
    number = 0
    for i, step in enumerate(steps):
        if step.move is None or step.ply == 0 or i == 0:
            continue
        prev = steps[i - 1].position
        mover = prev.turn
        number += 1
        before = win_percent(looks[i - 1], mover, prev.turn)
        after = win_percent(looks[i], mover, step.position.turn)
        loss = max(0.0, before - after)
        kind = classify(looks[i - 1], looks[i], mover, loss)
        b = looks[i - 1].verdict
        lost = b.distance if kind == "blunder" and b is not None else None
        entries.append(Entry(i, number, step.round, step.ply, str(step.move), mover,
                             before, after, loss, move_accuracy(loss), kind, lost))
    return Report(tuple(entries), (_side(0, entries), _side(1, entries)))


def report(
    record_or_match: Record | Match,
    *,
    nodes: int = REPORT_NODES,
    solve_nodes: int = REPORT_SOLVE_NODES,
    on_look: Callable[[int, int], object] | None = None,
) -> Report:
    """The report of a match (:func:`look_at` every position, then
    :func:`build_report`); ``on_look(done, total)`` after each position (for
    progress)."""
    for name, value in (("nodes", nodes), ("solve_nodes", solve_nodes)):
        if isinstance(value, bool) or not isinstance(value, int) or not (
            1 <= value <= engine.NODE_LIMIT_MAX
        ):
            raise ValueError(
                f"report: {name} must be a whole number 1..{engine.NODE_LIMIT_MAX}, found {value!r}"
            )
    positions = match_positions(record_or_match)
    looks: list[Look] = []
    for pos in positions:
        looks.append(look_at(pos, nodes, solve_nodes))
        if on_look is not None:
            on_look(len(looks), len(positions))
    return build_report(record_or_match, looks)
