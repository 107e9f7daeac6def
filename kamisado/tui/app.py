"""The Textual app behind ``kamisado play``: :class:`KamisadoApp`.

The app plays a :class:`~kamisado.rules.match.Match` between people and/or computer
:class:`~kamisado.engine.levels.Player` objects.  The board is a
:class:`~kamisado.tui.board.BoardView`; the round's winner picks the fill on a
:class:`~kamisado.tui.screens.FillScreen`; the end of the match shows a
:class:`~kamisado.tui.screens.ResultScreen`; the move list is a
:class:`~kamisado.tui.moves.MoveList`; the styles are in ``app.tcss``.

The display follows reactive attributes: ``match`` (set again with
``mutate_reactive`` after a move or fill) redraws the board, the score, the
turn and the move list; ``selected`` the marks; ``plain`` and ``flipped`` the
board; ``thinking`` runs the spinner, only while the computer thinks.

Computer moves never block the screen (:mod:`kamisado.tui.computer`): the
computer thinks in a thread whose search releases the GIL and stops on a
flag, and the app keeps drawing meanwhile.

>>> from kamisado.tui.options import Options
>>> app = build_app(Options(level="beginner", colour="gold", target=3))
>>> app.match.name, app.players[0] is not None, app.players[1] is None
('Standard', True, True)
"""

from __future__ import annotations

import asyncio
import os
import re
import time
from collections.abc import Callable
from typing import ClassVar, TypeVar

from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.reactive import var
from textual.screen import Screen
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Footer, Header, Input, Static

from kamisado.engine.levels import LEVELS, MatchOracle, Player
from kamisado.rules.board import KamisadoError, Move
from kamisado.rules.match import FILL, FILLS, OVER, PLAYING, Match
from kamisado.rules.notation import move_entries
from kamisado.rules.record import Record, load
from kamisado.tui.board import BoardView
from kamisado.tui.computer import THINK_TIMEOUT, Thinker, think_fill, think_move
from kamisado.tui.files import RecordFiles
from kamisado.tui.moves import MoveList
from kamisado.tui.options import Options, last_unfinished, unfinished_folder
from kamisado.tui.picking import pick
from kamisado.tui.screens import (
    MIN_SIZE,
    FillScreen,
    HelpScreen,
    QuitScreen,
    ResultScreen,
    TooSmallScreen,
)
from kamisado.tui.words import (
    move_news,
    result_text,
    round_over_text,
    score_text,
    side_word,
    thinking_text,
    title_text,
    turn_text,
)

__all__ = [
    "THINK_TIMEOUT",
    "BoardView",
    "FillScreen",
    "HelpScreen",
    "KamisadoApp",
    "MIN_SIZE",
    "QuitScreen",
    "ResultScreen",
    "SetupError",
    "TooSmallScreen",
    "build_app",
]

#: Columns of the header that are not the subtitle: its icon and the space
#: kept on the right (18), and ``Kamisado — `` (11).
TITLE_CHROME = 29

#: Columns the side panel needs beside the board (else it goes below it):
#: a move on two lines, ``12. Yellow Forward 7 Yellow``, and the scroll bar.
SIDE_MIN = 28

_W = TypeVar("_W", bound=Widget)

#: Record header value naming a computer player: ``kamisado <level>``.
_COMPUTER_RE = re.compile(r"kamisado (\w+)")


class SetupError(Exception):
    """The app cannot start: a record that cannot be read, a bad level in it."""


class KamisadoApp(App[int]):
    """Kamisado in the terminal: hotseat or against a computer level.

    ``players[side]`` is ``None`` for a person or a :class:`Player`.
    ``files`` (:class:`~kamisado.tui.files.RecordFiles`) writes the record after
    every move and fill.
    """

    TITLE = "Kamisado"
    CSS_PATH = "app.tcss"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f", "fill", "Fill"),
        Binding("s", "save", "Save"),
        Binding("ctrl+s", "save", "Save", show=False, priority=True),
        Binding("l", "letters", "Letters"),
        Binding("v", "flip", "Turn"),
        Binding("escape", "cancel", "Back to board", show=False),
        Binding("slash,colon", "type_move", "Type"),
        Binding("t,ctrl+z", "takeback", "Take back"),
        Binding("question_mark", "help", "Help"),
        Binding("q", "quit", "Quit"),
    ]

    match: var[Match] = var(Match, init=False, always_update=True)
    """The match played; a move or fill on it is announced with ``mutate_reactive``."""
    selected: var[int] = var(-1, init=False)
    """Square of the tower picked or that must move (its destinations are marked), or -1."""
    thinking: var[str | None] = var(None, init=False)
    """What the computer is working on (``'move'``/``'fill'``), or ``None``."""
    plain: var[bool] = var(False, init=False)
    """Letters mode."""
    flipped: var[bool] = var(False, init=False)
    """The board turned round."""

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
        keep_path: str | None = None,
    ) -> None:
        super().__init__()
        # set without calling the watchers: there is nothing to draw on yet
        self.set_reactive(KamisadoApp.match, match)
        self.set_reactive(KamisadoApp.plain, plain)
        self.set_reactive(KamisadoApp.flipped, flipped)
        self.players: list[Player | None] = list(players)
        #: The record's headers, where it is saved and where it is kept while unfinished.
        self.files = RecordFiles(headers, save_path=save_path, keep_path=keep_path)
        self.delay = delay
        self._think_started = 0.0
        self._spinner: Timer | None = None
        """Redraws the spinner while the computer thinks (``None`` otherwise)."""
        self._game = 0
        """Bumped for every new match, so a late computer answer is dropped."""
        self._thinker = Thinker()
        #: When set, the computer's answer waits for this event before it is
        #: played (after ``delay``): the tests hold the computer with it, not
        #: with the clock.  ``None`` (the default): nothing waits.
        self.computer_gate: asyncio.Event | None = None
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
                yield MoveList(id="moves-box")
        yield Input(
            placeholder="A move: c1-c5, Red Forward 4, rF4, c5; Enter",
            id="entry",
            select_on_focus=False,
        )
        yield Static(id="status")
        yield Footer(show_command_palette=False)

    def _main(self, selector: str, kind: type[_W]) -> _W:
        """A widget of the main screen (whatever window is over it);
        ``NoMatches`` once the app closed (its screens are gone: a timer's
        last tick may come then)."""
        if not self.screen_stack:
            raise NoMatches(f"no screen for {selector!r}: the app has closed")
        return self.screen_stack[0].query_one(selector, kind)

    @property
    def board(self) -> BoardView:
        """The main board."""
        return self._main("#board", BoardView)

    def on_mount(self) -> None:
        self._fit(self.size.width, self.size.height)
        self._retitle()
        pos = self.match.position
        start = pos.tower_square[pos.mover()] if pos.mover() >= 0 else -1
        if start < 0:
            mine = [m.from_square for m in pos.legal_moves]
            start = mine[0] if mine else 0
        self.board.cursor = start
        self.board.focus()
        self.watch_match()
        self._advance()

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.width, event.size.height)
        self._retitle()

    def _retitle(self) -> None:
        """The subtitle, in the longest form that fits the header (no ``…``)."""
        width = max(self.size.width - TITLE_CHROME, 8)
        self.sub_title = title_text(self.match, self.players, width)

    def _fit(self, width: int, height: int) -> None:
        """Lay the main screen out for the terminal's size.

        Beside the board (up to 76 columns) the side panel takes the rest when
        it gets at least ``SIDE_MIN`` columns; otherwise it goes below the
        board, which then takes the lines the panel can spare.  Below 24 lines
        the header goes and the entry and status line take one line each.
        Below ``MIN_SIZE`` a notice says so instead of a cropped board.
        """
        self.set_class(height < 24, "-compact")
        board_min = self._board_min()
        narrow = width - board_min < SIDE_MIN
        self.set_class(narrow, "-narrow")
        board = self.board
        if narrow:
            board.styles.width = min(3 + 8 * 9, max(board_min, width))
            chrome = 3 if height < 24 else 7  # entry, status, footer (and header)
            panel = 8  # score, whose turn, four or more rows of moves
            cell = 1 if self.plain else max(1, min(3, (height - chrome - panel - 1) // 8))
            board.styles.height = 8 * cell + 1
        else:
            board.styles.width = max(board_min, min(76, width - 58))
            board.styles.height = "1fr"
        self._check_size(width, height)

    def _board_min(self) -> int:
        return 3 + 8 * (6 if self.plain else 5)

    def _too_small(self) -> bool:
        return isinstance(self.screen, TooSmallScreen)

    def _check_size(self, width: int, height: int) -> None:
        """Show the notice below the smallest size; take it away above."""
        small = width < MIN_SIZE[0] or height < MIN_SIZE[1]
        if small and not self._too_small():
            self.push_screen(TooSmallScreen())
        elif not small and self._too_small():
            self.pop_screen()

    def _push(self, screen: Screen[str], callback: Callable[[str | None], None]) -> None:
        """Open a window (the too-small notice, if shown, stays on top)."""
        small = self._too_small()
        self.clear_notifications()  # a notice never covers a window's text
        if small:
            self.pop_screen()
        self.push_screen(screen, callback)
        if small:
            self.push_screen(TooSmallScreen())

    def on_unmount(self) -> None:
        self._game += 1  # an answer still on its way is dropped
        self._thinker.close()

    # -- drawing ----------------------------------------------------------------

    def _human(self, side: int) -> bool:
        return self.players[side] is None

    def _destinations(self) -> frozenset[int]:
        if self.selected < 0 or self.match.state != PLAYING:
            return frozenset()
        return frozenset(
            m.to_square
            for m in self.match.position.legal_moves
            if m.from_square == self.selected
        )

    def _auto_select(self) -> None:
        """Select the tower that must move (none on a round's first move)."""
        pos = self.match.position
        if self.match.state != PLAYING or not self._human(pos.turn) or self.thinking:
            self.selected = -1
        elif pos.mover() >= 0:
            self.selected = pos.tower_square[pos.mover()]
        elif self.selected >= 0 and pos.board[self.selected] >> 3 != pos.turn:
            self.selected = -1

    def watch_match(self) -> None:
        """Draw the match: the board, the score, whose turn, the move list."""
        m = self.match
        pos = m.position
        self.board.position = pos
        self.board.last_move = pos.move_stack[-1] if pos.move_stack else None
        # no move to type between rounds: there the keys are the app's (f: the fill)
        self.board.on_type = self._typed if m.state == PLAYING else None
        self._auto_select()
        self.watch_selected()  # the same square may have other destinations now
        self._main("#score", Static).update(score_text(m))
        self._main("#turn", Static).update(turn_text(m, self.players))
        self._main("#moves-box", MoveList).show(m)
        self.refresh_bindings()

    def watch_selected(self) -> None:
        """Mark the selected tower and its destinations on the board."""
        self.board.selected = self.selected
        self.board.destinations = self._destinations()

    def watch_plain(self, plain: bool) -> None:
        self.board.plain = plain
        self._fit(self.size.width, self.size.height)

    def watch_flipped(self, flipped: bool) -> None:
        self.board.flipped = flipped

    def _notice(self, text: str, timeout: float = 6) -> None:
        """A notice over the board, only while no window is open over it.

        A window's text is never covered: the notices go when a window
        opens (:meth:`_push`) and none comes while one is open (the status
        line beneath holds every message anyway).
        """
        if self.screen is self.screen_stack[0]:
            self.notify(text, title="Kamisado", timeout=timeout)

    def status(self, text: str, kind: str = "") -> None:
        """Show a message in the status line (``kind``: ``''``, ``'error'``, ``'news'``)."""
        widget = self._main("#status", Static)
        widget.update(text)
        widget.set_classes(kind)
        self.messages.append(text)
        if kind == "error":
            self.bell()

    def watch_thinking(self, thinking: str | None) -> None:
        """Run the spinner while the computer thinks, and only then."""
        if thinking:
            self._think_started = time.monotonic()
            if self._spinner is None:
                self._spinner = self.set_interval(0.2, self._tick)
            self._tick()
        elif self._spinner is not None:
            self._spinner.stop()
            self._spinner = None
        self._auto_select()

    def _tick(self) -> None:
        """Draw the spinner and the seconds spent in the status line."""
        if not self.thinking:
            return
        took = time.monotonic() - self._think_started
        try:
            widget = self._main("#status", Static)
        except NoMatches:  # the app is closing: its widgets are gone before this timer
            return
        widget.update(thinking_text(self.match, self.players, self.thinking, took))
        widget.set_classes("")

    # -- actions ---------------------------------------------------------------

    def action_letters(self) -> None:
        """Switch between true colours and letters."""
        self.plain = not self.plain
        self.status("Letters mode." if self.plain else "Colour mode.")

    def action_flip(self) -> None:
        """Turn the board round."""
        self.flipped = not self.flipped

    def action_cancel(self) -> None:
        """Leave the move entry / drop a picked tower on a round's first move."""
        if self.match.position.must_move < 0 and self.selected >= 0:
            self.selected = -1
        self.board.focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The fill key only while a person chooses the fill (hidden otherwise)."""
        if action == "fill":
            return self._fill_is_mine() and not isinstance(self.screen, FillScreen)
        return True

    def _fill_is_mine(self) -> bool:
        m = self.match
        return m.state == FILL and not self.thinking and self._human(m.current_winner())

    def action_fill(self) -> None:
        """Open the fill window again (after looking at the board)."""
        if self._fill_is_mine() and not isinstance(self.screen, FillScreen):
            self._push(FillScreen(self.match, self.plain, self.flipped), self._choose_fill)

    def action_help(self) -> None:
        """Show the keys and the written forms of a move."""
        self.clear_notifications()
        self.push_screen(HelpScreen())

    def action_type_move(self) -> None:
        """Go to the move entry."""
        self._main("#entry", Input).focus()

    def action_save(self) -> None:
        """Save the record (to ``--save FILE``, the resumed file, or a new file)."""
        try:
            path = self.files.save(self.match)
        except OSError as e:
            self.status(f"Could not save to {self.files.save_path}: {e.strerror or e}", "error")
            return
        self.status(f"Saved the record to {path}.")

    def _autosave(self) -> None:
        for why in self.files.autosave(self.match):
            self.status(why, "error")

    # -- leaving and taking back ------------------------------------------------

    async def action_quit(self) -> None:
        """``q``: leave; a match in progress that is not saved asks first."""
        if isinstance(self.screen, QuitScreen):
            return
        if not self.files.unsaved(self.match) or self._too_small():
            self.exit(0)
            return
        self._push(QuitScreen(self.files.keep_path), self._after_quit)

    def _after_quit(self, what: str | None) -> None:
        if what == "leave":
            self.exit(0)
        elif what == "save":
            self.action_save()
            if not self.files.unsaved(self.match):
                self.exit(0)

    def action_takeback(self) -> None:
        """``t`` (or Ctrl+Z): take back the last move a person made in this round.

        Against the computer, its answer goes too (or its thinking stops),
        so it is the person's move again; in hotseat, the last move.
        """
        m = self.match
        if m.state != PLAYING:
            self.status("Nothing to take back: the round is over.", "error")
            return
        rnd = m.current
        q = rnd.start.copy(stack=False)
        turns = []
        for move in rnd.moves:
            turns.append(q.turn)
            q.push(move)
        mine = [i for i, side in enumerate(turns) if self._human(side)]
        if not mine:
            self.status("Nothing to take back in this round.", "error")
            return
        dropped = len(rnd.moves) - mine[-1]
        self._game += 1  # an answer of the computer on its way is dropped
        self._thinker.stop()
        self.thinking = None
        self.match = replayed(m, dropped)  # drawn by watch_match
        self._autosave()
        side = side_word(self.match.position.turn)
        self.status(
            f"Took back {dropped} move{'s' if dropped > 1 else ''}: {side} to move again.", "news"
        )
        self._advance()

    # -- people's moves ----------------------------------------------------------

    def _refuse(self) -> str | None:
        """Why a person cannot move now (``None`` when they can)."""
        m = self.match
        if m.state == OVER:
            return "The match is over: Enter on the board shows the result again."
        if m.state == FILL:
            winner = m.current_winner()
            if not self.thinking:  # the computer failed, or the person looked
                self.call_later(self._advance)
            return f"The round is over: {side_word(winner)} chooses the fill."
        if self.thinking:
            return f"Wait: it is {side_word(m.position.turn)}'s (the computer's) move."
        if not self._human(m.position.turn):  # the computer failed: it tries again
            self.call_later(self._advance)
            return f"It is {side_word(m.position.turn)}'s (the computer's) move: it tries again."
        return None

    def _typed(self, text: str) -> None:
        """Text typed or pasted on the board: into the move entry, spaces and all."""
        entry = self._main("#entry", Input)
        entry.focus()
        if text == "\r":
            entry.post_message(Input.Submitted(entry, entry.value))
        elif text == "\b":
            entry.action_delete_left()
        else:
            if entry.selection.start != entry.selection.end:  # a rejected move
                entry.delete_selection()
            entry.insert_text_at_cursor(text)

    def on_board_view_picked(self, message: BoardView.Picked) -> None:
        if message.board.id != "board":
            return
        if self.match.state == OVER:
            self._push(ResultScreen(result_text(self.match, self.players)), self._after_result)
            return
        if self._fill_is_mine():  # back from looking at the round's final board
            self.action_fill()
            return
        why = self._refuse()
        if why:
            self.status(why, "error")
            return
        answer = pick(self.match.position, self.selected, message.square)
        if answer.move is not None:
            self.play(answer.move)
            return
        if answer.selected is not None:
            self.selected = answer.selected
        self.status(answer.text, answer.kind)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if not text:
            self.board.focus()
            return
        why = self._refuse()
        if why:
            self.status(why, "error")
            event.input.select_all()  # typing replaces it
            return
        try:
            move = self.match.position.parse_move(text)
        except KamisadoError as e:
            self.status(f"{e}", "error")
            event.input.select_all()  # selected for correction: typing replaces it
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
        news = move_news(entries, move)
        passed = any(e.is_pass for e in entries)
        ended = m.state != PLAYING or len(m.rounds) != rounds_before
        if ended:
            news.append(round_over_text(m, rounds_before))
            if m.series and m.state == PLAYING:
                news.append(
                    f"Round {len(m.rounds)} begins: {side_word(m.position.turn)} moves first."
                )
        self.status(" ".join(news), "news" if (passed or ended) else "")
        # a window opens next (the person's fill, the result): it tells the
        # news itself, and no notice may cover it
        window = m.state == OVER or (m.state == FILL and self._human(m.current_winner()))
        if (passed or ended) and not window:
            self._notice(" ".join(news[1:]))
        self._autosave()
        self.mutate_reactive(KamisadoApp.match)
        self._advance()

    def _advance(self) -> None:
        """Start whatever comes next: the computer's move or fill, or a screen."""
        m = self.match
        if self.thinking:
            return
        if m.state == OVER:
            self._push(ResultScreen(result_text(self.match, self.players)), self._after_result)
            return
        if m.state == FILL:
            winner = m.current_winner()
            pl = self.players[winner]
            if pl is None:
                self._push(FillScreen(m, self.plain, self.flipped), self._choose_fill)
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

    def _choose_fill(self, fill: str | None) -> None:
        if fill not in FILLS or self.match.state != FILL:
            if self.match.state == FILL:
                self.status(
                    "The round's final board. f (or Enter) chooses the fill.", "news"
                )
                self.refresh_bindings()
            return
        winner = self.match.current_winner()
        self.match.choose_fill(fill)
        pos = self.match.position
        self.status(
            f"{side_word(winner)} fills {fill}: round {len(self.match.rounds)} begins,"
            f" {side_word(pos.turn)} moves first.",
            "news",
        )
        self._autosave()
        self.board.cursor = next((mv.from_square for mv in pos.legal_moves), 0)
        self.mutate_reactive(KamisadoApp.match)
        self._advance()

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
        self.match = Match(old.target, series=old.series)  # drawn by watch_match
        self.players = [
            None if p is None else Player(p.level, p.seed + 1, p.proof) for p in self.players
        ]
        self.files.renew(self._game, next((p.seed for p in self.players if p is not None), None))
        saving = self.files.save_path
        self.status(
            "A new match begins." + (f" Saving to {saving}." if saving else ""),
            "news",
        )
        pos = self.match.position
        self.board.cursor = next(iter(m.from_square for m in pos.legal_moves), 0)
        self._advance()

    # -- the computer -----------------------------------------------------------------

    def _think(self, what: str, pl: Player) -> None:
        self.thinking = what  # watch_thinking starts the spinner
        self.run_worker(
            self._computer(what, pl, self._game), group="computer", exclusive=True
        )

    async def _computer(self, what: str, pl: Player, game: int) -> None:
        m = self.match
        side = m.position.turn if what == "move" else m.current_winner()
        started = time.monotonic()
        try:
            if what == "move":
                move, after = await self._thinker.run(
                    think_move, pl, m.position.copy(stack=False)
                )
            else:
                fill, after = await self._thinker.run(think_fill, pl, m)
        except Exception as e:  # the computer failing must not end the program
            if game == self._game:
                self.thinking = None
                why = "no answer" if isinstance(e, TimeoutError) else repr(e)
                self.status(f"The computer failed ({why}); Enter tries again.", "error")
            return
        rest = self.delay - (time.monotonic() - started)
        if rest > 0:
            await asyncio.sleep(rest)
        if self.computer_gate is not None:
            await self.computer_gate.wait()
        if game != self._game or not self.screen_stack:
            return
        self.players[side] = after
        self.thinking = None
        if what == "move":
            self.play(move)
        else:
            self._notice(f"{side_word(side)} (computer) fills {fill}.", timeout=5)
            self._choose_fill(fill)


# ---------------------------------------------------------------------------
# Building the app from the command line
# ---------------------------------------------------------------------------


def replayed(match: Match, drop: int) -> Match:
    """``match`` played again without the last ``drop`` moves of its current round.

    >>> m = Match(3)
    >>> for move in ("c1-c5", "b8-b3", "d1-g4"):
    ...     _ = m.push_move(move)
    >>> [str(x) for x in replayed(m, 2).current.moves]
    ['c1-c5']
    """
    again = Match(match.target, series=match.series, start=match.rounds[0].start)
    last = len(match.rounds) - 1
    for i, rnd in enumerate(match.rounds):
        if i:
            assert rnd.fill is not None
            again.choose_fill(rnd.fill)
        moves = rnd.moves if i < last else rnd.moves[: len(rnd.moves) - drop]
        for move in moves:
            again.push_move(move)
    return again


def _players_from_headers(headers: dict[str, str]) -> tuple[str | None, str]:
    """``(level, person's colour)`` from a record's ``Black``/``Gold`` headers."""
    for side, other in (("Black", "gold"), ("Gold", "black")):
        hit = _COMPUTER_RE.fullmatch(headers.get(side, ""))
        if hit and hit.group(1) in LEVELS:
            return hit.group(1), other
    return None, "black"


def _proof(where: str | None) -> MatchOracle | None:
    """``--proof-store``: the match proof ``perfect`` plays from (it must be there)."""
    if where is None:
        return None
    from kamisado.proving.play import open_oracle

    try:
        return open_oracle(where)
    except ValueError as e:
        raise SetupError(f"--proof-store: {e}") from None


def build_app(opts: Options) -> KamisadoApp:
    """The app for a parsed command line (reads the record to resume, if any)."""
    level, colour, seed = opts.level, opts.colour, opts.seed
    save_path = opts.save
    keep_path = None
    resume = opts.resume
    if resume == "":  # --resume alone: the last unfinished game
        last = last_unfinished()
        if last is None:
            raise SetupError(
                f"no unfinished game to go on with in {unfinished_folder()}"
                " (give a record: --resume FILE)"
            )
        resume = keep_path = str(last)
    if resume is not None:
        try:
            rec = load(resume)
        except OSError as e:
            raise SetupError(f"cannot read {resume}: {e.strerror or e}") from e
        except KamisadoError as e:
            raise SetupError(f"{resume}: {e}") from e
        match, headers = rec.match, dict(rec.headers)
        if level is None:
            level, colour = _players_from_headers(headers)
            if headers.get("Seed", "").isdigit():
                seed = int(headers["Seed"])
        if save_path is None and keep_path is None:
            save_path = resume
    else:
        match = Match(opts.target, series=opts.series)
        headers = {}
    human = 0 if colour == "black" else 1
    players: list[Player | None] = [None, None]
    if level is not None:
        players[human ^ 1] = Player(level, seed, _proof(opts.proof_store))
    if resume is None:
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
        keep_path=keep_path,
    )
