"""What a square picked on the board means: :func:`pick` decides, the app
acts (plays the move, marks the tower, or says why not).

>>> from kamisado.rules.position import Position
>>> first = pick(Position(), -1, 2)  # c1: Black's tower that may move
>>> first.selected, first.text
(2, "Black's red tower picked: now its destination.")
>>> str(pick(Position(), 2, 34).move)  # then c5
'c1-c5'
>>> pick(Position(), -1, 34)
Pick(move=None, selected=None, text="c5: pick one of Black's towers first.", kind='error')
"""

from __future__ import annotations

from dataclasses import dataclass

from kamisado.rules.board import COLOUR_NAMES, SQUARE_NAMES, Move
from kamisado.rules.position import Position
from kamisado.tui.words import side_word

__all__ = ["Pick", "pick"]


@dataclass(frozen=True)
class Pick:
    """The answer to a pick: a ``move`` to play, or a tower ``selected``, and
    the status line's ``text`` of ``kind`` (``''`` or ``'error'``)."""

    move: Move | None = None
    selected: int | None = None
    text: str = ""
    kind: str = ""


def pick(pos: Position, selected: int, square: int) -> Pick:
    """A person picked ``square`` in ``pos`` with the tower on ``selected``
    picked before (``-1``: none)."""
    name = SQUARE_NAMES[square]
    legal = list(pos.legal_moves)
    t = pos.board[square]
    if selected >= 0:
        for move in legal:
            if move.from_square == selected and move.to_square == square:
                return Pick(move=move)
    if pos.must_move < 0 and t >= 0 and any(m.from_square == square for m in legal):
        return Pick(
            selected=square,
            text=f"{side_word(pos.turn)}'s {COLOUR_NAMES[t & 7]} tower picked: now its destination.",
        )
    if square == selected:
        return Pick(text=f"{name}: that is the tower to move; pick one of its destinations.")
    if pos.must_move < 0 and t >= 0 and t >> 3 == pos.turn:
        return Pick(text=f"{name}: that tower cannot move.", kind="error")
    if selected < 0:
        return Pick(text=f"{name}: pick one of {side_word(pos.turn)}'s towers first.", kind="error")
    tower = pos.board[selected]
    return Pick(
        text=f"{name}: not a legal destination of {side_word(pos.turn)}'s"
        f" {COLOUR_NAMES[tower & 7]} tower.",
        kind="error",
    )
