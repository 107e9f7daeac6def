"""Charts (kamisado.pictures.graph): evaluation curves, Elo charts, ``kamisado analyse --graph``."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from functools import cache
from pathlib import Path

import pytest

from kamisado import engine
from kamisado.engine import review
from kamisado.engine.levels import player
from kamisado.engine.limits import Limit
from kamisado.pictures import graph
from kamisado.pictures.svg import SIDE_FILL
from kamisado.protocol.elo import elo_table
from kamisado.rules import record
from kamisado.rules.board import BLACK, GOLD
from kamisado.rules.match import Match
from kamisado.rules.position import Position

NS = "{http://www.w3.org/2000/svg}"
NODES = 1500


@cache
def standard_match() -> Match:
    """A whole Standard match between two quick levels (several rounds)."""
    players = {0: player("beginner", seed=3), 1: player("novice", seed=4)}
    m = Match(3)
    while m.state != "over":
        if m.state == "fill":
            winner = m.rounds[-1].outcome.winner  # type: ignore[union-attr]
            m.choose_fill(players[winner].choose_fill(m))
            continue
        m.push_move(players[m.position.turn].choose_move(m.position))
    return m


def test_points_follow_the_replay_and_match_direct_searches() -> None:
    m = standard_match()
    points = review.evaluations(m, nodes=NODES)
    steps = list(record.replay(m))
    assert len(points) == len(steps) == sum(len(r.moves) + 1 for r in m.rounds)
    assert [p.ply_index for p in points] == list(range(len(points)))
    for p, s in zip(points, steps, strict=True):
        assert (p.round, p.ply, p.kpn) == (s.round, s.ply, s.position.kpn())
        assert p.move_text == ("" if s.move is None else str(s.move))
        assert (p.round_end is not None) == (s.outcome is not None)
        assert (p.score_cp is None) == (p.proven is not None)
    # two positions, one with each side to move, as the analysis sees them
    checked = 0
    for p, s in zip(points, steps, strict=True):
        if s.outcome is not None or s.position.turn != (BLACK if checked == 0 else GOLD):
            continue
        r = engine.search(s.position, limit=Limit(nodes=NODES))
        if r.value.is_proven:
            winner = s.position.turn if r.value.kind == "win" else 1 - s.position.turn
            assert p.proven == (winner, r.value.value)
        else:
            sign = 1 if s.position.turn == BLACK else -1
            assert p.score_cp == sign * r.value.value
            checked += 1
        if checked == 2:
            break
    assert checked == 2
    # no clock: the same budget gives the same points
    assert review.evaluations(m, nodes=NODES) == points


def test_a_proven_position_and_the_end_of_a_round() -> None:
    m = Match(1, start=Position("o1upyrgn/8/8/1P6/6Bb/N6O/8/1GRY1U2 b p 1 0 0"))
    m.push_move("b5-b8")
    first, last = review.evaluations(m, nodes=100)
    assert (first.proven, first.score_cp, first.round_end) == ((BLACK, 1), None, None)
    assert (last.proven, last.move_text, last.round_end) == ((BLACK, 0), "b5-b8", "Black +1 (1-0)")
    assert graph.format_point(first) == "0 round 1 move 0 start Black wins in 1"


def test_the_evaluation_chart() -> None:
    m = standard_match()
    points = review.evaluations(m, nodes=NODES)
    root = ET.fromstring(graph.evaluation_svg(points, width=800, height=300))
    assert root.get("width") == "800" and root.get("viewBox") == "0 0 800 300"
    circles = [c for c in root.iter(f"{NS}circle") if "point" in (c.get("class") or "")]
    assert [c.get("data-ply") for c in circles] == [str(p.ply_index) for p in points]
    bands = {(e.get("class") or "").split()[-1]: e for e in root.iter(f"{NS}rect")
             if "band" in (e.get("class") or "")}
    top = float(bands["black"].get("y") or 0)
    bottom = float(bands["gold"].get("y") or 0) + float(bands["gold"].get("height") or 0)
    proven = 0
    for c, p in zip(circles, points, strict=True):
        classes = (c.get("class") or "").split()
        assert c.find(f"{NS}title") is not None
        if p.proven is None:
            assert "cp" in classes and c.get("data-score") == str(p.score_cp)
            assert top < float(c.get("cy") or 0) < bottom
        else:
            proven += 1
            winner, distance = p.proven
            assert "proven" in classes and c.get("fill") == SIDE_FILL[winner]
            assert c.get("data-distance") == str(distance)
            # proven wins on the edge: Black's at the top, Gold's at the bottom
            assert float(c.get("cy") or 0) == (top if winner == BLACK else bottom)
    assert proven >= len(m.rounds)  # every round's last position at least
    ends = [e for e in root.iter(f"{NS}line") if e.get("class") == "round-end"]
    assert [e.get("data-round") for e in ends] == [str(i + 1) for i in range(len(m.rounds))]
    labels = [t.text for t in root.iter(f"{NS}text") if t.get("class") == "round-result"]
    assert labels == [p.round_end for p in points if p.round_end]
    assert labels[-1].endswith(f"({m.points[0]}-{m.points[1]})")
    paths = [e for e in root.iter(f"{NS}path") if e.get("class") == "curve"]
    assert len(paths) == 1 and (paths[0].get("d") or "").count("M") == len(m.rounds)


def test_evaluations_clamp_and_an_empty_chart() -> None:
    pts = [graph.Point(0, 1, 5000, None, ""), graph.Point(1, 1, -5000, None, "c1-c5", 1)]
    root = ET.fromstring(graph.evaluation_svg(pts))
    ys = [float(c.get("cy") or 0) for c in root.iter(f"{NS}circle")]
    band = [float(e.get("y") or 0) for e in root.iter(f"{NS}rect")
            if "band" in (e.get("class") or "")]
    assert band[0] < ys[0] < ys[1]  # clamped inside the chart, below the proven edge
    assert ET.fromstring(graph.evaluation_svg([])).get("class") == "evaluation-chart"
    with pytest.raises(ValueError):
        graph.evaluation_svg(pts, cp_range=0)


def test_the_elo_chart() -> None:
    results = [("club", "novice", 1.0)] * 6 + [("club", "novice", 0.0)] * 2
    results += [("novice", "beginner", 1.0)] * 3
    table = elo_table(results, anchor="beginner")
    root = ET.fromstring(graph.elo_svg(table, title="Ladder"))
    rows = [g for g in root.iter(f"{NS}g") if g.get("class") == "player"]
    assert [g.get("data-player") for g in rows] == ["club", "novice", "beginner"]
    for g, r in zip(rows, table, strict=True):
        assert g.get("data-elo") == f"{r.elo:.1f}" and g.get("data-error") == f"{r.error:.1f}"
        bar = next(e for e in g.iter(f"{NS}line") if e.get("class") == "error-bar")
        dot = next(e for e in g.iter(f"{NS}circle") if e.get("class") == "rating")
        x1, x2, cx = (float(v or 0) for v in (bar.get("x1"), bar.get("x2"), dot.get("cx")))
        assert x1 <= cx <= x2 and (x1 < x2) == (r.error > 0)
    assert root.find(f"{NS}title").text == "Ladder"  # type: ignore[union-attr]


def test_analyse_graph_writes_the_chart(tmp_path: Path) -> None:
    m = Match(1, start=Position("o1upyrgn/8/8/1P6/6Bb/N6O/8/1GRY1U2 b p 1 0 0"))
    m.push_move("b5-b8")
    rec = tmp_path / "game.txt"
    record.save(record.Record.new(m, "Ann", "Bob", "2026-01-01"), rec)
    out = tmp_path / "eval.svg"
    r = subprocess.run(
        [sys.executable, "-m", "kamisado.cli", "analyse", "--graph", str(out), str(rec),
         "--nodes", "500"], capture_output=True, text=True, timeout=60)
    assert (r.returncode, r.stderr) == (0, "")
    assert r.stdout.splitlines() == [
        "0 round 1 move 0 start Black wins in 1",
        "1 round 1 move 1 b5-b8 Black wins: Black +1 (1-0)",
        f"{out}: 2 positions",
    ]
    root = ET.fromstring(out.read_text())
    assert [c.get("data-ply") for c in root.iter(f"{NS}circle")] == ["0", "1"]
    assert root.find(f"{NS}title").text == "Ann - Bob: Black 1, Gold 0 (goal)"  # type: ignore[union-attr]
    bad = subprocess.run(
        [sys.executable, "-m", "kamisado.cli", "analyse", "--graph", str(out),
         str(tmp_path / "missing.txt")], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stdout == "" and "cannot read" in bad.stderr


def rating_history(n: int, start: float = 1_780_000_000.0) -> list[dict[str, float]]:
    """``n`` rating points a day apart (a new player's climb and wobble)."""
    out, rating, rd = [], 1500.0, 350.0
    for i in range(n):
        out.append({"at": start + i * 86_400.0, "rating": rating, "rd": rd, "games": i})
        rating += 60.0 if i % 3 else -35.0
        rd = max(60.0, rd * 0.85)
    return out


def test_the_rating_chart_points_and_their_data() -> None:
    history = rating_history(12)
    root = ET.fromstring(graph.rating_svg(history))
    assert root.get("role") == "img" and root.get("class") == "rating-chart"
    assert root.find(f"{NS}title").text == "Rating history"  # type: ignore[union-attr]
    dots = [c for c in root.iter(f"{NS}circle") if c.get("class") == "point"]
    assert len(dots) == 12
    for c, p in zip(dots, history, strict=True):
        assert float(c.get("data-at") or 0) == p["at"]
        assert c.get("data-rating") == f"{p['rating']:.1f}"
        assert c.get("data-rd") == f"{p['rd']:.1f}"
        assert c.find(f"{NS}title") is not None
    xs = [float(c.get("cx") or 0) for c in dots]
    assert xs == sorted(xs) and xs[0] < xs[-1]
    paths = {p.get("class"): p for p in root.iter(f"{NS}path")}
    assert set(paths) == {"band", "curve"}
    dates = [t.text or "" for t in root.iter(f"{NS}text") if t.get("class") == "date"]
    assert dates and all(len(d) == 10 and d[4] == "-" for d in dates)
    assert dates[0] >= "2026-05-28" and dates == sorted(dates)


def test_the_rating_chart_draws_a_higher_rating_higher() -> None:
    history = [{"at": 1_780_000_000.0 + i * 3600, "rating": r, "rd": 80.0}
               for i, r in enumerate([1500.0, 1720.0, 1310.0, 1500.0])]
    root = ET.fromstring(graph.rating_svg(history))
    ys = {float(c.get("data-rating") or 0): float(c.get("cy") or 0)
          for c in root.iter(f"{NS}circle")}
    assert ys[1720.0] < ys[1500.0] < ys[1310.0]  # SVG's y grows downwards
    # the y ticks are round numbers, larger ones higher up
    ticks = [(float(t.get("y") or 0), int(t.text or "0")) for g in root.iter(f"{NS}g")
             if g.get("class") == "y-axis" for t in g.iter(f"{NS}text")
             if (t.text or "").isdigit()]
    assert len(ticks) >= 3 and all(v % 50 == 0 for _, v in ticks)
    assert [v for _, v in sorted(ticks)] == sorted((v for _, v in ticks), reverse=True)
    assert min(v for _, v in ticks) <= 1310 and max(v for _, v in ticks) >= 1720


def test_the_rating_chart_with_no_points_and_with_one() -> None:
    empty = ET.fromstring(graph.rating_svg([]))
    assert list(empty.iter(f"{NS}circle")) == [] and list(empty.iter(f"{NS}path")) == []
    assert "No rated games yet" in [t.text for t in empty.iter(f"{NS}text")]
    one = ET.fromstring(graph.rating_svg([{"at": 1_780_000_000, "rating": 1662.3,
                                           "rd": 290.3}], width=400))
    dots = list(one.iter(f"{NS}circle"))
    assert len(dots) == 1 and dots[0].get("data-rating") == "1662.3"
    assert float(dots[0].get("cx") or 0) == pytest.approx(58 + (400 - 58 - 20) / 2)
    assert list(one.iter(f"{NS}path")) == []
    assert one.get("width") == "400"
    assert "2026-05-28" in [t.text for t in one.iter(f"{NS}text")]


def test_the_rating_chart_escapes_its_title_and_reads_objects() -> None:
    title = 'Ann <&> "Bob" rating'
    text = graph.rating_svg(rating_history(3), title=title)
    root = ET.fromstring(text)
    assert root.find(f"{NS}title").text == title  # type: ignore[union-attr]
    assert root.get("aria-label") == title
    assert "<&>" not in text
    # objects with at, rating and rd work like dicts, and the order is by time
    from types import SimpleNamespace
    objs = [SimpleNamespace(**p) for p in reversed(rating_history(3))]
    again = ET.fromstring(graph.rating_svg(objs, title=title))
    assert [c.get("data-at") for c in again.iter(f"{NS}circle")] == [
        c.get("data-at") for c in root.iter(f"{NS}circle")]


def test_the_charts_speak_the_words_they_are_given() -> None:
    words = {"black": "Schwarz", "gold": "Gold", "wins": "{side} gewinnt",
             "wins_in": "{side} gewinnt in {n}", "no_rated_games": "Noch keine gewerteten Partien"}
    pts = [graph.Point(0, 1, 30, None, ""), graph.Point(1, 1, None, (0, 1), "c1-c5", 1),
           graph.Point(2, 1, None, (0, 0), "d1-d8", 2, "Black +1 (1-0)")]
    root = ET.fromstring(graph.evaluation_svg(pts, words=words))
    texts = [t.text for t in root.iter(f"{NS}text")]
    assert "S gewinnt" in texts and "G gewinnt" in texts and "Schwarz +1 (1-0)" in texts
    titles = [t.text or "" for t in root.iter(f"{NS}title")]
    assert "Round 1, move 1: c1-c5, Schwarz gewinnt in 1" in titles  # keys not given stay English
    empty = ET.fromstring(graph.rating_svg([], words=words))
    assert "Noch keine gewerteten Partien" in [t.text for t in empty.iter(f"{NS}text")]
