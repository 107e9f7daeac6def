"""PNG pictures of positions and animated GIFs of matches, through Pillow.

The pictures are :func:`kamisado.pictures.svg.board`'s SVG, painted by a small
painter for the shapes that module writes (rectangles, circles, paths of
straight and cubic Bézier segments, lines, polygons and text, with
translate/scale transforms, opacity and dashes), so a PNG and a GIF frame
look like the SVG.  It is drawn at three times the size and scaled down,
for smooth edges.

A GIF has one frame per step of :func:`kamisado.rules.record.replay`: each round's
start, then one frame per move (with the last-move marks: pushes dotted,
passes ringed in red), so ``moves + rounds`` frames.  A caption line under
the board says what the frame shows; the frame that ends a round says how
it ended and the score, and stays ``END_HOLD`` times as long.
"""

from __future__ import annotations

import io
import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from PIL import Image, ImageChops, ImageColor, ImageDraw, ImageFont

from kamisado.pictures.svg import board, marks
from kamisado.rules.board import COLOUR_NAMES, SIDE_NAMES
from kamisado.rules.match import Match
from kamisado.rules.position import Position
from kamisado.rules.record import Record, ReplayStep, replay

__all__ = ["END_HOLD", "SUPERSAMPLE", "caption", "frames", "image", "paint", "png", "save_gif"]

#: Painting is done this many times larger, then scaled down.
SUPERSAMPLE = 3
#: The frame that ends a round stays this many times the delay.
END_HOLD = 3

_Point = tuple[float, float]
_Tf = tuple[float, float, float]  # uniform scale, then offset: (s, tx, ty)
_RGB = tuple[int, int, int]


def _colour(text: str | None) -> _RGB | None:
    if text is None or text == "none":
        return None
    rgb = ImageColor.getrgb(text)
    return rgb[0], rgb[1], rgb[2]


def _transform(tf: _Tf, text: str | None) -> _Tf:
    s, tx, ty = tf
    for name, args in re.findall(r"(translate|scale)\(([^)]*)\)", text or ""):
        nums = [float(v) for v in re.split(r"[\s,]+", args.strip())]
        if name == "translate":
            dx, dy = nums[0], nums[1] if len(nums) > 1 else 0.0
            tx, ty = tx + s * dx, ty + s * dy
        else:
            s *= nums[0]
    return s, tx, ty


def _path(d: str) -> list[tuple[list[_Point], bool]]:
    """Subpaths of an SVG path (absolute M L H V C Z), flattened: (points, closed)."""
    out: list[tuple[list[_Point], bool]] = []
    pts: list[_Point] = []
    tokens = re.findall(r"[MLHVCZ]|-?\d*\.?\d+(?:e-?\d+)?", d)
    i, cmd = 0, "M"
    x = y = 0.0

    def num() -> float:
        nonlocal i
        i += 1
        return float(tokens[i - 1])

    while i < len(tokens):
        if tokens[i].isalpha():
            cmd = tokens[i]
            i += 1
            if cmd == "Z":
                if pts:
                    out.append((pts, True))
                pts = []
                continue
        if cmd == "M":
            if pts:
                out.append((pts, False))
            x, y = num(), num()
            pts = [(x, y)]
            cmd = "L"
        elif cmd == "L":
            x, y = num(), num()
            pts.append((x, y))
        elif cmd == "H":
            x = num()
            pts.append((x, y))
        elif cmd == "V":
            y = num()
            pts.append((x, y))
        elif cmd == "C":
            x1, y1, x2, y2, x3, y3 = (num() for _ in range(6))
            for k in range(1, 13):
                t = k / 12
                u = 1 - t
                pts.append((
                    u**3 * x + 3 * u * u * t * x1 + 3 * u * t * t * x2 + t**3 * x3,
                    u**3 * y + 3 * u * u * t * y1 + 3 * u * t * t * y2 + t**3 * y3,
                ))
            x, y = x3, y3
        else:  # pragma: no cover - kamisado.pictures.svg writes nothing else
            raise ValueError(f"unsupported path command {cmd!r}")
    if pts:
        out.append((pts, False))
    return out


def _dashes(points: list[_Point], pattern: list[float]) -> Iterator[list[_Point]]:
    """Pieces of a polyline drawn by a dash pattern (lengths in the same units)."""
    k, left, on = 0, pattern[0], True
    piece = [points[0]]
    for (x0, y0), (x1, y1) in zip(points, points[1:], strict=False):
        seg = math.hypot(x1 - x0, y1 - y0)
        pos = 0.0
        while seg - pos > left:
            pos += left
            p = (x0 + (x1 - x0) * pos / seg, y0 + (y1 - y0) * pos / seg)
            if on:
                piece.append(p)
                yield piece
            piece = [p]
            on = not on
            k = (k + 1) % len(pattern)
            left = pattern[k]
        left -= seg - pos
        piece.append((x1, y1))
    if on and len(piece) > 1:
        yield piece


class _Painter:
    def __init__(self, im: Image.Image) -> None:
        self.im = im
        self.draw = ImageDraw.Draw(im, "RGBA")
        self.masks: dict[tuple[str, float, float, float], tuple[Image.Image, int, int]] = {}

    def walk(self, el: ET.Element, tf: _Tf) -> None:
        tag = el.tag.rpartition("}")[2]
        tf = _transform(tf, el.get("transform"))
        if tag in ("svg", "g"):
            for child in el:
                self.walk(child, tf)
        elif tag == "rect":
            self.rect(el, tf)
        elif tag == "circle":
            self.circle(el, tf)
        elif tag == "path":
            self.path(el, tf)
        elif tag == "line":
            pts = [(float(el.get("x1", 0)), float(el.get("y1", 0))),
                   (float(el.get("x2", 0)), float(el.get("y2", 0)))]
            self.stroke(el, tf, pts, closed=False)
        elif tag == "polygon":
            nums = [float(v) for v in re.split(r"[\s,]+", el.get("points", "").strip())]
            pts = list(zip(nums[::2], nums[1::2], strict=True))
            self.stroke(el, tf, pts, closed=True)
            self.fill_polygon(el, tf, pts)
        elif tag == "text":
            self.text(el, tf)

    # -- helpers ---------------------------------------------------------------

    @staticmethod
    def _at(tf: _Tf, p: _Point) -> _Point:
        return tf[1] + tf[0] * p[0], tf[2] + tf[0] * p[1]

    @staticmethod
    def _paint(el: ET.Element, what: str) -> tuple[int, int, int, int] | None:
        rgb = _colour(el.get(what, "#000000" if what == "fill" else "none"))
        if rgb is None:
            return None
        alpha = float(el.get(f"{what}-opacity", 1))
        return rgb[0], rgb[1], rgb[2], round(255 * alpha)

    def stroke(self, el: ET.Element, tf: _Tf, pts: list[_Point], closed: bool) -> None:
        paint = self._paint(el, "stroke")
        if paint is None or len(pts) < 2:
            return
        width = float(el.get("stroke-width", 1)) * tf[0]
        w = max(1, round(width))
        line = [self._at(tf, p) for p in pts] + ([self._at(tf, pts[0])] if closed else [])
        dash = el.get("stroke-dasharray")
        pieces = [line] if dash is None else list(
            _dashes(line, [float(v) * tf[0] for v in dash.replace(",", " ").split()]))
        for piece in pieces:
            self.draw.line(piece, fill=paint, width=w, joint="curve")
            if el.get("stroke-linecap") == "round" or (closed and dash is None):
                for px, py in (piece[0], piece[-1]):
                    r = width / 2
                    self.draw.ellipse((px - r, py - r, px + r, py + r), fill=paint)

    def fill_polygon(self, el: ET.Element, tf: _Tf, pts: list[_Point]) -> None:
        paint = self._paint(el, "fill")
        if paint is not None:
            self.draw.polygon([self._at(tf, p) for p in pts], fill=paint)

    # -- shapes ------------------------------------------------------------------

    def rect(self, el: ET.Element, tf: _Tf) -> None:
        x, y = float(el.get("x", 0)), float(el.get("y", 0))
        w, h = float(el.get("width", 0)), float(el.get("height", 0))
        (x0, y0), (x1, y1) = self._at(tf, (x, y)), self._at(tf, (x + w, y + h))
        paint = self._paint(el, "fill")
        if paint is not None:
            r = float(el.get("rx", 0)) * tf[0]
            self.draw.rounded_rectangle((x0, y0, x1 - 1, y1 - 1), radius=r, fill=paint)
        stroke = self._paint(el, "stroke")
        if stroke is None:
            return
        if el.get("stroke-dasharray") is None:  # four bars: square corners
            half = float(el.get("stroke-width", 1)) * tf[0] / 2
            for box in ((x0 - half, y0 - half, x1 + half, y0 + half),
                        (x0 - half, y1 - half, x1 + half, y1 + half),
                        (x0 - half, y0 + half, x0 + half, y1 - half),
                        (x1 - half, y0 + half, x1 + half, y1 - half)):
                self.draw.rectangle((box[0], box[1], box[2] - 1, box[3] - 1), fill=stroke)
            return
        corners = [(x, y), (x + w, y), (x + w, y + h), (x, y + h)]
        self.stroke(el, tf, corners, closed=True)

    def circle(self, el: ET.Element, tf: _Tf) -> None:
        cx, cy = self._at(tf, (float(el.get("cx", 0)), float(el.get("cy", 0))))
        r = float(el.get("r", 0)) * tf[0]
        paint = self._paint(el, "fill")
        if paint is not None:
            self.draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=paint)
        stroke = self._paint(el, "stroke")
        if stroke is None:
            return
        width = float(el.get("stroke-width", 1)) * tf[0]
        if el.get("stroke-dasharray") is None:
            o = r + width / 2
            self.draw.ellipse((cx - o, cy - o, cx + o, cy + o), outline=stroke,
                              width=max(1, round(width)))
            return
        n = 120
        s = tf[0]
        pts = [((cx + r * math.cos(2 * math.pi * k / n) - tf[1]) / s,
                (cy + r * math.sin(2 * math.pi * k / n) - tf[2]) / s) for k in range(n + 1)]
        self.stroke(el, tf, pts, closed=False)

    def path(self, el: ET.Element, tf: _Tf) -> None:
        subpaths = _path(el.get("d", ""))
        fill_first = el.get("paint-order") != "stroke"
        if fill_first:
            self.fill_path(el, tf, subpaths)
        for pts, closed in subpaths:
            self.stroke(el, tf, pts, closed)
        if not fill_first:
            self.fill_path(el, tf, subpaths)

    def fill_path(self, el: ET.Element, tf: _Tf,
                  subpaths: list[tuple[list[_Point], bool]]) -> None:
        """Fill with the even-odd rule (a glyph's holes stay open)."""
        paint = self._paint(el, "fill")
        if paint is None or not subpaths:
            return
        d = el.get("d", "")
        s, tx, ty = tf
        key = (d, s, tx % 1, ty % 1)
        if key not in self.masks:
            pts = [(tx % 1 + s * x, ty % 1 + s * y) for sub, _ in subpaths for x, y in sub]
            left = math.floor(min(p[0] for p in pts)) - 1
            top = math.floor(min(p[1] for p in pts)) - 1
            width = math.ceil(max(p[0] for p in pts)) - left + 2
            height = math.ceil(max(p[1] for p in pts)) - top + 2
            mask = Image.new("1", (width, height))
            for sub, _ in subpaths:
                if len(sub) < 3:
                    continue
                one = Image.new("1", (width, height))
                ImageDraw.Draw(one).polygon(
                    [(tx % 1 + s * x - left, ty % 1 + s * y - top) for x, y in sub], fill=1)
                mask = ImageChops.logical_xor(mask, one)
            self.masks[key] = (mask.convert("L"), left, top)
        mask, left, top = self.masks[key]
        if paint[3] < 255:
            alpha = paint[3]
            mask = mask.point(lambda v: v * alpha // 255)
        colour = Image.new("RGB", mask.size, paint[:3])
        self.im.paste(colour, (int(tx // 1) + left, int(ty // 1) + top), mask)

    def text(self, el: ET.Element, tf: _Tf) -> None:
        paint = self._paint(el, "fill")
        if paint is None or not el.text:
            return
        size = float(el.get("font-size", 16)) * tf[0]
        font = _font(size)
        x, y = self._at(tf, (float(el.get("x", 0)), float(el.get("y", 0))))
        anchor = "ms" if el.get("text-anchor") == "middle" else "ls"
        bold = el.get("font-weight") == "bold"
        self.draw.text((x, y), el.text, fill=paint, font=font, anchor=anchor,
                       stroke_width=max(1, round(size / 24)) if bold else 0,
                       stroke_fill=paint if bold else None)


def _font(size: float) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(max(1.0, size))


def paint(svg: str) -> Image.Image:
    """An SVG written by :func:`kamisado.pictures.svg.board`, painted as an RGB image."""
    root = ET.fromstring(svg)
    size = int(root.get("width", "400"))
    view = float(root.get("viewBox", "0 0 816 816").split()[2])
    big = size * SUPERSAMPLE
    im = Image.new("RGB", (big, big), "white")
    _Painter(im).walk(root, (big / view, 0.0, 0.0))
    return im.reduce(SUPERSAMPLE)


def image(position: Position, **options: Any) -> Image.Image:
    """``position`` as a Pillow image, drawn by :func:`kamisado.pictures.svg.board` with
    the same keyword options (``size``, ``lastmove``, ``characters`` ...)."""
    return paint(board(position, **options))


def png(position: Position, path: str | Path | None = None, **options: Any) -> bytes:
    """``position`` as PNG bytes (also written to ``path`` when given); the
    options are :func:`kamisado.pictures.svg.board`'s."""
    buf = io.BytesIO()
    image(position, **options).save(buf, format="PNG", optimize=True)
    data = buf.getvalue()
    if path is not None:
        Path(path).write_bytes(data)
    return data


def caption(step: ReplayStep, score: list[int]) -> str:
    """The caption line of a GIF frame; ``score`` is the match's points
    after the step (with the round's points once it ends)."""
    if step.outcome is not None:
        o = step.outcome
        return (f"{SIDE_NAMES[o.winner]} wins round {step.round} ({COLOUR_NAMES[o.colour]},"
                f" {o.reason}, +{o.points}): {score[0]}-{score[1]}")
    if step.ply == 0:
        fill = f" ({step.fill} fill)" if step.fill else ""
        return f"Round {step.round}{fill}: start, Black {score[0]}, Gold {score[1]}"
    side = "Gold" if step.position.move_stack and step.position.peek().turn else "Black"
    passes = "".join(
        f", {SIDE_NAMES[p.side]}'s {COLOUR_NAMES[p.colour]} passes"
        for p in step.position.passes())
    return f"Round {step.round}, move {step.ply}: {side} {step.move}{passes}"


def frames(record: Record | Match, *, size: int = 400,
           characters: bool = False) -> Iterator[tuple[Image.Image, bool]]:
    """Every frame of the GIF of ``record`` and whether it ends a round."""
    match = record.match if isinstance(record, Record) else record
    points = [0, 0] if match.series else match.rounds[0].start.points[:]
    bar = max(18, size // 16)
    font = _font(bar * 0.62)
    for step in replay(record):
        if step.outcome is not None:
            points[step.outcome.winner] += 1 if match.series else step.outcome.points
        pos = step.position
        picture = image(pos, size=size, characters=characters, coordinates=size >= 240,
                        **marks(pos))
        frame = Image.new("RGB", (size, size + bar), "#2b2118")
        frame.paste(picture, (0, 0))
        draw = ImageDraw.Draw(frame)
        text = caption(step, points)
        while font.getlength(text) > size - 8 and len(text) > 4:
            text = text[:-2].rstrip(" .,…") + "…"
        draw.text((size / 2, size + bar / 2), text, fill="#ffffff", font=font, anchor="mm")
        yield frame, step.outcome is not None


def save_gif(record: Record | Match, path: str | Path, *, size: int = 400,
             delay: int = 700, characters: bool = False) -> int:
    """Write ``record`` as an animated GIF (one frame per round start and per
    move, each shown ``delay`` milliseconds, a round's end ``END_HOLD`` times
    as long); returns the number of frames."""
    pictures: list[Image.Image] = []
    durations: list[int] = []
    for frame, ends in frames(record, size=size, characters=characters):
        pictures.append(frame)
        durations.append(delay * END_HOLD if ends else delay)
    pictures[0].save(path, format="GIF", save_all=True, append_images=pictures[1:],
                     duration=durations, loop=0, optimize=True, disposal=1)
    return len(pictures)
