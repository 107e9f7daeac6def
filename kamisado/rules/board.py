"""The board and its vocabulary: sides, colours, squares, moves, outcomes, errors.

The board's layout (which colour each square has, the towers' start), the
rays a tower moves along, a move in square form (:class:`Move`), a round's
end (:class:`Outcome`) and the package's three errors, all ``ValueError``s:
:class:`MalformedError` (text that cannot be read), :class:`IllegalMoveError`
(a move the rules refuse) and :class:`AmbiguousMoveError` (move text that
fits several moves).  :mod:`kamisado.rules.position` plays on it.

Squares are numbered 0..63: ``square = rank * 8 + file`` with rank 0 being
Black's home row (rank ``1`` in text) and file 0 being file ``a``.

>>> square_name(34), COLOUR_NAMES[SQUARE_COLOUR[34]]
('c5', 'blue')
>>> Move.from_str("c1-c5")
Move.from_str('c1-c5')
"""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple

__all__ = [
    "AmbiguousMoveError",
    "BLACK",
    "BROWN",
    "BLUE",
    "COLOUR_LETTERS",
    "COLOUR_NAMES",
    "DEADLOCK",
    "GOAL",
    "GOLD",
    "GREEN",
    "IllegalMoveError",
    "KamisadoError",
    "LEFT_STEP",
    "MalformedError",
    "Move",
    "ORANGE",
    "Outcome",
    "PINK",
    "PURPLE",
    "Pass",
    "RANGE",
    "Reason",
    "RED",
    "RING_POINTS",
    "SIDE_NAMES",
    "SQUARE_COLOUR",
    "SQUARE_NAMES",
    "START_KPN",
    "TARGETS",
    "TextEnum",
    "YELLOW",
    "parse_colour",
    "parse_square",
    "ring_total",
    "square_file",
    "square_name",
    "square_rank",
    "start_kpn",
]

# ---------------------------------------------------------------------------
# Constants
# ---------------------------------------------------------------------------

BLACK = 0
GOLD = 1
SIDE_NAMES = ("Black", "Gold")
SIDE_LETTERS = ("b", "g")

BROWN, GREEN, RED, YELLOW, PINK, PURPLE, BLUE, ORANGE = range(8)
COLOUR_NAMES = ("brown", "green", "red", "yellow", "pink", "purple", "blue", "orange")
#: KPN colour letters, indexed by colour.
COLOUR_LETTERS = "ngrypubo"

#: Maximum distance by number of rings: ordinary 7, Sumo 5, Double 3, Triple 1.
RANGE = (7, 5, 3, 1)
#: Points earned by the ring a winning tower gains, by rings it had before.
RING_POINTS = (1, 2, 4, 8)
#: Points needed to win: Single Round, Standard, Long, Marathon.
TARGETS = (1, 3, 7, 15)

START_KPN = "obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 1 0 0"


def start_kpn(target: int = 1, turn: int = 0) -> str:
    """The KPN of a match's start: points to win ``target``, ``turn`` to move
    (Black, 0, unless a series gives Gold the first move).

    >>> start_kpn() == START_KPN
    True
    >>> start_kpn(3)
    'obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 3 0 0'
    >>> start_kpn(1, GOLD)
    'obupyrgn/8/8/8/8/8/8/NGRYPUBO g - 1 0 0'
    """
    return f"{START_KPN[:-10]} {SIDE_LETTERS[turn]} - {target} 0 0"


class TextEnum(StrEnum):
    """Named text: a ``StrEnum`` whose members read, print and compare as their
    text, ``repr`` included, so names in code never change a byte written."""

    def __repr__(self) -> str:
        return repr(self.value)


class Reason(TextEnum):
    """How a round ended: the text is what KPN tools, records and the wire say.

    >>> Reason.GOAL == "goal", f"{Reason.DEADLOCK}", Reason("goal")
    (True, 'deadlock', 'goal')
    """

    GOAL = "goal"
    """A tower reached the opponent's home row."""
    DEADLOCK = "deadlock"
    """Neither side could move (rule M8)."""


GOAL = Reason.GOAL
DEADLOCK = Reason.DEADLOCK

_BOARD_ROWS = (
    # rank 1 (Black's home row) first, files a..h
    "brown green red yellow pink purple blue orange",
    "purple brown yellow blue green pink orange red",
    "blue yellow brown purple red orange pink green",
    "yellow red green brown orange blue purple pink",
    "pink purple blue orange brown green red yellow",
    "green pink orange red purple brown yellow blue",
    "red orange pink green blue yellow brown purple",
    "orange blue purple pink yellow red green brown",
)
#: Colour of every square, indexed by square number.
SQUARE_COLOUR: tuple[int, ...] = tuple(
    COLOUR_NAMES.index(name) for row in _BOARD_ROWS for name in row.split()
)
SQUARE_NAMES: tuple[str, ...] = tuple(
    "abcdefgh"[sq & 7] + str((sq >> 3) + 1) for sq in range(64)
)
_SQUARE_INDEX = {name: sq for sq, name in enumerate(SQUARE_NAMES)}

#: Home rank (0-based) of each side and the rank it must reach to win.
HOME_RANK = (0, 7)
GOAL_RANK = (7, 0)

# Direction indices used by the move generator and notation.
FORWARD, LEFT, RIGHT = 0, 1, 2
DIRECTION_NAMES = ("Forward", "Left", "Right")
_DR = (1, -1)  # forward rank step by side
#: A side's own left, as a file step (Black faces rank 8: its left is file a).
LEFT_STEP = (-1, 1)
_LEFT_DF = LEFT_STEP


def _ray(sq: int, dr: int, df: int) -> tuple[int, ...]:
    out: list[int] = []
    r, f = sq >> 3, sq & 7
    while True:
        r += dr
        f += df
        if not (0 <= r < 8 and 0 <= f < 8):
            return tuple(out)
        out.append(r * 8 + f)


#: RAYS[side][direction][square]: squares along the ray, nearest first.
RAYS: tuple[tuple[tuple[tuple[int, ...], ...], ...], ...] = tuple(
    tuple(
        tuple(_ray(sq, _DR[side], df) for sq in range(64))
        for df in (0, _LEFT_DF[side], -_LEFT_DF[side])
    )
    for side in (BLACK, GOLD)
)
#: Rays cut to the reach of a tower: _REACH[side][rings][direction][square].
_REACH: tuple[tuple[tuple[tuple[tuple[int, ...], ...], ...], ...], ...] = tuple(
    tuple(
        tuple(tuple(ray[: RANGE[rings]] for ray in RAYS[side][d]) for d in range(3))
        for rings in range(4)
    )
    for side in (BLACK, GOLD)
)


def square_name(square: int) -> str:
    """Name of a square: ``square_name(0) == 'a1'``.

    >>> square_name(63)
    'h8'
    """
    return SQUARE_NAMES[square]


def square_file(square: int) -> int:
    """File index 0..7 (``a``..``h``) of a square."""
    return square & 7


def square_rank(square: int) -> int:
    """Rank index 0..7 (rank ``1``..``8``) of a square."""
    return square >> 3


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------


class KamisadoError(ValueError):
    """Base class of the package's input errors (all are ``ValueError``)."""


class MalformedError(KamisadoError):
    """Text that cannot be read: a bad KPN, move text or record."""


class IllegalMoveError(KamisadoError):
    """A well-formed move that the rules do not allow in this position."""


class AmbiguousMoveError(KamisadoError):
    """Move text that matches more than one legal move."""


# The errors are part of the package's face: tracebacks name them as
# ``kamisado.MalformedError`` (where ``import kamisado`` finds them).
for _error in (KamisadoError, MalformedError, IllegalMoveError, AmbiguousMoveError):
    _error.__module__ = "kamisado"


def parse_square(text: str) -> int:
    """Square number of a name like ``'c5'``.

    >>> parse_square("c5")
    34
    >>> parse_square("z9")
    Traceback (most recent call last):
    ...
    kamisado.MalformedError: expected a square a1..h8, found 'z9'
    """
    try:
        return _SQUARE_INDEX[text]
    except KeyError:
        raise MalformedError(f"expected a square a1..h8, found {text!r}") from None


def parse_colour(text: str) -> int:
    """Colour index of a colour name or KPN letter (any case).

    >>> parse_colour("Purple"), parse_colour("u")
    (5, 5)
    """
    low = text.lower()
    if low in COLOUR_NAMES:
        return COLOUR_NAMES.index(low)
    if len(low) == 1 and low in COLOUR_LETTERS:
        return COLOUR_LETTERS.index(low)
    raise MalformedError(
        "expected a colour (brown, green, red, yellow, pink, purple, blue, orange"
        f" or one of the letters {COLOUR_LETTERS}), found {text!r}"
    )


def ring_total(rings: int) -> int:
    """Points a tower with ``rings`` rings has earned: 0, 1, 3 or 7."""
    return (0, 1, 3, 7)[rings]


# ---------------------------------------------------------------------------
# Moves and outcomes
# ---------------------------------------------------------------------------


class Move(NamedTuple):
    """A move in square form: the tower on ``from_square`` goes to ``to_square``.

    A Sumo push is the pusher's one-step forward move onto the square of the
    first tower it pushes.  Moves are small immutable values; whether a move
    is legal depends on a position.

    >>> m = Move.from_str("c1-c5")
    >>> m
    Move.from_str('c1-c5')
    >>> str(m), m.from_square, m.to_square
    ('c1-c5', 2, 34)
    """

    from_square: int
    to_square: int

    @classmethod
    def from_str(cls, text: str) -> Move:
        """Read the square form ``c1-c5``."""
        parts = text.strip().split("-")
        if len(parts) != 2:
            raise MalformedError(
                f"expected a move in square form like c1-c5, found {text!r}"
            )
        return cls(parse_square(parts[0]), parse_square(parts[1]))

    def __str__(self) -> str:
        return f"{SQUARE_NAMES[self.from_square]}-{SQUARE_NAMES[self.to_square]}"

    def __repr__(self) -> str:
        return f"Move.from_str({str(self)!r})"


class Pass(NamedTuple):
    """A blocked tower's zero-length move, applied by the rules (M6)."""

    side: int
    colour: int
    square: int


class Outcome(NamedTuple):
    """How a round ended.

    ``winner`` is the side that won, ``colour`` the colour of the winner's
    tower that gains a ring, ``reason`` is ``'goal'`` or ``'deadlock'`` and
    ``rings`` is the number of rings that tower had when the round ended
    (so the round is worth ``RING_POINTS[rings]`` points).
    """

    winner: int
    colour: int
    reason: Reason
    rings: int

    @property
    def points(self) -> int:
        """Points the winner earns with this round."""
        return RING_POINTS[self.rings]
