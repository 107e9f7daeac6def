"""Moves in writing: square, long and short forms."""

from __future__ import annotations

import random

import pytest

from kamisado.rules.board import (
    AmbiguousMoveError,
    IllegalMoveError,
    KamisadoError,
    MalformedError,
    Move,
)
from kamisado.rules.notation import (
    Entry,
    long_form,
    move_entries,
    parse_entry,
    parse_move,
    short_form,
)
from kamisado.rules.position import Position


def test_every_legal_move_round_trips_through_every_form() -> None:
    rng = random.Random(7)
    kpns = [
        "obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 1 0 0",
        "1n+o1u1g1/7p/3y+4/3br+2P+/3G++4/8/8/N+1RY1UBO g p 7 5 3",
        "n1r1u3/7o+/1P++1y+++3B/3O+2p++1/2b++N+1g2/2Y+G4/4U2R++/8 b r 15 9 14",
    ]
    for kpn in kpns:
        pos = Position(kpn)
        for _ in range(40):
            if pos.outcome is not None:
                break
            for move in pos.legal_moves:
                assert parse_move(pos, str(move)) == move
                assert parse_move(pos, long_form(pos, move)) == move
                assert parse_move(pos, short_form(pos, move)) == move
                assert parse_move(pos, short_form(pos, move).upper()) == move
            pos.push(rng.choice(list(pos.legal_moves)))


def test_long_form_without_finish_colour_and_case() -> None:
    pos = Position()
    assert str(parse_move(pos, "red forward 4")) == "c1-c5"
    assert str(parse_move(pos, "RED FORWARD 4 BLUE")) == "c1-c5"


def test_wrong_finish_colour_is_illegal() -> None:
    with pytest.raises(IllegalMoveError, match="finishes on a blue square"):
        parse_move(Position(), "Red Forward 4 Green")


def test_ambiguous_forms() -> None:
    pos = Position()
    with pytest.raises(AmbiguousMoveError, match="fits 2 legal moves: c1-c5, g1-c5"):
        parse_move(pos, "c5")
    with pytest.raises(AmbiguousMoveError, match="fits 6 legal moves"):
        parse_move(pos, "Red Forward")
    with pytest.raises(AmbiguousMoveError):
        parse_move(pos, "rF")
    pos.push_move("c1-c5")
    # after T1 only one tower moves, so a destination alone is enough
    assert str(parse_move(pos, "b3")) == "b8-b3"


@pytest.mark.parametrize(
    ("text", "error", "message"),
    [
        ("", MalformedError, "empty"),
        ("Red Sideways 3", MalformedError, "expected a direction"),
        ("Red Forward 9", MalformedError, "distance 0-7"),
        ("Crimson Forward 2", MalformedError, "expected a move: square form"),
        ("Red Forward 2 Blue extra", MalformedError, "extra"),
        ("Red 0 Red", IllegalMoveError, "pass is applied by the rules"),
        ("Red Back 1 Blue", IllegalMoveError, "pushed"),
        ("Red Left 3", IllegalMoveError, "no such move"),
        ("zz", MalformedError, "expected a move"),
        ("c1-c9", MalformedError, "expected a square"),
    ],
)
def test_bad_text(text: str, error: type[KamisadoError], message: str) -> None:
    pos = Position()
    with pytest.raises(error, match=message):
        parse_move(pos, text)
    assert pos.kpn() == Position().kpn()


def test_entries_for_pass_and_push() -> None:
    pos = Position("1ngrpboy/8/u+7/R7/8/8/8/NGYPUO1B b o 3 0 1")
    pos.push_move("f1-d3")
    entries = move_entries(pos, Move.from_str("a6-a5"))
    assert [e.long() for e in entries] == ["Purple Forward 1 Pink", "Red Back 1 Yellow"]
    assert [e.short() for e in entries] == ["uF1", "rB1"]
    assert entries[1].is_back and not entries[0].is_pass
    assert Entry(1, 1, "", 0, 3).short() == "g0"


def test_parse_entry() -> None:
    assert parse_entry("Yellow Back 1 Green") == Entry(-1, 3, "Back", 1, 1)
    assert parse_entry("g0") == Entry(-1, 1, "", 0, -1)


def test_short_form_distance_over_seven_is_malformed() -> None:
    with pytest.raises(MalformedError):
        parse_move(Position(), "rF9")


@pytest.mark.parametrize("text", ["c1-c5 rF4", "c5 extra", "rF4 bF5", "Red Forward 4 Blue rF4"])
def test_one_move_per_text(text: str) -> None:
    with pytest.raises(MalformedError, match="extra"):
        parse_move(Position(), text)


@pytest.mark.parametrize("text", ["Red Forward \u00b2", "Red \u0663", "rF\uff14"])
def test_distances_are_ascii_digits(text: str) -> None:
    with pytest.raises(MalformedError):
        parse_move(Position(), text)


def test_the_rulebooks_own_words() -> None:
    pos = Position()
    for text in ["Red Forwards 4 Blue", "red FORWARDS 4", "Red F4 Blue", "red f4", "RED F4 BLUE", "Red F 4"]:
        assert str(parse_move(pos, text)) == "c1-c5", text
    pos.push(Move.from_str("c1-c5"))
    assert str(parse_move(pos, "Blue Forwards 5")) == "b8-b3"
    assert str(parse_move(pos, "Blue L1 Pink")) == "b8-c7"
    for text in ["Blue Backwards 1", "Blue backward 1", "Blue B1"]:
        with pytest.raises(IllegalMoveError, match="a tower moves back only when it is pushed"):
            parse_move(pos, text)


def test_the_rulebooks_own_words_ambiguous_or_impossible() -> None:
    pos = Position()
    with pytest.raises(AmbiguousMoveError, match="'Red Forwards' fits 6 legal moves: c1-c2, c1-c3"):
        parse_move(pos, "Red Forwards")
    with pytest.raises(IllegalMoveError, match="the Black red tower has no such move"):
        parse_move(pos, "Red L3 Blue")
    with pytest.raises(IllegalMoveError, match="finishes on a blue square"):
        parse_move(pos, "Red F4 Green")
    for text, message in [
        ("Red F8 Blue", "a move with a direction has a distance of 1-7: 'Red F8'"),
        ("Red F0", "a move with a direction has a distance of 1-7: 'Red F0'"),
        ("Red Onwards 4", "expected a direction (Forward, Left, Right or Back) after 'Red', found 'Onwards'"),
        ("Red F4 Blue Blue", "expected at most 'tower direction distance square', found extra 'Blue'"),
    ]:
        with pytest.raises(MalformedError) as info:
            parse_move(pos, text)
        assert message in str(info.value), (text, str(info.value))


def test_a_word_error_crosses_processes_whole() -> None:
    # raised in a worker process, it is pickled back to the server
    import pickle

    from kamisado.rules.notation import WordError

    back = pickle.loads(pickle.dumps(WordError("expected a colour, found 'undo'", 3)))
    assert isinstance(back, WordError) and back.word == 3 and str(back) == "expected a colour, found 'undo'"
