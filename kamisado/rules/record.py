"""Match records: a whole match (or series) as plain, human-readable text.

A record names the match type and the players, then lists every round: the
round's starting position (KPN), the fill direction that set it up, every
entry of the rulebook's annotation in two columns (Black's and Gold's) and
how the round ended.  ``write`` produces the canonical text and ``read``
replays it through the rules, so ``write(read(text)) == text`` for any text
``write`` produced.  A record may stop anywhere; ``read`` returns a live
:class:`~kamisado.rules.match.Match` positioned exactly there.  The format is
documented in ``docs/records.md``.

>>> m = Match(3)
>>> for token in ["c1-c5", "b8-b3", "d1-g4"]:
...     _ = m.push_move(token)
>>> rec = Record.new(m, black="Johan", gold="Alain", date="2026-11-22")
>>> print(write(rec), end="")
Kamisado match record
Match: Standard
Black: Johan
Gold: Alain
Date: 2026-11-22
Result: unfinished
<BLANKLINE>
Round 1
Start: obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 3 0 0
  1. Red Forward 4 Blue       Blue Forward 5 Yellow
  2. Yellow Right 3 Purple
>>> again = read(write(rec))
>>> again == rec, again.match.position.kpn()
(True, 'o1upyrgn/8/8/2R5/6Y1/1b6/8/NG2PUBO g u 3 0 0')
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from kamisado.rules._record_model import (
    COLUMN,
    REASONS,
    SCORE_KINDS,
    TITLE,
    Comment,
    CommentError,
    GameEnd,
    Ply,
    Record,
    RoundEntries,
    _check_comments,
    _check_early_end,
    _check_headers,
    _fail,
    game_end,
    match_entries,
    result_text,
    round_entries,
    start_entries,
    start_kpn,
    winner_text,
)
from kamisado.rules.board import (
    BLACK,
    GOLD,
    SIDE_NAMES,
    Move,
    Outcome,
)
from kamisado.rules.match import Match
from kamisado.rules.notation import (
    Entry,
)
from kamisado.rules.position import Position

__all__ = [
    "REASONS",
    "SCORE_KINDS",
    "TITLE",
    "Comment",
    "CommentError",
    "GameEnd",
    "Record",
    "entry_lines",
    "game_end",
    "Ply",
    "ReplayStep",
    "RoundEntries",
    "load",
    "match_entries",
    "read",
    "replay",
    "result_text",
    "round_entries",
    "save",
    "start_entries",
    "start_kpn",
    "winner_text",
    "write",
]

#: First line of every record.

# ---------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------


def _header_line(key: str, value: str) -> str:
    return f"{key}: {value}" if value else f"{key}:"


def entry_lines(entries: list[Entry], notes: list[str | None] | None = None) -> list[str]:
    """A round's move lines as a record writes them: numbered, Black's entry
    in the first column (``...`` when Gold opens), Gold's in the second.
    ``notes`` (one for each entry, or ``None``) are comments' texts written
    in braces after their entries; a Black cell that has grown past its column
    is followed by two spaces.

    >>> from kamisado.rules.board import Move
    >>> from kamisado.rules.position import Position
    >>> from kamisado.rules.notation import move_entries
    >>> pos, entries = Position(), []
    >>> for text in ("c1-c5", "b8-b3"):
    ...     entries += move_entries(pos, Move.from_str(text))
    ...     pos.push(Move.from_str(text))
    >>> entry_lines(entries)
    ['  1. Red Forward 4 Blue       Blue Forward 5 Yellow']
    >>> entry_lines(entries, ["+0.35/12 1.234s", None])
    ['  1. Red Forward 4 Blue {+0.35/12 1.234s}  Blue Forward 5 Yellow']
    """
    cells: list[str] = []
    if entries and entries[0].side == GOLD:
        cells.append("...")
    expected = BLACK if not cells else GOLD
    for i, e in enumerate(entries):
        if e.side != expected:  # pragma: no cover - the rules always alternate
            raise AssertionError(f"entries do not alternate at {e.long()!r}")
        note = notes[i] if notes is not None else None
        cells.append(e.long() + (f" {{{note}}}" if note else ""))
        expected ^= 1
    lines = []
    for i in range(0, len(cells), 2):
        pair = cells[i : i + 2]
        first = pair[0].ljust(COLUMN - 2) + "  "
        text = f"{i // 2 + 1:>3}. " + first + (pair[1] if len(pair) > 1 else "")
        lines.append(text.rstrip())
    return lines


def write(record: Record) -> str:
    """The canonical text of a record (ends with a newline)."""
    _check_headers(record.headers)
    match = record.match
    _check_early_end(match, record.early_end)
    _check_comments(match, record.comments)
    out = [TITLE, f"Match: {match.name}"]
    out.extend(_header_line(k, v) for k, v in record.headers.items())
    out.append(f"Result: {result_text(record)}")
    for rnd in match_entries(match):
        out.append("")
        head = f"Round {rnd.number}"
        if rnd.filler is not None:
            head += f" ({SIDE_NAMES[rnd.filler]} fills {rnd.round.fill})"
        out.append(head)
        out.append(f"Start: {rnd.start}")
        notes: list[str | None] = []
        for ply, step in enumerate(rnd.plies):
            comment = record.comments.get((rnd.number, ply)) if ply else None
            notes.extend([None] * len(step.entries))
            if comment is not None:
                notes[len(notes) - len(step.entries)] = comment.text()
        out.extend(entry_lines(rnd.entries, notes))
        if rnd.winner is not None:
            out.append(f"Winner: {rnd.winner}")
    return "\n".join(out) + "\n"


def save(record: Record, path: str | Path) -> None:
    """Write a record to a file (UTF-8, ``\\n`` line ends)."""
    Path(path).write_text(write(record), encoding="utf-8", newline="\n")


def decode(data: bytes) -> str:
    """The text of a record file's bytes (UTF-8, an optional byte-order mark).

    Bytes that are not UTF-8 raise ``MalformedError`` naming the line and
    column where they start.

    >>> decode("Kamisado match record\\n".encode())
    'Kamisado match record\\n'
    >>> decode(b"Kamisado\\nbad \\xff here")
    Traceback (most recent call last):
    ...
    kamisado.MalformedError: line 2, column 5: expected UTF-8 text, found the byte 0xff
    """
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        before = data[: e.start]
        line = before.count(b"\n") + 1
        col = len(before) - (before.rfind(b"\n") + 1) + 1
        raise _fail(
            line, col, f"expected UTF-8 text, found the byte 0x{data[e.start]:02x}"
        ) from None


def read(text: str) -> Record:
    """Read a record, replaying every move through the rules.

    Raises ``MalformedError`` (or ``IllegalMoveError`` for a readable move
    the rules refuse, ``AmbiguousMoveError`` for short text fitting several
    moves); every message starts with ``line L, column C:``.  The reader
    lives in :mod:`kamisado.rules._record_reader`; move text is read by
    :mod:`kamisado.rules.notation`.
    """
    from kamisado.rules._record_reader import read as read_record

    return read_record(text)


def load(path: str | Path) -> Record:
    """Read a record from a file (UTF-8); see :func:`read` for the errors."""
    return read(decode(Path(path).read_bytes()))


# ---------------------------------------------------------------------------
# Replay
# ---------------------------------------------------------------------------


class ReplayStep(NamedTuple):
    """One step of :func:`replay`: a round's start, or one move and its entries."""

    round: int
    """Round number, from 1."""
    ply: int
    """0 for the round's start, then 1, 2, ... for each move of the round."""
    move: Move | None
    """The move made (``None`` at the start)."""
    entries: list[Entry]
    """Entries written for this step: the move, a ``Back 1`` entry, passes
    (at the start: passes applied when the start position was loaded)."""
    position: Position
    """The position after the step (an independent copy)."""
    fill: str | None
    """The fill direction that set the round up (``None`` for round 1 and series)."""
    outcome: Outcome | None
    """How the round ended, on the step that ended it."""
    comment: Comment | None = None
    """The move's comment in the record (``None``: none, or a bare match)."""


def replay(record: Record | Match) -> Iterator[ReplayStep]:
    """Every position of a record, round by round: each round's start, then
    the position after each move.

    >>> m = Match(1)
    >>> _ = m.push_move("c1-c5")
    >>> [(s.round, s.ply, [e.long() for e in s.entries]) for s in replay(m)]
    [(1, 0, []), (1, 1, ['Red Forward 4 Blue'])]
    """
    match = record.match if isinstance(record, Record) else record
    comments = record.comments if isinstance(record, Record) else {}
    for rnd in match_entries(match):
        pos = rnd.round.start.copy(stack=False)
        for ply, (move, entries) in enumerate(rnd.plies):
            if move is not None:
                pos.push(move)
            yield ReplayStep(
                rnd.number, ply, move, entries, pos.copy(), rnd.round.fill, pos.outcome,
                comments.get((rnd.number, ply)) if ply else None,
            )
