"""Analysis that teaches (issue 14, item 6): the best three moves (MultiPV),
the moves that threw away a proven win (``??``) and what each round's end did
to the match (Black's match equity before and after), in kamisado.engine.review and
``kamisado analyse --lines`` / ``--review``."""

from __future__ import annotations

from pathlib import Path

import pytest

from kamisado import engine
from kamisado.engine.analysis import main_analyse
from kamisado.engine.equity import equity_of, match_equity, rings_of
from kamisado.engine.levels import player
from kamisado.engine.limits import Limit
from kamisado.engine.review import (
    RoundEnd,
    annotate,
    best_lines,
    blunders,
    format_round_end,
    round_ends,
)
from kamisado.rules import record
from kamisado.rules.board import BLACK
from kamisado.rules.match import FILL, OVER, Match
from kamisado.rules.position import Position
from kamisado.rules.record import replay

#: Gold to move wins in 3 (g8-g2 h1-h2 f8-f1); g8-a2 lets Black win in 2.
WON = "obu1yrgn/8/8/P7/8/3p3U/8/NGRY2BO g g 1 0 0"
BLUNDER = ["g8-a2", "h3-d7", "d7-d8"]
PERFECT = ["g8-g2", "h1-h2", "f8-f1"]
NODES = 20_000


def match_of(moves: list[str]) -> Match:
    m = Match(1, start=WON)
    for token in moves:
        m.apply(token)
    return m


def write_record(tmp_path: Path, moves: list[str] | Match) -> str:
    path = tmp_path / "match.txt"
    m = moves if isinstance(moves, Match) else match_of(moves)
    path.write_text(record.write(record.Record.new(m, black="Ann", gold="Bo")))
    return str(path)


def played(target: int, seed: int, *, series: bool = False, actions: int | None = None) -> Match:
    """A match of two seeded beginners (fast), to its end or ``actions`` moves and fills."""
    m = Match(target, series=series)
    sides = [player("beginner", seed), player("beginner", seed + 1)]
    done = 0
    while m.state != OVER and (actions is None or done < actions):
        if m.state == FILL:
            m.choose_fill(sides[m.current_winner()].choose_fill(m))
        else:
            m.push_move(sides[m.position.turn].choose_move(m.position))
        done += 1
    return m


def start_equity(m: Match, number: int) -> float:
    """Black's match equity at round ``number``'s start, from its start position."""
    start = m.rounds[number - 1].start
    points = (start.points[0], start.points[1])
    return match_equity(points, m.target, rings_of(start.rings), start.turn)


def test_best_lines_agree_with_the_solver() -> None:
    solved = engine.solve_moves(WON, limit=Limit(nodes=NODES))
    lines = best_lines(WON, n=3)
    assert [(x.move, x.score.kind, x.score.value) for x in lines] == [
        (v.move, "win" if v.winner == Position(WON).turn else "loss", v.distance)
        for v in solved[:3]
    ]
    assert all(x.proven and x.depth is None and x.pv[0] == x.move for x in lines)
    assert [str(m) for m in lines[0].pv] == PERFECT


def test_best_lines_without_the_solver_rank_the_search_scores() -> None:
    pos = Position()
    lines = best_lines(pos, n=4, limit=Limit(depth=2), solve_nodes=0)
    assert len(lines) == 4 and len({x.move for x in lines}) == 4
    values = [x.score.value for x in lines]
    assert values == sorted(values, reverse=True)
    assert all(x.depth == 2 and not x.proven for x in lines)
    assert all(pos.is_legal(x.move) for x in lines)
    with pytest.raises(ValueError, match="n must be"):
        best_lines(pos, n=0)


def test_a_move_that_throws_away_a_proven_win_is_marked() -> None:
    notes = annotate(match_of(BLUNDER), nodes=NODES)
    assert [(n.ply, n.mark) for n in notes] == [(1, "??"), (2, ""), (3, "")]
    first = notes[0]
    assert (str(first.before), str(first.after)) == ("g wins in 3", "b wins in 2")
    assert first.describe() == "threw away a win in 3" and first.kpn == WON
    assert blunders(notes) == [first]


def test_a_perfect_game_has_no_mark() -> None:
    notes = annotate(match_of(PERFECT), nodes=NODES)
    assert len(notes) == 3 and not blunders(notes)
    assert [str(n.after) for n in notes] == ["g wins in 2", "g wins in 1", "g wins in 0"]


def test_what_the_solver_cannot_prove_is_not_marked() -> None:
    m = Match(1)
    m.apply("c1-c5")
    (note,) = annotate(m, nodes=1)
    assert (note.before, note.after, note.mark) == (None, None, "")


@pytest.mark.parametrize("seed", [1, 4])
def test_round_ends_give_the_match_equity_before_and_after_each_round(seed: int) -> None:
    m = played(7, seed)
    ends = round_ends(m)
    assert len(m.rounds) > 2 and all(r.outcome is not None for r in m.rounds)
    assert [e.round for e in ends] == list(range(1, len(m.rounds) + 1))
    steps = list(replay(m))
    assert [e.index for e in ends] == [i for i, s in enumerate(steps) if s.outcome is not None]
    points = [0, 0]
    for e, rnd in zip(ends, m.rounds, strict=True):
        assert rnd.outcome is not None and e.winner == rnd.outcome.winner
        assert e.points == rnd.outcome.points
        points[e.winner] += e.points
        assert e.score == tuple(points)
        assert e.before == start_equity(m, e.round)
    for a, b in zip(ends, ends[1:], strict=False):
        assert a.after == pytest.approx(b.before, abs=1e-12)
    assert ends[-1].after == (1.0 if m.winner == BLACK else 0.0)
    assert ends == round_ends(record.Record.new(m))


def test_round_ends_of_a_single_round_a_series_and_a_match_in_play() -> None:
    (end,) = round_ends(match_of(BLUNDER))
    assert (end.index, end.round, end.winner, end.points, end.score) == (3, 1, BLACK, 1, (1, 0))
    assert end.before == match_equity((0, 0), 1, rings_of(Position(WON).rings), 1)
    assert end.after == 1.0
    series = played(3, 2, series=True)
    ends = round_ends(series)
    assert len(ends) == len(series.rounds) >= 3 and {e.points for e in ends} == {1}
    assert all(a.after == pytest.approx(b.before) for a, b in zip(ends, ends[1:], strict=False))
    assert ends[-1].after in (0.0, 1.0)
    # in play: the round being played has no entry; the last one's after is now
    m = played(7, 3, actions=40)
    assert m.state != OVER and m.rounds[-1].outcome is None
    ends = round_ends(m)
    assert len(ends) == len(m.rounds) - 1 >= 1
    assert ends[-1].after == pytest.approx(equity_of(m, BLACK))
    assert round_ends(Match(3)) == []


def test_a_round_end_in_words() -> None:
    end = RoundEnd(40, 2, 1, 2, (1, 2), 0.641, 0.3092)
    assert format_round_end(end) == (
        "round 2: Gold wins 2 points (score 1-2); Black's match chance 64% -> 31%")
    won = RoundEnd(9, 3, 0, 1, (3, 0), 0.9981, 1.0)
    assert format_round_end(won).endswith("Black wins 1 point (score 3-0);"
                                          " Black's match chance 99% -> 100%")


def test_analyse_lines(capsys: pytest.CaptureFixture[str]) -> None:
    assert main_analyse([WON, "--lines", "3", "--nodes", "5000"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "1. g8-g2 win in 3 pv g8-g2 h1-h2 f8-f1"
    assert [line.split()[0] for line in out[:3]] == ["1.", "2.", "3."]
    assert out[3:] == ["best g8-g2", "g wins in 3"]


def test_analyse_review(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_record(tmp_path, BLUNDER)
    assert main_analyse(["--review", path, "--nodes", str(NODES), "--depth", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == ("round 1 move 1 Gold g8-a2 ?? threw away a win in 3"
                      " (before: g wins in 3; after: b wins in 2)")
    assert out[1] == "  1. g8-g2 win in 3 pv g8-g2 h1-h2 f8-f1"
    assert [line.split()[0] for line in out[1:4]] == ["1.", "2.", "3."]
    assert out[4].startswith("round 1 move 2 Black h3-d7 (before: b wins in 2")
    # the round's end: after its last move, the match equity before and after
    (end,) = round_ends(match_of(BLUNDER))
    assert out[-3].startswith("round 1 move 3 Black d7-d8 ")
    assert out[-2] == format_round_end(end) == (
        f"round 1: Black wins 1 point (score 1-0); Black's match chance"
        f" {round(100 * end.before)}% -> 100%")
    assert out[-1] == f"{path}: 3 moves, 1 threw away a proven win"
    # --lines: the best moves of every position
    path = write_record(tmp_path, PERFECT)
    assert main_analyse(["--review", path, "--lines", "1", "--nodes", str(NODES)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line for line in out if "??" in line] == []
    assert [line for line in out if line.startswith("  1. ")] == [
        "  1. g8-g2 win in 3 pv g8-g2 h1-h2 f8-f1",
        "  1. h1-h2 loss in 2 pv h1-h2 f8-f1",
        "  1. f8-f1 win in 1 pv f8-f1",
    ]
    assert out[-2].startswith("round 1: Gold wins 1 point (score 0-1); ") and out[-2].endswith(
        " -> 0%")


def test_analyse_review_of_a_match_gives_each_round_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    m = played(3, 1)
    path = write_record(tmp_path, m)
    assert main_analyse(["--review", path, "--nodes", "200"]) == 0
    out = capsys.readouterr().out.splitlines()
    ends = round_ends(m)
    lines = [line for line in out if line.startswith("round ") and " move " not in line]
    assert lines == [format_round_end(e) for e in ends] and len(ends) == len(m.rounds)
    for e in ends:
        at = out.index(format_round_end(e))
        rnd = m.rounds[e.round - 1]
        assert out[at - 1].startswith(f"round {e.round} move {len(rnd.moves)} ")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((WON, "--lines", "0"), "--lines: expected a whole number 1..256, found '0'"),
        ((WON, "--lines", "x"), "--lines: expected a whole number"),
        (("--review", "/nonexistent/match.txt"), "cannot read /nonexistent/match.txt"),
        (("--review", "R", "--graph", "f.svg"), "--review and --graph do not go together"),
        (("--review", "R", WON), "--review takes the record as its value"),
        ((), "expected a position in KPN, found nothing"),
    ],
)
def test_analyse_errors(
    args: tuple[str, ...], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        status = main_analyse(list(args))
    except SystemExit as e:  # argparse's errors
        status = int(e.code or 0)
    out, err = capsys.readouterr()
    assert (status, out) == (2, "")
    assert message in err


def test_analyse_review_of_a_bad_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.txt"
    path.write_text("not a record\n")
    assert main_analyse(["--review", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"kamisado: {path}: ")


def test_the_web_review_marks_the_blunder_and_analyse_gives_three_lines(tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    from kamisado.web.site.server import create_app

    text = record.write(record.Record.new(match_of(BLUNDER), black="Ann", gold="Bo"))
    with TestClient(create_app(str(tmp_path / "games.db"), workers=1)) as client:
        game = client.post("/api/records", content=text).json()["id"]
        r = client.get(f"/api/games/{game}/review")
        assert r.status_code == 200, r.text
        marks = r.json()["marks"]
        steps = client.get(f"/api/games/{game}/steps").json()["steps"]
        assert [(m["step"], m["mark"], m["lost"]) for m in marks] == [
            (1, "??", 3), (2, "", None), (3, "", None)]
        assert [steps[m["step"]]["move"] for m in marks] == BLUNDER
        assert marks[0]["before"] == {"winner": "g", "distance": 3}
        (end,) = round_ends(match_of(BLUNDER))
        assert r.json()["rounds"] == [{"step": 3, "round": 1, "winner": "b", "points": 1,
                                       "score": [1, 0], "before": end.before, "after": 1.0}]
        assert steps[3]["outcome"] is not None and len(steps) == 4
        a = client.get("/api/analyse", params={"kpn": WON, "ms": 100, "lines": 3}).json()
        assert [x["move"] for x in a["lines"]][:1] == ["g8-g2"] and len(a["lines"]) == 3
        assert a["lines"][0]["kind"] == "win" and a["lines"][0]["value"] == 3
        assert a["lines"][0]["entries"][0]["kind"] == "move"
        assert "lines" not in client.get("/api/analyse", params={"kpn": WON, "ms": 50}).json()
        assert client.get("/api/analyse", params={"kpn": WON, "lines": "9"}).status_code == 400
        assert client.get("/api/games/nope/review").status_code == 404
    with TestClient(create_app(str(tmp_path / "other.db"), workers=0)) as client:
        game = client.post("/api/records", content=text).json()["id"]
        assert client.get(f"/api/games/{game}/review").status_code == 503
