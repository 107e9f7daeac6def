"""Match flow: rings, points, challenger, regrouping, series."""

from __future__ import annotations

import random

import pytest

from kamisado.rules.board import BLACK, GOLD, IllegalMoveError, MalformedError
from kamisado.rules.match import FILL, PLAYING, Match, fill_order, regroup
from kamisado.rules.position import Position


def play_random(match: Match, rng: random.Random, rounds: int = 50) -> None:
    while match.state != "over" and rounds:
        if match.state == "fill":
            match.choose_fill(rng.choice(["left", "right"]))
            rounds -= 1
            continue
        match.push_move(rng.choice(match.legal_moves()))


@pytest.mark.parametrize("target", [3, 7, 15])
def test_random_matches_follow_the_scoring_rules(target: int) -> None:
    rng = random.Random(target)
    for _ in range(6):
        match = Match(target)
        previous = [0, 0]
        while match.state != "over":
            if match.state == "fill":
                end = match.position
                o = end.outcome
                assert o is not None
                won = match.points[o.winner] - previous[o.winner]
                assert won == (1, 2, 4, 8)[o.rings]
                assert match.points[o.winner ^ 1] == previous[o.winner ^ 1]
                previous = match.points[:]
                nxt = match.choose_fill(rng.choice(["left", "right"]))
                # the loser is the next Challenger, with any tower
                assert nxt.turn == o.winner ^ 1 and nxt.must_move == -1
                # the ring went on the right tower, rings stay on towers
                t = o.winner * 8 + o.colour
                assert nxt.rings[t] == min(3, end.rings[t] + 1)
                assert all(nxt.rings[u] == end.rings[u] for u in range(16) if u != t)
                # everything back on its own home row
                assert {nxt.tower_square[u] >> 3 for u in range(8)} == {0}
                assert {nxt.tower_square[u] >> 3 for u in range(8, 16)} == {7}
                assert nxt.points == match.points
                continue
            match.push_move(rng.choice(match.legal_moves()))
        assert match.winner is not None and match.points[match.winner] >= target
        assert match.points[match.winner ^ 1] < target


def test_triple_sumo_win_scores_eight_and_ends_a_marathon() -> None:
    # Black's Triple on d7 steps onto Gold's home row: 7 + 8 = 15.
    kpn = "obu1yrgn/3R+++4/8/8/8/3p4/8/NG1YPUBO b r 15 7 0"
    match = Match(15, start=kpn)
    match.push_move("d7-d8")
    assert match.state == "over" and match.points == [15, 0] and match.winner == BLACK
    assert match.summary() == "match b 15 0"


def test_double_win_ends_a_standard_match() -> None:
    kpn = "obu1yrgn/3R+4/8/8/8/3p4/8/NG1YPUBO b r 3 1 0"
    match = Match(3, start=kpn)
    match.push_move("d7-d8")
    assert match.state == "over" and match.points == [3, 0]


def test_fill_and_move_are_refused_in_the_wrong_state() -> None:
    match = Match(3)
    with pytest.raises(IllegalMoveError, match="only after a round"):
        match.choose_fill("left")
    match = Match(3, start="2b3n1/4U3/5u1B/3o4/1pN2Or1/4y1P1/g7/1G1R3Y g u 3 0 0")
    match.push_move("f6-a1")
    with pytest.raises(IllegalMoveError, match="fill left or right"):
        match.push_move("b1-b2")
    with pytest.raises(MalformedError, match="left' or 'right"):
        match.choose_fill("up")
    assert match.state == "fill"
    match.choose_fill("right")
    assert match.state == "playing" and len(match.rounds) == 2
    assert match.rounds[1].fill == "right" and match.rounds[1].challenger == BLACK


def test_match_over_refuses_moves() -> None:
    match = Match(1, start="o1upyrgn/8/8/1P5b/6B1/7O/8/NGRY1U2 b n 1 0 0")
    for m in ("a1-a3", "h5-h4", "b5-b8"):
        match.push_move(m)
    assert match.state == "over" and match.summary() == "match b 1 0"
    with pytest.raises(IllegalMoveError, match="match is over"):
        match.push_move("b8-b7")


def test_series_alternates_first_move_from_the_start() -> None:
    rng = random.Random(3)
    series = Match(3, series=True)
    assert series.name == "Series to 3"
    seen = 0
    while series.state != "over":
        pos = series.position
        if not pos.move_stack:
            # every round from the colour-matching start, first move alternating
            assert pos.kpn(match=False).split()[0] == "obupyrgn/8/8/8/8/8/8/NGRYPUBO"
            assert pos.turn == (BLACK if len(series.rounds) % 2 else GOLD)
            assert pos.target == 1 and pos.rings == [0] * 16
            seen += 1
        series.push_move(rng.choice(series.legal_moves()))
    assert max(series.points) == 3 and sum(series.points) == len(series.rounds) == seen


def test_fill_order_within_row_by_own_left_or_right() -> None:
    # Figure 7's final position: Gold (Alain) has won.
    pos = Position("2b3n1/4U3/7B/3o4/1pN2Or1/4y1P1/g7/uG1R3Y b u 3 0 0")
    names = "ngrypubo"
    assert [names[t & 7] for t in fill_order(pos, GOLD, "left")] == list("nborpygu")
    assert [names[t & 7] for t in fill_order(pos, GOLD, "right")] == list("bnopryg" "u")
    assert [names[t & 7] for t in fill_order(pos, BLACK, "left")] == list("grypnobu")
    placed = regroup(pos, "left")
    assert sorted(placed.values()) == list(range(8)) + list(range(56, 64))


def test_states_are_named_and_read_as_their_text() -> None:
    import json
    import pickle

    from kamisado.rules.match import FILL, OVER, PLAYING, MatchState

    m = Match(3, start="2b3n1/4U3/5u1B/3o4/1pN2Or1/4y1P1/g7/1G1R3Y g u 3 0 0")
    assert m.state is MatchState.PLAYING is PLAYING and m.state == "playing"
    m.push_move("f6-a1")
    assert m.state is FILL and json.dumps(m.state) == '"fill"'
    assert pickle.loads(pickle.dumps(m)).state is FILL
    assert [s.value for s in MatchState] == ["playing", "fill", "over"]
    assert OVER == "over" and f"{OVER}" == "over" and repr(OVER) == "'over'"


def test_a_copy_taken_between_rounds_leaves_the_match_as_it_was() -> None:
    """A copy shares the finished rounds (they never change again): playing
    the next round on the copy changes nothing of the original."""
    m = Match(3)
    for token in ["c1-c5", "b8-b3", "d1-g4", "c8-d7", "b1-e4", "a8-a3"]:
        m.push_move(token)
    rng = random.Random(5)
    while m.state == PLAYING:
        m.push_move(rng.choice(list(m.position.legal_moves)))
    assert m.state == FILL
    before = (m.key(), len(m.rounds), [r.moves[:] for r in m.rounds], m.rounds[-1].outcome)
    c = m.copy()
    c.choose_fill("left")
    c.push_move(next(iter(c.position.legal_moves)))
    assert (m.key(), len(m.rounds), [r.moves[:] for r in m.rounds], m.rounds[-1].outcome) == before
    assert m.state == FILL and len(c.rounds) == len(m.rounds) + 1
