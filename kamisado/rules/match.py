"""Match flow: rounds, rings and points, regrouping between rounds, series.

A :class:`Match` plays rounds until a player reaches the target: 1 (Single
Round), 3 (Standard), 7 (Long) or 15 (Marathon).  The tower that wins a
round gains a ring (worth 1, 2, 4 or 8 points); after a deadlock the ring
goes on the winner's tower of the colour of the square the loser last moved
to.  Between rounds the winner chooses to fill from the left or the right
(rules F1-F4) and the loser is the next Challenger.

A series (``Match(target, series=True)``) is a run of single rounds, each
from the colour-matching start, one point a round, first move alternating.

>>> m = Match(3)
>>> for token in ["c1-c5", "b8-b3", "d1-g4", "c8-d7", "b1-e4", "a8-a3"]:
...     _ = m.push_move(token)
>>> m.state
'playing'
>>> m.position.kpn()
'3pyrgn/3u4/8/2R5/4G1Y1/ob6/8/N3PUBO b b 3 0 0'
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kamisado.rules.board import (
    BLACK,
    COLOUR_LETTERS,
    COLOUR_NAMES,
    GOLD,
    HOME_RANK,
    RING_POINTS,
    SIDE_LETTERS,
    SIDE_NAMES,
    TARGETS,
    IllegalMoveError,
    MalformedError,
    Move,
    Outcome,
    TextEnum,
    start_kpn,
)
from kamisado.rules.position import Position

__all__ = [
    "FILL",
    "FILLS",
    "LEFT",
    "MATCH_NAMES",
    "Match",
    "MatchState",
    "OVER",
    "PLAYING",
    "RIGHT",
    "Round",
    "fill_order",
    "regroup",
]

#: The two ways to fill a home row after a round (rule F1), as written.
LEFT = "left"
RIGHT = "right"
FILLS = (LEFT, RIGHT)
#: Names of the match types by target.
MATCH_NAMES = {1: "Single Round", 3: "Standard", 7: "Long", 15: "Marathon"}


class MatchState(TextEnum):
    """Where a match stands; the text is what records, KEI and the web say.

    >>> Match(3).state, Match(3).state == "playing"
    ('playing', True)
    """

    PLAYING = "playing"
    """A round is in progress."""
    FILL = "fill"
    """A round is over and its winner chooses how to fill (``left``/``right``)."""
    OVER = "over"
    """The match is over."""


PLAYING = MatchState.PLAYING
FILL = MatchState.FILL
OVER = MatchState.OVER


def fill_order(pos: Position, side: int, direction: str) -> list[int]:
    """The order in which ``side`` takes its towers to fill its home row.

    Towers nearest the player's own home row come first; within a row, the
    one furthest to the player's own left (fill left) or own right (fill
    right) comes first.  Returns tower ids.
    """
    if direction not in FILLS:
        raise MalformedError(f"expected a fill direction 'left' or 'right', found {direction!r}")

    def key(t: int) -> tuple[int, int]:
        sq = pos.tower_square[t]
        rank, file = sq >> 3, sq & 7
        row = rank if side == BLACK else 7 - rank  # 0 = own home row
        leftness = file if side == BLACK else 7 - file  # 0 = own far left
        return (row, leftness if direction == "left" else -leftness)

    return sorted(range(side * 8, side * 8 + 8), key=key)


def regroup(pos: Position, direction: str) -> dict[int, int]:
    """New squares of all 16 towers after both players fill ``direction``.

    Each player places their towers, in :func:`fill_order`, on their own home
    row: from their own brown square towards orange (fill left) or from
    orange towards brown (fill right).  Returns ``{tower id: square}``.
    """
    placed: dict[int, int] = {}
    for side in (BLACK, GOLD):
        rank = HOME_RANK[side]
        # Squares of the home row from the player's own left (brown) end.
        files = list(range(8)) if side == BLACK else list(range(7, -1, -1))
        if direction == "right":
            files.reverse()
        for t, file in zip(fill_order(pos, side, direction), files, strict=True):
            placed[t] = rank * 8 + file
    return placed


@dataclass
class Round:
    """One round of a match: where it started, how it was set up, its moves."""

    start: Position
    """The round's first position (with its initial passes applied)."""
    fill: str | None = None
    """Fill direction that set this round up (``None`` for the first round)."""
    moves: list[Move] = field(default_factory=list)
    outcome: Outcome | None = None

    @property
    def challenger(self) -> int:
        """The side that moved first."""
        return self.start.turn


class Match:
    """A whole match (or series) with a live position.

    The checked entry points are :meth:`push_move` while a round is in
    progress and :meth:`choose_fill` when a round of an unfinished match has
    ended.  ``state`` is ``'playing'``, ``'fill'`` or ``'over'``.
    """

    def __init__(
        self,
        target: int = 1,
        *,
        series: bool = False,
        start: Position | str | None = None,
    ) -> None:
        if target not in TARGETS and not (series and target >= 1):
            raise MalformedError(f"expected a target of 1, 3, 7 or 15, found {target}")
        self.target = target
        self.series = series
        if start is None:
            pos = Position(start_kpn(1 if series else target))
        elif isinstance(start, str):
            pos = Position(start)
        else:
            pos = start.copy(stack=False)
        if series:
            if pos.target != 1:
                raise MalformedError("a series is played as single rounds (target 1)")
            self.points = [0, 0]
        else:
            if pos.target != target:
                raise MalformedError(
                    f"the start position's target is {pos.target}, the match's {target}"
                )
            self.points = pos.points[:]
        self.position = pos
        self.rounds: list[Round] = [Round(pos.copy(stack=False))]
        self.state = PLAYING
        self.winner: int | None = None
        if pos.outcome is not None:
            self._end_round()

    # -- description ------------------------------------------------------

    @property
    def name(self) -> str:
        """The match type in words, e.g. ``'Standard'`` or ``'Series to 3'``."""
        if self.series:
            return f"Series to {self.target}"
        return MATCH_NAMES[self.target]

    @property
    def current(self) -> Round:
        """The round being played (or the last one)."""
        return self.rounds[-1]

    def __repr__(self) -> str:
        return (
            f"<Match {self.name} {self.points[0]}-{self.points[1]} {self.state}"
            f" round {len(self.rounds)}: {self.position.kpn()}>"
        )

    def _repr_svg_(self) -> str:
        """The current position as a picture, with its last move (for Jupyter)."""
        from kamisado.pictures import svg

        return svg.board(self.position, **svg.marks(self.position))

    # -- play -----------------------------------------------------------------

    def legal_moves(self) -> list[Move]:
        """Legal moves of the round in progress (none otherwise)."""
        if self.state != PLAYING:
            return []
        return list(self.position.legal_moves)

    def push_move(self, move: Move | str) -> Move:
        """Check and play a move (a ``Move`` or text in any written form)."""
        if self.state == FILL:
            raise IllegalMoveError(
                f"{move}: the round is over; {SIDE_NAMES[self.current_winner()]}"
                " chooses to fill left or right"
            )
        if self.state == OVER:
            raise IllegalMoveError(f"{move}: the match is over")
        move = self.position.push_move(move)
        self.current.moves.append(move)
        if self.position.outcome is not None:
            self._end_round()
        return move

    def current_winner(self) -> int:
        """Winner of the last finished round."""
        outcome = self.current.outcome
        if outcome is None:
            raise IllegalMoveError("the round is still in progress")
        return outcome.winner

    def _end_round(self) -> None:
        outcome = self.position.outcome
        assert outcome is not None
        self.current.outcome = outcome
        if self.series:
            self.points[outcome.winner] += 1
            if self.points[outcome.winner] >= self.target:
                self.state = OVER
                self.winner = outcome.winner
                return
            # next round: standard start, the first move alternates
            first = GOLD if len(self.rounds) % 2 else BLACK
            pos = Position(start_kpn(1, first))
            self.position = pos
            self.rounds.append(Round(pos.copy(stack=False)))
            self.state = PLAYING
            return
        self.points[outcome.winner] += RING_POINTS[outcome.rings]
        if self.points[outcome.winner] >= self.target:
            self.state = OVER
            self.winner = outcome.winner
        else:
            self.state = FILL

    def next_round_start(self, direction: str) -> Position:
        """The position the next round would start from after ``direction``."""
        if self.state != FILL:
            raise IllegalMoveError(
                f"{direction}: a fill is chosen only after a round of an unfinished"
                " match has ended"
            )
        if direction not in FILLS:
            raise MalformedError(
                f"expected a fill direction 'left' or 'right', found {direction!r}"
            )
        end = self.position
        outcome = end.outcome
        assert outcome is not None
        rings = end.rings[:]
        ringed = outcome.winner * 8 + outcome.colour
        rings[ringed] = min(3, rings[ringed] + 1)
        placed = regroup(end, direction)
        board = [-1] * 64
        for t, sq in placed.items():
            board[sq] = t
        rows = []
        for rank in (7, 0):
            cells = []
            for file in range(8):
                t = board[rank * 8 + file]
                letter = COLOUR_LETTERS[t & 7]
                cells.append((letter.upper() if t < 8 else letter) + "+" * rings[t])
            rows.append("".join(cells))
        loser = outcome.winner ^ 1
        kpn = (
            f"{rows[0]}/8/8/8/8/8/8/{rows[1]} {SIDE_LETTERS[loser]} -"
            f" {self.target} {self.points[0]} {self.points[1]}"
        )
        return Position(kpn)

    def choose_fill(self, direction: str) -> Position:
        """The round's winner fills ``'left'`` or ``'right'``; the next round begins."""
        pos = self.next_round_start(direction)
        self.position = pos
        self.rounds.append(Round(pos.copy(stack=False), fill=direction))
        self.state = PLAYING
        return pos

    def copy(self) -> Match:
        """An independent copy: playing on it leaves this match as it is
        (the web server tries an action on a copy, and keeps the copy once
        the action is stored).

        >>> m = Match(3)
        >>> c = m.copy()
        >>> _ = c.push_move("c1-c5")
        >>> len(m.current.moves), len(c.current.moves), m.key() == c.key()
        (0, 1, False)
        """
        other = Match.__new__(Match)
        other.__dict__.update(self.__dict__)
        other.points = self.points[:]
        other.position = self.position.copy()
        # a finished round never changes again: only the one being played
        # (the last, while it has no outcome) is copied, the others shared
        rounds = self.rounds[:]
        last = rounds[-1]
        if last.outcome is None:
            rounds[-1] = Round(last.start, last.fill, last.moves[:], None)
        other.rounds = rounds
        return other

    def apply(self, token: str) -> None:
        """Apply a CLI token: a move in any form, or ``left``/``right``."""
        if token in FILLS:
            self.choose_fill(token)
        else:
            self.push_move(token)

    def key(self) -> tuple[object, ...]:
        """What makes this match what it is: two matches with equal keys are
        of the same type, in the same state, with the same rounds (starts,
        passes on loading, fills, moves, outcomes) and the same position.

        >>> a, b = Match(3), Match(3)
        >>> _ = a.push_move("c1-c5")
        >>> a.key() == b.key(), (b.push_move("c1-c5"), a.key() == b.key())[1]
        (False, True)
        """
        rounds = tuple(
            (r.start.kpn(), r.start.initial_passes, r.fill, tuple(r.moves), r.outcome)
            for r in self.rounds
        )
        return (
            self.target,
            self.series,
            self.state,
            self.winner,
            tuple(self.points),
            self.position,
            tuple(self.position.move_stack),
            rounds,
        )

    def summary(self) -> str:
        """One line: the live KPN, ``round ...`` or ``match ...`` (the CLI's output).

        >>> m = Match(1)
        >>> m.summary()
        'obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 1 0 0'
        """
        if self.state == OVER:
            assert self.winner is not None
            return f"match {SIDE_LETTERS[self.winner]} {self.points[0]} {self.points[1]}"
        if self.state == FILL:
            o = self.current.outcome
            assert o is not None
            return f"round {SIDE_LETTERS[o.winner]} {COLOUR_NAMES[o.colour]} {o.reason}"
        return self.position.kpn()
