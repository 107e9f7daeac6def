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

>>> from kamisado.core import Position
>>> pos = Position()
>>> m = parse_move(pos, "Red Forward 4 Blue")
>>> str(m), long_form(pos, m), short_form(pos, m)
('c1-c5', 'Red Forward 4 Blue', 'rF4')
>>> str(parse_move(pos, "rF4")), str(parse_move(pos, "c1-c5"))
('c1-c5', 'c1-c5')
"""

from __future__ import annotations

import re
from typing import NamedTuple

from kamisado.core import (
    _LEFT_DF,
    COLOUR_LETTERS,
    COLOUR_NAMES,
    FORWARD,
    RAYS,
    SIDE_NAMES,
    SQUARE_COLOUR,
    SQUARE_NAMES,
    AmbiguousMoveError,
    IllegalMoveError,
    MalformedError,
    Move,
    Position,
    parse_colour,
)

__all__ = [
    "DIRECTIONS",
    "Entry",
    "entries_after_load",
    "long_form",
    "move_direction",
    "move_entries",
    "parse_entry",
    "parse_move",
    "short_form",
]

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
    if (df > 0) == (_LEFT_DF[side] > 0):
        return "Left", dist
    return "Right", dist


def move_entries(pos: Position, move: Move) -> list[Entry]:
    """Entries a legal move writes: the move, a pushed tower's ``Back 1``
    entry for a push, and the passes the rules apply after it.

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


def _furthest_pushed(pos: Position, frm: int, side: int) -> int:
    """Square of the furthest tower pushed by the push just made from ``frm``."""
    code, k = pos._stack[-1][0], pos._stack[-1][1]
    assert code & 63 == frm and k > 0
    return RAYS[side][FORWARD][frm][k]


def entries_after_load(pos: Position) -> list[Entry]:
    """Pass entries the rules applied when ``pos`` was loaded from KPN."""
    return [
        Entry(p.side, p.colour, "", 0, SQUARE_COLOUR[p.square])
        for p in pos.initial_passes
    ]


def long_form(pos: Position, move: Move) -> str:
    """The rulebook's form of a legal move, e.g. ``Red Forward 4 Blue``."""
    return move_entries(pos, move)[0].long()


def short_form(pos: Position, move: Move) -> str:
    """The short form of a legal move, e.g. ``rF4``."""
    return move_entries(pos, move)[0].short()


_DIR_WORDS = {d.lower(): d for d in DIRECTIONS} | {d[0].lower(): d for d in DIRECTIONS}
_LONG_RE = re.compile(
    r"^\s*(?P<tower>[A-Za-z]+)\s+(?:(?P<dir>[A-Za-z]+)\s+)?(?P<dist>\d+)?"
    r"(?:\s+(?P<square>[A-Za-z]+))?\s*$"
)
_SHORT_RE = re.compile(
    r"^\s*(?P<tower>[ngrypubo])(?P<dir>[flrb])?(?P<dist>[0-7])?\s*$", re.IGNORECASE
)
_SQUARE_RE = re.compile(r"^\s*(\w\w+)\s*-\s*(\w\w+)\s*$")
_DEST_RE = re.compile(r"^\s*([a-h][1-8])\s*$")


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
    spec = _parse_spec(text)
    if spec.distance == 0:
        if spec.finish is None:
            spec = spec._replace(finish=-1)
        return Entry(-1, spec.colour, "", 0, spec.finish if spec.finish is not None else -1)
    if spec.direction is not None and spec.distance is not None and spec.finish is not None:
        return Entry(-1, spec.colour, spec.direction, spec.distance, spec.finish)
    return spec


def _parse_spec(text: str) -> _Spec:
    m = _SHORT_RE.match(text)
    if m:
        way = _DIR_WORDS[m["dir"].lower()] if m["dir"] else None
        length = int(m["dist"]) if m["dist"] else None
        if way is None and length not in (None, 0):
            raise MalformedError(
                f"expected a direction letter F, L, R or B after the tower letter,"
                f" found {text!r}"
            )
        if way is not None and length == 0:
            raise MalformedError(f"a move with a direction has a distance of 1-7: {text!r}")
        return _Spec(COLOUR_LETTERS.index(m["tower"].lower()), way, length, None)
    words = text.split()
    if not words:
        raise MalformedError("expected a move, found an empty text")
    try:
        colour: int | None = parse_colour(words[0]) if len(words[0]) > 1 else None
    except MalformedError:
        colour = None
    if colour is None:
        raise MalformedError(
            "expected a move: square form (c1-c5), long form (Red Forward 4 Blue)"
            f" or short form (rF4), found {text!r}"
        )
    rest = words[1:]
    direction: str | None = None
    dist: int | None = None
    finish: int | None = None
    if rest and not rest[0].isdigit():
        word = rest.pop(0).lower()
        if word not in _DIR_WORDS:
            raise MalformedError(
                f"expected a direction (Forward, Left, Right or Back) after the tower"
                f" colour, found {word!r} in {text!r}"
            )
        direction = _DIR_WORDS[word]
    if rest:
        if not rest[0].isdigit():
            raise MalformedError(
                f"expected a distance 0-7, found {rest[0]!r} in {text!r}"
            )
        dist = int(rest.pop(0))
        if dist > 7:
            raise MalformedError(f"expected a distance 0-7, found {dist} in {text!r}")
    if rest:
        finish = parse_colour(rest.pop(0))
    if rest:
        raise MalformedError(
            f"expected at most 'tower direction distance square', found extra"
            f" {' '.join(rest)!r} in {text!r}"
        )
    if dist == 0 and direction is not None:
        raise MalformedError(f"a move with a direction has a distance of 1-7: {text!r}")
    return _Spec(colour, direction, dist, finish)


def parse_move(pos: Position, text: str) -> Move:
    """Read a move in any written form and check it against ``pos``.

    Raises ``MalformedError`` for unreadable text, ``IllegalMoveError`` for
    a move the rules refuse and ``AmbiguousMoveError`` for text that fits
    several legal moves (``c5`` on a first move that two towers can make).

    >>> pos = Position()
    >>> parse_move(pos, "c5")
    Traceback (most recent call last):
    ...
    kamisado.core.AmbiguousMoveError: 'c5' fits 2 legal moves: c1-c5, g1-c5
    """
    m = _SQUARE_RE.match(text)
    if m:
        move = Move.from_str(f"{m[1]}-{m[2]}")
        pos.check_move(move)
        return move
    legal = list(pos.legal_moves)
    m = _DEST_RE.match(text)
    if m:
        dest = SQUARE_NAMES.index(m[1])
        hits = [mv for mv in legal if mv.to_square == dest]
        return _one(pos, text, hits, f"no legal move goes to {m[1]}")
    spec = _parse_spec(text)
    if pos.outcome is not None:
        raise IllegalMoveError(f"{text}: the round is over")
    colour = spec.colour
    if spec.direction == "Back":
        raise IllegalMoveError(
            f"{text}: a tower moves back only when it is pushed; that entry is"
            " written by the rules, not played"
        )
    if spec.distance == 0:
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
    hits = []
    for mv in legal:
        t = pos.board[mv.from_square]
        if t & 7 != colour:
            continue
        way, length = move_direction(side, mv)
        if spec.direction is not None and way != spec.direction:
            continue
        if spec.distance is not None and length != spec.distance:
            continue
        hits.append(mv)
    move = _one(
        pos,
        text,
        hits,
        f"the {SIDE_NAMES[side]} {COLOUR_NAMES[colour]} tower has no such move",
    )
    if spec.finish is not None and SQUARE_COLOUR[move.to_square] != spec.finish:
        raise IllegalMoveError(
            f"{text}: that move finishes on a"
            f" {COLOUR_NAMES[SQUARE_COLOUR[move.to_square]]} square"
            f" ({SQUARE_NAMES[move.to_square]}), not a {COLOUR_NAMES[spec.finish]} one"
        )
    return move


def _one(pos: Position, text: str, hits: list[Move], none: str) -> Move:
    if len(hits) == 1:
        return hits[0]
    if not hits:
        if pos.outcome is not None:
            raise IllegalMoveError(f"{text}: the round is over")
        raise IllegalMoveError(f"{text}: {none}")
    names = ", ".join(sorted(str(h) for h in hits))
    raise AmbiguousMoveError(f"{text!r} fits {len(hits)} legal moves: {names}")
