"""The engine's game report (:mod:`kamisado.engine.report`): blunders that
threw away a proven win, mistakes and inaccuracies by the loss of win
percentage, accuracy per side, the same answer every time."""

from __future__ import annotations

import pytest

from kamisado import engine
from kamisado.engine.levels import player
from kamisado.engine.limits import Limit, Score
from kamisado.engine.report import (
    INACCURACY,
    MISTAKE,
    Look,
    build_report,
    classify,
    look_at,
    match_positions,
    report,
)
from kamisado.engine.review import Verdict, annotate
from kamisado.rules.board import BLACK, GOLD
from kamisado.rules.match import FILL, OVER, Match
from kamisado.rules.position import Position
from kamisado.rules.record import replay

#: Gold to move wins in 3 (g8-g2); g8-a2 throws it away: Black then wins in 2.
WON = "obu1yrgn/8/8/P7/8/3p3U/8/NGRY2BO g g 1 0 0"
NODES, SOLVE = 2_000, 20_000


def blundered() -> Match:
    """The known game: Gold's first move throws away a proven win, Black wins."""
    m = Match(1, start=WON)
    for token in ["g8-a2", "h3-d7", "d7-d8"]:
        m.apply(token)
    return m


def played(target: int, seed: int) -> Match:
    """A whole match between two computer levels."""
    m = Match(target)
    sides = [player("casual", seed), player("novice", seed + 1)]
    while m.state != OVER:
        if m.state == FILL:
            m.apply(sides[BLACK].choose_fill(m))
        else:
            m.apply(str(sides[m.position.turn].choose_move(m.position)))
    return m


def test_the_solver_proves_the_start_won_and_the_move_after_lost() -> None:
    # the position the test is built on: a proven win for Gold, thrown away by g8-a2
    assert engine.solve(Position(WON), limit=Limit(nodes=SOLVE)).winner == GOLD
    after = Position(WON)
    after.push_move("g8-a2")
    assert engine.solve(after, limit=Limit(nodes=SOLVE)).winner == BLACK


def test_a_known_blunder_is_reported_for_its_side_with_its_move() -> None:
    r = report(blundered(), nodes=NODES, solve_nodes=SOLVE)
    first = r.entries[0]
    assert (first.kind, first.mark, first.side, first.move, first.number, first.step, first.lost) == (
        "blunder", "??", GOLD, "g8-a2", 1, 1, 3)
    assert (first.before, first.after, first.accuracy) == (100.0, 0.0, 0.0)
    gold, black = r.sides[GOLD], r.sides[BLACK]
    assert (gold.moves, gold.blunders, gold.mistakes, gold.inaccuracies) == (1, 1, 0, 0)
    assert (black.moves, black.blunders, black.mistakes, black.inaccuracies) == (2, 0, 0, 0)
    # the report agrees with the review's marks
    assert [n.blunder for n in annotate(blundered(), nodes=SOLVE)] == [e.kind == "blunder" for e in r.entries]


def test_accuracy_is_100_for_a_perfect_side_and_lower_for_a_blundering_one() -> None:
    r = report(blundered(), nodes=NODES, solve_nodes=SOLVE)
    assert r.sides[BLACK].accuracy == 100.0
    assert r.sides[GOLD].accuracy == 0.0
    # the winning line, played right: 100 for Gold; Black made only forced or lost moves
    m = Match(1, start=WON)
    for token in ["g8-g2", "h1-h2", "f8-f1"]:
        m.apply(token)
    right = report(m, nodes=NODES, solve_nodes=SOLVE)
    assert right.sides[GOLD].accuracy == 100.0 and right.sides[GOLD].blunders == 0
    assert [e.kind for e in right.entries] == ["", "", ""]


def test_mistakes_and_inaccuracies_by_the_thresholds() -> None:
    even = Look(None, Score("cp", 0))
    assert (MISTAKE, INACCURACY) == (20.0, 10.0)
    assert classify(even, even, BLACK, MISTAKE) == "mistake"
    assert classify(even, even, BLACK, MISTAKE - 0.1) == "inaccuracy"
    assert classify(even, even, BLACK, INACCURACY) == "inaccuracy"
    assert classify(even, even, BLACK, INACCURACY - 0.1) == ""
    # a proven win thrown away is a blunder; a win thrown into the unknown is not
    won, lost = Look(Verdict(BLACK, 5), None), Look(Verdict(GOLD, 4), None)
    assert classify(won, lost, BLACK, 100.0) == "blunder"
    assert classify(won, even, BLACK, 50.0) == "mistake"
    # on the evaluations of a real match, the counts follow the losses
    m = played(3, 7)
    r = report(m, nodes=NODES, solve_nodes=SOLVE)
    for side in (BLACK, GOLD):
        own = [e for e in r.entries if e.side == side]
        assert r.sides[side].mistakes == sum(1 for e in own if e.kind != "blunder" and e.loss >= MISTAKE)
        assert r.sides[side].inaccuracies == sum(1 for e in own if INACCURACY <= e.loss < MISTAKE)
        assert r.sides[side].blunders == sum(1 for e in own if e.kind == "blunder")
    assert sum(s.mistakes + s.inaccuracies + s.blunders for s in r.sides) > 0


def test_a_match_of_several_rounds_is_reported_round_by_round() -> None:
    m = played(3, 7)
    assert len(m.rounds) > 1
    r = report(m, nodes=NODES, solve_nodes=SOLVE)
    steps = list(replay(m))
    moved = [i for i, s in enumerate(steps) if s.move is not None and s.ply > 0]
    assert [e.step for e in r.entries] == moved
    assert [e.number for e in r.entries] == list(range(1, len(moved) + 1))
    assert [(e.round, e.ply) for e in r.entries] == [(steps[i].round, steps[i].ply) for i in moved]
    assert {e.round for e in r.entries} == set(range(1, len(m.rounds) + 1))
    assert sum(s.moves for s in r.sides) == len(moved)
    data = r.to_json()
    assert data["entries"][0]["ply"] == 1 and data["sides"][0]["side"] == "b"


def test_the_report_is_the_same_every_time() -> None:
    m = played(3, 11)
    first = report(m, nodes=NODES, solve_nodes=SOLVE).to_json()
    engine.search(Position(), limit=Limit(nodes=50_000))  # tables full of something else
    assert report(m, nodes=NODES, solve_nodes=SOLVE).to_json() == first
    # looks taken one by one (as the server's jobs do) build the same report
    looks = [Look.from_json(look_at(p, NODES, SOLVE).to_json()) for p in reversed(match_positions(m))]
    assert build_report(m, looks[::-1]).to_json() == first


def test_bad_budgets_and_looks_are_refused() -> None:
    with pytest.raises(ValueError, match="nodes must be a whole number"):
        report(blundered(), nodes=0)
    with pytest.raises(ValueError, match="4 positions, 1 looks"):
        build_report(blundered(), [Look(None, Score("cp", 0))])
