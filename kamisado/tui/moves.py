"""The move list of ``kamisado play``: the match's rounds as the record lists them.

Built from the match's entries, round by round
(:func:`kamisado.rules.record.match_entries`, the walk the record writer uses): a
round's heading (with the fill that began it), its numbered move lines, and
its ``Winner:`` line once it is over; no ``Start:`` lines.

>>> from kamisado.rules.match import Match
>>> m = Match(3)
>>> _ = m.push_move("c1-c5"); _ = m.push_move("b8-b3")
>>> print("\\n".join(move_list_lines(m)))
Round 1
  1. Red Forward 4 Blue       Blue Forward 5 Yellow

The panel lays the same entries out for its width (:func:`move_list_rows`):
the record's rows when they fit, then tighter columns, then each move on two
lines, Gold's entry indented under Black's; nothing is ever cut or wrapped
inside a word.

>>> print("\\n".join(move_list_rows(m, 44)))
Round 1
1. Red Forward 4 Blue  Blue Forward 5 Yellow
>>> print("\\n".join(move_list_rows(m, 28)))
Round 1
1. Red Forward 4 Blue
   Blue Forward 5 Yellow
"""

from __future__ import annotations

import textwrap

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from kamisado.rules.board import GOLD, SIDE_NAMES
from kamisado.rules.match import Match
from kamisado.rules.notation import Entry
from kamisado.rules.record import entry_lines, match_entries

__all__ = ["MoveList", "move_list_lines", "move_list_rows"]


def _heading(rnd_number: int, filler: int | None, fill: str | None) -> str:
    head = f"Round {rnd_number}"
    if filler is not None:
        head += f" ({SIDE_NAMES[filler]} fills {fill})"
    return head


def move_list_lines(match: Match) -> list[str]:
    """Every round of ``match``: heading, move lines, winner; a blank line between."""
    out: list[str] = []
    for rnd in match_entries(match):
        if rnd.number > 1:
            out.append("")
        out.append(_heading(rnd.number, rnd.filler, rnd.round.fill))
        out += entry_lines(rnd.entries)
        if rnd.winner is not None:
            out.append(f"Winner: {rnd.winner}")
    return out


def _pairs(entries: list[Entry]) -> list[tuple[str, str]]:
    """The entries as (Black's, Gold's) cells, ``...`` when Gold opens."""
    cells = [e.long() for e in entries]
    if entries and entries[0].side == GOLD:
        cells.insert(0, "...")
    return [
        (cells[i], cells[i + 1] if i + 1 < len(cells) else "")
        for i in range(0, len(cells), 2)
    ]


def _wrap(text: str, width: int, indent: str = "", first: str = "") -> list[str]:
    """``text`` on lines of at most ``width``, broken between words only."""
    return textwrap.wrap(
        text,
        max(1, width),
        initial_indent=first,
        subsequent_indent=indent,
        break_long_words=False,
        break_on_hyphens=False,
    ) or [first.rstrip()]


def _round_rows(entries: list[Entry], width: int) -> list[str]:
    """A round's moves laid out for ``width`` columns."""
    record = entry_lines(entries)
    if all(len(line) <= width for line in record):
        return record
    pairs = _pairs(entries)
    if not pairs:
        return []
    numw = len(str(len(pairs)))
    black_w = max(len(b) for b, _ in pairs)
    gold_w = max(len(g) for _, g in pairs)
    prefix = numw + 2  # "12. "
    if prefix + black_w + 2 + gold_w <= width:  # one row a move, tighter columns
        return [
            (f"{n:>{numw}}. " + b.ljust(black_w + 2) + g).rstrip()
            for n, (b, g) in enumerate(pairs, 1)
        ]
    # two lines a move: Black's entry after the number, Gold's under it
    pad = " " * prefix
    rows: list[str] = []
    for n, (b, g) in enumerate(pairs, 1):
        rows += _wrap(b, width, pad + "  ", f"{n:>{numw}}. ")
        if g:
            rows += _wrap(g, width, pad + "  ", pad)
    return rows


def move_list_rows(match: Match, width: int) -> list[str]:
    """:func:`move_list_lines` laid out for a panel ``width`` columns wide."""
    out: list[str] = []
    for rnd in match_entries(match):
        if rnd.number > 1:
            out.append("")
        out += _wrap(_heading(rnd.number, rnd.filler, rnd.round.fill), width, "  ")
        out += _round_rows(rnd.entries, width)
        if rnd.winner is not None:
            out += _wrap(f"Winner: {rnd.winner}", width, "  ")
    return out


class MoveList(VerticalScroll):
    """The move list, scrolled to its end; :meth:`show` draws a match.

    The rows are laid out for the list's width (:func:`move_list_rows`) and
    laid out again when it changes.
    """

    DEFAULT_CSS = """
    MoveList { scrollbar-size-vertical: 1; }
    MoveList > Static { width: auto; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = "Moves"
        self._match: Match | None = None
        self.lines: list[str] = []
        """The rows shown, as laid out for the last width."""

    def compose(self) -> ComposeResult:
        yield Static(id="moves")

    def _width(self) -> int:
        # the room left beside the (one column) scrollbar
        return max(10, (self.content_region.width or 40) - 1)

    def show(self, match: Match) -> None:
        """Draw the move list of ``match`` (after a move, a fill, a new match)."""
        self._match = match
        self._draw()

    def _draw(self) -> None:
        if self._match is None:
            return
        self.lines = move_list_rows(self._match, self._width())
        self.query_one("#moves", Static).update(
            Text("\n".join(self.lines), no_wrap=True, overflow="crop")
        )
        self.call_after_refresh(self.scroll_end, animate=False)

    def on_resize(self, event: events.Resize) -> None:
        self._draw()
