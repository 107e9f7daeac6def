"""Positions and KPN: parsing, writing, errors, checked moves."""

from __future__ import annotations

import pytest

from kamisado.rules.board import (
    BLACK,
    GOLD,
    START_KPN,
    IllegalMoveError,
    KamisadoError,
    MalformedError,
    Move,
    parse_square,
)
from kamisado.rules.position import Position


def test_start_and_repr_pastes_back() -> None:
    pos = Position()
    assert pos.kpn() == START_KPN
    assert repr(pos) == f"Position({START_KPN!r})"
    again = eval(repr(pos), {"Position": Position})
    assert again == pos and again.kpn() == pos.kpn()
    assert repr(Move.from_str("c1-c5")) == "Move.from_str('c1-c5')"


def test_three_field_kpn_means_single_round() -> None:
    pos = Position("obupyrgn/8/8/8/8/8/8/NGRYPUBO g -")
    assert pos.kpn() == "obupyrgn/8/8/8/8/8/8/NGRYPUBO g - 1 0 0"
    assert pos.turn == GOLD and pos.target == 1


def test_errors_are_value_errors() -> None:
    assert issubclass(MalformedError, ValueError)
    assert issubclass(IllegalMoveError, ValueError)
    assert issubclass(KamisadoError, ValueError)


@pytest.mark.parametrize(
    ("kpn", "message"),
    [
        ("obupyrgn/8/8/8/8/8/8/NGRYPUBO b", "3 fields"),
        ("obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 3 0", "found 5"),
        ("obupyrgn/8/8/8/8/8/NGRYPUBO b -", "expected 8 ranks"),
        ("obupyrgn/8/8/8/8/8/8/NGRYPUB1 b -", "Black's orange tower is missing"),
        ("obupyrgn/8/8/8/8/8/8/NGRYPUBB b -", "Black's blue tower appears twice"),
        ("obupyrgx/8/8/8/8/8/8/NGRYPUBO b -", "found 'x'"),
        ("obupyrgn/8/8/8/8/8/8/NGRYPUBO++++ b - 15 7 0", "at most 3 rings"),
        ("obupyrgn/8/8/8/8/8/8/NGRYPUBO1 b -", "describes 9 squares"),
        ("obupyrgn/8/8/8/8/8/8/1NGRYPUBO b -", "more than 8 squares"),
        ("obupyrgn/9/8/8/8/8/8/NGRYPUBO b -", "found '9'"),
        ("obupyrgn/7/8/8/8/8/8/NGRYPUBO b -", "rank 7: describes 7 squares"),
        ("obupyrgn/8/8/8/8/8/8/NGRYPUBO x -", "side-to-move field"),
        ("obupyrgn/8/8/8/8/8/8/NGRYPUBO b R", "tower-to-move field"),
        ("obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 5 0 0", "target field"),
        ("obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 3 x 0", "Black's points field"),
        ("obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 3 1 0", "worth 0, found 1"),
        ("obupyrgn/8/8/8/8/8/8/N+GRYPUBO b - 1 1 0", "reaches the target"),
        ("Nbupyrgn/8/8/8/8/8/8/oGRYPUBO b -", "more than one tower"),
        ("Nbupyrgn/8/8/8/8/8/8/1GRYPUBO b - ".replace("1GRYPUBO", "oGRYPUBO"), "more than one"),
        # full-width digits and a no-break space read as numbers and spaces by str
        ("obupyrgn/8/8/8/8/8/8/NGRYPUBO b - \uff13 0 0", "ASCII text; found '\uff13' at index 34"),
        ("obupyrgn/8/8/8/8/8/8/NGRYPUBO\xa0b -", r"ASCII text; found '\\xa0' at index 29"),
    ],
)
def test_malformed_kpn_names_the_field(kpn: str, message: str) -> None:
    with pytest.raises(MalformedError, match=message):
        Position(kpn)


def test_finished_round_kpn_and_winner_cannot_move() -> None:
    # Black's red stands on Gold's home row: the round is over, Black won.
    pos = Position("obupyRgn/8/8/8/8/8/5r2/NGRYPUBO".replace("NGRYPUBO", "NG1YPUBO") + " g -")
    assert pos.outcome is not None and pos.outcome.winner == BLACK
    assert list(pos.legal_moves) == [] and pos.perft(3) == 0
    with pytest.raises(MalformedError, match="cannot be to move"):
        Position("obupyRgn/8/8/8/8/8/5r2/NG1YPUBO b -")


def test_checked_moves_explain_and_change_nothing() -> None:
    pos = Position()
    pos.push_move("c1-c5")
    before = pos.kpn()
    cases = {
        "a8-a7": "the blue tower must move: Black finished on a blue square",
        "c5-c6": "Black's, but Gold is to move",
        "d4-d5": "no tower on d4",
        "b8-b9": "expected a square",
        "b8-c8": "only straight or diagonally forward",
        "b8-b1": "blocked by the tower on b1",
        "b8-d7": "only straight or diagonally forward",
    }
    for text, message in cases.items():
        with pytest.raises(KamisadoError, match=message):
            pos.push_move(text)
        assert pos.kpn() == before and len(pos.move_stack) == 1


def test_range_and_push_messages() -> None:
    sumo = Position("obupyrgn/8/8/8/8/8/8/NGR+YPUBO b r 3 1 0")
    with pytest.raises(IllegalMoveError, match="a Sumo moves at most 5 squares, found 6"):
        sumo.push_move("c1-c7")
    plain = Position("obupy1gn/8/8/8/3r4/3R4/8/NG1YPUBO b r 1 0 0")
    with pytest.raises(IllegalMoveError, match="ordinary tower cannot push"):
        plain.push_move("d3-d4")


def test_move_after_round_end_is_refused() -> None:
    pos = Position("o1upyrgn/8/8/1P5b/6B1/7O/8/NGRY1U2 b n 1 0 0")
    for m in ("a1-a3", "h5-h4", "b5-b8"):
        pos.push_move(m)
    with pytest.raises(IllegalMoveError, match="round is over"):
        pos.push_move(Move.from_str("a3-a4"))


def test_push_pop_restores_state_and_stack() -> None:
    pos = Position("1ngrpboy/8/u+7/R7/8/8/8/NGYPUO1B b o 3 0 1")
    start = pos.kpn()
    pos.push_move("f1-d3")
    pos.push_move("a6-a5")  # a push
    assert pos.turn == GOLD
    assert [str(m) for m in pos.move_stack] == ["f1-d3", "a6-a5"]
    assert str(pos.pop()) == "a6-a5"
    assert pos.board[parse_square("a5")] == 0 * 8 + 2  # Black's red is back
    pos.pop()
    assert pos.kpn() == start


def test_copy_is_independent() -> None:
    pos = Position()
    other = pos.copy()
    other.push_move("c1-c5")
    assert pos.kpn() == START_KPN and other.kpn() != START_KPN


def test_dash_with_no_movable_tower_is_refused() -> None:
    with pytest.raises(MalformedError, match="none of them can move"):
        Position("obupyrgn/NGRYPUBO/8/8/8/8/8/8 b -")


def test_copy_without_stack_keeps_the_last_passes() -> None:
    pos = Position("u5pg/3b4/8/8/2rRyo2/1PnU4/3G4/N4OBY g r 3 0 0")
    pos.push_move("d2-e3")
    assert len(pos.passes()) == 2
    assert pos.copy(stack=False).passes() == pos.passes()


def test_must_move_message_grammar() -> None:
    pos = Position()
    for m in ("c1-c5", "b8-b3", "d1-g4", "c8-d7", "b1-e4"):
        pos.push_move(m)
    with pytest.raises(IllegalMoveError, match="finished on an orange square"):
        pos.push_move("b3-b2")


@pytest.mark.parametrize(
    ("kpn", "moves"),
    [
        ("o1upyrgn/8/8/1P5b/6B1/7O/8/NGRY1U2 b n 1 0 0", ["a1-a3", "h5-h4", "b5-b8"]),
        ("2u3g1/b1Ryo3/1pY5/2G2r2/4PnU1/8/8/N5BO g b 3 0 0", ["a7-a6", "c5-d6"]),
        ("obupyrgn/1RONGYUB/P7/8/8/8/8/8 b p 1 0 0", ["a6-a7"]),
    ],
)
def test_finished_round_kpn_reads_back_finished_the_same_way(
    kpn: str, moves: list[str]
) -> None:
    pos = Position(kpn)
    for m in moves:
        pos.push_move(m)
    assert pos.outcome is not None
    again = Position(pos.kpn())
    assert again.outcome == pos.outcome and again.kpn() == pos.kpn()


def test_legal_moves_is_a_view() -> None:
    from kamisado.rules.position import LegalMoves

    pos = Position()
    moves = pos.legal_moves
    assert isinstance(moves, LegalMoves)
    assert len(moves) == moves.count() == 102 and bool(moves)
    assert Move.from_str("c1-c5") in moves and Move.from_str("c1-c1") not in moves
    assert "c1-c5" not in moves  # only Move objects are members
    pos.push_move("c1-c5")  # the view follows the position
    assert len(moves) == len(list(moves)) == len(pos.move_codes())
    assert Move.from_str("c1-c5") not in moves
    # a finished round: an empty, false view
    over = Position("obupyRgn/8/8/8/8/8/5r2/NG1YPUBO g -")
    assert not over.legal_moves and len(over.legal_moves) == 0
    assert list(over.legal_moves) == []


def test_peek_names_the_undo_record() -> None:
    pos = Position("2b3n1/4U3/5u1B/3o4/1pN2Or1/4y1P1/g7/1G1R3Y g u 3 0 0")
    with pytest.raises(IndexError):
        pos.peek()
    before = pos.kpn()
    pos.push_move("f6-a1")
    u = pos.peek()
    assert u.move == Move.from_str("f6-a1") and u.turn == 1 and u.outcome is None
    assert u.must_move == 5 and u.pushed == 0 and u.passes == pos.passes()
    pos.pop()
    assert pos.kpn() == before
    # a push: the record counts the towers pushed
    sumo = Position("7y/1r3u+1b/2U+2O2/2Gg4/1N4B1/p+3n1Y1/Ro6/5P+2 g u 3 2 2")
    push = next(m for m in sumo.legal_moves if sumo.is_push(m))
    sumo.push(push)
    assert sumo.peek().pushed == 1


def test_reasons_and_start_kpns_are_named() -> None:
    from kamisado.rules.board import DEADLOCK, GOAL, Reason, start_kpn

    pos = Position("2b3n1/4U3/5u1B/3o4/1pN2Or1/4y1P1/g7/1G1R3Y g u 3 0 0")
    pos.push_move("f6-a1")
    assert pos.outcome is not None and pos.outcome.reason is Reason.GOAL is GOAL
    assert pos.outcome.reason == "goal" and DEADLOCK == "deadlock"
    assert [start_kpn(t) for t in (1, 3)] == [START_KPN, START_KPN.replace(" 1 0 0", " 3 0 0")]
    assert all(Position(start_kpn(t)).target == t for t in (1, 3, 7, 15))
