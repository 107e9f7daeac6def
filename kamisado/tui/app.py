"""The Textual app behind ``kamisado play``.

:class:`KamisadoApp` plays a :class:`~kamisado.match.Match` between people
and/or computer :class:`~kamisado.players.Player` objects.  The board is a
:class:`BoardView`; the round's winner picks the fill on a
:class:`FillScreen`; the end of the match shows a :class:`ResultScreen`.

Computer moves never block the screen: the quick levels (``beginner`` to
``club``, at most a few tens of milliseconds a move) think in a thread, the
others in a separate process (the engine's search holds the GIL), and the app keeps drawing meanwhile.

>>> from kamisado.tui import Options
>>> app = build_app(Options(level="beginner", colour="gold", target=3))
>>> app.match.name, app.players[0] is not None, app.players[1] is None
('Standard', True, True)
"""

from __future__ import annotations

import asyncio
import datetime
import multiprocessing
import os
import re
import sys
import time
from collections.abc import Callable
from multiprocessing.pool import Pool
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Button, Footer, Header, Input, Static

from kamisado.core import (
    COLOUR_LETTERS,
    COLOUR_NAMES,
    SIDE_NAMES,
    SQUARE_COLOUR,
    SQUARE_NAMES,
    KamisadoError,
    Move,
    Position,
)
from kamisado.match import FILLS, MATCH_NAMES, Match
from kamisado.notation import move_entries
from kamisado.players import LEVELS, Player
from kamisado.record import Record, load, save, write
from kamisado.render import RGB
from kamisado.tui import Options, think_fill, think_move

__all__ = [
    "THREAD_LEVELS",
    "BoardView",
    "FillScreen",
    "HelpScreen",
    "KamisadoApp",
    "ResultScreen",
    "SetupError",
    "build_app",
]

#: Levels quick enough to think in a thread of the app's own process.
THREAD_LEVELS = frozenset({"beginner", "novice", "casual", "club"})
#: Seconds before a computer that gives no answer (a crashed process) is given up.
THINK_TIMEOUT = 300.0
#: Characters that start a written move: typed on the board, they open the move entry.
MOVE_START = frozenset("abcdefghABCDEFGH" + "ngrypuboNGRYPUBO")
#: Record header value naming a computer player: ``kamisado <level>``.
_COMPUTER_RE = re.compile(r"kamisado (\w+)")

_WHITE = (255, 255, 255)
#: Colours of the towers' bodies: Black's and Gold's.
_BODY = ((20, 20, 20), (225, 180, 40))
_BLACK = (0, 0, 0)
#: Squares dark enough for white marks (the rest get black ones).
_LIGHT_SQUARES = frozenset({3, 4, 7})  # yellow, pink, orange

T = TypeVar("T")


class SetupError(Exception):
    """The app cannot start: a record that cannot be read, a bad level in it."""


def _rgb(c: tuple[int, int, int]) -> str:
    return f"rgb({c[0]},{c[1]},{c[2]})"


def _tower_text(pos: Position, t: int) -> str:
    letter = COLOUR_LETTERS[t & 7]
    return (letter.upper() if t < 8 else letter) + "+" * pos.rings[t]


def _side_word(side: int) -> str:
    return SIDE_NAMES[side]


# ---------------------------------------------------------------------------
# The board
# ---------------------------------------------------------------------------


class BoardView(Widget, can_focus=True):
    """An 8x8 Kamisado board with a cursor, a selected tower and marked destinations.

    In colour mode every square has its true colour and every tower is a
    block of its own colour with its KPN letter (upper case Black, lower case
    Gold, black or white text) and one ``+`` per ring; the cells grow with the
    widget.  In letters mode (``plain``) each cell reads ``square:tower`` as in
    ``kamisado show --plain``.  Marks: ``>`` before the tower that must move
    (or is picked), ``*`` on a legal destination, ``[ ]`` around the cursor.
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
    ]

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
        self.cursor = 0
        self.selected = -1
        """Square of the tower whose destinations are marked (-1: none)."""
        self.destinations: frozenset[int] = frozenset()
        self.last_move: Move | None = None
        self.on_type: Callable[[str], None] | None = None
        """Called with a character that starts a written move (typed on the board)."""
        self._typing = False

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
        mark = ">" if sq == mover_sq else "*" if sq in self.destinations else " "
        tower = _tower_text(pos, t) if t >= 0 else "."
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
        if self.last_move is not None and sq == self.last_move.from_square and middle:
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
        self.refresh()

    def action_cursor(self, dx: int, dy: int) -> None:
        """Move the cursor one square on the screen (the board may be turned)."""
        if self.flipped:
            dx, dy = -dx, -dy
        rank = min(7, max(0, (self.cursor >> 3) + dy))
        file = min(7, max(0, (self.cursor & 7) + dx))
        self.cursor = rank * 8 + file
        self.refresh()

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
        self.refresh()
        self.post_message(self.Picked(self, sq))

    def on_key(self, event: events.Key) -> None:
        ch = event.character
        if self.on_type is None or ch is None or not event.is_printable:
            return
        if ch in MOVE_START or (self._typing and ch not in " /:"):
            # the move entry takes over; it gets the focus a moment later, so
            # the characters typed until then are handed over here
            event.stop()
            event.prevent_default()
            self._typing = True
            self.on_type(ch)

    def on_blur(self) -> None:
        self._typing = False
        self.refresh()

    def on_focus(self) -> None:
        self._typing = False
        self.refresh()


# ---------------------------------------------------------------------------
# Screens
# ---------------------------------------------------------------------------


class FillScreen(ModalScreen[str]):
    """The round's winner chooses to fill left or right; both line-ups are shown."""

    DEFAULT_CSS = """
    FillScreen { align: center middle; }
    FillScreen > Vertical {
        width: auto; max-width: 100%; height: auto; border: thick $accent;
        background: $surface; padding: 0 1;
    }
    FillScreen BoardView { width: 75; height: 3; }
    FillScreen .lineup { height: auto; margin: 1 0 0 0; }
    FillScreen Horizontal { height: auto; width: auto; margin-top: 1; }
    FillScreen Button { margin-right: 2; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left,l", "fill('left')", "Fill left"),
        Binding("right,r", "fill('right')", "Fill right"),
    ]

    def __init__(self, match: Match, plain: bool, flipped: bool) -> None:
        super().__init__()
        self.match = match
        self.plain = plain
        self.flipped = flipped

    def compose(self) -> ComposeResult:
        m = self.match
        o = m.current.outcome
        assert o is not None
        winner = _side_word(o.winner)
        with Vertical():
            yield Static(
                f"{_round_over_text(m, len(m.rounds))}\n"
                f"{winner} chooses how both players refill their home rows"
                " for the next round:",
                id="fill-title",
            )
            for fill in FILLS:
                with Vertical(classes="lineup"):
                    yield Static(f"Fill {fill} ({fill[0]} or the {fill} arrow):")
                    yield BoardView(
                        m.next_round_start(fill),
                        plain=self.plain,
                        flipped=self.flipped,
                        ranks=(7, 0),
                        interactive=False,
                        id=f"lineup-{fill}",
                    )
            with Horizontal():
                yield Button("Fill left", id="left", variant="primary")
                yield Button("Fill right", id="right", variant="primary")

    def action_fill(self, fill: str) -> None:
        self.dismiss(fill)

    def on_click(self, event: events.Click) -> None:
        """A click on a line-up chooses it."""
        widget = event.widget
        if isinstance(widget, BoardView) and widget.id and widget.id.startswith("lineup-"):
            event.stop()
            self.dismiss(widget.id.removeprefix("lineup-"))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id in FILLS:
            self.dismiss(event.button.id)


class ResultScreen(ModalScreen[str]):
    """The end of the match: who won, every round, and what next."""

    DEFAULT_CSS = """
    ResultScreen { align: center middle; }
    ResultScreen > Vertical {
        width: 76; max-width: 100%; height: auto; border: thick $success;
        background: $surface; padding: 1 2;
    }
    ResultScreen Horizontal { height: auto; margin-top: 1; }
    ResultScreen Button { margin-right: 1; width: auto; min-width: 8; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "choose('new')", "New match"),
        Binding("s", "choose('save')", "Save"),
        Binding("q", "choose('quit')", "Quit"),
        Binding("escape", "choose('board')", "Look at the board"),
    ]

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.text, id="result-text")
            with Horizontal():
                yield Button("New match (n)", id="new", variant="primary")
                yield Button("Save (s)", id="save")
                yield Button("Board (Esc)", id="look")
                yield Button("Quit (q)", id="quit", variant="error")

    def action_choose(self, what: str) -> None:
        self.dismiss(what)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(
            {"look": "board"}.get(event.button.id or "", event.button.id or "board")
        )


HELP = """\
Move one of your towers straight or diagonally forward, as far as you
like through empty squares. The colour of the square it lands on is the
colour of the tower your opponent must move next. Reach your opponent's
home row to win the round.

Keys on the board
  cursor keys   move the cursor
  Enter, Space  pick a tower (first move of a round), then its destination
  mouse         click a tower, then a destination
  a-h, colours  typing a move goes to the move entry
  / or :        go to the move entry (Esc: back to the board)
  s  save the record     l  letters mode     v  turn the board
  ?  this help           q  quit

Written moves (Enter plays them)
  c1-c5           from and to squares
  Red Forward 4   the rulebook's form (Left, Right: the mover's own)
  rF4             tower letter, F/L/R, distance
  c5              the destination, when one legal move goes there

Towers: colour letters n g r y p u b o (brown green red yellow pink
purple blue orange), upper case Black's, lower case Gold's, + a ring.
Letters mode writes each square's colour letter, then the tower.
Marks: > or arrows: the tower that must move; * or dots: destinations;
[ ], corners or reverse video: the cursor.
"""


class HelpScreen(ModalScreen[None]):
    """The keys and the written forms of a move."""

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 80; max-width: 100%; height: auto; max-height: 100%;
        border: thick $accent; background: $surface; padding: 0 1;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark,enter", "close", "Close"),
    ]

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(HELP, id="help-text")

    def action_close(self) -> None:
        self.dismiss(None)


def _round_over_text(match: Match, number: int) -> str:
    """``Round 2: Gold's purple tower reached Black's home row: +1 (Black 0, Gold 2).``"""
    rnd = match.rounds[number - 1]
    o = rnd.outcome
    assert o is not None
    side = _side_word(o.winner)
    if o.reason == "goal":
        how = f"{side}'s {COLOUR_NAMES[o.colour]} tower reached the home row"
    else:
        how = (
            f"deadlock: {_side_word(o.winner ^ 1)}'s move blocked every tower and loses;"
            f" the ring goes on {side}'s {COLOUR_NAMES[o.colour]} tower"
        )
    gained = 1 if match.series else o.points
    unit = "point" if gained == 1 else "points"
    return f"Round {number}: {how}, {side} +{gained} {unit}."


# ---------------------------------------------------------------------------
# The app
# ---------------------------------------------------------------------------


class KamisadoApp(App[int]):
    """Kamisado in the terminal: hotseat or against a computer level.

    ``players[side]`` is ``None`` for a person or a :class:`Player`.
    ``save_path`` (if any) is written after every move and fill.
    """

    TITLE = "Kamisado"
    CSS = """
    #main { height: 1fr; }
    #board { width: 76; }
    #side { width: 1fr; padding: 0 1; }
    #score { height: auto; text-style: bold; }
    #turn { height: auto; margin-bottom: 1; }
    #moves-box { height: 1fr; border: round $primary-darken-2; }
    #entry { margin: 0 0; }
    #status { height: 2; padding: 0 1; }
    #status.error { color: $error; text-style: bold; }
    #status.news { color: $warning; text-style: bold; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "save", "Save"),
        Binding("ctrl+s", "save", "Save", show=False, priority=True),
        Binding("l", "letters", "Letters"),
        Binding("v", "flip", "Turn board"),
        Binding("escape", "cancel", "Back to board", show=False),
        Binding("slash,colon", "type_move", "Type a move"),
        Binding("question_mark", "help", "Help"),
        Binding("q", "quit", "Quit"),
    ]

    def __init__(
        self,
        match: Match,
        players: tuple[Player | None, Player | None],
        headers: dict[str, str],
        *,
        save_path: str | None = None,
        plain: bool = False,
        flipped: bool = False,
        delay: float = 0.4,
    ) -> None:
        super().__init__()
        self.match = match
        self.players: list[Player | None] = list(players)
        self.headers = headers
        self.save_path = save_path
        self.plain = plain
        self.flipped = flipped
        self.delay = delay
        self.selected = -1
        self.thinking: str | None = None
        """What the computer is working on (``'move'``/``'fill'``), or ``None``."""
        self._think_started = 0.0
        self._game = 0
        """Bumped for every new match, so a late computer answer is dropped."""
        self._pool: Pool | None = None
        self.messages: list[str] = []
        """Every announcement and error shown in the status line, oldest first."""

    # -- layout ---------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="main"):
            yield BoardView(
                self.match.position, plain=self.plain, flipped=self.flipped, id="board"
            )
            with Vertical(id="side"):
                yield Static(id="score")
                yield Static(id="turn")
                with VerticalScroll(id="moves-box"):
                    yield Static(id="moves")
        yield Input(
            placeholder="Type a move: c1-c5, Red Forward 4, rF4, c5 (Enter plays it)",
            id="entry",
            select_on_focus=False,
        )
        yield Static(id="status")
        yield Footer()

    @property
    def board(self) -> BoardView:
        """The main board."""
        return self.query_one("#board", BoardView)

    def on_mount(self) -> None:
        self._fit(self.size.width)
        self.sub_title = self._title()
        self.set_interval(0.2, self._tick)
        pos = self.match.position
        start = pos.tower_square[pos.mover()] if pos.mover() >= 0 else -1
        if start < 0:
            mine = [m.from_square for m in pos.legal_moves]
            start = mine[0] if mine else 0
        self.board.cursor = start
        self.board.on_type = self._typed
        if any(p is not None and p.level not in THREAD_LEVELS for p in self.players):
            self._start_pool()  # it takes a moment: start it while the person thinks
        self.board.focus()
        self._refresh_all()
        self._advance()

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.width)

    def _fit(self, width: int) -> None:
        """Share the width: the board up to 76 columns, the move list the rest."""
        board = max(self._board_min(), min(76, width - 58))
        self.board.styles.width = board

    def _board_min(self) -> int:
        return 3 + 8 * (6 if self.plain else 5)

    def on_unmount(self) -> None:
        self._close_pool()

    def _title(self) -> str:
        m = self.match
        if m.series or m.target == 1:
            what = m.name  # 'Series to 3', 'Single Round'
        else:
            what = f"{MATCH_NAMES[m.target]} match, {m.target} points to win"
        names = [self._player_name(side) for side in (0, 1)]
        return f"{what} · Black: {names[0]} · Gold: {names[1]}"

    def _player_name(self, side: int) -> str:
        pl = self.players[side]
        return (
            "you"
            if pl is None and any(self.players)
            else ("person" if pl is None else f"computer ({pl.level})")
        )

    # -- drawing ----------------------------------------------------------------

    def _human(self, side: int) -> bool:
        return self.players[side] is None

    def _destinations(self) -> frozenset[int]:
        if self.selected < 0 or self.match.state != "playing":
            return frozenset()
        return frozenset(
            m.to_square
            for m in self.match.position.legal_moves
            if m.from_square == self.selected
        )

    def _auto_select(self) -> None:
        """Select the tower that must move (none on a round's first move)."""
        pos = self.match.position
        if self.match.state != "playing" or not self._human(pos.turn) or self.thinking:
            self.selected = -1
        elif pos.mover() >= 0:
            self.selected = pos.tower_square[pos.mover()]
        elif self.selected >= 0 and pos.board[self.selected] >> 3 != pos.turn:
            self.selected = -1

    def _refresh_all(self) -> None:
        m = self.match
        pos = m.position
        self._auto_select()
        last = pos.move_stack[-1] if pos.move_stack else None
        self.board.show(pos, self.selected, self._destinations(), last)
        score = (
            f"Round {len(m.rounds)} · Black {m.points[0]} – Gold {m.points[1]}"
            f" · {m.name}{'' if m.series else f' (to {m.target})'}"
        )
        self.query_one("#score", Static).update(score)
        self.query_one("#turn", Static).update(self._turn_text())
        rounds = write(Record(self.headers, m)).split("\n\n")[1:]
        lines = [
            ln for ln in "\n\n".join(rounds).splitlines() if not ln.startswith("Start:")
        ]
        self.query_one("#moves", Static).update("\n".join(lines))
        self.query_one("#moves-box", VerticalScroll).scroll_end(animate=False)

    def _turn_text(self) -> str:
        m = self.match
        pos = m.position
        if m.state == "over":
            assert m.winner is not None
            return f"The match is over: {_side_word(m.winner)} wins."
        if m.state == "fill":
            return f"Round over: {_side_word(m.current_winner())} chooses the fill."
        side = _side_word(pos.turn)
        who = (
            side
            if not any(self.players)
            else (f"Your move ({side})" if self._human(pos.turn) else f"{side} (computer)")
        )
        if pos.must_move < 0:
            what = "any tower (first move of the round): pick a tower, then its destination"
        else:
            what = f"the {COLOUR_NAMES[pos.must_move]} tower must move"
        return f"{who} to move: {what}." if who == side else f"{who}: {what}."

    def status(self, text: str, kind: str = "") -> None:
        """Show a message in the status line (``kind``: ``''``, ``'error'``, ``'news'``)."""
        widget = self.query_one("#status", Static)
        widget.update(text)
        widget.set_classes(kind)
        self.messages.append(text)
        if kind == "error":
            self.bell()

    def _tick(self) -> None:
        if self.thinking:
            side = (
                self.match.position.turn
                if self.thinking == "move"
                else (self.match.current_winner())
            )
            pl = self.players[side]
            level = pl.level if pl else "?"
            spinner = "|/-\\"[int(time.monotonic() * 5) % 4]
            took = time.monotonic() - self._think_started
            what = (
                "thinking about its move"
                if self.thinking == "move"
                else "choosing the fill"
            )
            widget = self.query_one("#status", Static)
            widget.update(f"{spinner} {_side_word(side)} ({level}) is {what}… {took:.1f} s")
            widget.set_classes("")

    # -- actions ---------------------------------------------------------------

    def action_letters(self) -> None:
        """Switch between true colours and letters."""
        self.plain = not self.plain
        self.board.plain = self.plain
        self._fit(self.size.width)
        self.board.refresh()
        self.status("Letters mode." if self.plain else "Colour mode.")

    def action_flip(self) -> None:
        """Turn the board round."""
        self.flipped = not self.flipped
        self.board.flipped = self.flipped
        self.board.refresh()

    def action_cancel(self) -> None:
        """Leave the move entry / drop a picked tower on a round's first move."""
        if self.match.position.must_move < 0 and self.selected >= 0:
            self.selected = -1
            self._refresh_all()
        self.board.focus()

    def action_help(self) -> None:
        """Show the keys and the written forms of a move."""
        self.push_screen(HelpScreen())

    def action_type_move(self) -> None:
        """Go to the move entry."""
        self.query_one("#entry", Input).focus()

    def action_save(self) -> None:
        """Save the record (to ``--save FILE``, the resumed file, or a new file)."""
        if self.save_path is None:
            stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
            self.save_path = f"kamisado-{stamp}.kmr"
        try:
            self._write_record()
        except OSError as e:
            self.status(f"Could not save to {self.save_path}: {e.strerror or e}", "error")
            return
        self.status(f"Saved the record to {self.save_path}.")

    def _write_record(self) -> None:
        assert self.save_path is not None
        save(Record(self.headers, self.match), self.save_path)

    def _autosave(self) -> None:
        if self.save_path is not None:
            try:
                self._write_record()
            except OSError as e:
                self.status(
                    f"Could not save to {self.save_path}: {e.strerror or e}", "error"
                )

    # -- people's moves ----------------------------------------------------------

    def _refuse(self) -> str | None:
        """Why a person cannot move now (``None`` when they can)."""
        m = self.match
        if m.state == "over":
            return "The match is over: Enter on the board shows the result again."
        if m.state == "fill":
            winner = m.current_winner()
            if not self.thinking and not self._human(winner):  # the computer failed
                self.call_later(self._advance)
            return f"The round is over: {_side_word(winner)} chooses the fill."
        if self.thinking:
            return f"Wait: it is {_side_word(m.position.turn)}'s (the computer's) move."
        if not self._human(m.position.turn):  # the computer failed: it tries again
            self.call_later(self._advance)
            return f"It is {_side_word(m.position.turn)}'s (the computer's) move: it tries again."
        return None

    def _typed(self, character: str) -> None:
        entry = self.query_one("#entry", Input)
        entry.focus()
        entry.insert_text_at_cursor(character)

    def on_board_view_picked(self, message: BoardView.Picked) -> None:
        if message.board.id != "board":
            return
        if self.match.state == "over":
            self.push_screen(ResultScreen(self._result_text()), self._after_result)
            return
        why = self._refuse()
        if why:
            self.status(why, "error")
            return
        sq = message.square
        pos = self.match.position
        name = SQUARE_NAMES[sq]
        legal = list(pos.legal_moves)
        t = pos.board[sq]
        if self.selected >= 0:
            for move in legal:
                if move.from_square == self.selected and move.to_square == sq:
                    self.play(move)
                    return
        if pos.must_move < 0 and t >= 0 and any(m.from_square == sq for m in legal):
            self.selected = sq
            self._refresh_all()
            self.status(
                f"{_side_word(pos.turn)}'s {COLOUR_NAMES[t & 7]} tower picked: now its destination."
            )
            return
        if sq == self.selected:
            self.status(f"{name}: that is the tower to move; pick one of its destinations.")
            return
        if pos.must_move < 0 and t >= 0 and t >> 3 == pos.turn:
            self.status(f"{name}: that tower cannot move.", "error")
            return
        if self.selected < 0:
            self.status(
                f"{name}: pick one of {_side_word(pos.turn)}'s towers first.", "error"
            )
            return
        tower = pos.board[self.selected]
        self.status(
            f"{name}: not a legal destination of {_side_word(pos.turn)}'s"
            f" {COLOUR_NAMES[tower & 7]} tower.",
            "error",
        )

    def on_input_submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if not text:
            self.board.focus()
            return
        why = self._refuse()
        if why:
            self.status(why, "error")
            return
        try:
            move = self.match.position.parse_move(text)
        except KamisadoError as e:
            self.status(f"{e}", "error")
            return
        event.input.value = ""
        self.play(move)
        self.board.focus()

    # -- playing --------------------------------------------------------------------

    def play(self, move: Move) -> None:
        """Play a legal move, announce what the rules did, and go on."""
        m = self.match
        pos = m.position
        entries = move_entries(pos, move)
        rounds_before = len(m.rounds)
        m.push_move(move)
        self.selected = -1
        news = [f"{_side_word(entries[0].side)}: {entries[0].long()} ({move})."]
        for e in entries[1:]:
            if e.is_back:
                news.append(
                    f"Sumo push: {_side_word(e.side)}'s {COLOUR_NAMES[e.colour]} tower is"
                    f" pushed back; {_side_word(e.side ^ 1)} moves again."
                )
            else:
                news.append(
                    f"{_side_word(e.side)}'s {COLOUR_NAMES[e.colour]} tower is blocked on a"
                    f" {COLOUR_NAMES[e.finish]} square: {_side_word(e.side)} passes."
                )
        passed = any(e.is_pass for e in entries)
        ended = m.state != "playing" or len(m.rounds) != rounds_before
        if ended:
            news.append(_round_over_text(m, rounds_before))
            if m.series and m.state == "playing":
                news.append(
                    f"Round {len(m.rounds)} begins: {_side_word(m.position.turn)} moves first."
                )
        self.status(" ".join(news), "news" if (passed or ended) else "")
        if passed or ended:
            self.notify(" ".join(news[1:]), title="Kamisado", timeout=6)
        self._autosave()
        self._refresh_all()
        self._advance()

    def _advance(self) -> None:
        """Start whatever comes next: the computer's move or fill, or a screen."""
        m = self.match
        if self.thinking:
            return
        if m.state == "over":
            self.push_screen(ResultScreen(self._result_text()), self._after_result)
            return
        if m.state == "fill":
            winner = m.current_winner()
            pl = self.players[winner]
            if pl is None:
                self.push_screen(FillScreen(m, self.plain, self.flipped), self._choose_fill)
            else:
                self._think("fill", pl)
            return
        pl = self.players[m.position.turn]
        if pl is not None:
            self._think("move", pl)
            return
        # a person's turn: the cursor goes to the tower that must move (or,
        # on a round's first move, to the first tower that can move)
        pos = m.position
        if pos.mover() >= 0:
            self.board.cursor = pos.tower_square[pos.mover()]
        elif self.board.cursor not in {mv.from_square for mv in pos.legal_moves}:
            self.board.cursor = next((mv.from_square for mv in pos.legal_moves), 0)
        self.board.refresh()

    def _choose_fill(self, fill: str | None) -> None:
        if fill not in FILLS or self.match.state != "fill":
            return
        winner = self.match.current_winner()
        self.match.choose_fill(fill)
        pos = self.match.position
        self.status(
            f"{_side_word(winner)} fills {fill}: round {len(self.match.rounds)} begins,"
            f" {_side_word(pos.turn)} moves first.",
            "news",
        )
        self._autosave()
        self.board.cursor = next((mv.from_square for mv in pos.legal_moves), 0)
        self._refresh_all()
        self._advance()

    def _result_text(self) -> str:
        m = self.match
        assert m.winner is not None
        if m.series:
            what = f"series (first to {m.target} rounds)"
        elif m.target == 1:
            what = "Single Round"
        else:
            what = f"{MATCH_NAMES[m.target]} match"
        lines = [
            f"{_side_word(m.winner)} wins the {what}: Black {m.points[0]}, Gold {m.points[1]}.",
            "",
        ]
        lines += [
            _round_over_text(m, i + 1) for i in range(len(m.rounds)) if m.rounds[i].outcome
        ]
        if any(self.players):
            human = 0 if self.players[0] is None else 1
            lines += ["", "You win!" if m.winner == human else "The computer wins."]
        return "\n".join(lines)

    def _after_result(self, what: str | None) -> None:
        if what == "quit":
            self.exit(0)
        elif what == "save":
            self.action_save()
        elif what == "new":
            self.new_match()

    def new_match(self) -> None:
        """Start the same kind of match again (the computer's seed moves on)."""
        old = self.match
        self._game += 1
        self.thinking = None
        self.match = Match(old.target, series=old.series)
        self.players = [
            None if p is None else Player(p.level, p.seed + 1) for p in self.players
        ]
        self.headers = dict(self.headers)
        self.headers["Date"] = datetime.date.today().isoformat()
        if "Seed" in self.headers:
            pl = next(p for p in self.players if p is not None)
            self.headers["Seed"] = str(pl.seed)
        if self.save_path is not None:
            p = Path(self.save_path)
            self.save_path = str(p.with_name(f"{p.stem}-{self._game + 1}{p.suffix}"))
        self.status(
            "A new match begins."
            + (f" Saving to {self.save_path}." if self.save_path else ""),
            "news",
        )
        pos = self.match.position
        self.board.cursor = next(iter(m.from_square for m in pos.legal_moves), 0)
        self._refresh_all()
        self._advance()

    # -- the computer -----------------------------------------------------------------

    def _think(self, what: str, pl: Player) -> None:
        self.thinking = what
        self._think_started = time.monotonic()
        self._refresh_all()
        self._tick()
        self.run_worker(
            self._computer(what, pl, self._game), group="computer", exclusive=True
        )

    async def _computer(self, what: str, pl: Player, game: int) -> None:
        m = self.match
        side = m.position.turn if what == "move" else m.current_winner()
        started = time.monotonic()
        try:
            if what == "move":
                move, after = await self._run(
                    pl, think_move, pl, m.position.copy(stack=False)
                )
            else:
                fill, after = await self._run(pl, think_fill, pl, m)
        except Exception as e:  # the computer failing must not end the program
            if game == self._game:
                self.thinking = None
                why = "no answer" if isinstance(e, TimeoutError) else repr(e)
                self.status(f"The computer failed ({why}); Enter tries again.", "error")
            return
        rest = self.delay - (time.monotonic() - started)
        if rest > 0:
            await asyncio.sleep(rest)
        if game != self._game:
            return
        self.players[side] = after
        self.thinking = None
        if what == "move":
            self.play(move)
        else:
            self.notify(f"{_side_word(side)} (computer) fills {fill}.", title="Kamisado")
            self._choose_fill(fill)

    async def _run(self, pl: Player, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(*args)`` in a thread (quick levels) or in the computer's process."""
        if pl.level in THREAD_LEVELS:
            return await asyncio.to_thread(fn, *args)
        pool = self._start_pool()
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()

        def done(value: T) -> None:
            loop.call_soon_threadsafe(_settle, future, value, None)

        def failed(error: BaseException) -> None:
            loop.call_soon_threadsafe(_settle, future, None, error)

        pool.apply_async(fn, args, callback=done, error_callback=failed)
        return await asyncio.wait_for(future, THINK_TIMEOUT)

    def _start_pool(self) -> Pool:
        """The computer's process (started once, on the first need)."""
        if self._pool is None:
            # Textual replaces the standard streams with objects that have no
            # file descriptor, which starting a process cannot pass on
            streams = sys.stdout, sys.stderr
            sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
            try:
                self._pool = multiprocessing.get_context("spawn").Pool(1)
            finally:
                sys.stdout, sys.stderr = streams
        return self._pool

    def _close_pool(self) -> None:
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None


def _settle(
    future: asyncio.Future[Any], value: object, error: BaseException | None
) -> None:
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(value)


# ---------------------------------------------------------------------------
# Building the app from the command line
# ---------------------------------------------------------------------------


def _players_from_headers(headers: dict[str, str]) -> tuple[str | None, str]:
    """``(level, person's colour)`` from a record's ``Black``/``Gold`` headers."""
    for side, other in (("Black", "gold"), ("Gold", "black")):
        hit = _COMPUTER_RE.fullmatch(headers.get(side, ""))
        if hit and hit.group(1) in LEVELS:
            return hit.group(1), other
    return None, "black"


def build_app(opts: Options) -> KamisadoApp:
    """The app for a parsed command line (reads the record to resume, if any)."""
    level, colour, seed = opts.level, opts.colour, opts.seed
    save_path = opts.save
    if opts.resume is not None:
        try:
            rec = load(opts.resume)
        except OSError as e:
            raise SetupError(f"cannot read {opts.resume}: {e.strerror or e}") from e
        except KamisadoError as e:
            raise SetupError(f"{opts.resume}: {e}") from e
        match, headers = rec.match, dict(rec.headers)
        if level is None:
            level, colour = _players_from_headers(headers)
            if headers.get("Seed", "").isdigit():
                seed = int(headers["Seed"])
        if save_path is None:
            save_path = opts.resume
    else:
        match = Match(opts.target, series=opts.series)
        headers = {}
    human = 0 if colour == "black" else 1
    players: list[Player | None] = [None, None]
    if level is not None:
        players[human ^ 1] = Player(level, seed)
    if opts.resume is None:
        names = ["person", "person"]
        if level is not None:
            names[human ^ 1] = f"kamisado {level}"
        rec = Record.new(match, black=names[0], gold=names[1])
        headers = dict(rec.headers)
        if level is not None:
            headers["Seed"] = str(seed)
    return KamisadoApp(
        match,
        (players[0], players[1]),
        headers,
        save_path=save_path,
        plain=opts.plain or os.environ.get("NO_COLOR") is not None,
        flipped=level is not None and human == 1,
        delay=opts.delay,
    )
