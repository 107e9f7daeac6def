"""The move list of ``kamisado play``: the match's rounds as the record writes them.

Built from each round's entries (moves, passes, pushed-back towers), not from
the record's text: a round's heading (with the fill that began it), its
numbered move lines, and its ``Winner:`` line once it is over.

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

from kamisado.core import GOLD, SIDE_NAMES
from kamisado.match import Match, Round
from kamisado.notation import Entry
from kamisado.record import COLUMN, round_entries, winner_text

__all__ = ["MoveList", "entry_lines", "move_list_lines"]


def entry_lines(entries: list[Entry]) -> list[str]:
    """Numbered lines of a round's entries, Black's column then Gold's."""
    cells = ["..."] if entries and entries[0].side == GOLD else []
    cells += [e.long() for e in entries]
    return [
        (
            f"{i // 2 + 1:>3}. " + cells[i].ljust(COLUMN) + "".join(cells[i + 1 : i + 2])
        ).rstrip()
        for i in range(0, len(cells), 2)
    ]


def _round_lines(match: Match, number: int, rnd: Round, score: list[int]) -> list[str]:
    head = f"Round {number}"
    if rnd.fill is not None:
        before = match.rounds[number - 2].outcome
        assert before is not None
        head += f" ({SIDE_NAMES[before.winner]} fills {rnd.fill})"
    lines = [head, *entry_lines(round_entries(rnd))]
    if rnd.outcome is not None:
        gained = 1 if match.series else rnd.outcome.points
        score[rnd.outcome.winner] += gained
        lines.append(f"Winner: {winner_text(rnd.outcome, gained, score)}")
    return lines


def move_list_lines(match: Match) -> list[str]:
    """Every round of ``match``: heading, move lines, winner; a blank line between."""
    score = [0, 0] if match.series else match.rounds[0].start.points[:]
    out: list[str] = []
    for i, rnd in enumerate(match.rounds):
        if i:
            out.append("")
        out += _round_lines(match, i + 1, rnd, score)
    return out


class MoveList(VerticalScroll):
    """The move list, scrolled to its end; :meth:`show` draws a match.

    The lines of finished rounds never change, so they are kept; only the
    round being played is written again after a move.
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._match: Match | None = None
        self._done: list[list[str]] = []
        """Lines of the match's finished rounds, first to last."""
        self._score = [0, 0]
        """Score after the last round in ``_done``."""

    def compose(self) -> ComposeResult:
        yield Static(id="moves")

    def show(self, match: Match) -> None:
        """Draw the move list of ``match`` (after a move, a fill, a new match)."""
        if match is not self._match or len(self._done) > len(match.rounds):
            self._match = match
            self._done = []
            self._score = [0, 0] if match.series else match.rounds[0].start.points[:]
        while len(self._done) < len(match.rounds):
            number = len(self._done) + 1
            rnd = match.rounds[number - 1]
            if rnd.outcome is None:
                break
            self._done.append(_round_lines(match, number, rnd, self._score))
        rounds = list(self._done)
        if len(rounds) < len(match.rounds):  # the round being played
            rounds.append(
                _round_lines(match, len(rounds) + 1, match.rounds[-1], self._score[:])
            )
        self.query_one("#moves", Static).update("\n\n".join("\n".join(r) for r in rounds))
        self.scroll_end(animate=False)
