"""Match records: a whole match (or series) as plain, human-readable text.

A record names the match type and the players, then lists every round: the
round's starting position (KPN), the fill direction that set it up, every
entry of the rulebook's annotation in two columns (Black's and Gold's) and
how the round ended.  ``write`` produces the canonical text and ``read``
replays it through the rules, so ``write(read(text)) == text`` for any text
``write`` produced.  A record may stop anywhere; ``read`` returns a live
:class:`~kamisado.match.Match` positioned exactly there.  The format is
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

import datetime
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from kamisado.core import (
    BLACK,
    COLOUR_LETTERS,
    COLOUR_NAMES,
    DEADLOCK,
    GOAL,
    GOLD,
    SIDE_NAMES,
    SQUARE_COLOUR,
    SQUARE_NAMES,
    AmbiguousMoveError,
    IllegalMoveError,
    KamisadoError,
    MalformedError,
    Move,
    Outcome,
    Position,
)
from kamisado.match import FILLS, MATCH_NAMES, Match, Round
from kamisado.notation import (
    DIRECTIONS,
    Entry,
    entries_after_load,
    move_direction,
    move_entries,
)

__all__ = [
    "TITLE",
    "Record",
    "ReplayStep",
    "load",
    "read",
    "replay",
    "result_text",
    "round_entries",
    "save",
    "start_kpn",
    "winner_text",
    "write",
]

#: First line of every record.
TITLE = "Kamisado match record"
#: Width of Black's column in move lines (the longest long-form entry,
#: ``Orange Forward 7 Yellow``, has 23 characters).
COLUMN = 25
#: Header keys that ``write`` computes from the match (never in ``headers``).
COMPUTED_HEADERS = ("Match", "Result")

_TARGETS_BY_NAME = {name: target for target, name in MATCH_NAMES.items()}
_SERIES_RE = re.compile(r"Series to ([1-9]\d*)")
_KEY_RE = re.compile(r"[A-Za-z][A-Za-z0-9_.\-]*(?: [A-Za-z0-9_.\-]+)*")
_HEADER_RE = re.compile(r"(?P<key>[^:\s][^:]*?):(?P<sp> ?)(?P<value>.*)")
_ROUND_RE = re.compile(r"Round\b")
_ROUND_HEAD_RE = re.compile(
    r"Round (?P<n>[1-9]\d*)(?: \((?P<side>Black|Gold) fills (?P<fill>left|right)\))?"
)
_NUMBER_RE = re.compile(r"(?P<indent>\s*)(?P<n>\d+)\.(?=\s|$)")
_WORD_RE = re.compile(r"\S+")
_SQUARE_FORM_RE = re.compile(r"([a-h][1-8])-([a-h][1-8])")
_DEST_FORM_RE = re.compile(r"[a-h][1-8]")
_SHORT_FORM_RE = re.compile(
    r"(?P<tower>[ngrypubo])(?:(?P<zero>0)|(?P<dir>[FLRBflrb])(?P<dist>[1-7])?)?"
)
_WINNER_RE = re.compile(
    r"(?P<side>\S+), (?P<colour>\S+) tower, (?P<reason>\S+),"
    r" (?P<points>\d+) points?(?P<score> \(.*\))"
)
_DIRECTION_WORDS = {d.lower(): d for d in DIRECTIONS}
_RULES = ("", "Back")  # directions of the entries the rules write (pass, pushed back)


def _fail(
    line: int, col: int, message: str, cls: type[KamisadoError] = MalformedError
) -> KamisadoError:
    return cls(f"line {line}, column {col}: {message}")


# ---------------------------------------------------------------------------
# The record
# ---------------------------------------------------------------------------


@dataclass(eq=False)
class Record:
    """A match with its header lines (players, date, anything else).

    ``headers`` keeps the ``Key: value`` lines in order; the ``Match`` and
    ``Result`` lines are computed from ``match`` and never stored there.
    Two records are equal when their headers (in order) and their matches
    (type, every round's start, fill, moves and outcome, the live position,
    points and state) are equal.
    """

    headers: dict[str, str]
    match: Match

    @classmethod
    def new(
        cls,
        match: Match,
        black: str = "",
        gold: str = "",
        date: str | None = None,
        **extra: str,
    ) -> Record:
        """A record of ``match`` with ``Black``, ``Gold``, ``Date`` and extra headers.

        ``date=None`` means today's date (ISO ``YYYY-MM-DD``).  Extra keyword
        arguments become further header lines, in order (``Event="Club"``).
        """
        if date is None:
            date = datetime.date.today().isoformat()
        headers = {"Black": black, "Gold": gold, "Date": date}
        headers.update(extra)
        rec = cls(headers, match)
        _check_headers(rec.headers)
        return rec

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Record):
            return NotImplemented
        return list(self.headers.items()) == list(other.headers.items()) and _match_key(
            self.match
        ) == _match_key(other.match)


def _match_key(m: Match) -> tuple[object, ...]:
    rounds = tuple(
        (start_kpn(r), r.start.kpn(), r.fill, tuple(r.moves), r.outcome)
        for r in m.rounds
    )
    return (
        m.target,
        m.series,
        m.state,
        m.winner,
        tuple(m.points),
        m.position,
        tuple(m.position.move_stack),
        rounds,
    )


def _check_headers(headers: dict[str, str]) -> None:
    for key, value in headers.items():
        if not isinstance(key, str) or not _KEY_RE.fullmatch(key):
            raise MalformedError(
                "a header key is letters, digits, '_', '.', '-' and single spaces,"
                f" starting with a letter; found {key!r}"
            )
        if key in COMPUTED_HEADERS or _ROUND_RE.match(key):
            raise MalformedError(
                f"header key {key!r} is reserved (the Match and Result lines are"
                " written from the match; 'Round' starts a round)"
            )
        if (
            not isinstance(value, str)
            or value != value.strip()
            or any(ch in value for ch in "\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")
        ):
            raise MalformedError(
                f"header {key!r}: a value is one line without leading or trailing"
                f" spaces, found {value!r}"
            )


# ---------------------------------------------------------------------------
# Describing rounds
# ---------------------------------------------------------------------------


def start_kpn(rnd: Round) -> str:
    """The KPN a round started from, as written on its ``Start:`` line.

    When loading the KPN made the rules pass blocked towers, the round's
    ``start`` shows the position after those passes; the KPN written is the
    one before them, so the passes stay in the record.
    """
    return _start(rnd)[0]


def _start(rnd: Round) -> tuple[str, list[Entry]]:
    """The ``Start:`` KPN of a round and the passes loading it applies."""
    start = rnd.start
    text = start.kpn()
    if not start.initial_passes:
        return text, []
    first = start.initial_passes[0]
    fields = text.split()
    fields[1] = "bg"[first.side]
    fields[2] = COLOUR_LETTERS[first.colour]
    before = " ".join(fields)
    try:
        again = Position(before)
    except KamisadoError:  # pragma: no cover - defensive
        return text, []
    if again.initial_passes != start.initial_passes or again != start:
        # The passes are not those of loading this position (a start given
        # as a Position that already had moves made on it).
        return text, []
    return before, entries_after_load(start)


def _start_entries(rnd: Round) -> list[Entry]:
    """Entries of the passes applied when the round's start was loaded."""
    return _start(rnd)[1]


def round_entries(rnd: Round) -> list[Entry]:
    """Every entry of a round in order: passes applied when its start was
    loaded, then each move's entries (move, pushed tower's ``Back 1``, passes)."""
    pos = rnd.start.copy(stack=False)
    out = _start_entries(rnd)
    for move in rnd.moves:
        out.extend(move_entries(pos, move))
        pos.push(move)
    return out


def _points_word(n: int) -> str:
    return f"{n} point" if n == 1 else f"{n} points"


def _score(points: list[int] | tuple[int, int]) -> str:
    return f"Black {points[0]}, Gold {points[1]}"


def _scores(match: Match) -> list[list[int]]:
    """Score after each finished round of ``match``."""
    points = [0, 0] if match.series else match.rounds[0].start.points[:]
    out = []
    for rnd in match.rounds:
        if rnd.outcome is None:
            break
        points[rnd.outcome.winner] += 1 if match.series else rnd.outcome.points
        out.append(points[:])
    return out


def winner_text(outcome: Outcome, points: int, score: list[int]) -> str:
    """The text of a ``Winner:`` line (after ``Winner: ``).

    >>> from kamisado.core import Outcome
    >>> winner_text(Outcome(1, 5, "goal", 0), 1, [0, 1])
    'Gold, purple tower, goal, 1 point (Black 0, Gold 1)'
    """
    return (
        f"{SIDE_NAMES[outcome.winner]}, {COLOUR_NAMES[outcome.colour]} tower,"
        f" {outcome.reason}, {_points_word(points)} ({_score(score)})"
    )


def result_text(match: Match) -> str:
    """The text of the ``Result:`` line: ``Black 3, Gold 1`` or ``unfinished``."""
    if match.state == "over":
        return _score(match.points)
    return "unfinished"


# ---------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------


def _header_line(key: str, value: str) -> str:
    return f"{key}: {value}" if value else f"{key}:"


def _entry_lines(entries: list[Entry]) -> list[str]:
    cells: list[str] = []
    if entries and entries[0].side == GOLD:
        cells.append("...")
    expected = BLACK if not cells else GOLD
    for e in entries:
        if e.side != expected:  # pragma: no cover - the rules always alternate
            raise AssertionError(f"entries do not alternate at {e.long()!r}")
        cells.append(e.long())
        expected ^= 1
    lines = []
    for i in range(0, len(cells), 2):
        pair = cells[i : i + 2]
        text = f"{i // 2 + 1:>3}. " + pair[0].ljust(COLUMN) + (pair[1] if len(pair) > 1 else "")
        lines.append(text.rstrip())
    return lines


def write(record: Record) -> str:
    """The canonical text of a record (ends with a newline)."""
    _check_headers(record.headers)
    match = record.match
    out = [TITLE, f"Match: {match.name}"]
    out.extend(_header_line(k, v) for k, v in record.headers.items())
    out.append(f"Result: {result_text(match)}")
    scores = _scores(match)
    previous = [0, 0] if match.series else match.rounds[0].start.points[:]
    for i, rnd in enumerate(match.rounds):
        out.append("")
        head = f"Round {i + 1}"
        if rnd.fill is not None:
            prev = match.rounds[i - 1].outcome
            assert prev is not None
            head += f" ({SIDE_NAMES[prev.winner]} fills {rnd.fill})"
        out.append(head)
        out.append(f"Start: {start_kpn(rnd)}")
        out.extend(_entry_lines(round_entries(rnd)))
        if rnd.outcome is not None:
            score = scores[i]
            gained = score[rnd.outcome.winner] - previous[rnd.outcome.winner]
            out.append(f"Winner: {winner_text(rnd.outcome, gained, score)}")
            previous = score
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
    kamisado.core.MalformedError: line 2, column 5: expected UTF-8 text, found the byte 0xff
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


def load(path: str | Path) -> Record:
    """Read a record from a file (UTF-8); see :func:`read` for the errors."""
    return read(decode(Path(path).read_bytes()))


# ---------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------


class _Token(NamedTuple):
    """One entry of a move line, as written."""

    kind: str
    """``skip`` (``...``), ``long``, ``short``, ``square`` or ``dest``."""
    text: str
    line: int
    col: int
    colour: int = -1
    direction: str | None = None
    """A direction word, ``''`` for a pass, ``None`` when not written."""
    distance: int | None = None
    finish: int | None = None
    finish_col: int = 0
    square: int = -1
    move: Move | None = None

    @property
    def is_rules_entry(self) -> bool:
        """A pass or a pushed tower's ``Back`` entry (written by the rules)."""
        return self.kind in ("long", "short") and self.direction in _RULES

    def describe(self) -> str:
        if self.kind == "skip":
            return "'...'"
        if self.is_rules_entry:
            what = "a pass" if self.direction == "" else "a pushed tower's entry"
            return f"{what} {self.text!r}"
        return repr(self.text)


def _tokenize(text: str, line: int, start: int) -> list[_Token]:
    """The entries of a move line from character ``start`` on."""
    words = [(m.group(), m.start() + 1) for m in _WORD_RE.finditer(text, start)]
    end_col = len(text.rstrip()) + 1
    out: list[_Token] = []
    i = 0

    def word(k: int, wanted: str, after: str) -> tuple[str, int]:
        if k < len(words):
            return words[k]
        raise _fail(line, end_col, f"expected {wanted} after {after!r}, found end of line")

    while i < len(words):
        w, col = words[i]
        if w == "...":
            out.append(_Token("skip", w, line, col))
            i += 1
            continue
        m = _SQUARE_FORM_RE.fullmatch(w)
        if m:
            move = Move(SQUARE_NAMES.index(m[1]), SQUARE_NAMES.index(m[2]))
            out.append(_Token("square", w, line, col, move=move))
            i += 1
            continue
        if _DEST_FORM_RE.fullmatch(w):
            out.append(_Token("dest", w, line, col, square=SQUARE_NAMES.index(w)))
            i += 1
            continue
        m = _SHORT_FORM_RE.fullmatch(w)
        if m:
            colour = COLOUR_LETTERS.index(m["tower"])
            if m["zero"]:
                out.append(_Token("short", w, line, col, colour, "", 0))
            else:
                direction = _DIRECTION_WORDS_BY_LETTER[m["dir"].upper()] if m["dir"] else None
                dist = int(m["dist"]) if m["dist"] else None
                out.append(_Token("short", w, line, col, colour, direction, dist))
            i += 1
            continue
        if w.lower() not in COLOUR_NAMES:
            raise _fail(
                line,
                col,
                "expected an entry: long form ('Red Forward 4 Blue', 'Green 0 Yellow'),"
                f" short form ('rF4', 'g0', 'yB1') or square form ('c1-c5'), found {w!r}",
            )
        colour = COLOUR_NAMES.index(w.lower())
        w2, col2 = word(i + 1, "a direction (Forward, Left, Right, Back) or 0", w)
        if w2 == "0":
            direction, dist, k = "", 0, i + 2
            after = f"{w} {w2}"
        elif w2.lower() in _DIRECTION_WORDS:
            direction = _DIRECTION_WORDS[w2.lower()]
            w3, col3 = word(i + 2, "a distance 1-7", f"{w} {w2}")
            if not (len(w3) == 1 and w3 in "1234567"):
                raise _fail(
                    line, col3, f"expected a distance 1-7 after {w + ' ' + w2!r}, found {w3!r}"
                )
            dist, k = int(w3), i + 3
            after = f"{w} {w2} {w3}"
        else:
            raise _fail(
                line,
                col2,
                "expected a direction (Forward, Left, Right, Back) or 0 after"
                f" {w!r}, found {w2!r}",
            )
        wf, colf = word(k, "the colour of the square the tower finished on", after)
        if wf.lower() not in COLOUR_NAMES:
            raise _fail(
                line,
                colf,
                f"expected the colour of the square the tower finished on after"
                f" {after!r}, found {wf!r}",
            )
        finish = COLOUR_NAMES.index(wf.lower())
        out.append(
            _Token(
                "long",
                f"{after} {wf}",
                line,
                col,
                colour,
                direction,
                dist,
                finish,
                colf,
            )
        )
        i = k + 1
    return out


_DIRECTION_WORDS_BY_LETTER = {d[0]: d for d in DIRECTIONS}


def _a(colour: int) -> str:
    """``'a red square'``, ``'an orange square'``."""
    name = COLOUR_NAMES[colour]
    return f"{'an' if name[0] in 'aeiou' else 'a'} {name} square"


def _tower(side: int, colour: int) -> str:
    return f"{SIDE_NAMES[side]}'s {COLOUR_NAMES[colour]} tower"


def _wanted(pos: Position) -> str:
    """What the rules want next, in words."""
    if pos.must_move < 0:
        return f"{SIDE_NAMES[pos.turn]}'s first move of the round (any tower)"
    return f"a move of {_tower(pos.turn, pos.must_move)} ({pos._must_reason()})"


def _over_text(outcome: Outcome) -> str:
    how = "reached the opponent's home row" if outcome.reason == GOAL else "won by deadlock"
    return f"the round is over ({SIDE_NAMES[outcome.winner]} {how})"


def _describe_pending(e: Entry, pusher: int) -> str:
    if e.is_back:
        return (
            f"the pushed tower's entry {e.long()!r} in {SIDE_NAMES[e.side]}'s column"
            f" ({SIDE_NAMES[pusher]} pushed {_tower(e.side, e.colour)} onto"
            f" {_a(e.finish)})"
        )
    return (
        f"the pass {e.long()!r} in {SIDE_NAMES[e.side]}'s column"
        f" ({_tower(e.side, e.colour)} is blocked on {_a(e.finish)})"
    )


def _same_entry(tok: _Token, e: Entry) -> bool:
    if tok.colour != e.colour or tok.direction != e.direction:
        return False
    if tok.distance is not None and tok.distance != e.distance:
        return False
    return tok.finish is None or tok.finish == e.finish


class _Line(NamedTuple):
    number: int
    text: str


class _Reader:
    def __init__(self, text: str) -> None:
        if text.startswith("\ufeff"):
            text = text[1:]
        self.lines = [_Line(i + 1, t) for i, t in enumerate(text.splitlines())]
        self.pos = 0

    # -- line helpers ---------------------------------------------------------

    def peek(self) -> _Line | None:
        while self.pos < len(self.lines) and not self.lines[self.pos].text.strip():
            self.pos += 1
        return self.lines[self.pos] if self.pos < len(self.lines) else None

    def end_location(self) -> tuple[int, int]:
        if not self.lines:
            return 1, 1
        last = self.lines[-1]
        return last.number + 1, 1

    def found(self, line: _Line | None) -> str:
        return "end of text" if line is None else repr(line.text.strip())

    def where(self, line: _Line | None) -> tuple[int, int]:
        if line is None:
            return self.end_location()
        return line.number, len(line.text) - len(line.text.lstrip()) + 1

    # -- whole record ------------------------------------------------------------

    def read(self) -> Record:
        first = self.peek()
        if first is None or first.text.strip() != TITLE:
            ln, col = self.where(first)
            raise _fail(ln, col, f"expected the title {TITLE!r}, found {self.found(first)}")
        self.pos += 1
        headers: dict[str, str] = {}
        match_line: tuple[_Line, int, bool] | None = None
        result_line: tuple[_Line, str] | None = None
        while True:
            line = self.peek()
            if line is None or _ROUND_RE.match(line.text.strip()):
                break
            self.pos += 1
            text = line.text.strip()
            indent = len(line.text) - len(line.text.lstrip())
            m = _HEADER_RE.fullmatch(text)
            if not m:
                raise _fail(
                    line.number,
                    indent + 1,
                    f"expected a header line 'Key: value' or 'Round 1', found {text!r}",
                )
            key = m["key"]
            value = m["value"].strip()
            vcol = indent + m.start("value") + 1
            if key in headers or (key == "Match" and match_line) or (
                key == "Result" and result_line
            ):
                raise _fail(line.number, indent + 1, f"header {key!r} appears twice")
            if key == "Match":
                target, series = self.match_type(value, line.number, vcol)
                match_line = (line, target, series)
            elif key == "Result":
                result_line = (line, value)
            elif not _KEY_RE.fullmatch(key):
                raise _fail(
                    line.number,
                    indent + 1,
                    "expected a header key (letters, digits, '_', '.', '-' and single"
                    f" spaces, starting with a letter), found {key!r}",
                )
            else:
                headers[key] = value
        if match_line is None:
            ln, col = self.where(self.peek())
            raise _fail(
                ln,
                col,
                "expected a 'Match:' header line (Single Round, Standard, Long,"
                f" Marathon or Series to N) before the rounds, found {self.found(self.peek())}",
            )
        if result_line is None:
            ln, col = self.where(self.peek())
            raise _fail(
                ln,
                col,
                "expected a 'Result:' header line ('Black 3, Gold 1' or 'unfinished')"
                f" before the rounds, found {self.found(self.peek())}",
            )
        match = self.rounds(match_line[1], match_line[2])
        line, value = result_line
        wanted = result_text(match)
        if value != wanted:
            col = line.text.index(":") + 3 if value else line.text.index(":") + 2
            now = "unfinished" if match.state != "over" else "over"
            raise _fail(
                line.number,
                col,
                f"expected the result {wanted!r} (the replayed match is {now},"
                f" {_score(match.points)}), found {value!r}",
            )
        return Record(headers, match)

    def match_type(self, value: str, ln: int, col: int) -> tuple[int, bool]:
        if value in _TARGETS_BY_NAME:
            return _TARGETS_BY_NAME[value], False
        m = _SERIES_RE.fullmatch(value)
        if m:
            return int(m[1]), True
        raise _fail(
            ln,
            col,
            "expected a match type (Single Round, Standard, Long, Marathon or"
            f" Series to N), found {value!r}",
        )

    # -- rounds --------------------------------------------------------------------

    def rounds(self, target: int, series: bool) -> Match:
        match: Match | None = None
        number = 0
        while True:
            line = self.peek()
            if line is None:
                break
            self.pos += 1
            number += 1
            match = self.round(line, number, match, target, series)
        if match is None:
            ln, col = self.end_location()
            raise _fail(ln, col, "expected 'Round 1', found end of text")
        return match

    def round(
        self, head: _Line, number: int, match: Match | None, target: int, series: bool
    ) -> Match:
        indent = len(head.text) - len(head.text.lstrip())
        text = head.text.strip()
        m = _ROUND_HEAD_RE.fullmatch(text)
        if not m:
            raise _fail(
                head.number,
                indent + 1,
                f"expected 'Round {number}'"
                + (" (with '(Black fills left)' or similar after round 1)" if number > 1 else "")
                + f", found {text!r}",
            )
        if int(m["n"]) != number:
            raise _fail(
                head.number,
                indent + 7,
                f"expected round number {number}, found {m['n']}",
            )
        start_line: _Line | None = None
        nxt = self.peek()
        if nxt is not None and nxt.text.strip().startswith("Start:"):
            start_line = nxt
            self.pos += 1
        start_text = ""
        start_col = 0
        if start_line is not None:
            raw = start_line.text
            rest = raw[raw.index("Start:") + 6 :]
            start_text = rest.strip()
            start_col = len(raw) - len(rest.lstrip()) + 1

        if match is None:
            if m["fill"]:
                raise _fail(
                    head.number,
                    indent + 1 + m.start("side") - 1,
                    "expected 'Round 1' (the first round has no fill), found"
                    f" {text!r}",
                )
            kpn = start_text or (
                f"obupyrgn/8/8/8/8/8/8/NGRYPUBO b - {1 if series else target} 0 0"
            )
            ln = start_line.number if start_line else head.number
            try:
                pos = Position(kpn)
            except KamisadoError as exc:
                raise _fail(ln, start_col or 1, f"bad start position: {exc}") from None
            try:
                match = Match(target, series=series, start=pos)
            except KamisadoError as exc:
                raise _fail(ln, start_col or 1, str(exc)) from None
        else:
            self.next_round(match, head, m, number, indent, start_line, start_text, start_col)
        self.entries(match, number)
        return match

    def next_round(
        self,
        match: Match,
        head: _Line,
        m: re.Match[str],
        number: int,
        indent: int,
        start_line: _Line | None,
        start_text: str,
        start_col: int,
    ) -> None:
        prev = match.rounds[number - 2]
        text = head.text.strip()
        if prev.outcome is None:
            raise _fail(
                head.number,
                indent + 1,
                f"round {number - 1} has not ended ({_wanted(match.position)} is"
                f" next), found {text!r}",
            )
        if match.state == "over":
            raise _fail(
                head.number,
                indent + 1,
                f"the match is over ({_score(match.points)}), found {text!r}",
            )
        winner = SIDE_NAMES[prev.outcome.winner]
        if match.series:
            if m["fill"]:
                raise _fail(
                    head.number,
                    indent + 1 + m.start("side") - 1,
                    f"expected 'Round {number}': every round of a series starts from the"
                    f" colour-matching start, with no fill; found {text!r}",
                )
            assert len(match.rounds) == number
        else:
            if not m["fill"]:
                raise _fail(
                    head.number,
                    indent + len(text) + 1,
                    f"expected '({winner} fills left)' or '({winner} fills right)' after"
                    f" 'Round {number}' ({winner} won round {number - 1}), found end of line",
                )
            if m["side"] != winner:
                raise _fail(
                    head.number,
                    indent + 1 + m.start("side"),
                    f"expected {winner!r} ({winner} won round {number - 1} and chooses"
                    f" the fill), found {m['side']!r}",
                )
            assert m["fill"] in FILLS
            match.choose_fill(m["fill"])
        if start_line is None:
            return
        wanted = match.current.start.kpn()
        try:
            found = Position(start_text).kpn()
        except KamisadoError as exc:
            raise _fail(start_line.number, start_col, f"bad start position: {exc}") from None
        if found != wanted:
            how = (
                "the series' colour-matching start"
                if match.series
                else f"the rules' regrouping after {winner} fills {m['fill']}"
            )
            raise _fail(
                start_line.number,
                start_col,
                f"expected the start {wanted!r} ({how}), found {start_text!r}",
            )

    # -- entries -----------------------------------------------------------------------

    def entries(self, match: Match, number: int) -> None:
        rnd = match.rounds[number - 1]
        tokens: list[_Token] = []
        lines: list[tuple[_Line, list[_Token]]] = []
        expected_number = 1
        while True:
            line = self.peek()
            if line is None:
                break
            nm = _NUMBER_RE.match(line.text)
            if not nm:
                break
            self.pos += 1
            if lines and len(lines[-1][1]) < 2:
                prev_line = lines[-1][0]
                raise _fail(
                    prev_line.number,
                    len(prev_line.text.rstrip()) + 1,
                    "expected a second entry (Gold's column); only the last line of a"
                    " round may hold one entry; found end of line",
                )
            if int(nm["n"]) != expected_number:
                raise _fail(
                    line.number,
                    nm.start("n") + 1,
                    f"expected move line {expected_number}., found {nm['n']}.",
                )
            expected_number += 1
            toks = _tokenize(line.text, line.number, nm.end())
            if not toks:
                raise _fail(
                    line.number,
                    len(line.text.rstrip()) + 1,
                    f"expected an entry after '{nm['n']}.', found end of line",
                )
            if len(toks) > 2:
                raise _fail(
                    line.number,
                    toks[2].col,
                    "expected at most two entries on a line (Black's column and Gold's),"
                    f" found a third: {toks[2].describe()}",
                )
            lines.append((line, toks))
            tokens.extend(toks)
        end = self.peek()
        end_is_winner = end is not None and end.text.strip().startswith("Winner:")
        self.play(match, rnd, tokens, end)
        if end_is_winner:
            assert end is not None
            self.pos += 1
            self.winner(match, rnd, number, end)
        elif rnd.outcome is not None:
            ln, col = self.where(end)
            raise _fail(
                ln,
                col,
                f"expected the line 'Winner: {self.winner_wanted(match, number)}'"
                f" ({_over_text(rnd.outcome)}), found {self.found(end)}",
            )
        elif end is not None and not _ROUND_RE.match(end.text.strip()):
            ln, col = self.where(end)
            raise _fail(
                ln,
                col,
                "expected a numbered move line, 'Winner:' or the next 'Round', found"
                f" {self.found(end)}",
            )

    def play(self, match: Match, rnd: Round, tokens: list[_Token], end: _Line | None) -> None:
        pos = match.position
        pending = _start_entries(rnd)
        # Whether the pending rules entries may be left out: None until the
        # next token decides (passes applied when the start was loaded).
        optional: bool | None = None
        pusher = pos.turn
        if tokens:
            tok = tokens[0]
            real = tokens[1] if tok.kind == "skip" and len(tokens) > 1 else tok
            if pending and real.kind not in ("skip", "long") and not real.is_rules_entry:
                # Short or square form leaves the start's passes to the rules.
                pending = []
                optional = True
            first_side = pending[0].side if pending else pos.turn
            if pos.outcome is None or pending:
                if tok.kind == "skip" and first_side == BLACK:
                    raise _fail(
                        tok.line,
                        tok.col,
                        "expected Black's first entry: Black moves first in this round,"
                        " so Black's column starts with an entry, found '...'",
                    )
                if tok.kind != "skip" and first_side == GOLD:
                    raise _fail(
                        tok.line,
                        tok.col,
                        "expected '...' in Black's column: Gold moves first in this"
                        f" round, found {tok.describe()}",
                    )
            if tok.kind == "skip":
                tokens = tokens[1:]
        for tok in tokens:
            if tok.kind == "skip":
                raise _fail(
                    tok.line,
                    tok.col,
                    "'...' only fills Black's empty column at the start of a round"
                    f" that Gold begins; expected {self.next_text(pos, pending, pusher)},"
                    " found '...'",
                )
            if pending:
                if tok.is_rules_entry:
                    e = pending.pop(0)
                    if not _same_entry(tok, e):
                        raise _fail(
                            tok.line,
                            tok.col,
                            f"expected {_describe_pending(e, pusher)}, found {tok.describe()}",
                        )
                    continue
                if optional is None:
                    optional = tok.kind != "long"
                if not optional:
                    raise _fail(
                        tok.line,
                        tok.col,
                        f"expected {_describe_pending(pending[0], pusher)}: the long form"
                        f" lists every entry; found {tok.describe()}",
                    )
                pending = []
            if pos.outcome is not None:
                raise _fail(
                    tok.line,
                    tok.col,
                    f"expected no more entries: {_over_text(pos.outcome)};"
                    f" found {tok.describe()}",
                    IllegalMoveError,
                )
            if tok.is_rules_entry:
                self.misplaced_rules_entry(pos, tok)
            move = self.resolve(pos, tok)
            entries = move_entries(pos, move)
            pusher = pos.turn
            match.push_move(move)
            pending = entries[1:]
            optional = tok.kind != "long"
        if pending and optional is False:
            ln, col = self.where(end)
            raise _fail(
                ln,
                col,
                f"expected {_describe_pending(pending[0], pusher)}, found {self.found(end)}",
            )

    def next_text(self, pos: Position, pending: list[Entry], pusher: int) -> str:
        if pending:
            return _describe_pending(pending[0], pusher)
        if pos.outcome is not None:
            return f"no more entries ({_over_text(pos.outcome)})"
        return _wanted(pos)

    def misplaced_rules_entry(self, pos: Position, tok: _Token) -> None:
        side = SIDE_NAMES[pos.turn]
        if tok.direction == "":
            if pos.must_move < 0:
                reason = f"{side} chooses any tower for the first move of the round"
            elif tok.colour == pos.must_move:
                reason = f"{_tower(pos.turn, pos.must_move)} can move, so it does not pass"
            else:
                reason = "the rules pass only the tower that must move when it is blocked"
            raise _fail(
                tok.line,
                tok.col,
                f"expected {_wanted(pos)}, found {tok.describe()}: {reason}",
            )
        raise _fail(
            tok.line,
            tok.col,
            f"expected {_wanted(pos)}, found {tok.describe()}: a tower moves back only"
            " when the move just before it was a Sumo push",
        )

    def resolve(self, pos: Position, tok: _Token) -> Move:
        side = pos.turn
        if tok.kind == "square":
            assert tok.move is not None
            try:
                pos.check_move(tok.move)
            except KamisadoError as exc:
                raise _fail(tok.line, tok.col, str(exc), type(exc)) from None
            return tok.move
        legal = list(pos.legal_moves)
        if tok.kind == "dest":
            hits = [mv for mv in legal if mv.to_square == tok.square]
            if not hits:
                raise _fail(
                    tok.line,
                    tok.col,
                    f"expected {_wanted(pos)}, found {tok.text!r}: no legal move goes to"
                    f" {tok.text}",
                    IllegalMoveError,
                )
            return self.one(tok, hits)
        if pos.must_move >= 0 and tok.colour != pos.must_move:
            raise _fail(
                tok.line,
                tok.col,
                f"expected {_wanted(pos)}, found {tok.text!r} (the"
                f" {COLOUR_NAMES[tok.colour]} tower)",
                IllegalMoveError,
            )
        mine = [mv for mv in legal if pos.board[mv.from_square] & 7 == tok.colour]
        hits = []
        for mv in mine:
            direction, dist = move_direction(side, mv)
            if tok.direction is not None and direction != tok.direction:
                continue
            if tok.distance is not None and dist != tok.distance:
                continue
            hits.append(mv)
        if not hits:
            tower = _tower(side, tok.colour)
            if mine:
                options = ", ".join(
                    sorted(
                        " ".join(e.long().split()[1:3]) for e in
                        (move_entries(pos, mv)[0] for mv in mine)
                    )
                )
                why = f"{tower} can move only {options}"
            else:
                why = f"{tower} cannot move"
            raise _fail(
                tok.line, tok.col, f"{tok.text!r} is not a legal move: {why}", IllegalMoveError
            )
        move = self.one(tok, hits)
        if tok.finish is not None and SQUARE_COLOUR[move.to_square] != tok.finish:
            actual = COLOUR_NAMES[SQUARE_COLOUR[move.to_square]]
            raise _fail(
                tok.line,
                tok.finish_col,
                f"expected the finish colour {actual.capitalize()!r} ({move} ends on"
                f" {_a(SQUARE_COLOUR[move.to_square])}), found"
                f" {COLOUR_NAMES[tok.finish].capitalize()!r}",
            )
        return move

    def one(self, tok: _Token, hits: list[Move]) -> Move:
        if len(hits) == 1:
            return hits[0]
        names = ", ".join(sorted(str(h) for h in hits))
        raise _fail(
            tok.line,
            tok.col,
            f"{tok.text!r} fits {len(hits)} legal moves ({names}); write more of it",
            AmbiguousMoveError,
        )

    # -- winner lines ----------------------------------------------------------------------

    def winner_wanted(self, match: Match, number: int) -> str:
        rnd = match.rounds[number - 1]
        assert rnd.outcome is not None
        scores = _scores(match)
        score = scores[number - 1]
        before = (
            scores[number - 2]
            if number > 1
            else ([0, 0] if match.series else match.rounds[0].start.points)
        )
        w = rnd.outcome.winner
        return winner_text(rnd.outcome, score[w] - before[w], score)

    def winner(self, match: Match, rnd: Round, number: int, line: _Line) -> None:
        raw = line.text
        base = raw.index("Winner:") + 7
        body = raw[base:]
        lead = len(body) - len(body.lstrip())
        body = body.strip()
        col0 = base + lead + 1
        if rnd.outcome is None:
            raise _fail(
                line.number,
                raw.index("Winner:") + 1,
                f"expected {self.next_text(match.position, [], 0)} (round {number} has"
                f" not ended), found {raw.strip()!r}",
            )
        wanted = self.winner_wanted(match, number)
        if body == wanted:
            return
        m = _WINNER_RE.fullmatch(body)
        w = _WINNER_RE.fullmatch(wanted)
        assert w is not None
        if not m:
            raise _fail(
                line.number,
                col0,
                f"expected 'Winner: {wanted}', found {raw.strip()!r}",
            )
        names = {
            "side": "the winner",
            "colour": "the colour of the tower that gains a ring",
            "reason": f"how the round ended ({GOAL} or {DEADLOCK})",
            "points": "the points the round is worth",
            "score": "the score after the round",
        }
        for group, what in names.items():
            if m[group] != w[group]:
                raise _fail(
                    line.number,
                    col0 + m.start(group),
                    f"expected {what} {w[group].strip()!r}, found {m[group].strip()!r}"
                    f" (the replay gives 'Winner: {wanted}')",
                )
        raise _fail(line.number, col0, f"expected 'Winner: {wanted}', found {raw.strip()!r}")


def read(text: str) -> Record:
    """Read a record, replaying every move through the rules.

    Raises ``MalformedError`` (or ``IllegalMoveError`` for a readable move
    the rules refuse, ``AmbiguousMoveError`` for short text fitting several
    moves); every message starts with ``line L, column C:``.
    """
    return _Reader(text).read()


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


def replay(record: Record | Match) -> Iterator[ReplayStep]:
    """Every position of a record, round by round: each round's start, then
    the position after each move.

    >>> m = Match(1)
    >>> _ = m.push_move("c1-c5")
    >>> [(s.round, s.ply, [e.long() for e in s.entries]) for s in replay(m)]
    [(1, 0, []), (1, 1, ['Red Forward 4 Blue'])]
    """
    match = record.match if isinstance(record, Record) else record
    for i, rnd in enumerate(match.rounds):
        pos = rnd.start.copy(stack=False)
        yield ReplayStep(
            i + 1, 0, None, _start_entries(rnd), pos.copy(), rnd.fill, pos.outcome
        )
        for ply, move in enumerate(rnd.moves, 1):
            entries = move_entries(pos, move)
            pos.push(move)
            yield ReplayStep(i + 1, ply, move, entries, pos.copy(), rnd.fill, pos.outcome)
