"""Charts as SVG (standard library only): a match's evaluation curve, Elo ratings.

:func:`evaluation_svg` draws the engine's view of every position of a match
(:class:`Point`, found by :func:`kamisado.engine.review.evaluations`) from
Black's point of view, so the curve reads the same all game: up is good for
Black, down for Gold.

>>> points = [Point(0, 1, 0, None, ""), Point(1, 1, 35, None, "c1-c5", 1),
...           Point(2, 1, None, (1, 3), "b8-b3", 2)]
>>> import xml.etree.ElementTree as ET
>>> root = ET.fromstring(evaluation_svg(points))
>>> [c.get("data-ply") for c in root.iter("{http://www.w3.org/2000/svg}circle")]
['0', '1', '2']

:func:`elo_svg` draws a table of :func:`kamisado.protocol.elo.elo_table` (each
player's rating with its 95% error bar); ``kamisado tournament`` writes it
as ``OUT/elo.svg`` and ``bench/ladder.py --chart FILE`` for the levels.

The look is that of :mod:`kamisado.pictures.svg` (plain SVG 1.1, presentation
attributes, no CSS, no scripts): no plotting library is needed.  Charts run
no engine: they draw the numbers they are given.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, NamedTuple, Protocol

from kamisado.pictures.svg import SIDE_FILL, SIDE_MARK, _n, _Out
from kamisado.rules.board import BLACK, SIDE_NAMES

__all__ = [
    "CP_RANGE",
    "WORDS",
    "Point",
    "elo_svg",
    "evaluation_svg",
    "format_point",
    "rating_svg",
]

#: The evaluation chart's range: evaluations beyond +-CP_RANGE are drawn at
#: +-CP_RANGE; proven results sit on the edges beyond it.
CP_RANGE = 600

_INK = "#2b2118"  # kamisado.pictures.svg's frame colour
_GRID = "#d8d2c8"
_LINE = "#1a5fd0"  # kamisado.pictures.svg's arrow colour
_BLACK_BAND = "#ebe8e3"
_GOLD_BAND = "#f7edd2"
_FONT = {"font-family": "sans-serif", "fill": _INK}

#: The words the charts write, in English.  A caller in another language
#: passes its own as ``words`` (any key left out stays English); the web
#: server's come from its page's translations (keys ``graph.*``).
WORDS: Mapping[str, str] = {
    "black": "Black",
    "gold": "Gold",
    "wins": "{side} wins",  # on the chart's edges {side} is the initial: "B wins"
    "wins_in": "{side} wins in {n}",
    "start": "Round {round}, start",
    "move": "Round {round}, move {ply}: {move}",
    "evaluation_axis": "evaluation (Black +)",
    "position_axis": "position (moves across the match)",
    "evaluation_title": "Evaluation of {n} positions (Black's view)",
    "rating_title": "Rating history",
    "no_rated_games": "No rated games yet",
    "rating_axis": "rating",
    "date_axis": "date (UTC)",
}


def _say(words: Mapping[str, str] | None, key: str, **values: object) -> str:
    """``words[key]`` (else the English) with ``{name}`` filled in."""
    text = (words or {}).get(key) or WORDS[key]
    for name, value in values.items():
        text = text.replace("{" + name + "}", str(value))
    return text


def _side(words: Mapping[str, str] | None, side: int) -> str:
    return _say(words, "black" if side == BLACK else "gold")


def _round_end(words: Mapping[str, str] | None, text: str) -> str:
    """A round's result (``"Black +1 (1-0)"``) with the side named in ``words``."""
    for side, name in enumerate(SIDE_NAMES):
        if text.startswith(name + " "):
            return _side(words, side) + text[len(name):]
    return text


class Point(NamedTuple):
    """The engine's view of one position of a match (see :func:`kamisado.engine.review.evaluations`)."""

    ply_index: int
    """Index of the position across the match, from 0 (each round's start counts)."""
    round: int
    """Round number, from 1."""
    score_cp: int | None
    """The evaluation from Black's point of view; ``None`` when a result is proven."""
    proven: tuple[int, int] | None
    """``(winner, distance)``: the side that wins the round with best play
    (``BLACK`` 0, ``GOLD`` 1) and in how many moves (0 on the move that ends it)."""
    move_text: str
    """The move that led here, square form (``""`` at a round's start)."""
    ply: int = 0
    """The move's number in its round (0 at the start)."""
    round_end: str | None = None
    """On the position that ends a round: its result (``"Black +1 (1-0)"``)."""
    kpn: str = ""
    """The position (KPN)."""


def format_point(point: Point) -> str:
    """A point as one line: where, the move, the evaluation (Black's view).

    >>> format_point(Point(3, 1, -35, None, "b8-b3", 3))
    '3 round 1 move 3 b8-b3 -35'
    >>> format_point(Point(9, 1, None, (1, 0), "d8-d1", 9, "Gold +1 (0-1)"))
    '9 round 1 move 9 d8-d1 Gold wins: Gold +1 (0-1)'
    """
    where = f"{point.ply_index} round {point.round} move {point.ply}"
    where += f" {point.move_text}" if point.move_text else " start"
    if point.proven is None:
        return f"{where} {point.score_cp:+d}"
    winner, distance = point.proven
    if distance == 0:
        return f"{where} {SIDE_NAMES[winner]} wins: {point.round_end}"
    return f"{where} {SIDE_NAMES[winner]} wins in {distance}"


def _nice_step(span: float, count: int) -> float:
    """A round step (1, 2 or 5 times a power of ten) giving about ``count`` ticks."""
    raw = max(span / max(count, 1), 1e-9)
    power = 10.0 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if m * power >= raw:
            return m * power
    return 10 * power  # pragma: no cover


def _title_of(point: Point, words: Mapping[str, str] | None = None) -> str:
    head = (_say(words, "move", round=point.round, ply=point.ply, move=point.move_text)
            if point.ply else _say(words, "start", round=point.round))
    if point.proven is None:
        return f"{head}, {point.score_cp:+d}"
    winner, distance = point.proven
    if distance == 0:
        return f"{head}, {_round_end(words, point.round_end or '')}"
    return f"{head}, {_say(words, 'wins_in', side=_side(words, winner), n=distance)}"


def evaluation_svg(
    points: Sequence[Point],
    *,
    width: int = 720,
    height: int = 320,
    cp_range: int = CP_RANGE,
    title: str | None = None,
    words: Mapping[str, str] | None = None,
) -> str:
    """The evaluation curve of a match: a line chart of :func:`evaluations`.

    x is the position's index across the match, y the evaluation from
    Black's point of view, clamped to ``+-cp_range``; the band above 0 is
    Black's, below Gold's.  Proven results sit on the edge of the winner's
    band, beyond the range: a filled marker in the winner's colour (the
    distance in its tooltip).  A dashed vertical line ends each round, with
    its result as a label.  Each point is a ``<circle class="point ...">``
    with ``data-ply`` (its index), ``data-round``, ``data-move`` and a
    ``<title>``; the curve is one ``<path class="curve">`` through them.
    Its words are English unless ``words`` gives others (keys of
    :data:`WORDS`).  Text is 11 units high: drawn at the ``width`` it is
    shown at, it is 11 px.

    >>> pts = [Point(0, 1, 30, None, ""), Point(1, 1, None, (0, 1), "c1-c5", 1),
    ...        Point(2, 1, None, (0, 0), "d1-d8", 2, "Black +1 (1-0)")]
    >>> import xml.etree.ElementTree as ET
    >>> root = ET.fromstring(evaluation_svg(pts))
    >>> [c.get("class") for c in root.iter("{http://www.w3.org/2000/svg}circle")]
    ['point cp', 'point proven black', 'point proven black end']
    >>> [t.text for t in root.iter("{http://www.w3.org/2000/svg}text") if "+1" in (t.text or "")]
    ['Black +1 (1-0)']
    """
    if cp_range < 1:
        raise ValueError(f"cp_range must be at least 1, found {cp_range}")
    left, right, top, bottom = 58, 16, 34, 44
    pw, ph = max(width - left - right, 10), max(height - top - bottom, 10)
    edge = 14  # the proven results' strip beyond the range, each side
    inner = ph - 2 * edge
    mid = top + ph / 2
    n = len(points)
    last = max((p.ply_index for p in points), default=0)
    span = max(last, 1)

    def x_of(index: int) -> float:
        return left + pw * index / span

    def y_of(p: Point) -> float:
        if p.proven is not None:
            return top if p.proven[0] == BLACK else top + ph
        assert p.score_cp is not None
        v = max(-cp_range, min(cp_range, p.score_cp))
        return mid - inner / 2 * v / cp_range

    out = _Out()
    label = title if title is not None else _say(words, "evaluation_title", n=n)
    out.tag("svg", {"xmlns": "http://www.w3.org/2000/svg", "width": str(width),
                    "height": str(height), "viewBox": f"0 0 {width} {height}",
                    "role": "img", "aria-label": label, "class": "evaluation-chart",
                    "data-cp-range": str(cp_range)}, close=False)
    out.text("title", {}, label)
    out.tag("rect", {"class": "background", "width": width, "height": height,
                     "fill": "#ffffff"})
    # the two sides' bands, the grid and the y axis
    out.tag("rect", {"class": "band black", "x": left, "y": top, "width": pw,
                     "height": ph / 2, "fill": _BLACK_BAND})
    out.tag("rect", {"class": "band gold", "x": left, "y": mid, "width": pw,
                     "height": ph / 2, "fill": _GOLD_BAND})
    step = _nice_step(cp_range, 2)
    ticks = [k * step for k in range(-int(cp_range // step), int(cp_range // step) + 1)]
    out.tag("g", {"class": "y-axis", "font-size": 11, **_FONT}, close=False)
    for v in ticks:
        y = mid - inner / 2 * v / cp_range
        out.tag("line", {"x1": left, "x2": left + pw, "y1": y, "y2": y,
                         "stroke": _INK if v == 0 else _GRID,
                         "stroke-width": 1.2 if v == 0 else 0.8})
        out.text("text", {"x": left - 6, "y": y + 4, "text-anchor": "end"},
                 f"{v:+g}" if v else "0")
    for side, y in ((BLACK, top), (1 - BLACK, top + ph)):
        out.text("text", {"class": "edge-label", "x": left - 6, "y": y + 4,
                          "text-anchor": "end", "font-weight": "bold"},
                 _say(words, "wins", side=_side(words, side)[:1]))  # "B wins": the margin is narrow
    out.text("text", {"class": "axis-label", "transform": f"translate(14,{_n(mid)}) rotate(-90)",
                      "text-anchor": "middle"}, _say(words, "evaluation_axis"))
    out.end("g")
    # the x axis
    out.tag("g", {"class": "x-axis", "font-size": 11, **_FONT}, close=False)
    out.tag("line", {"x1": left, "x2": left + pw, "y1": top + ph, "y2": top + ph,
                     "stroke": _INK, "stroke-width": 1})
    xstep = max(1, int(_nice_step(span, max(2, pw // 60))))
    for i in range(0, last + 1, xstep):
        x = x_of(i)
        out.tag("line", {"x1": x, "x2": x, "y1": top + ph, "y2": top + ph + 4,
                         "stroke": _INK, "stroke-width": 1})
        out.text("text", {"x": x, "y": top + ph + 16, "text-anchor": "middle"}, str(i))
    out.text("text", {"class": "axis-label", "x": left + pw / 2, "y": height - 8,
                      "text-anchor": "middle"}, _say(words, "position_axis"))
    out.end("g")
    # round ends: a dashed line after the round's last position, its result above
    out.tag("g", {"class": "round-ends", "font-size": 11, **_FONT}, close=False)
    for p in points:
        if p.round_end is None:
            continue
        x = x_of(p.ply_index)
        out.tag("line", {"class": "round-end", "data-round": str(p.round),
                         "x1": x, "x2": x, "y1": top - 4, "y2": top + ph,
                         "stroke": _INK, "stroke-width": 1.2, "stroke-dasharray": "5 4"})
        anchor = "end" if x > left + pw / 2 else "start"
        out.text("text", {"class": "round-result", "data-round": str(p.round),
                          "x": x + (-4 if anchor == "end" else 4), "y": top - 8,
                          "text-anchor": anchor}, _round_end(words, p.round_end))
    out.end("g")
    # the curve, broken at round starts
    d: list[str] = []
    previous: Point | None = None
    for p in points:
        verb = "M" if previous is None or p.round != previous.round else "L"
        d.append(f"{verb}{_n(x_of(p.ply_index))},{_n(y_of(p))}")
        previous = p
    if d:
        out.tag("path", {"class": "curve", "d": " ".join(d), "fill": "none",
                         "stroke": _LINE, "stroke-width": 2, "stroke-linejoin": "round"})
    # the points
    out.tag("g", {"class": "points"}, close=False)
    small = 2.5 if n > 120 else 3.2
    for p in points:
        attrs: dict[str, object] = {
            "cx": x_of(p.ply_index), "cy": y_of(p), "data-ply": str(p.ply_index),
            "data-round": str(p.round), "data-move": str(p.ply),
        }
        if p.proven is None:
            attrs.update({"class": "point cp", "r": small, "fill": "#ffffff",
                          "stroke": _LINE, "stroke-width": 1.5,
                          "data-score": str(p.score_cp)})
        else:
            winner, distance = p.proven
            who = SIDE_NAMES[winner].lower()
            attrs.update({
                "class": f"point proven {who}" + (" end" if distance == 0 else ""),
                "r": small + 1.8, "fill": SIDE_FILL[winner], "stroke": SIDE_MARK[winner],
                "stroke-width": 1.5, "data-winner": who, "data-distance": str(distance),
            })
        out.tag("circle", attrs, close=False)
        out.text("title", {}, _title_of(p, words))
        out.end("circle")
    out.end("g")
    out.end("svg")
    return "".join(out.parts)


class RatingLike(Protocol):
    """What :func:`elo_svg` reads of a row (:class:`kamisado.protocol.elo.Rating`)."""

    @property
    def name(self) -> str: ...
    @property
    def elo(self) -> float: ...
    @property
    def error(self) -> float: ...
    @property
    def games(self) -> int: ...
    @property
    def score(self) -> float: ...


def elo_svg(
    table: Iterable[RatingLike],
    *,
    width: int = 640,
    title: str | None = None,
) -> str:
    """Each player's Elo with its 95% error bar, best first, labelled.

    ``table`` is :func:`kamisado.protocol.elo.elo_table`'s list (any rows with
    ``name``, ``elo``, ``error``, ``games`` and ``score``).  One row per
    player, a ``<g class="player" data-player=... data-elo=... data-error=...>``
    with a dot at the rating and a bar over ``elo +- error``; the height
    follows the number of players.

    >>> from kamisado.protocol.elo import elo_table
    >>> table = elo_table([("club", "novice", 1.0)] * 7 + [("club", "novice", 0.0)] * 3)
    >>> import xml.etree.ElementTree as ET
    >>> root = ET.fromstring(elo_svg(table))
    >>> [g.get("data-player") for g in root.iter("{http://www.w3.org/2000/svg}g")
    ...  if g.get("class") == "player"]
    ['club', 'novice']
    """
    rows = sorted(table, key=lambda r: -r.elo)
    label = title if title is not None else "Elo ratings with 95% error bars"
    name_w = max([len(r.name) for r in rows] + [6]) * 7.5 + 16
    left, right, top, bottom = name_w, 120, 40, 40
    row_h = 28
    height = int(top + bottom + row_h * max(len(rows), 1))
    pw = max(width - left - right, 40)
    lows = [r.elo - r.error for r in rows] + [0.0]
    highs = [r.elo + r.error for r in rows] + [0.0]
    lo, hi = min(lows), max(highs)
    if hi - lo < 100:
        lo, hi = (lo + hi) / 2 - 50, (lo + hi) / 2 + 50
    step = _nice_step(hi - lo, max(2, int(pw // 70)))
    lo, hi = math.floor(lo / step) * step, math.ceil(hi / step) * step

    def x_of(v: float) -> float:
        return left + pw * (v - lo) / (hi - lo)

    out = _Out()
    out.tag("svg", {"xmlns": "http://www.w3.org/2000/svg", "width": str(width),
                    "height": str(height), "viewBox": f"0 0 {width} {height}",
                    "role": "img", "aria-label": label, "class": "elo-chart"}, close=False)
    out.text("title", {}, label)
    out.tag("rect", {"class": "background", "width": width, "height": height,
                     "fill": "#ffffff"})
    out.text("text", {"class": "chart-title", "x": width / 2, "y": 20,
                      "text-anchor": "middle", "font-size": 14, "font-weight": "bold",
                      **_FONT}, label)
    bottom_y = top + row_h * max(len(rows), 1)
    out.tag("g", {"class": "x-axis", "font-size": 11, **_FONT}, close=False)
    k = 0
    while lo + k * step <= hi + step / 1000:
        v = lo + k * step
        x = x_of(v)
        out.tag("line", {"x1": x, "x2": x, "y1": top, "y2": bottom_y,
                         "stroke": _INK if abs(v) < step / 1000 else _GRID,
                         "stroke-width": 1.2 if abs(v) < step / 1000 else 0.8})
        out.text("text", {"x": x, "y": bottom_y + 15, "text-anchor": "middle"},
                 f"{v:+.0f}" if abs(v) >= step / 1000 else "0")
        k += 1
    out.text("text", {"class": "axis-label", "x": left + pw / 2, "y": height - 6,
                      "text-anchor": "middle"}, "Elo (95% error bars)")
    out.end("g")
    for i, r in enumerate(rows):
        y = top + row_h * i + row_h / 2
        out.tag("g", {"class": "player", "data-player": r.name, "data-elo": f"{r.elo:.1f}",
                      "data-error": f"{r.error:.1f}", "font-size": 12, **_FONT}, close=False)
        if i % 2 == 0:
            out.tag("rect", {"x": 0, "y": y - row_h / 2, "width": width, "height": row_h,
                             "fill": "#000000", "fill-opacity": 0.035})
        out.text("text", {"class": "name", "x": left - 10, "y": y + 4, "text-anchor": "end",
                          "font-weight": "bold"}, r.name)
        a, b = x_of(r.elo - r.error), x_of(r.elo + r.error)
        out.tag("line", {"class": "error-bar", "x1": a, "x2": b, "y1": y, "y2": y,
                         "stroke": _LINE, "stroke-width": 2})
        for x in (a, b):
            out.tag("line", {"x1": x, "x2": x, "y1": y - 6, "y2": y + 6,
                             "stroke": _LINE, "stroke-width": 2})
        out.tag("circle", {"class": "rating", "cx": x_of(r.elo), "cy": y, "r": 5,
                           "fill": SIDE_FILL[0], "stroke": SIDE_MARK[0], "stroke-width": 1.5})
        out.text("text", {"class": "value", "x": left + pw + 10, "y": y + 4},
                 f"{r.elo:+.0f} \u00b1 {r.error:.0f}  ({r.score:g}/{r.games})")
        out.end("g")
    out.end("svg")
    return "".join(out.parts)


class RatingPointLike(Protocol):
    """What :func:`rating_svg` reads of a point (a dict with these keys works too)."""

    @property
    def at(self) -> float: ...
    @property
    def rating(self) -> float: ...
    @property
    def rd(self) -> float: ...


def _rating_point(p: Mapping[str, Any] | RatingPointLike) -> tuple[float, float, float]:
    if isinstance(p, Mapping):
        return float(p["at"]), float(p["rating"]), float(p["rd"])
    return float(p.at), float(p.rating), float(p.rd)


def _date(at: float) -> str:
    return datetime.fromtimestamp(at, tz=UTC).strftime("%Y-%m-%d")


_DAY = 86_400
#: The date ticks' steps, in days: a tick every 1, 2, 7, 14 days, about 1, 2, 3, 6 months, 1 year...
_DAY_STEPS = (1, 2, 7, 14, 30, 61, 91, 182, 365, 730, 1826, 3652)


def rating_svg(
    history: Sequence[Mapping[str, Any] | RatingPointLike],
    *,
    width: int = 640,
    height: int = 300,
    title: str | None = None,
    words: Mapping[str, str] | None = None,
) -> str:
    """A player's rating over time: a line through the ratings, a band of rating +- rd.

    ``history`` is the player's points, oldest first, each a dict (or an
    object) with ``at`` (when, epoch seconds), ``rating`` and ``rd`` (its
    Glicko-2 deviation, :mod:`kamisado.web.basics.ratings`); other keys are ignored.
    x is the date (UTC, ``YYYY-MM-DD`` ticks), y the rating with round ticks.
    The shaded ``<path class="band">`` covers rating - rd to rating + rd
    (one deviation, about a 68% interval; not 2 rd), clipped to the chart so
    a new player's wide band does not squash the line; the scale follows the
    ratings.  The line is one ``<path class="curve">``; each point is a
    ``<circle class="point">`` with ``data-at``, ``data-rating`` (one
    decimal), ``data-rd`` and a ``<title>``.  No points: a chart saying "No
    rated games yet"; one point: a single dot in the middle.

    >>> import xml.etree.ElementTree as ET
    >>> svg = rating_svg([{"at": 1_780_000_000, "rating": 1500.0, "rd": 350.0},
    ...                   {"at": 1_780_090_000, "rating": 1662.3, "rd": 290.3}])
    >>> root = ET.fromstring(svg)
    >>> [c.get("data-rating") for c in root.iter("{http://www.w3.org/2000/svg}circle")]
    ['1500.0', '1662.3']
    >>> root.find("{http://www.w3.org/2000/svg}title").text
    'Rating history'
    """
    points = sorted((_rating_point(p) for p in history), key=lambda p: p[0])
    label = title if title is not None else _say(words, "rating_title")
    left, right, top, bottom = 58, 20, 40, 44
    pw, ph = max(width - left - right, 10), max(height - top - bottom, 10)

    out = _Out()
    out.tag("svg", {"xmlns": "http://www.w3.org/2000/svg", "width": str(width),
                    "height": str(height), "viewBox": f"0 0 {width} {height}",
                    "role": "img", "aria-label": label, "class": "rating-chart",
                    "data-points": str(len(points))}, close=False)
    out.text("title", {}, label)
    out.tag("rect", {"class": "background", "width": width, "height": height,
                     "fill": "#ffffff"})
    out.text("text", {"class": "chart-title", "x": width / 2, "y": 22,
                      "text-anchor": "middle", "font-size": 14, "font-weight": "bold",
                      **_FONT}, label)
    if not points:
        out.tag("rect", {"class": "frame", "x": left, "y": top, "width": pw, "height": ph,
                         "fill": "none", "stroke": _GRID, "stroke-width": 1})
        out.text("text", {"class": "empty", "x": left + pw / 2, "y": top + ph / 2 + 5,
                          "text-anchor": "middle", "font-size": 14, **_FONT},
                 _say(words, "no_rated_games"))
        out.end("svg")
        return "".join(out.parts)

    # the y scale: the ratings with some room, on round ticks
    ratings = [r for _, r, _ in points]
    lo, hi = min(ratings), max(ratings)
    pad = max(25.0, (hi - lo) * 0.08)
    lo, hi = lo - pad, hi + pad
    if hi - lo < 100:
        lo, hi = (lo + hi) / 2 - 50, (lo + hi) / 2 + 50
    step = _nice_step(hi - lo, max(2, ph // 50))
    lo, hi = math.floor(lo / step) * step, math.ceil(hi / step) * step

    def y_of(v: float) -> float:
        v = max(lo, min(hi, v))
        return top + ph - ph * (v - lo) / (hi - lo)

    # the x scale: the first game to the last (one point: a day around it)
    first, last = points[0][0], points[-1][0]
    at_once = last - first < 1
    if at_once:
        first, last = first - _DAY / 2, last + _DAY / 2

    def x_of(at: float) -> float:
        return left + pw * (at - first) / (last - first)

    out.tag("g", {"class": "y-axis", "font-size": 11, **_FONT}, close=False)
    k = 0
    while lo + k * step <= hi + step / 1000:
        v = lo + k * step
        y = y_of(v)
        out.tag("line", {"x1": left, "x2": left + pw, "y1": y, "y2": y,
                         "stroke": _GRID, "stroke-width": 0.8})
        out.text("text", {"x": left - 6, "y": y + 4, "text-anchor": "end"}, f"{v:.0f}")
        k += 1
    out.text("text", {"class": "axis-label",
                      "transform": f"translate(14,{_n(top + ph / 2)}) rotate(-90)",
                      "text-anchor": "middle"}, _say(words, "rating_axis"))
    out.end("g")

    out.tag("g", {"class": "x-axis", "font-size": 11, **_FONT}, close=False)
    out.tag("line", {"x1": left, "x2": left + pw, "y1": top + ph, "y2": top + ph,
                     "stroke": _INK, "stroke-width": 1})
    most = max(2, int(pw // 100))
    span_days = (last - first) / _DAY
    days = next((d for d in _DAY_STEPS if span_days / d <= most), _DAY_STEPS[-1])
    day0 = math.ceil(first / _DAY / days) * days
    ticks: list[float] = [d * _DAY for d in range(day0, math.floor(last / _DAY) + 1, days)]
    if at_once or not ticks:  # one moment, or within a day: the date under the first point
        ticks = [points[0][0]]
    for at in ticks:
        x = x_of(at)
        out.tag("line", {"x1": x, "x2": x, "y1": top + ph, "y2": top + ph + 4,
                         "stroke": _INK, "stroke-width": 1})
        anchor = "start" if x < left + 30 else "end" if x > left + pw - 30 else "middle"
        out.text("text", {"class": "date", "x": x, "y": top + ph + 16,
                          "text-anchor": anchor}, _date(at))
    out.text("text", {"class": "axis-label", "x": left + pw / 2, "y": height - 8,
                      "text-anchor": "middle"}, _say(words, "date_axis"))
    out.end("g")

    if len(points) > 1:
        upper = [f"{_n(x_of(at))},{_n(y_of(r + rd))}" for at, r, rd in points]
        lower = [f"{_n(x_of(at))},{_n(y_of(r - rd))}" for at, r, rd in reversed(points)]
        out.tag("path", {"class": "band", "d": "M" + " L".join(upper + lower) + " Z",
                         "fill": _LINE, "fill-opacity": 0.13, "stroke": "none"})
        curve = " L".join(f"{_n(x_of(at))},{_n(y_of(r))}" for at, r, _ in points)
        out.tag("path", {"class": "curve", "d": "M" + curve, "fill": "none",
                         "stroke": _LINE, "stroke-width": 2, "stroke-linejoin": "round"})

    out.tag("g", {"class": "points"}, close=False)
    small = 2.5 if len(points) > 120 else 3.2
    for at, r, rd in points:
        out.tag("circle", {"class": "point", "cx": x_of(at), "cy": y_of(r), "r": small,
                           "fill": "#ffffff", "stroke": _LINE, "stroke-width": 1.5,
                           "data-at": _n(at), "data-rating": f"{r:.1f}",
                           "data-rd": f"{rd:.1f}"}, close=False)
        out.text("title", {}, f"{_date(at)}: {r:.0f} \u00b1 {rd:.0f}")
        out.end("circle")
    out.end("g")
    out.end("svg")
    return "".join(out.parts)
