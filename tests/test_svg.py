"""kamisado.pictures.svg: positions drawn as SVG with the web board's look."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from kamisado.pictures import svg
from kamisado.rules.board import (
    COLOUR_NAMES,
    SIDE_NAMES,
    SQUARE_COLOUR,
    SQUARE_NAMES,
    parse_square,
)
from kamisado.rules.match import Match
from kamisado.rules.position import Position
from kamisado.rules.record import Record, replay

FIG9 = json.loads((Path(__file__).parent / "data" / "rulebook.json").read_text())["fig9"]


def parse(text: str) -> ET.Element:
    return ET.fromstring(text)


def groups(root: ET.Element, cls: str) -> list[ET.Element]:
    return [g for g in root.iter("{http://www.w3.org/2000/svg}g")
            if cls in (g.get("class") or "").split()]


def fig9_after_push() -> Position:
    pos = Position(FIG9["kpn"])
    pos.push_move("h7-f5")
    pos.push_move("d4-d5")  # the green Double pushes two towers
    return pos


def check_board(root: ET.Element, pos: Position) -> None:
    squares = groups(root, "square")
    assert len(squares) == 64
    seen = set()
    for g in squares:
        sq = parse_square(g.get("data-square", ""))
        seen.add(sq)
        assert g.get("data-colour") == COLOUR_NAMES[SQUARE_COLOUR[sq]]
        rect = g.find("{*}rect")
        assert rect is not None and rect.get("fill") == svg.HEX[SQUARE_COLOUR[sq]]
    assert seen == set(range(64))
    towers = groups(root, "tower")
    assert len(towers) == 16
    for g in towers:
        sq = parse_square(g.get("data-square", ""))
        t = pos.tower_at(sq)
        assert t is not None
        side, colour, rings = t
        assert g.get("data-side") == SIDE_NAMES[side].lower()
        assert g.get("data-colour") == COLOUR_NAMES[colour]
        assert g.get("data-rings") == str(rings)
        assert len(g.findall("{*}circle[@class='ring']")) == rings
        assert (g.find("{*}g[@class='rank']") is not None) == (rings > 0)


@pytest.mark.parametrize("kpn", [None, FIG9["kpn"], "1n+o1u1g1/7p/3y+4/3br+2P+/3G++4/8/8/N+1RY1UBO g p 7 5 3"])
@pytest.mark.parametrize("flipped", [False, True])
@pytest.mark.parametrize("characters", [False, True])
def test_squares_and_towers_match_the_position(kpn: str | None, flipped: bool,
                                               characters: bool) -> None:
    pos = Position() if kpn is None else Position(kpn)
    root = parse(svg.board(pos, flipped=flipped, characters=characters))
    check_board(root, pos)
    chars = [p for p in root.iter("{http://www.w3.org/2000/svg}path")
             if p.get("class") in ("sqchar", "towerchar")]
    dragons = [p for p in root.iter("{http://www.w3.org/2000/svg}path")
               if p.get("class") == "dragon"]
    assert (len(chars), len(dragons)) == ((64 + 16, 0) if characters else (0, 16))


def test_size_coordinates_title_and_flip() -> None:
    root = parse(svg.board(Position(), size=123, coordinates=True))
    assert root.get("width") == root.get("height") == "123"
    assert root.get("viewBox") == f"0 0 {svg.VIEW} {svg.VIEW}"
    coords = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")
              if t.get("class") == "coord"]
    assert sorted(coords) == sorted(SQUARE_NAMES)
    assert root.findtext("{*}title") == Position().kpn()
    plain = parse(svg.board(Position(), coordinates=False, title="Start"))
    assert not [t for t in plain.findall(".//{*}text") if t.get("class") == "coord"]
    assert plain.findtext("{*}title") == "Start"

    def where(root: ET.Element, name: str) -> str | None:
        g = next(g for g in groups(root, "square") if g.get("data-square") == name)
        return g.get("transform")

    assert where(root, "a1") == "translate(8,708)"
    flipped = parse(svg.board(Position(), flipped=True))
    assert where(flipped, "a1") == "translate(708,8)"
    assert where(flipped, "h8") == "translate(8,708)"


def test_last_move_frames_pushes_and_marks() -> None:
    pos = fig9_after_push()
    m = svg.marks(pos)
    assert str(m["lastmove"]) == "d4-d5"
    assert [SQUARE_NAMES[s] for s in m["pushed"]] == ["d6", "d7"]
    root = parse(svg.board(pos, **m))
    rects = list(root.iter("{http://www.w3.org/2000/svg}rect"))

    def frames(kind: str) -> list[ET.Element]:
        return [r for r in rects if (r.get("class") or "").startswith(kind + " ")]

    came, went, pushed = frames("last-from"), frames("last-to"), frames("pushed-to")
    assert {r.get("data-square") for r in came} == {"d4"}
    assert {r.get("data-square") for r in went} == {"d5"}
    assert sorted({str(r.get("data-square")) for r in pushed}) == ["d6", "d7"]
    # dark under white; dashed where it came from, solid where it went, dotted pushes
    assert [r.get("stroke") for r in came] == ["#111111", "#ffffff"]
    assert all(r.get("stroke-dasharray") == "16 10" for r in came)
    assert all(r.get("stroke-dasharray") is None for r in went)
    assert [r.get("stroke-dasharray") for r in pushed if "mark" in str(r.get("class")).split()] \
        == ["5 5", "5 5"]
    # the green Double must move again: the dashed ring round it
    must = [c for c in root.findall(".//{*}circle") if c.get("class") == "must"]
    assert len(must) == 1
    # a plain move string works too, and no marks by default
    assert frames("last-to")[0].get("x") is not None
    root = parse(svg.board(pos))
    assert not [r for r in root.findall(".//{*}rect") if "mark" in (r.get("class") or "")]
    root = parse(svg.board(pos, lastmove="d4-d5", must=False))
    assert not [c for c in root.findall(".//{*}circle") if c.get("class") == "must"]
    assert len([r for r in root.findall(".//{*}rect") if "mark" in (r.get("class") or "")]) == 4


def test_passes_are_marked() -> None:
    # after h8-h7 Black's purple on e7 is blocked: it passes (M6)
    pos = Position()
    for move in ["f1-e2", "g8-a2", "e2-e7", "b8-b7", "h1-c6", "a8-a7", "c1-c3", "h8-h7"]:
        pos.push_move(move)
    m = svg.marks(pos)
    assert [SQUARE_NAMES[s] for s in m["passed"]] == ["e7"]
    root = parse(svg.board(pos, **m))
    passed = groups(root, "tower")
    ringed = [g.get("data-square") for g in passed
              if g.find("{*}circle[@class='passed']") is not None]
    assert ringed == ["e7"]


def test_legal_destinations() -> None:
    pos = Position()
    root = parse(svg.board(pos, legal_from="c1"))
    dests = {c.get("data-dest") for c in root.findall(".//{*}circle")
             if (c.get("class") or "").startswith("dest")}
    want = {SQUARE_NAMES[m.to_square] for m in pos.legal_moves if SQUARE_NAMES[m.from_square] == "c1"}
    assert dests == want and len(want) > 5
    # a push is a red dashed ring on the pushed tower
    push = Position("obupy1gn/8/8/3r4/3R+4/8/8/NG1YPUBO b r 3 1 0")
    root = parse(svg.board(push, legal_from=parse_square("d4")))
    rings = [c for c in root.findall(".//{*}circle") if c.get("class") == "dest push"]
    assert [c.get("data-dest") for c in rings] == ["d5"]
    # a tower that may not move has no destinations
    root = parse(svg.board(pos, legal_from="a8"))
    assert not [c for c in root.findall(".//{*}circle") if c.get("data-dest")]


def test_arrows() -> None:
    root = parse(svg.board(Position(), arrows=[("c1", "c5", "red"), (0, 9, "#123456")]))
    arrows = groups(root, "arrow")
    assert [(a.get("data-from"), a.get("data-to")) for a in arrows] == [("c1", "c5"), ("a1", "b2")]
    fills = [p.get("fill") for a in arrows for p in a.findall("{*}polygon")]
    assert svg.HEX[COLOUR_NAMES.index("red")] in fills and "#123456" in fills
    assert svg.arrows_of(["c1-c5", "h8-h2"], "blue") == [("c1", "c5", "blue"), ("h8", "h2", "blue")]


def test_repr_svg_of_position_match_and_record_steps() -> None:
    pos = fig9_after_push()
    check_board(parse(pos._repr_svg_()), pos)
    assert "pushed-to" in pos._repr_svg_()
    assert "last-from" not in Position()._repr_svg_()
    match = Match(7, start=FIG9["kpn"])
    for move in FIG9["moves"]:
        match.push_move(move)
    root = parse(match._repr_svg_())
    check_board(root, match.position)
    assert {r.get("data-square") for r in root.findall(".//{*}rect")
            if r.get("class") == "last-to mark"} == {"h8"}
    rec = Record.new(match, "Ludmilla", "Alan", "2026-01-01")
    for step in replay(rec):
        check_board(parse(svg.board(step.position, **svg.marks(step.position))), step.position)


def test_deterministic_and_glyphs() -> None:
    pos = fig9_after_push()
    assert svg.board(pos, characters=True) == svg.board(pos.copy(), characters=True)
    chars = "".join(svg.glyph(c)[0] for c in range(8))
    assert chars == "茶綠紅黃桃紫藍橙"
    assert all(svg.glyph(c)[1].startswith("M") for c in range(8))
