"""Pictures of positions as SVG, with the look of the web board (standard library only).

:func:`board` draws any position: the squares in their colours, every tower
(its side's body, its colour disc and the owner's dragon), a Sumo's rank
(a ring band per ring and a badge with the count), and on request the
Chinese characters, the last move, a tower's legal destinations and arrows.

>>> from kamisado.rules.position import Position
>>> pos = Position()
>>> _ = pos.push_move("c1-c5")
>>> picture = board(pos, size=320, **marks(pos))
>>> picture.startswith('<svg xmlns="http://www.w3.org/2000/svg"')
True
>>> marks(pos)
{'lastmove': Move.from_str('c1-c5'), 'pushed': (), 'passed': ()}

Jupyter shows a :class:`~kamisado.rules.position.Position` or a
:class:`~kamisado.rules.match.Match` as this picture (``_repr_svg_``).  PNG and GIF
pictures are in :mod:`kamisado.pictures.gif` (they need Pillow).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from functools import cache
from importlib import resources
from typing import TypedDict
from xml.sax.saxutils import escape, quoteattr

from kamisado.rules.board import (
    BLACK,
    COLOUR_NAMES,
    SIDE_NAMES,
    SQUARE_COLOUR,
    SQUARE_NAMES,
    Move,
    parse_colour,
    parse_square,
)
from kamisado.rules.position import Position

__all__ = [
    "BORDER",
    "DRAGON",
    "HEX",
    "Marks",
    "SIDE_FILL",
    "SIDE_MARK",
    "VIEW",
    "arrows_of",
    "board",
    "glyph",
    "marks",
    "square_box",
]

#: The eight colours as drawn (brown .. orange), as on the web board.
HEX = (
    "#7b4a26",  # brown
    "#2c9a47",  # green
    "#d3242b",  # red
    "#f4c51c",  # yellow
    "#ee7bb0",  # pink
    "#6a3d98",  # purple
    "#1f6fbf",  # blue
    "#ef7d23",  # orange
)
#: A side's tower body (Black, Gold), and the mark drawn on it.
SIDE_FILL = ("#161514", "#d9ac2e")
SIDE_MARK = ("#d9ac2e", "#161514")
_BODY_STROKE = ("#000000", "#6d5415")
_FRAME = "#2b2118"
#: A small dragon: the owner's mark on every tower top (centred on 0,0).
DRAGON = (
    "M-13,9 C-19,0 -12,-12 -2,-11 C8,-10 9,-1 2,1 C-4,3 -5,-5 0,-5 "
    "M2,1 C10,3 14,9 8,14 M-2,-11 L-6,-17 M2,-11 L5,-17"
)
#: A square is 100 units; the board is framed by BORDER units each side.
BORDER = 8
#: The picture's width and height in units (the ``viewBox``).
VIEW = 800 + 2 * BORDER

Square = int | str
Arrow = tuple[Square, Square, str]


@cache
def _glyphs() -> dict[str, dict[str, str]]:
    text = resources.files("kamisado").joinpath("data/glyphs.json").read_text("utf-8")
    colours: dict[str, dict[str, str]] = json.loads(text)["colours"]
    return colours


def glyph(colour: int) -> tuple[str, str]:
    """The Chinese character of a colour and its outline (an SVG path in a
    1000-unit em box centred on 0,0; no font needed).

    >>> glyph(0)[0], glyph(0)[1][:8]
    ('茶', 'M35 -200')
    """
    g = _glyphs()[COLOUR_NAMES[colour]]
    return g["char"], g["path"]


def _square(sq: Square) -> int:
    return parse_square(sq) if isinstance(sq, str) else sq


def _n(x: float) -> str:
    """A number as short as it goes: 12, 12.5, 0.032."""
    text = f"{x:.3f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def square_box(square: Square, flipped: bool = False) -> tuple[int, int]:
    """Top-left corner of a square in picture units (each square is 100).

    Black's home row is at the bottom; ``flipped`` puts Gold's there.

    >>> square_box("a1"), square_box("a1", flipped=True), square_box("h8")
    ((8, 708), (708, 8), (708, 8))
    """
    sq = _square(square)
    f, r = sq & 7, sq >> 3
    x, y = ((7 - f) * 100, r * 100) if flipped else (f * 100, (7 - r) * 100)
    return x + BORDER, y + BORDER


class Marks(TypedDict):
    """The last move's marks, as :func:`marks` gives them."""

    lastmove: Move | None
    pushed: tuple[int, ...]
    passed: tuple[int, ...]


def marks(position: Position) -> Marks:
    """The last move of ``position`` as keyword arguments for :func:`board`:
    ``lastmove``, ``pushed`` (where pushed towers went) and ``passed``
    (towers the rules made pass after it, or on loading).

    >>> pos = Position("obupy1gn/8/8/3r4/3R+4/8/8/NG1YPUBO b r 3 1 0")
    >>> _ = pos.push_move("d4-d5")
    >>> m = marks(pos)
    >>> str(m["lastmove"]), [SQUARE_NAMES[s] for s in m["pushed"]]
    ('d4-d5', ['d6'])
    """
    lastmove: Move | None = None
    pushed: tuple[int, ...] = ()
    if position.move_stack:
        undo = position.peek()
        lastmove = undo.move
        step = 8 if undo.turn == BLACK else -8
        pushed = tuple(lastmove.to_square + step * i for i in range(1, undo.pushed + 1))
    passed = tuple(p.square for p in position.passes())
    return {"lastmove": lastmove, "pushed": pushed, "passed": passed}


class _Out:
    def __init__(self) -> None:
        self.parts: list[str] = []

    def tag(self, name: str, attrs: dict[str, object], close: bool = True) -> None:
        text = "".join(
            f" {k}={quoteattr(v if isinstance(v, str) else _n(float(str(v))))}"
            for k, v in attrs.items()
        )
        self.parts.append(f"<{name}{text}{'/' if close else ''}>")

    def end(self, name: str) -> None:
        self.parts.append(f"</{name}>")

    def text(self, name: str, attrs: dict[str, object], content: str) -> None:
        self.tag(name, attrs, close=False)
        self.parts.append(escape(content))
        self.end(name)


def _frame(out: _Out, kind: str, sq: int, flipped: bool) -> None:
    """A last-move frame: dark under white, seen on every square colour."""
    x, y = square_box(sq, flipped)
    box = {"x": x + 4, "y": y + 4, "width": 92, "height": 92, "fill": "none"}
    dash = {"stroke-dasharray": "16 10"} if kind == "last-from" else {}
    name = SQUARE_NAMES[sq]
    out.tag("rect", {"class": f"{kind} mark-under", "data-square": name, **box,
                     "stroke": "#111111", "stroke-width": 9, **dash})
    if kind == "pushed-to":
        dash, width = {"stroke-dasharray": "5 5"}, 5
    else:
        width = 4
    out.tag("rect", {"class": f"{kind} mark", "data-square": name, **box,
                     "stroke": "#ffffff", "stroke-width": width, **dash})


def _tower(out: _Out, pos: Position, sq: int, flipped: bool, characters: bool,
           passed: bool) -> None:
    t = pos.board[sq]
    side, colour, rings = t >> 3, t & 7, pos.rings[t]
    x, y = square_box(sq, flipped)
    out.tag("g", {
        "class": "tower " + ("gold" if side else "black") + (" sumo" if rings else ""),
        "data-square": SQUARE_NAMES[sq], "data-side": SIDE_NAMES[side].lower(),
        "data-colour": COLOUR_NAMES[colour], "data-rings": str(rings),
        "transform": f"translate({x + 50},{y + 50})",
    }, close=False)
    # the rank at a glance: a band per ring round the tower, dark under light
    for i in range(rings):
        r = 41 + i * 3.5
        out.tag("circle", {"class": "ring-under", "r": r, "fill": "none",
                           "stroke": "#111111", "stroke-width": 3.6})
        out.tag("circle", {"class": "ring", "r": r, "fill": "none",
                           "stroke": "#ffffff", "stroke-width": 1.8})
    out.tag("circle", {"class": "body", "r": 38, "fill": SIDE_FILL[side],
                       "stroke": _BODY_STROKE[side], "stroke-width": 2})
    if passed:
        out.tag("circle", {"class": "passed", "r": 38, "fill": "none",
                           "stroke": "#ff3333", "stroke-width": 8})
    out.tag("circle", {"class": "disc", "r": 26, "fill": HEX[colour],
                       "stroke": SIDE_MARK[side], "stroke-width": 3})
    if characters:
        out.tag("path", {"class": "towerchar", "d": glyph(colour)[1],
                         "transform": "scale(0.032)", "fill": SIDE_FILL[side],
                         "stroke": SIDE_MARK[side], "stroke-width": 60,
                         "paint-order": "stroke"})
    else:
        out.tag("path", {"class": "dragon", "d": DRAGON, "transform": "scale(1.15)",
                         "fill": "none", "stroke": SIDE_FILL[side],
                         "stroke-width": 3.2, "stroke-linecap": "round"})
    if rings:
        out.tag("g", {"class": "rank", "transform": "translate(27,-27)"}, close=False)
        out.tag("circle", {"r": 15, "fill": "#ffffff", "stroke": "#111111",
                           "stroke-width": 3})
        out.text("text", {"y": 7, "text-anchor": "middle", "font-family": "sans-serif",
                          "font-weight": "bold", "font-size": 21, "fill": "#111111"},
                 str(rings))
        out.end("g")
    out.end("g")


def _arrow(out: _Out, a: int, b: int, colour: str, flipped: bool) -> None:
    x0, y0 = square_box(a, flipped)
    x1, y1 = square_box(b, flipped)
    x0, y0, x1, y1 = x0 + 50, y0 + 50, x1 + 50, y1 + 50
    length = ((x1 - x0) ** 2 + (y1 - y0) ** 2) ** 0.5
    if length == 0:
        return
    ux, uy = (x1 - x0) / length, (y1 - y0) / length
    head, half = 34.0, 20.0
    bx, by = x1 - ux * head, y1 - uy * head  # the head's base
    points = f"{_n(x1)},{_n(y1)} {_n(bx - uy * half)},{_n(by + ux * half)} " \
             f"{_n(bx + uy * half)},{_n(by - ux * half)}"
    fill = HEX[parse_colour(colour)] if colour.lower() in COLOUR_NAMES else colour
    out.tag("g", {"class": "arrow", "data-from": SQUARE_NAMES[a],
                  "data-to": SQUARE_NAMES[b]}, close=False)
    line = {"x1": x0, "y1": y0, "x2": bx + ux, "y2": by + uy}
    out.tag("line", {**line, "stroke": "#111111", "stroke-width": 16})
    out.tag("polygon", {"points": points, "fill": "#111111", "stroke": "#111111",
                        "stroke-width": 6})
    out.tag("line", {**line, "stroke": fill, "stroke-width": 10})
    out.tag("polygon", {"points": points, "fill": fill})
    out.end("g")


def board(
    position: Position,
    *,
    size: int = 400,
    coordinates: bool = True,
    characters: bool = False,
    flipped: bool = False,
    lastmove: Move | str | None = None,
    pushed: Iterable[Square] = (),
    passed: Iterable[Square] = (),
    legal_from: Square | None = None,
    arrows: Iterable[Arrow] = (),
    must: bool = True,
    title: str | None = None,
) -> str:
    """``position`` drawn as an SVG document ``size`` pixels square.

    - ``coordinates``: each square's name in its corner;
    - ``characters``: the Chinese characters on squares and towers (outlines;
      the towers then show their character instead of the dragon);
    - ``flipped``: Gold's home row at the bottom;
    - ``lastmove`` (``"c1-c5"`` or a :class:`~kamisado.rules.position.Move`): frames,
      dashed where the tower came from, solid where it went; ``pushed``:
      dotted frames where pushed towers went; ``passed``: a red ring on
      towers that passed (:func:`marks` gives all three for a position);
    - ``legal_from``: that tower's legal destinations (dots; a red ring on a
      tower it would push);
    - ``arrows``: ``(from, to, colour)`` with a Kamisado colour name or any
      SVG colour;
    - ``must``: the dashed ring round the tower that must move;
    - ``title``: the picture's title (default: the position's KPN).

    Squares are ``<g class="square">`` and towers ``<g class="tower">`` with
    ``data-`` attributes naming their square, colour, side and rings.

    >>> import xml.etree.ElementTree as ET
    >>> root = ET.fromstring(board(Position(), size=200))
    >>> root.get("width"), len(root.findall(".//{*}g[@class='square']"))
    ('200', 64)
    """
    out = _Out()
    title = position.kpn() if title is None else title
    out.tag("svg", {"xmlns": "http://www.w3.org/2000/svg", "width": str(size),
                    "height": str(size), "viewBox": f"0 0 {VIEW} {VIEW}", "role": "img",
                    "aria-label": title, "data-kpn": position.kpn()}, close=False)
    out.text("title", {}, title)
    out.tag("rect", {"class": "frame", "width": VIEW, "height": VIEW, "rx": BORDER,
                     "fill": _FRAME})
    # squares
    out.tag("g", {"class": "squares"}, close=False)
    for sq in range(64):
        colour = SQUARE_COLOUR[sq]
        x, y = square_box(sq, flipped)
        out.tag("g", {"class": "square", "data-square": SQUARE_NAMES[sq],
                      "data-colour": COLOUR_NAMES[colour],
                      "transform": f"translate({x},{y})"}, close=False)
        out.tag("rect", {"width": 100, "height": 100, "fill": HEX[colour]})
        if characters:
            out.tag("path", {"class": "sqchar", "d": glyph(colour)[1],
                             "transform": "translate(50,50) scale(0.05)",
                             "fill": "#000000", "fill-opacity": 0.45})
        if coordinates:
            out.text("text", {"class": "coord", "x": 4, "y": 96, "font-family": "sans-serif",
                              "font-size": 13, "fill": "#000000", "fill-opacity": 0.6},
                     SQUARE_NAMES[sq])
        out.end("g")
    out.end("g")
    # last move
    out.tag("g", {"class": "marks"}, close=False)
    if lastmove is not None:
        move = Move.from_str(lastmove) if isinstance(lastmove, str) else lastmove
        _frame(out, "last-from", move.from_square, flipped)
        _frame(out, "last-to", move.to_square, flipped)
    for went in pushed:
        _frame(out, "pushed-to", _square(went), flipped)
    out.end("g")
    # towers
    passing = {_square(p) for p in passed}
    out.tag("g", {"class": "towers"}, close=False)
    for sq in range(64):
        if position.board[sq] >= 0:
            _tower(out, position, sq, flipped, characters, sq in passing)
    out.end("g")
    # what is drawn on top: the tower that must move, destinations, arrows
    out.tag("g", {"class": "top"}, close=False)
    mover = position.mover()
    if must and mover >= 0:
        x, y = square_box(position.tower_square[mover], flipped)
        ring = {"cx": x + 50, "cy": y + 50, "r": 46, "fill": "none",
                "stroke-dasharray": "10 6"}
        out.tag("circle", {"class": "must-under", **ring, "stroke": "#111111",
                           "stroke-width": 8})
        out.tag("circle", {"class": "must", **ring, "stroke": "#ffffff", "stroke-width": 4})
    if legal_from is not None:
        origin = _square(legal_from)
        for m in position.legal_moves:
            if m.from_square != origin:
                continue
            x, y = square_box(m.to_square, flipped)
            centre = {"cx": x + 50, "cy": y + 50, "data-dest": SQUARE_NAMES[m.to_square]}
            if position.board[m.to_square] >= 0:
                out.tag("circle", {"class": "dest-halo", **centre, "r": 46, "fill": "none",
                                   "stroke": "#ffffff", "stroke-width": 12})
                out.tag("circle", {"class": "dest push", **centre, "r": 46, "fill": "none",
                                   "stroke": "#e01010", "stroke-width": 7,
                                   "stroke-dasharray": "12 7"})
            elif characters:
                out.tag("circle", {"class": "dest", **centre, "r": 43, "fill": "none",
                                   "stroke": "#ffffff", "stroke-width": 5})
            else:
                out.tag("circle", {"class": "dest", **centre, "r": 13, "fill": "#ffffff",
                                   "fill-opacity": 0.9, "stroke": "#111111",
                                   "stroke-width": 3})
    for a, b, paint in arrows:
        _arrow(out, _square(a), _square(b), paint, flipped)
    out.end("g")
    out.end("svg")
    return "".join(out.parts)


def arrows_of(moves: Sequence[Move | str], colour: str = "#1a5fd0") -> list[Arrow]:
    """Arrows for a line of moves, all in one colour.

    >>> arrows_of(["c1-c5"])
    [('c1', 'c5', '#1a5fd0')]
    """
    out: list[Arrow] = []
    for m in moves:
        move = Move.from_str(m) if isinstance(m, str) else m
        out.append((SQUARE_NAMES[move.from_square], SQUARE_NAMES[move.to_square], colour))
    return out
