"""The move list of ``kamisado play``: the match's rounds as the record lists them.

Built from the match's entries, round by round
(:func:`kamisado.record.match_entries`, the walk the record writer uses): a
round's heading (with the fill that began it), its numbered move lines, and
its ``Winner:`` line once it is over; no ``Start:`` lines.

>>> from kamisado.match import Match
>>> m = Match(3)
>>> _ = m.push_move("c1-c5"); _ = m.push_move("b8-b3")
>>> print("\\n".join(move_list_lines(m)))
Round 1
  1. Red Forward 4 Blue       Blue Forward 5 Yellow
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from kamisado.core import SIDE_NAMES
from kamisado.match import Match
from kamisado.record import entry_lines, match_entries

__all__ = ["MoveList", "move_list_lines"]


def move_list_lines(match: Match) -> list[str]:
    """Every round of ``match``: heading, move lines, winner; a blank line between."""
    out: list[str] = []
    for rnd in match_entries(match):
        if rnd.number > 1:
            out.append("")
        head = f"Round {rnd.number}"
        if rnd.filler is not None:
            head += f" ({SIDE_NAMES[rnd.filler]} fills {rnd.round.fill})"
        out.append(head)
        out += entry_lines(rnd.entries)
        if rnd.winner is not None:
            out.append(f"Winner: {rnd.winner}")
    return out


class MoveList(VerticalScroll):
    """The move list, scrolled to its end; :meth:`show` draws a match."""

    def compose(self) -> ComposeResult:
        yield Static(id="moves")

    def show(self, match: Match) -> None:
        """Draw the move list of ``match`` (after a move, a fill, a new match)."""
        self.query_one("#moves", Static).update("\n".join(move_list_lines(match)))
        self.scroll_end(animate=False)
