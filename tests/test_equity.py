"""Match equity (kamisado.engine.equity, tools/make_equity.py) and the ``perfect``
level's match-aware choices: the round win worth most to the match, the fill."""

from __future__ import annotations

import importlib.util
import json
from dataclasses import replace
from importlib import resources
from pathlib import Path
from types import ModuleType

import pytest

from kamisado import engine
from kamisado.engine import levels
from kamisado.engine.equity import (
    MAX_RINGS,
    EquityModel,
    _validate,
    equity_of,
    load_model,
    match_equity,
)
from kamisado.engine.levels import player
from kamisado.rules.board import BLACK, GOLD, Move
from kamisado.rules.match import FILLS, Match
from kamisado.rules.position import Position

ROOT = Path(__file__).resolve().parent.parent

#: perfect's fill with its real budget (two solves of 4 million nodes) takes
#: the compiled solver about 2 s, the pure-Python one (no C compiler, or
#: KAMISADO_PURE_PYTHON=1) about 2 minutes.
slow_on_pure_python = pytest.mark.skipif(
    engine.BACKEND == "python", reason="4-million-node solves: minutes on the pure-Python core"
)


def _make_equity() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_equity", ROOT / "tools" / "make_equity.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("target", [3, 7, 15])
def test_equity_is_monotone_in_the_points(target: int) -> None:
    for rings in [(0, 0), (1, 0), (2, 3)]:
        for opener in (BLACK, GOLD):
            for pg in range(target):
                row = [match_equity((pb, pg), target, rings, opener) for pb in range(target + 1)]
                assert all(a <= b + 1e-12 for a, b in zip(row, row[1:], strict=False)), row
            for pb in range(target):
                col = [match_equity((pb, pg), target, rings, opener) for pg in range(target + 1)]
                assert all(a >= b - 1e-12 for a, b in zip(col, col[1:], strict=False)), col


@pytest.mark.parametrize("target", [3, 7, 15])
def test_equity_is_symmetric_under_swapping_the_sides(target: int) -> None:
    for pb in range(target):
        for pg in range(target):
            for rings in [(0, 0), (pb, 0), (0, pg), (min(pb, 3), min(pg, 5))]:
                for opener in (BLACK, GOLD):
                    a = match_equity((pb, pg), target, rings, opener)
                    b = match_equity((pg, pb), target, rings[::-1], opener ^ 1)
                    assert abs(a + b - 1) < 1e-9
                    assert 0.0 < a < 1.0


def test_equity_is_one_or_zero_at_the_target() -> None:
    for target in (1, 3, 7, 15):
        assert match_equity((target, 0), target, (1, 0), GOLD) == 1.0
        assert match_equity((target + 5, target - 1), target, (3, 3), BLACK) == 1.0
        assert match_equity((0, target), target, (0, 1), BLACK) == 0.0
    with pytest.raises(ValueError):
        match_equity((0, 0), 3, (0, 0), 2)


def test_the_opener_and_the_rings_count() -> None:
    # the side that opens a round is favoured (measured: about 4 rounds in 5)
    assert match_equity((1, 1), 3, (1, 1), BLACK) > 0.5 > match_equity((1, 1), 3, (1, 1), GOLD)
    # more rings help the opener in the model measured from self-play
    assert load_model().opener_wins(3, 0) > load_model().opener_wins(0, 3)


def test_equity_of_a_match_between_rounds_and_over() -> None:
    m = Match(3, start="oun+ybrpg/8/8/8/8/8/8/B+RYPOUNG g - 3 1 1")
    start = equity_of(m, BLACK)
    assert abs(start + equity_of(m, GOLD) - 1) < 1e-12
    for move in FIRST_ROUND:
        m.push_move(move)
    assert m.state == "fill" and m.current_winner() == GOLD and m.points == [1, 2]
    # Gold won the round: Gold gained, Black opens the next round
    after = equity_of(m, GOLD)
    start_next = m.next_round_start("left")
    expected = 1 - match_equity((1, 2), 3, (sum(start_next.rings[:8]), sum(start_next.rings[8:])),
                                BLACK)
    assert abs(after - expected) < 1e-12
    m.choose_fill("left")
    assert abs(equity_of(m, GOLD) - after) < 1e-12  # the start of the round: the same
    done = Match(1)
    for move in ["c1-c5", "b8-b3", "d1-g4", "c8-d7", "b1-e4", "a8-a3"]:
        done.push_move(move)
    assert 0.0 < equity_of(done, BLACK) < 1.0


def test_the_data_file_loads_and_is_what_make_equity_writes(tmp_path: Path) -> None:
    text = resources.files("kamisado").joinpath("data/equity.json").read_text("utf-8")
    assert len(text) < 50_000
    shipped = json.loads(text)
    model = load_model()
    assert model.source == "measured" and model == _validate(shipped)
    assert len(model.win_rings) == MAX_RINGS + 1
    assert shipped["rounds"] > 1000 and shipped["check"]["log_loss"] < shipped["check"]["log_loss_coin"]
    # a tiny run of the tool: reproducible, and the same kind of file
    make = _make_equity()
    outs = []
    for name in ("a.json", "b.json"):
        out = tmp_path / name
        assert make.main(["--matches", "1,1,0", "--level", "beginner", "--jobs", "1",
                          "--seed", "3", "--out", str(out)]) == 0
        outs.append(out.read_text())
    assert outs[0] == outs[1]
    tiny = json.loads(outs[0])
    assert set(tiny) == set(shipped)
    assert tiny["matches"] == {"3": 1, "7": 1, "15": 0} and tiny["level"] == "beginner"
    tiny_model = _validate(tiny)
    assert isinstance(tiny_model, EquityModel) and tiny_model.temper > 0.0
    assert 0.0 < match_equity((0, 0), 7, (0, 0), BLACK, tiny_model) < 1.0


def test_make_equity_refits_saved_rounds(tmp_path: Path) -> None:
    make = _make_equity()
    rounds = tmp_path / "rounds.jsonl"
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    args = ["--matches", "1,0,0", "--level", "beginner", "--jobs", "1", "--seed", "4"]
    assert make.main([*args, "--out", str(a), "--rounds-out", str(rounds)]) == 0
    assert make.main([*args, "--out", str(b), "--from-rounds", str(rounds)]) == 0
    assert a.read_text() == b.read_text()


# -- perfect: the round win worth most to the match -------------------------

#: Black to move the orange Sumo in a Long match (Black 2 points): b2-b4 and
#: b2-b5 both win the round by force, b2-b5 with the Sumo itself (2 points).
TWO_WINS = "7r/u5NG/YPob4/4g2R+/7y/8/1O+3np1/3BU3 b o 7 2 0"


def test_perfect_prefers_the_round_win_worth_more_to_the_match(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pos = Position(TWO_WINS)
    assert not levels._round_decides_match(pos)
    lines = {}
    for text in ("b2-b4", "b2-b5"):
        move = pos.parse_move(text)
        q = pos.copy(stack=False)
        q.push(move)
        r = engine.solve(q, node_limit=50_000)
        assert r.winner == BLACK
        lines[text] = levels._end_equity(pos, [move, *r.pv])
    assert lines["b2-b5"] is not None and lines["b2-b4"] is not None
    assert lines["b2-b5"] > lines["b2-b4"]
    # the choice among the solver's proven wins, even when it found the other
    monkeypatch.setattr(levels, "PERFECT_MATCH_CHOICE_NODES", 100_000)
    assert str(levels._best_proven_win(pos, pos.parse_move("b2-b4"))) == "b2-b5"
    assert str(player("perfect", 1).choose_move(pos)) == "b2-b5"


def test_perfect_lets_the_search_play_on_while_its_move_keeps_the_proven_win(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where the solver proves the round won but not its points (only the
    plain win), ``perfect`` plays the search's move (which weighs a win's
    points) if that move keeps the round proven won, and the solver's
    winning move if it does not."""
    pos = Position(TWO_WINS)
    proof = levels._prove(pos, 1_000_000)
    assert proof.winner == BLACK and proof.best_move is not None
    solver_move = proof.best_move
    # the points solver proves the plain win only (here it would prove the
    # Sumo win: b2-b5; the case is where its budget runs out first)
    open_points = engine.PointsResult(None, 1, 2, BLACK, solver_move, 1, 0.0, BLACK, 5)
    monkeypatch.setattr(engine, "solve_points", lambda *a, **k: open_points)
    other_win = next(m for m in pos.legal_moves
                     if m != solver_move and levels._keeps_win(pos, m))
    loser = next(m for m in pos.legal_moves if not levels._keeps_win(pos, m))
    real = engine.search(pos, depth=1)
    for searched, played in ((other_win, other_win), (loser, solver_move)):
        fake = replace(real, best_move=searched, proven_win_in=None)
        monkeypatch.setattr(engine, "search", lambda *a, fake=fake, **k: fake)
        # no other proven win looks better for the match: the solver's move stands
        monkeypatch.setattr(levels, "_best_proven_win", lambda p, found: found)
        assert player("perfect", 1).choose_move(pos) == played, (searched, played)


def test_perfect_behind_plays_for_the_match_in_a_round_it_must_win(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ahead in a Standard match at 2-0, any round win ends it: the surest
    proven win is all that counts.  Behind in a Long match at 2-6 (Gold has
    more rings here, Black still wins the round by force), Gold's win ends
    it, so Black must win the round, but a plain win does not end the match,
    so the match-aware choice (the biggest win within reach, a proven win
    kept) picks among the wins: by the round's value in points."""
    chosen: list[Move | None] = []

    def play_points(pl: object, pos: Position, moves: object, won: Move | None) -> Move:
        chosen.append(won)
        assert won is not None
        return won

    monkeypatch.setattr(levels, "_play_points", play_points)
    ahead = Position(TWO_WINS.replace(" 7 2 0", " 3 2 0"))
    behind = Position("7r+/u5NG/YPob4/4g2R+/7y+/8/1O+3n++p+1/3BU3 b o 7 2 6")
    assert levels._round_decides_match(ahead) and levels._round_decides_match(behind)
    move = player("perfect", 1).choose_move(ahead)
    assert chosen == [] and levels._keeps_win(ahead, move)
    move = player("perfect", 1).choose_move(behind)
    assert len(chosen) == 1 and chosen[0] == move and levels._keeps_win(behind, move)
    monkeypatch.undo()  # and the real choice keeps the round won
    assert levels._keeps_win(behind, player("perfect", 1).choose_move(behind))


# -- perfect: the fill --------------------------------------------------------

#: A round of a Standard match (1-1) that Gold wins with a2-a1.  After it,
#: filling right gives a next round that Black (the opener) wins by force;
#: filling left does not (not proven even in 4 million nodes).
FIRST_ROUND = [
    "d8-d2", "a1-a5", "g8-d5", "e1-e6", "b8-g3", "d1-f3", "a8-a6", "h1-h2", "f8-b4",
    "b1-b2", "c8-c3", "g1-d4", "c3-c2", "b4-b3", "b3-a2", "f1-c4", "h8-h5", "a2-a1",
]


def _round_end(target: int = 3) -> Match:
    m = Match(target, start=f"oun+ybrpg/8/8/8/8/8/8/B+RYPOUNG g - {target} 1 1")
    for move in FIRST_ROUND:
        m.push_move(move)
    assert m.state == "fill" and m.current_winner() == GOLD
    return m


def test_perfect_avoids_a_fill_whose_next_round_is_proven_lost(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    m = _round_end()
    right = engine.solve(m.next_round_start("right"), node_limit=100_000)
    assert right.winner == BLACK  # the opener wins after filling right (47,000 nodes)
    monkeypatch.setattr(levels, "PERFECT_FILL_SOLVE_NODES", 100_000)
    for seed in (1, 2):
        assert player("perfect", seed).choose_fill(m) == "left"
    assert m.state == "fill"  # choosing does not change the match


def test_perfect_takes_a_fill_whose_next_round_is_proven_won(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A start lost for its opener is rare (none in 15,000 random starts and
    # the self-play matches tried), so the points solver's answers are given
    # here: the fill whose round is proven won for the filler is taken at once.
    m = _round_end()
    starts = {f: m.next_round_start(f).kpn() for f in FILLS}
    unknown = engine.PointsResult(None, -8, 8, None, None, 1, 0.0, BLACK, 0)
    won_by_gold = engine.PointsResult(-1, -1, -1, GOLD, None, 1, 0.0, BLACK, 3)

    def solve_points(pos: Position, *args: object, **kwargs: object) -> engine.PointsResult:
        assert isinstance(pos, Position)
        return won_by_gold if pos.kpn() == starts["left"] else unknown

    searched = []
    monkeypatch.setattr(engine, "solve_points", solve_points)
    monkeypatch.setattr(engine, "search", lambda *a, **k: searched.append(1))
    assert player("perfect", 1).choose_fill(m) == "left"
    assert not searched  # no search needed


def test_perfect_fills_by_the_points_of_the_next_round(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both next rounds proven: the fill worth more to the filler's match
    equity is taken; the points decide, not only who wins (in a Long match:
    at 1-2 to 3 any round Gold wins ends the match)."""
    m = _round_end(7)
    starts = {f: m.next_round_start(f).kpn() for f in FILLS}
    cases = [
        # (left's value for the opener, right's): Gold fills, Black opens
        ((-1, GOLD), (-2, GOLD), "right"),  # Gold wins both: 2 points beat 1
        ((2, BLACK), (1, BLACK), "right"),  # Black wins both: concede 1, not 2
        ((1, BLACK), (-1, GOLD), "right"),  # a won round beats a lost one
    ]
    for left, right, want in cases:
        values = {
            starts[f]: engine.PointsResult(v, v, v, w, None, 1, 0.0, BLACK, 3)
            for f, (v, w) in zip(FILLS, (left, right), strict=True)
        }
        monkeypatch.setattr(engine, "solve_points", lambda pos, *a, values=values, **k:
                            values[pos.kpn()])
        monkeypatch.setattr(engine, "search", lambda *a, **k: pytest.fail("searched"))
        assert player("perfect", 1).choose_fill(m) == want, (left, right)
        # and the other way round
        swapped = {starts["left"]: values[starts["right"]],
                   starts["right"]: values[starts["left"]]}
        monkeypatch.setattr(engine, "solve_points", lambda pos, *a, values=swapped, **k:
                            values[pos.kpn()])
        assert player("perfect", 1).choose_fill(m) != want, (left, right)


@slow_on_pure_python
def test_perfect_fill_with_its_real_budget_is_replayable() -> None:
    m = _round_end()
    choice = player("perfect", 5).choose_fill(m)
    assert choice in FILLS and player("perfect", 5).choose_fill(m) == choice
