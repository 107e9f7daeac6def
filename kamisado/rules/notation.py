"""Moves in writing: square form, the rulebook's long form and a short form.

The rulebook records every turn as ``tower direction distance square``:

* ``Purple Left 5 Yellow``: the purple tower moved 5 squares diagonally
  forward to its own left and finished on a yellow square;
* ``Green 0 Yellow``: the green tower was blocked (a pass, rule M6) on a
  yellow square;
* a Sumo push is the pusher's ``Forward 1`` entry followed, in the
  opponent's column, by the furthest pushed tower's ``Back 1`` entry.

The short form abbreviates the long one: tower letter (KPN letters
``n g r y p u b o``), direction letter (``F``, ``L``, ``R``, ``B``) and
distance, without the final colour: ``uL5``, ``rF4``, ``g0`` (a pass),
``yB1`` (pushed back).  Left and right are the moving player's own.

>>> from kamisado.rules.position import Position
>>> pos = Position()
>>> m = parse_move(pos, "Red Forward 4 Blue")
>>> str(m), long_form(pos, m), short_form(pos, m)
('c1-c5', 'Red Forward 4 Blue', 'rF4')
>>> str(parse_move(pos, "rF4")), str(parse_move(pos, "c1-c5"))
('c1-c5', 'c1-c5')
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import NamedTuple, Protocol

from kamisado.rules.board import (
    COLOUR_LETTERS,
    COLOUR_NAMES,
    FORWARD,
    LEFT_STEP,
    RAYS,
    SIDE_NAMES,
    SQUARE_COLOUR,
    SQUARE_NAMES,
    AmbiguousMoveError,
    IllegalMoveError,
    MalformedError,
    Move,
    Outcome,
    Pass,
    parse_colour,
)

__all__ = [
    "DIRECTIONS",
    "Entry",
    "WordError",
    "Written",
    "candidates",
    "entries_after_load",
    "long_form",
    "move_direction",
    "move_entries",
    "parse_entry",
    "parse_move",
    "read_entry",
    "read_text",
    "resolve",
    "short_form",
]


class _Undone(Protocol):
    """What :func:`move_entries` reads of the last move's undo record
    (:class:`kamisado.rules.position.Undo`)."""

    @property
    def code(self) -> int: ...
    @property
    def pushed(self) -> int: ...


class PositionLike(Protocol):
    """What this module reads and does to a position: the members of
    :class:`kamisado.rules.position.Position` it uses.

    A structural type, so that notation needs no import of the position
    module (which imports notation for :meth:`~kamisado.rules.position.Position.parse_move`):
    every function here takes a real :class:`kamisado.rules.position.Position`.
    """

    @property
    def board(self) -> list[int]: ...
    @property
    def turn(self) -> int: ...
    @property
    def must_move(self) -> int: ...
    @property
    def outcome(self) -> Outcome | None: ...
    @property
    def initial_passes(self) -> tuple[Pass, ...]: ...
    @property
    def legal_moves(self) -> Iterable[Move]: ...
    def passes(self) -> tuple[Pass, ...]: ...
    def push(self, move: Move) -> None: ...
    def pop(self) -> Move: ...
    def peek(self) -> _Undone: ...
    def check_move(self, move: Move) -> None: ...
    def _must_reason(self) -> str: ...


#: Direction words of the long form; the short form uses their first letters.
DIRECTIONS = ("Forward", "Left", "Right", "Back")


class Entry(NamedTuple):
    """One turn of a record: a move, a pass or a pushed-back tower.

    ``direction`` is one of ``DIRECTIONS``, or ``''`` for a pass (distance 0).

    >>> e = Entry(0, 5, "Left", 5, 3)
    >>> e.long(), e.short()
    ('Purple Left 5 Yellow', 'uL5')
    >>> Entry(1, 1, "", 0, 3).long()
    'Green 0 Yellow'
    """

    side: int
    colour: int
    direction: str
    distance: int
    finish: int

    def long(self) -> str:
        """The rulebook's form, e.g. ``Purple Left 5 Yellow``."""
        tower = COLOUR_NAMES[self.colour].capitalize()
        square = COLOUR_NAMES[self.finish].capitalize()
        if not self.direction:
            return f"{tower} 0 {square}"
        return f"{tower} {self.direction} {self.distance} {square}"

    def short(self) -> str:
        """The short form, e.g. ``uL5`` (``g0`` for a pass)."""
        letter = COLOUR_LETTERS[self.colour]
        if not self.direction:
            return f"{letter}0"
        return f"{letter}{self.direction[0]}{self.distance}"

    @property
    def is_pass(self) -> bool:
        """True for a blocked tower's zero-length move."""
        return not self.direction

    @property
    def is_back(self) -> bool:
        """True for the entry of a tower pushed back by a Sumo."""
        return self.direction == "Back"


def move_direction(side: int, move: Move) -> tuple[str, int]:
    """``(direction, distance)`` of a forward move by ``side``.

    >>> move_direction(0, Move.from_str("d1-g4"))
    ('Right', 3)
    >>> move_direction(1, Move.from_str("c8-d7"))
    ('Left', 1)
    """
    frm, to = move
    dist = abs((to >> 3) - (frm >> 3))
    df = (to & 7) - (frm & 7)
    if df == 0:
        return "Forward", dist
    if (df > 0) == (LEFT_STEP[side] > 0):
        return "Left", dist
    return "Right", dist


def move_entries(pos: PositionLike, move: Move) -> list[Entry]:
    """Entries a legal move writes: the move, a pushed tower's ``Back 1``
    entry for a push, and the passes the rules apply after it.

    >>> from kamisado.rules.position import Position
    >>> pos = Position()
    >>> [e.long() for e in move_entries(pos, Move.from_str("c1-c5"))]
    ['Red Forward 4 Blue']
    """
    frm, to = move
    t = pos.board[frm]
    side = t >> 3
    direction, dist = move_direction(side, move)
    out = [Entry(side, t & 7, direction, dist, SQUARE_COLOUR[to])]
    pushed = pos.board[to] >= 0
    pos.push(move)
    try:
        if pushed:
            far = _furthest_pushed(pos, frm, side)
            p = pos.board[far]
            out.append(Entry(side ^ 1, p & 7, "Back", 1, SQUARE_COLOUR[far]))
        out.extend(
            Entry(p.side, p.colour, "", 0, SQUARE_COLOUR[p.square]) for p in pos.passes()
        )
    finally:
        pos.pop()
    return out


def _furthest_pushed(pos: PositionLike, frm: int, side: int) -> int:
    """Square of the furthest tower pushed by the push just made from ``frm``."""
    undo = pos.peek()
    assert undo.code & 63 == frm and undo.pushed > 0
    return RAYS[side][FORWARD][frm][undo.pushed]


def entries_after_load(pos: PositionLike) -> list[Entry]:
    """Pass entries the rules applied when ``pos`` was loaded from KPN."""
    return [
        Entry(p.side, p.colour, "", 0, SQUARE_COLOUR[p.square])
        for p in pos.initial_passes
    ]


def long_form(pos: PositionLike, move: Move) -> str:
    """The rulebook's form of a legal move, e.g. ``Red Forward 4 Blue``."""
    return move_entries(pos, move)[0].long()


def short_form(pos: PositionLike, move: Move) -> str:
    """The short form of a legal move, e.g. ``rF4``."""
    return move_entries(pos, move)[0].short()


_DIR_WORDS = (
    {d.lower(): d for d in DIRECTIONS}
    | {d[0].lower(): d for d in DIRECTIONS}
    | {"forwards": "Forward", "backward": "Back", "backwards": "Back"}
)
#: A one-letter direction glued to its distance, as in ``Red F4 Blue``.
_GLUED_RE = re.compile(r"(?P<dir>[flrb])(?P<dist>\d+)", re.IGNORECASE)
_SHORT_RE = re.compile(r"(?P<tower>[ngrypubo])(?P<dir>[flrb])?(?P<dist>[0-7])?", re.IGNORECASE)
_SQUARE_RE = re.compile(r"^\s*(\w\w+)\s*-\s*(\w\w+)\s*$")
_SQUARE_WORD_RE = re.compile(r"\w\w+-\w\w+")
_DEST_RE = re.compile(r"[a-h][1-8]")
_FORMS = (
    "square form (c1-c5), long form (Red Forward 4 Blue, Green 0 Yellow)"
    " or short form (rF4, g0, yB1)"
)


class WordError(MalformedError):
    """Unreadable move text; ``word`` is the index of the word at fault in
    the words read (the number of words when the text ended too early)."""

    def __init__(self, message: str, word: int) -> None:
        super().__init__(message)
        self.word = word

    def __reduce__(self) -> tuple[type[WordError], tuple[str, int]]:
        """Pickled with its word (it crosses from a worker process whole)."""
        return (type(self), (str(self), self.word))


class Written(NamedTuple):
    """One written entry, read without a position: what the text names.

    ``form`` is ``square``, ``dest`` (a destination square alone), ``short``
    or ``long``.  ``direction`` is a word of ``DIRECTIONS``, ``''`` for a
    pass (distance 0) or ``None`` when not written; ``None`` also means a
    distance or finish colour not written.

    >>> read_entry(["Purple", "Left", "5", "Yellow"])
    Written(form='long', words=4, colour=5, direction='Left', distance=5, finish=3, finish_word=3, move=None, to=-1)
    >>> read_entry("RF4 yB1".split(), complete=True)[:5]
    ('short', 1, 2, 'Forward', 4)
    """

    form: str
    words: int
    """How many words the entry took."""
    colour: int = -1
    direction: str | None = None
    distance: int | None = None
    finish: int | None = None
    finish_word: int = -1
    """Index of the finish colour's word within the entry (-1: not written)."""
    move: Move | None = None
    """The move of the square form."""
    to: int = -1
    """The square of the destination form."""


def _distance(word: str) -> int | None:
    return int(word) if word.isascii() and word.isdigit() else None


def read_entry(words: Sequence[str], start: int = 0, *, complete: bool = False) -> Written:
    """Read the entry that starts at ``words[start]``: the one grammar of
    move text, for typed moves and record files alike.

    With ``complete=False`` the words are a whole text: a long form may stop
    after its tower, direction or distance, and nothing may follow it.  With
    ``complete=True`` (a record's move line, where entries follow each other)
    a long form names everything (``Red Forward 4 Blue``, ``Green 0 Yellow``)
    and the words after it are left to the caller.  Short forms read in any
    case.  Raises ``WordError`` naming the word at fault.
    """
    word = words[start]
    if _SQUARE_WORD_RE.fullmatch(word):
        try:
            move = Move.from_str(word)
        except MalformedError as exc:
            raise WordError(str(exc), start) from None
        return _rest(words, start, Written("square", 1, move=move), complete)
    if _DEST_RE.fullmatch(word):
        return _rest(words, start, Written("dest", 1, to=SQUARE_NAMES.index(word)), complete)
    m = _SHORT_RE.fullmatch(word)
    if m:
        way = _DIR_WORDS[m["dir"].lower()] if m["dir"] else None
        length = int(m["dist"]) if m["dist"] else None
        if way is None and length not in (None, 0):
            raise WordError(
                "expected a direction letter F, L, R or B after the tower letter,"
                f" found {word!r}",
                start,
            )
        if way is not None and length == 0:
            raise WordError(f"a move with a direction has a distance of 1-7: {word!r}", start)
        written = Written("short", 1, COLOUR_LETTERS.index(m["tower"].lower()), way, length)
        return _rest(words, start, written, complete)
    colour = COLOUR_NAMES.index(word.lower()) if word.lower() in COLOUR_NAMES else -1
    if colour < 0:
        raise WordError(f"expected a move: {_FORMS}, found {word!r}", start)
    i = start + 1
    direction: str | None = None
    dist: int | None = None
    finish: int | None = None
    finish_word = -1

    def said() -> str:
        return " ".join(words[start:i])

    def end(wanted: str) -> WordError:
        return WordError(f"expected {wanted} after {said()!r}, found end of line", i)

    glued = _GLUED_RE.fullmatch(words[i]) if i < len(words) else None
    if glued:
        direction = _DIR_WORDS[glued["dir"].lower()]
        dist = int(glued["dist"])
        i += 1
        if dist > 7 or dist == 0:
            raise WordError(
                f"a move with a direction has a distance of 1-7: {said()!r}", i - 1
            )
    elif i < len(words) and _distance(words[i]) is None:
        if words[i].lower() not in _DIR_WORDS:
            zero = " or 0" if complete else ""
            raise WordError(
                f"expected a direction (Forward, Left, Right or Back){zero} after"
                f" {said()!r}, found {words[i]!r}",
                i,
            )
        direction = _DIR_WORDS[words[i].lower()]
        i += 1
    elif complete and (i == len(words) or words[i] != "0"):
        if i == len(words):
            raise end("a direction (Forward, Left, Right or Back) or 0")
        raise WordError(
            f"expected a direction (Forward, Left, Right or Back) or 0 after {said()!r},"
            f" found {words[i]!r}",
            i,
        )
    if glued:
        pass
    elif i < len(words):
        dist = _distance(words[i])
        if dist is None:
            span = "1-7" if direction else "0-7"
            raise WordError(f"expected a distance {span} after {said()!r}, found {words[i]!r}", i)
        if dist > 7:
            raise WordError(f"expected a distance 0-7, found {dist} in {said()!r}", i)
        if dist == 0 and direction is not None:
            raise WordError(f"a move with a direction has a distance of 1-7: {said()!r}", i)
        i += 1
    elif complete:
        raise end("a distance 1-7")
    if i < len(words) and not (complete and dist != 0 and _starts_entry(words, i)):
        try:
            finish = parse_colour(words[i])
        except MalformedError:
            raise WordError(
                "expected the colour of the square the tower finished on after"
                f" {said()!r}, found {words[i]!r}",
                i,
            ) from None
        finish_word = i - start
        i += 1
    elif complete and dist == 0:
        raise end("the colour of the square the tower finished on")
    if dist == 0:
        direction = ""
    written = Written("long", i - start, colour, direction, dist, finish, finish_word)
    return _rest(words, start, written, complete)


def _starts_entry(words: Sequence[str], i: int) -> bool:
    """Whether ``words[i]`` begins the next entry of a move line rather than
    being a finish colour: ``...``, a square, a short form other than a lone
    colour letter, or a colour word followed by a direction or distance
    (``Blue Forward 5``, ``Blue F5``, ``Blue F 5``, ``Green 0``)."""
    word = words[i]
    low = word.lower()
    if word == "..." or _SQUARE_WORD_RE.fullmatch(word) or _DEST_RE.fullmatch(word):
        return True
    if low not in COLOUR_NAMES:
        return _SHORT_RE.fullmatch(word) is not None and len(word) > 1
    after = words[i + 1] if i + 1 < len(words) else ""
    if _distance(after) is not None or _GLUED_RE.fullmatch(after):
        return True
    if after.lower() in _DIR_WORDS:
        if len(after) > 1:
            return True
        # a direction letter: ``Blue F 5`` (a lone ``f``, ``l``, ``r``, ``b``
        # after a finish colour would be a short form naming only a tower)
        return i + 2 < len(words) and _distance(words[i + 2]) is not None
    return False


def _rest(words: Sequence[str], start: int, written: Written, complete: bool) -> Written:
    """``written``, after checking that a whole text has nothing after it."""
    if written.distance == 0:
        written = written._replace(direction="")
    end = start + written.words
    if not complete and end < len(words):
        wanted = "at most 'tower direction distance square'" if written.form == "long" else "one move"
        raise WordError(
            f"expected {wanted}, found extra {' '.join(words[end:])!r}"
            f" in {' '.join(words[start:])!r}",
            end,
        )
    return written


def read_text(text: str) -> Written:
    """Read a whole text naming one move (square, destination, long or short form).

    >>> read_text("c1 - c5").move, read_text("red forward 4")[2:5]
    (Move.from_str('c1-c5'), (2, 'Forward', 4))
    """
    m = _SQUARE_RE.match(text)
    words = [f"{m[1]}-{m[2]}"] if m else text.split()
    if not words:
        raise MalformedError("expected a move, found an empty text")
    return read_entry(words)


class _Spec(NamedTuple):
    colour: int
    direction: str | None
    distance: int | None
    finish: int | None


def parse_entry(text: str) -> Entry | _Spec:
    """Read one long- or short-form entry without a position.

    Returns a complete ``Entry`` when the text names everything but the
    side (``side`` is -1), else a partial specification.

    >>> parse_entry("Purple Left 5 Yellow")
    Entry(side=-1, colour=5, direction='Left', distance=5, finish=3)
    >>> parse_entry("Green 0 Yellow")
    Entry(side=-1, colour=1, direction='', distance=0, finish=3)
    """
    w = read_text(text)
    if w.form in ("square", "dest"):
        raise MalformedError(
            f"expected a long- or short-form entry (Red Forward 4 Blue, rF4), found {text!r}"
        )
    finish = w.finish if w.finish is not None else -1
    if w.distance == 0:
        return Entry(-1, w.colour, "", 0, finish)
    if w.direction is not None and w.distance is not None and w.finish is not None:
        return Entry(-1, w.colour, w.direction, w.distance, w.finish)
    return _Spec(w.colour, w.direction, w.distance, w.finish)


def candidates(pos: PositionLike, written: Written) -> list[Move]:
    """The legal moves of ``pos`` that fit what ``written`` names, leaving
    out the finish colour (a square form fits only itself).

    >>> from kamisado.rules.position import Position
    >>> pos = Position()
    >>> [str(m) for m in candidates(pos, read_text("c5"))]
    ['c1-c5', 'g1-c5']
    """
    legal = list(pos.legal_moves)
    if written.form == "square":
        return [mv for mv in legal if mv == written.move]
    if written.form == "dest":
        return [mv for mv in legal if mv.to_square == written.to]
    side = pos.turn
    hits = []
    for mv in legal:
        if pos.board[mv.from_square] & 7 != written.colour:
            continue
        way, length = move_direction(side, mv)
        if written.direction is not None and way != written.direction:
            continue
        if written.distance is not None and length != written.distance:
            continue
        hits.append(mv)
    return hits


def parse_move(pos: PositionLike, text: str) -> Move:
    """Read a move in any written form and check it against ``pos``.

    Raises ``MalformedError`` for unreadable text, ``IllegalMoveError`` for
    a move the rules refuse and ``AmbiguousMoveError`` for text that fits
    several legal moves (``c5`` on a first move that two towers can make).

    >>> from kamisado.rules.position import Position
    >>> pos = Position()
    >>> parse_move(pos, "c5")
    Traceback (most recent call last):
    ...
    kamisado.AmbiguousMoveError: 'c5' fits 2 legal moves: c1-c5, g1-c5
    """
    return resolve(pos, read_text(text), text)


def resolve(pos: PositionLike, written: Written, text: str) -> Move:
    """The legal move of ``pos`` that ``written`` (read from ``text``) names.

    Raises ``IllegalMoveError`` (the reason in words) or
    ``AmbiguousMoveError``.
    """
    if written.form == "square":
        assert written.move is not None
        pos.check_move(written.move)
        return written.move
    if written.form == "dest":
        square = SQUARE_NAMES[written.to]
        return _one(pos, text, candidates(pos, written), f"no legal move goes to {square}")
    if pos.outcome is not None:
        raise IllegalMoveError(f"{text}: the round is over")
    colour = written.colour
    if written.direction == "Back":
        raise IllegalMoveError(
            f"{text}: a tower moves back only when it is pushed; that entry is"
            " written by the rules, not played"
        )
    if written.distance == 0:
        raise IllegalMoveError(
            f"{text}: a pass is applied by the rules when a tower is blocked;"
            " it is never played"
        )
    side = pos.turn
    if pos.must_move >= 0 and colour != pos.must_move:  # T2
        raise IllegalMoveError(
            f"{text}: the {COLOUR_NAMES[pos.must_move]} tower must move:"
            f" {pos._must_reason()}"
        )
    move = _one(
        pos,
        text,
        candidates(pos, written),
        f"the {SIDE_NAMES[side]} {COLOUR_NAMES[colour]} tower has no such move",
    )
    finish = written.finish
    if finish is not None and SQUARE_COLOUR[move.to_square] != finish:
        raise IllegalMoveError(
            f"{text}: that move finishes on a"
            f" {COLOUR_NAMES[SQUARE_COLOUR[move.to_square]]} square"
            f" ({SQUARE_NAMES[move.to_square]}), not a {COLOUR_NAMES[finish]} one"
        )
    return move


def _one(pos: PositionLike, text: str, hits: list[Move], none: str) -> Move:
    if len(hits) == 1:
        return hits[0]
    if not hits:
        if pos.outcome is not None:
            raise IllegalMoveError(f"{text}: the round is over")
        raise IllegalMoveError(f"{text}: {none}")
    names = ", ".join(sorted(str(h) for h in hits))
    raise AmbiguousMoveError(f"{text!r} fits {len(hits)} legal moves: {names}")
