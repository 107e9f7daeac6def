"""The board widget of ``kamisado play``: :class:`BoardView`.

A widget with no rules: the host gives it a whole state (a position, the
picked tower, the destinations to mark, the last move) through reactive
attributes, and it reports the square the user picks in a
:class:`BoardView.Picked` message.  Changing any of those attributes (or
``cursor``, ``plain``, ``flipped``) redraws it.

>>> from kamisado.rules.position import Position
>>> board = BoardView(Position(), plain=True, interactive=False)
>>> board.board_text().plain.splitlines()[0][:17]
'8    o:o      b:b'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from kamisado.pictures.render import RGB
from kamisado.rules.board import COLOUR_LETTERS, SQUARE_COLOUR, Move
from kamisado.rules.position import Position

__all__ = ["MOVE_START", "BoardView"]

#: Characters that start a written move: typed on the board, they open the move entry.
MOVE_START = frozenset("abcdefghABCDEFGH" + "ngrypuboNGRYPUBO")

_WHITE = (255, 255, 255)
#: Colours of the towers' bodies: Black's and Gold's.
_BODY = ((20, 20, 20), (225, 180, 40))
_BLACK = (0, 0, 0)
#: Squares dark enough for white marks (the rest get black ones).
_LIGHT_SQUARES = frozenset({3, 4, 7})  # yellow, pink, orange


def _rgb(c: tuple[int, int, int]) -> str:
    return f"rgb({c[0]},{c[1]},{c[2]})"


def _tower_text(pos: Position, t: int) -> str:
    letter = COLOUR_LETTERS[t & 7]
    return (letter.upper() if t < 8 else letter) + "+" * pos.rings[t]


class BoardView(Widget, can_focus=True):
    """An 8x8 Kamisado board with a cursor, a selected tower and marked destinations.

    In colour mode every square has its true colour and every tower is a
    block of its own colour with its KPN letter (upper case Black, lower case
    Gold, black or white text) and one ``+`` per ring; the cells grow with the
    widget.  In letters mode (``plain``) each cell reads ``square:tower`` as in
    ``kamisado show --plain``.  Marks: ``>`` before the tower that must move
    (or is picked), ``*`` on a legal destination, ``[ ]`` around the cursor.

    The last move is marked on the square it left and on every square its
    towers reached (its destination, and the new squares of the towers a
    Sumo pushed, when the position's move stack tells them): in colour a
    ``·`` in the middle of the square left and ``•`` either side of each
    tower moved; in letters ``~`` before both (after the tower where ``>`` or
    ``*`` has the place before it).
    """

    DEFAULT_CSS = """
    BoardView { width: 1fr; height: 1fr; min-width: 43; min-height: 9; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor(0, 1)", "Up", show=False),
        Binding("down", "cursor(0, -1)", "Down", show=False),
        Binding("left", "cursor(-1, 0)", "Left", show=False),
        Binding("right", "cursor(1, 0)", "Right", show=False),
        Binding("enter,space", "pick", "Pick"),
        # a priority binding, taken when the app reads the key: ``q`` then
        # ``y`` typed at once reach the board's queue together, and the
        # ``y`` answers the question only if it is open by then
        Binding("q", "quit", "Quit", show=False, priority=True),
    ]

    position: reactive[Position] = reactive(Position, always_update=True)
    """The position drawn (set again after a move made on the same object)."""
    selected: reactive[int] = reactive(-1)
    """Square of the tower whose destinations are marked (-1: none)."""
    destinations: reactive[frozenset[int]] = reactive(frozenset)
    """Squares marked as legal destinations."""
    last_move: reactive[Move | None] = reactive(None)
    """The last move: its origin and the squares its towers reached are marked."""
    cursor: reactive[int] = reactive(0)
    plain: reactive[bool] = reactive(False)
    """Letters mode: each square as its colour letter and the tower."""
    flipped: reactive[bool] = reactive(False)
    """Turned round: rank 1 at the top, file h on the left."""

    class Picked(Message):
        """A square was picked (Enter on the cursor, or a click)."""

        def __init__(self, board: BoardView, square: int) -> None:
            super().__init__()
            self.board = board
            self.square = square

    def __init__(
        self,
        position: Position,
        *,
        plain: bool = False,
        flipped: bool = False,
        ranks: tuple[int, ...] = (7, 6, 5, 4, 3, 2, 1, 0),
        interactive: bool = True,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.position = position
        self.plain = plain
        self.flipped = flipped
        self.ranks = ranks
        self.interactive = interactive
        self.can_focus = interactive
        self.on_type: Callable[[str], None] | None = None
        """Called with text typed or pasted on the board for the move entry
        (``"\\r"``: Enter, ``"\\b"``: Backspace, typed before the entry had the focus)."""
        self._typing = False
        self._last: tuple[int, frozenset[int]] = (-1, frozenset())

    # -- geometry -----------------------------------------------------------

    def _rows(self) -> list[int]:
        return list(reversed(self.ranks)) if self.flipped else list(self.ranks)

    def _files(self) -> list[int]:
        return list(range(7, -1, -1)) if self.flipped else list(range(8))

    def cell_size(self) -> tuple[int, int]:
        """Width and height of one square in characters."""
        width, height = self.size.width or 75, self.size.height or 26
        if self.plain:
            return max(6, min(9, (width - 3) // 8)), 1
        w = max(5, min(9, (width - 3) // 8))
        h = max(1, min(3, (height - 1) // len(self.ranks)))
        return w, h

    def square_at(self, x: int, y: int) -> int | None:
        """The square under a point of the widget (``None`` off the board)."""
        w, h = self.cell_size()
        if x < 3 or y < 0:
            return None
        col, row = (x - 3) // w, y // h
        rows = self._rows()
        if col >= 8 or row >= len(rows):
            return None
        return rows[row] * 8 + self._files()[col]

    def last_squares(self) -> tuple[int, frozenset[int]]:
        """The last move's origin (-1: none) and the squares its towers reached.

        The towers a Sumo pushed are known when the position drawn is the one
        the move was made on (its move stack ends with it).
        """
        move = self.last_move
        if move is None:
            return -1, frozenset()
        landed = {move.to_square}
        stack = self.position.move_stack
        if stack and stack[-1] == move:
            pushed = self.position.peek().pushed
            step = move.to_square - move.from_square  # a push is one step forward
            landed.update(move.to_square + step * i for i in range(1, pushed + 1))
        return move.from_square, frozenset(sq for sq in landed if 0 <= sq < 64)

    # -- drawing -------------------------------------------------------------

    def board_text(self) -> Text:
        """The board as styled text (``.plain`` is what a test reads)."""
        out = Text(no_wrap=True, overflow="crop")
        w, h = self.cell_size()
        pos = self.position
        mover_sq = -1
        if self.selected >= 0:
            mover_sq = self.selected
        elif pos.mover() >= 0:
            mover_sq = pos.tower_square[pos.mover()]
        self._last = self.last_squares()
        for rank in self._rows():
            for line in range(h):
                label = f"{rank + 1}  " if line == h // 2 else "   "
                out.append(label)
                for file in self._files():
                    sq = rank * 8 + file
                    if self.plain:
                        self._plain_cell(out, sq, w, mover_sq)
                    else:
                        self._colour_cell(out, sq, line, w, h, mover_sq)
                out.append("\n")
        out.append("   " + "".join(f"{'abcdefgh'[f]:^{w}}" for f in self._files()).rstrip())
        return out

    def _plain_cell(self, out: Text, sq: int, w: int, mover_sq: int) -> None:
        pos = self.position
        t = pos.board[sq]
        cursor = self.interactive and sq == self.cursor
        origin, landed = self._last
        last = sq == origin or sq in landed
        mark = (
            ">" if sq == mover_sq
            else "*" if sq in self.destinations
            else "~" if last
            else " "
        )
        tower = _tower_text(pos, t) if t >= 0 else "."
        if last and mark != "~" and len(tower) < 4:
            tower += "~"  # the mark's place is taken: after the tower
        letter = COLOUR_LETTERS[SQUARE_COLOUR[sq]]
        if w >= 9:  # [>o:R+++]
            left, right = ("[", "]") if cursor else (" ", " ")
            text = f"{left}{mark}{letter}:{tower:<4}{right}"
        elif w >= 7:  # >o:R+++ (the cursor in reverse video only)
            text = f"{mark}{letter}:{tower:<4}".ljust(w)
        else:  # >oR+++
            text = f"{mark}{letter}{tower:<4}"
        out.append(text, Style(reverse=True) if cursor else None)

    def _colour_cell(
        self, out: Text, sq: int, line: int, w: int, h: int, mover_sq: int
    ) -> None:
        pos = self.position
        sqc = SQUARE_COLOUR[sq]
        bg = RGB[sqc]
        mark_fg = _BLACK if sqc in _LIGHT_SQUARES else _WHITE
        square = Style(bgcolor=_rgb(bg), color=_rgb(mark_fg), bold=True)
        cursor = self.interactive and sq == self.cursor
        middle_line = h // 2
        middle = line == middle_line
        t = pos.board[sq]
        chars = [" "] * w
        origin, landed = self._last
        if sq == origin and middle and t < 0:
            chars[w // 2] = "·"
        if h >= 3 and cursor and line in (0, h - 1):
            chars[0], chars[-1] = ("┏", "┓") if line == 0 else ("┗", "┛")
            if t < 0:
                chars[1:-1] = "━" * (w - 2)
        if h < 3 and cursor and middle:
            chars[0], chars[-1] = "[", "]"
        if t >= 0 and not middle and line in (middle_line - 1, middle_line + 1):
            # the tower's body above and below its colour: black or gold
            body = Style(bgcolor=_rgb(bg), color=_rgb(_BODY[t >> 3]))
            half = "▄" if line < middle_line else "▀"
            out.append(chars[0], square)
            out.append(half * (w - 2), body)
            out.append(chars[-1], square)
            return
        if not (middle and t >= 0):
            if middle and sq in self.destinations:
                chars[w // 2] = "●"
            out.append("".join(chars), square)
            return
        # the tower: edges in the square's colour, a block in the tower's
        if not (h < 3 and cursor):  # in one line the cursor takes the edges
            if sq == mover_sq:
                chars[0], chars[-1] = "▶", "◀"
            elif sq in self.destinations:
                chars[0], chars[-1] = "»", "«"
            elif sq in landed:
                chars[0], chars[-1] = "•", "•"
        owner = _BLACK if t < 8 else _WHITE
        block = Style(bgcolor=_rgb(RGB[t & 7]), color=_rgb(owner), bold=True)
        out.append(chars[0], square)
        out.append(_tower_text(pos, t).center(w - 2)[: w - 2], block)
        out.append(chars[-1], square)

    def render(self) -> Text:
        return self.board_text()

    # -- input ---------------------------------------------------------------

    def show(
        self,
        position: Position,
        selected: int = -1,
        destinations: frozenset[int] = frozenset(),
        last_move: Move | None = None,
    ) -> None:
        """Draw another position (or the same with other marks)."""
        self.position = position
        self.selected = selected
        self.destinations = destinations
        self.last_move = last_move

    def action_cursor(self, dx: int, dy: int) -> None:
        """Move the cursor one square on the screen (the board may be turned)."""
        if self.flipped:
            dx, dy = -dx, -dy
        rank = min(7, max(0, (self.cursor >> 3) + dy))
        file = min(7, max(0, (self.cursor & 7) + dx))
        self.cursor = rank * 8 + file

    async def action_quit(self) -> None:
        """``q`` on the board: the app's quit (typed into a move: handed over)."""
        if self._typing and self.on_type is not None:
            self.on_type("q")
            return
        await self.run_action("app.quit")

    def action_pick(self) -> None:
        """Pick the square under the cursor."""
        self.post_message(self.Picked(self, self.cursor))

    def on_click(self, event: events.Click) -> None:
        if not self.interactive:
            return
        offset = event.get_content_offset(self)
        if offset is None:
            return
        sq = self.square_at(offset.x, offset.y)
        if sq is None:
            return
        self.cursor = sq
        self.focus()
        self.post_message(self.Picked(self, sq))

    def on_key(self, event: events.Key) -> None:
        ch = event.character
        if self.on_type is None:
            return
        if self._typing and event.key in ("enter", "backspace"):
            # typed ahead of the entry's focus too: Enter plays, Backspace erases
            event.stop()
            event.prevent_default()
            self.on_type("\r" if event.key == "enter" else "\b")
            return
        if ch is None or not event.is_printable:
            return
        if ch in MOVE_START or self._typing:
            # the move entry takes over; it gets the focus a moment later, so
            # the characters typed until then (spaces too) are handed over here
            event.stop()
            event.prevent_default()
            self._typing = True
            self.on_type(ch)

    def on_paste(self, event: events.Paste) -> None:
        """Pasted text goes to the move entry (its first line, spaces and all)."""
        if self.on_type is None:
            return
        event.stop()
        event.prevent_default()
        line = next((ln.strip() for ln in event.text.splitlines() if ln.strip()), "")
        text = "".join(ch for ch in line if ch.isprintable())
        if text:
            self._typing = True
            self.on_type(text)

    def on_blur(self) -> None:
        self._typing = False
        self.refresh()

    def on_focus(self) -> None:
        self._typing = False
        self.refresh()
