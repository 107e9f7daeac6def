"""Drawing positions in a terminal: 24-bit ANSI colour or plain letters.

>>> from kamisado.rules.position import Position
>>> print(render(Position(), colour=False).splitlines()[1])
8  o:o   b:b   u:u   p:p   y:y   r:r   g:g   n:n
"""

from __future__ import annotations

from kamisado.rules.board import (
    COLOUR_LETTERS,
    COLOUR_NAMES,
    GOAL,
    SIDE_NAMES,
    SQUARE_COLOUR,
)
from kamisado.rules.position import Position

__all__ = ["RGB", "describe", "render"]

#: Display colours of the eight Kamisado colours (brown .. orange).
RGB = (
    (120, 72, 32),  # brown
    (40, 150, 70),  # green
    (210, 40, 40),  # red
    (245, 210, 0),  # yellow
    (240, 120, 170),  # pink
    (125, 60, 165),  # purple
    (30, 95, 195),  # blue
    (245, 140, 30),  # orange
)
_RESET = "\x1b[0m"


def _bg(rgb: tuple[int, int, int]) -> str:
    return f"\x1b[48;2;{rgb[0]};{rgb[1]};{rgb[2]}m"


def _fg(rgb: tuple[int, int, int]) -> str:
    return f"\x1b[38;2;{rgb[0]};{rgb[1]};{rgb[2]}m"


def describe(pos: Position) -> str:
    """One line saying whose turn it is, which tower must move and the score.

    >>> describe(Position())
    'Black to move, any tower (first move of the round). Single Round, Black 0, Gold 0.'
    """
    names = {1: "Single Round", 3: "Standard Match", 7: "Long Match", 15: "Marathon Match"}
    score = f"{names[pos.target]}, Black {pos.points[0]}, Gold {pos.points[1]}."
    o = pos.outcome
    if o is not None:
        how = "reached the home row" if o.reason == GOAL else "won by deadlock"
        return (
            f"Round over: {SIDE_NAMES[o.winner]}'s {COLOUR_NAMES[o.colour]} tower"
            f" {how} (+{o.points}). {score}"
        )
    side = SIDE_NAMES[pos.turn]
    if pos.must_move < 0:
        return f"{side} to move, any tower (first move of the round). {score}"
    return f"{side} to move, the {COLOUR_NAMES[pos.must_move]} tower. {score}"


def render(pos: Position, colour: bool = True) -> str:
    """The board, rank 8 at the top, with a status line.

    With ``colour`` each square is painted in its true colour and each tower
    is a block in its own colour: black letters for Black's towers, white
    for Gold's, one ``+`` per ring; the tower that must move is framed by
    ``>`` ``<``.  Without colour every cell reads ``square:tower``: the
    square's colour letter, then the tower in KPN (``n`` when empty).
    """
    mover = pos.mover()
    lines = [describe(pos)]
    for rank in range(7, -1, -1):
        cells = []
        for file in range(8):
            sq = rank * 8 + file
            t = pos.board[sq]
            sqc = SQUARE_COLOUR[sq]
            if t < 0:
                text = ""
            else:
                letter = COLOUR_LETTERS[t & 7]
                text = (letter.upper() if t < 8 else letter) + "+" * pos.rings[t]
            if not colour:
                cells.append(f"{COLOUR_LETTERS[sqc]}:{text or '.'}".ljust(6))
                continue
            if t < 0:
                cells.append(_bg(RGB[sqc]) + " " * 7)
                continue
            owner = (0, 0, 0) if t < 8 else (255, 255, 255)
            left, right = (">", "<") if t == mover else (" ", " ")
            cells.append(
                _bg(RGB[sqc])
                + _fg((255, 255, 255) if sqc != 3 else (0, 0, 0))
                + left
                + _bg(RGB[t & 7])
                + _fg(owner)
                + "\x1b[1m"
                + text.center(5)
                + "\x1b[22m"
                + _bg(RGB[sqc])
                + _fg((255, 255, 255) if sqc != 3 else (0, 0, 0))
                + right
            )
        row = "".join(cells) + _RESET if colour else "".join(cells).rstrip()
        lines.append(f"{rank + 1}  {row}")
    if colour:
        lines.append("   " + "".join(f"{f:^7}" for f in "abcdefgh"))
    else:
        lines.append("   " + "".join(f"{f:<6}" for f in "abcdefgh").rstrip())
    return "\n".join(lines)
