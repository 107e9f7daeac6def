"""PNG pictures and animated GIFs through Pillow (kamisado.pictures.gif, show --png, gif)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kamisado.cli import main
from kamisado.pictures import svg
from kamisado.rules import record
from kamisado.rules.board import SQUARE_COLOUR, parse_square
from kamisado.rules.match import Match
from kamisado.rules.position import Position

Image = pytest.importorskip("PIL.Image")
ImageSequence = pytest.importorskip("PIL.ImageSequence")
from kamisado.pictures import gif  # noqa: E402

FIG9 = json.loads((Path(__file__).parent / "data" / "rulebook.json").read_text())["fig9"]


def rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def centre(square: str, size: int, flipped: bool = False) -> tuple[int, int]:
    x, y = svg.square_box(square, flipped)
    k = size / svg.VIEW
    return round((x + 50) * k), round((y + 50) * k)


def corner(square: str, size: int) -> tuple[int, int]:
    """A point inside the square near its top right (no tower, no coordinate)."""
    x, y = svg.square_box(square)
    k = size / svg.VIEW
    return round((x + 92) * k), round((y + 8) * k)


def close(a: tuple[int, ...], b: tuple[int, int, int], tol: int = 6) -> bool:
    return all(abs(p - q) <= tol for p, q in zip(a, b, strict=False))


def play_out(match: Match) -> None:
    """Finish a match quickly: a winning move when there is one, else the first."""
    while match.state != "over":
        if match.state == "fill":
            match.choose_fill("left")
            continue
        side = match.position.turn
        moves = match.legal_moves()
        pick = moves[0]
        for m in moves:
            match.position.push(m)
            o = match.position.outcome
            match.position.pop()
            if o is not None and o.winner == side:
                pick = m
                break
        match.push_move(pick)


def test_show_png_size_and_square_colours(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "start.png"
    assert main(["show", "--png", str(out), "--size", "300", Position().kpn()]) == 0
    assert capsys.readouterr().out == ""
    with Image.open(out) as im:
        assert im.format == "PNG" and im.size == (300, 300)
        im = im.convert("RGB")
        for name in ("d4", "e5", "a3", "h6"):  # empty squares: their own colour
            want = rgb(svg.HEX[SQUARE_COLOUR[parse_square(name)]])
            assert close(im.getpixel(centre(name, 300)), want), name
        # a1: Black's brown tower (a black body round a brown disc)
        x, y = centre("a1", 300)
        assert close(im.getpixel((x, y + round(21 * 300 / svg.VIEW))), rgb(svg.HEX[0]), 10)
        assert close(im.getpixel((x - round(33 * 300 / svg.VIEW), y)), rgb(svg.SIDE_FILL[0]), 12)
        # h8: Gold's brown tower, a gold body
        x, y = centre("h8", 300)
        assert close(im.getpixel((x + round(33 * 300 / svg.VIEW), y)), rgb(svg.SIDE_FILL[1]), 12)


def test_show_svg_and_png_flipped(tmp_path: Path) -> None:
    kpn = FIG9["kpn"]
    svg_file, png_file = tmp_path / "b.svg", tmp_path / "b.png"
    assert main(["show", "--svg", str(svg_file), "--png", str(png_file), "--flipped",
                 "--characters", kpn]) == 0
    text = svg_file.read_text()
    assert text.strip() == svg.board(Position(kpn), flipped=True, characters=True)
    with Image.open(png_file) as im:
        assert im.size == (400, 400)
        im = im.convert("RGB")
        fx, fy = svg.square_box("h1", True)
        px = round((fx + 92) * 400 / svg.VIEW), round((fy + 8) * 400 / svg.VIEW)
        assert close(im.getpixel(px), rgb(svg.HEX[SQUARE_COLOUR[parse_square("h1")]]))


def test_show_text_unchanged_and_errors(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", "--plain", Position().kpn()]) == 0
    assert capsys.readouterr().out.startswith("Black to move")
    bad = tmp_path / "missing" / "x.png"
    assert main(["show", "--png", str(bad), Position().kpn()]) == 2
    assert "cannot write" in capsys.readouterr().err


def test_png_of_last_move_frames() -> None:
    pos = Position()
    pos.push_move("c1-c5")
    im = gif.image(pos, size=svg.VIEW, **svg.marks(pos)).convert("RGB")
    # the solid white frame round c5, 4 units in from its edge, on a dark one
    x, y = svg.square_box("c5")
    assert close(im.getpixel((x + 50, y + 4)), (255, 255, 255), 30)
    assert close(im.getpixel((x + 50, y + 7)), (0x11, 0x11, 0x11), 30)
    assert gif.png(pos).startswith(b"\x89PNG")


def test_gif_of_a_match_frames_and_durations(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    match = Match(3)
    play_out(match)
    moves = sum(len(r.moves) for r in match.rounds)
    rounds = len(match.rounds)
    assert rounds >= 2
    path = tmp_path / "m.kmr"
    record.save(record.Record.new(match, "A", "B", "2026-01-01"), path)
    out = tmp_path / "m.gif"
    assert main(["gif", str(path), str(out), "--size", "120", "--delay", "250"]) == 0
    assert capsys.readouterr().out.strip() == f"{out}: {moves + rounds} frames"
    with Image.open(out) as im:
        assert im.format == "GIF" and im.n_frames == moves + rounds
        bar = max(18, 120 // 16)
        assert im.size == (120, 120 + bar)
        durations = [f.info["duration"] for f in ImageSequence.Iterator(im)]
    assert durations.count(250 * gif.END_HOLD) == rounds
    assert sum(durations) == 250 * (moves + rounds) + 250 * (gif.END_HOLD - 1) * rounds


def test_gif_captions_and_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    match = Match(7, start=FIG9["kpn"])
    for move in FIG9["moves"]:
        match.push_move(move)
    steps = list(record.replay(match))
    texts = [gif.caption(s, [7, 3] if s.outcome else [5, 3]) for s in steps]
    assert texts[0] == "Round 1: start, Black 5, Gold 3"
    assert texts[1] == "Round 1, move 1: Gold h7-f5"
    assert texts[-1] == "Black wins round 1 (pink, goal, +2): 7-3"
    n = gif.save_gif(match, tmp_path / "f.gif", size=100, delay=100)
    assert n == len(FIG9["moves"]) + 1
    assert main(["gif", str(tmp_path / "nope.kmr"), str(tmp_path / "x.gif")]) == 2
    assert "cannot read" in capsys.readouterr().err
