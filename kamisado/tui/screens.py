"""The screens of ``kamisado play`` over the board: the fill, the result, the help,
and the notice that the terminal is too small.

Each is a modal screen that returns what the person chose; the app decides
what follows.  Their styles are in ``app.tcss``.
"""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, SystemModalScreen
from textual.widgets import Button, Static

from kamisado.rules.match import FILLS, Match
from kamisado.tui.board import BoardView
from kamisado.tui.words import round_over_text, side_word

__all__ = [
    "HELP",
    "MIN_SIZE",
    "FillScreen",
    "HelpScreen",
    "QuitScreen",
    "ResultScreen",
    "TooSmallScreen",
]

#: The smallest terminal the app draws in, (columns, lines); below it
#: :class:`TooSmallScreen` says so.
MIN_SIZE = (60, 20)


def too_small_text(width: int, height: int) -> str:
    """The notice shown below :data:`MIN_SIZE`.

    >>> print(too_small_text(40, 15))
    The terminal is too small for Kamisado: 40 x 15.
    It needs at least 60 x 20 (columns x lines).
    Make the window bigger (or the font smaller); q quits.
    """
    return (
        f"The terminal is too small for Kamisado: {width} x {height}.\n"
        f"It needs at least {MIN_SIZE[0]} x {MIN_SIZE[1]} (columns x lines).\n"
        "Make the window bigger (or the font smaller); q quits."
    )


class TooSmallScreen(SystemModalScreen[str]):
    """Covers everything while the terminal is below :data:`MIN_SIZE`.

    The app pushes it on a resize below the smallest size and pops it when the
    terminal is big enough again; the game underneath goes on unchanged.  (A
    system modal screen: the app's queries still find the screen beneath.)
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("q", "app.quit", "Quit")]

    def compose(self) -> ComposeResult:
        yield Static(too_small_text(*self.app.size), id="too-small")

    def on_resize(self, event: events.Resize) -> None:
        self.query_one("#too-small", Static).update(too_small_text(*event.size))


class FillScreen(ModalScreen[str]):
    """The round's winner chooses to fill left or right; both line-ups are shown.

    Esc or ``b`` closes it (it returns ``None``) to look at the round's final
    board; the app's ``f`` (or Enter on the board) opens it again.  ``?``
    shows the help over it and ``q`` quits, as on the board.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left,l", "fill('left')", "Fill left"),
        Binding("right,r", "fill('right')", "Fill right"),
        Binding("escape,b", "look", "Board"),
        Binding("question_mark", "app.help", "Help"),
        Binding("q", "app.quit", "Quit"),
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
        winner = side_word(o.winner)
        with Vertical():
            yield Static(
                f"{round_over_text(m, len(m.rounds))}\n"
                f"{winner} chooses how both players refill their home rows:",
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
                yield Button("Fill left (l)", id="left", variant="primary", compact=True)
                yield Button("Fill right (r)", id="right", variant="primary", compact=True)
                yield Button("Board (b)", id="look", compact=True)
            yield Static("b/Esc: see the board first · ? help · q quit", id="fill-keys")

    def action_fill(self, fill: str) -> None:
        self.dismiss(fill)

    def action_look(self) -> None:
        """Close the window to look at the round's final board (``f`` comes back)."""
        self.dismiss(None)

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
        else:
            self.dismiss(None)


class ResultScreen(ModalScreen[str]):
    """The end of the match: who won, every round, and what next."""

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


def quit_text(kept: str | None) -> str:
    """What :class:`QuitScreen` asks.

    >>> print(quit_text("/data/kamisado/unfinished/kamisado-1.kmr"))
    Leave this match? It is not saved to a file.
    It is kept in /data/kamisado/unfinished/kamisado-1.kmr:
    kamisado play --resume goes on with it.
    """
    where = (
        f"It is kept in {kept}:\nkamisado play --resume goes on with it."
        if kept
        else "It could not be kept in the data folder."
    )
    return f"Leave this match? It is not saved to a file.\n{where}"


class QuitScreen(ModalScreen[str]):
    """``q`` in a match in progress that was never saved: leave, save, or stay."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y,q", "choose('leave')", "Leave"),
        Binding("s", "choose('save')", "Save and leave"),
        Binding("n,escape", "choose('stay')", "Stay"),
    ]

    def __init__(self, kept: str | None) -> None:
        super().__init__()
        self.kept = kept

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(quit_text(self.kept), id="quit-text")
            with Horizontal():
                yield Button("Leave (y)", id="leave", variant="error")
                yield Button("Save and leave (s)", id="save", variant="primary")
                yield Button("Stay (n)", id="stay")

    def action_choose(self, what: str) -> None:
        self.dismiss(what)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id or "stay")


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
  t  take back your last move (against the computer, its answer too)
  ?  this help           q  quit (a match not saved asks first)
  f  choose the fill again after looking at the round's final board

Between rounds the winner's fill window: l or left, r or right choose;
b or Esc closes it to look at the final board (f brings it back).

Written moves (Enter plays them)
  c1-c5           from and to squares
  Red Forward 4   the rulebook's form (Left, Right: the mover's own)
  rF4             tower letter, F/L/R, distance
  c5              the destination, when one legal move goes there

Towers: colour letters n g r y p u b o (brown green red yellow pink
purple blue orange), upper case Black's, lower case Gold's, + a ring.
Letters mode writes each square's colour letter, then the tower.
Marks: > or arrows: the tower that must move; * or dots: destinations;
[ ], corners or reverse video: the cursor; the last move: ~ in letters,
· on the square it left and • beside the towers it moved in colour.
Smallest terminal: 60 x 20.
"""


class HelpScreen(ModalScreen[None]):
    """The keys and the written forms of a move."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark,enter", "close", "Close"),
    ]

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(HELP, id="help-text")

    def action_close(self) -> None:
        self.dismiss(None)
