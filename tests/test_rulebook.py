"""The rulebook's worked examples, figures 1 to 10 (seeds/000).

The positions are in ``tests/data/rulebook.json``; where a figure's board is
not in the text, the position there was built so that every sentence of the
text holds, and this file checks those sentences one by one.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kamisado.rules.board import (
    BLACK,
    COLOUR_NAMES,
    DEADLOCK,
    GOAL,
    GOLD,
    RANGE,
    SQUARE_COLOUR,
    IllegalMoveError,
    Move,
    parse_square,
)
from kamisado.rules.match import Match
from kamisado.rules.notation import move_entries
from kamisado.rules.position import Position

DATA = json.loads((Path(__file__).parent / "data" / "rulebook.json").read_text())


def colour_of(square: str) -> str:
    return COLOUR_NAMES[SQUARE_COLOUR[parse_square(square)]]


def moves_of(pos: Position) -> set[str]:
    return {str(m) for m in pos.legal_moves}


def play(pos: Position, *moves: str) -> list[str]:
    """Push moves (checked) and return the long-form entries they wrote."""
    out: list[str] = []
    for text in moves:
        move = Move.from_str(text)
        out += [e.long() for e in move_entries(pos, move)]
        pos.push_move(move)
    return out


@pytest.mark.parametrize("name", [k for k in DATA if not k.startswith("_")])
def test_figure_notation_and_legality(name: str) -> None:
    """Every figure's line is legal and writes exactly the rulebook's notation."""
    fig = DATA[name]
    pos = Position(fig["kpn"])
    assert play(pos, *fig["moves"]) == fig["long"]


def test_board_colours_each_home_row_brown_left_orange_right() -> None:
    # "each player will have an orange square at the right-hand end of his/her
    # home row (and a brown square at the left-hand end"
    assert colour_of("a1") == "brown" and colour_of("h1") == "orange"
    assert colour_of("h8") == "brown" and colour_of("a8") == "orange"
    # every colour once in every rank and file
    for i in range(8):
        assert len({SQUARE_COLOUR[i * 8 + f] for f in range(8)}) == 8
        assert len({SQUARE_COLOUR[r * 8 + i] for r in range(8)}) == 8


def test_start_position_towers_on_their_own_colour() -> None:
    pos = Position()
    for t in range(16):
        assert SQUARE_COLOUR[pos.tower_square[t]] == t & 7


def test_figure1_opening_moves_of_pink_and_red() -> None:
    pos = Position()
    pink = {m for m in moves_of(pos) if m.startswith("e1-")}
    assert pink == {f"e1-e{r}" for r in range(2, 8)} | {
        "e1-d2", "e1-c3", "e1-b4", "e1-a5", "e1-f2", "e1-g3", "e1-h4"
    }
    red = {m for m in moves_of(pos) if m.startswith("c1-")}
    assert red == {f"c1-c{r}" for r in range(2, 8)} | {
        "c1-b2", "c1-a3", "c1-d2", "c1-e3", "c1-f4", "c1-g5", "c1-h6"
    }
    # T1: any of the eight towers may make the first move
    assert {m[:2] for m in moves_of(pos)} == {f"{f}1" for f in "abcdefgh"}


def test_figure2_opening_must_move_tower_of_square_colour() -> None:
    pos = Position()
    pos.push_move("c1-c5")
    assert colour_of("c5") == "blue" and pos.turn == GOLD
    assert COLOUR_NAMES[pos.must_move] == "blue"
    # 2(b): only the blue tower moves, forward or diagonally forward
    blue = moves_of(pos)
    assert all(m.startswith("b8-") for m in blue)
    assert blue == {f"b8-b{r}" for r in range(2, 8)} | {
        "b8-a7", "b8-c7", "b8-d6", "b8-e5", "b8-f4", "b8-g3", "b8-h2"
    }
    # T2 is enforced with a message that says why
    with pytest.raises(IllegalMoveError, match="the blue tower must move: Black finished on a blue square"):
        pos.push_move("a8-a7")
    play(pos, "b8-b3", "d1-g4", "c8-d7", "b1-e4", "a8-a3")
    # "5 spaces forwards to a blue square"; 2(l): Johan's blue tower moves next
    assert pos.turn == BLACK and COLOUR_NAMES[pos.must_move] == "blue"
    assert all(m.startswith("g1-") for m in moves_of(pos))


def test_figure3_must_move_if_you_can() -> None:
    pos = Position(DATA["fig3"]["kpn"])
    play(pos, "a1-a3")  # brown forward two to a blue square
    assert colour_of("a3") == "blue"
    # 3(b): the blue tower's only move is to the pink square; no pass
    assert moves_of(pos) == {"h5-h4"} and colour_of("h4") == "pink"
    assert pos.passes() == ()
    play(pos, "h5-h4")
    # 3(c): pink three forward to the blue square of Steve's home row wins
    assert "b5-b8" in moves_of(pos) and colour_of("b8") == "blue"
    play(pos, "b5-b8")
    assert pos.outcome is not None
    assert (pos.outcome.winner, COLOUR_NAMES[pos.outcome.colour], pos.outcome.reason) == (
        BLACK, "pink", GOAL,
    )
    assert list(pos.legal_moves) == []


def _no_win_at_once(pos: Position) -> bool:
    """Whether no legal move of the side to move ends the round in its favour."""
    side = pos.turn
    for m in list(pos.legal_moves):
        pos.push(m)
        won = pos.outcome is not None and pos.outcome.winner == side
        pos.pop()
        if won:
            return False
    return True


def test_figure4_blocked_tower_passes() -> None:
    pos = Position(DATA["fig4"]["kpn"])
    # Amy has no win on the spot: the text's line (block, then win) is her way
    assert _no_win_at_once(pos)
    play(pos, "a2-a6")
    assert colour_of("a6") == "green"
    # 4(b): Chris's green is blocked on a yellow square: it passes
    passes = pos.passes()
    assert len(passes) == 1
    assert (passes[0].side, COLOUR_NAMES[passes[0].colour]) == (GOLD, "green")
    assert colour_of("g6") == "yellow"
    # 4(c): Amy moves again, with her yellow tower, and wins
    assert pos.turn == BLACK and COLOUR_NAMES[pos.must_move] == "yellow"
    play(pos, "h5-h8")
    assert pos.outcome is not None and pos.outcome.winner == BLACK


def test_figure5_two_passes_in_a_row() -> None:
    pos = Position(DATA["fig5"]["kpn"])
    play(pos, "d2-d7")
    # Vlora cannot win at once: she needs the two moves of the text
    assert _no_win_at_once(pos)
    # 5(b), 5(c): Vlora's green then Daniel's yellow are blocked
    assert [(p.side, COLOUR_NAMES[p.colour]) for p in pos.passes()] == [
        (GOLD, "green"), (BLACK, "yellow"),
    ]
    # 5(d): Vlora moves her blue tower (Daniel was trapped on a blue square)
    assert pos.turn == GOLD and COLOUR_NAMES[pos.must_move] == "blue"
    play(pos, "b6-b3")
    # 5(e): Daniel's yellow is still trapped and passes again
    assert [(p.side, COLOUR_NAMES[p.colour]) for p in pos.passes()] == [(BLACK, "yellow")]
    # 5(f): Vlora's blue goes diagonally two onto Daniel's home row
    play(pos, "b3-d1")
    assert pos.outcome is not None and pos.outcome.winner == GOLD


def test_figure6_deadlock_loses_for_the_last_to_move() -> None:
    pos = Position(DATA["fig6"]["kpn"])
    play(pos, "a7-a6")
    # 6(b): Ralf's green has exactly one move, to the red square diagonally right
    assert moves_of(pos) == {"c5-d6"} and colour_of("d6") == "red"
    match = Match(3, start=DATA["fig6"]["kpn"])
    match.push_move("a7-a6")
    match.push_move("c5-d6")
    pos = match.position
    # 6(c)-(e): red and green pass forever: deadlock, Ralf (Black) caused it
    assert [(p.side, COLOUR_NAMES[p.colour]) for p in pos.passes()] == [
        (GOLD, "red"), (BLACK, "green"),
    ]
    assert pos.outcome is not None
    assert (pos.outcome.winner, pos.outcome.reason) == (GOLD, DEADLOCK)
    # Wolfgang's ring goes on his red tower (the colour Ralf last moved to)
    assert COLOUR_NAMES[pos.outcome.colour] == "red"
    assert match.summary() == "round g red deadlock"
    nxt = match.choose_fill("left")
    assert nxt.rings[GOLD * 8 + COLOUR_NAMES.index("red")] == 1
    assert nxt.points == [0, 1] and nxt.turn == BLACK  # the loser challenges


def test_figure6_deadlock_found_when_loading_kpn() -> None:
    # The same deadlock reached from a KPN: the side not to move counts as the
    # last to have made a real move, so it loses.
    pos = Position("2u3g1/2Ryo3/bpYG4/5r2/4PnU1/8/8/N5BO g r 3 0 0")
    assert pos.outcome is not None
    assert (pos.outcome.winner, COLOUR_NAMES[pos.outcome.colour], pos.outcome.reason) == (
        GOLD, "red", DEADLOCK,
    )


@pytest.mark.parametrize(
    ("kpn", "move", "chain"),
    [
        # Gold's towers fill their home row, Black's fill rank 7: everything is
        # blocked.  Black's red on an orange square and orange on a red one
        # make a chain of four towers.
        (
            "obupyrgn/1RNGYPUB/O7/8/8/8/8/8 b o 1 0 0",
            "a6-a7",
            [(GOLD, "red"), (BLACK, "red"), (GOLD, "orange"), (BLACK, "orange")],
        ),
        # red on orange, orange on pink, pink on red: six towers.
        (
            "obupyrgn/1RONGYUB/P7/8/8/8/8/8 b p 1 0 0",
            "a6-a7",
            [
                (GOLD, "red"), (BLACK, "red"), (GOLD, "orange"),
                (BLACK, "orange"), (GOLD, "pink"), (BLACK, "pink"),
            ],
        ),
    ],
)
def test_deadlock_chains_of_four_and_six_towers(
    kpn: str, move: str, chain: list[tuple[int, str]]
) -> None:
    # M8: "They can involve a perpetually repeating sequence of two dragon
    # towers ... or four towers, or six, or more."
    pos = Position(kpn)
    play(pos, move)
    assert [(p.side, COLOUR_NAMES[p.colour]) for p in pos.passes()] == chain
    assert pos.outcome is not None
    # Black made the last real move, onto a red square: Gold wins, red ring
    assert (pos.outcome.winner, COLOUR_NAMES[pos.outcome.colour], pos.outcome.reason) == (
        GOLD, "red", DEADLOCK,
    )
    assert list(pos.legal_moves) == []
    pos.pop()
    assert pos.kpn() == kpn and pos.outcome is None


def test_figure7_fill_left_and_right_exactly_as_listed() -> None:
    fig = DATA["fig7"]
    match = Match(3, start=fig["kpn"])
    match.push_move("f6-a1")  # Alain's purple, 5 squares diagonally, wins
    assert match.summary() == "round g purple goal"
    for direction in ("left", "right"):
        pos = match.next_round_start(direction)
        # Left to right from each player's own side is brown..orange squares.
        alain = [pos.board[sq] for sq in range(63, 55, -1)]  # h8..a8: Gold's left first
        david = [pos.board[sq] for sq in range(0, 8)]  # a1..h1: Black's left first
        assert [COLOUR_NAMES[t & 7] for t in alain] == fig[f"alain_{direction}"]
        assert [COLOUR_NAMES[t & 7] for t in david] == fig[f"david_{direction}"]
        # squares are filled brown..orange from each player's left
        assert [COLOUR_NAMES[SQUARE_COLOUR[sq]] for sq in range(63, 55, -1)] == list(COLOUR_NAMES)
        # the purple tower is now a Sumo worth Alain's 1 point; David challenges
        purple = GOLD * 8 + COLOUR_NAMES.index("purple")
        assert pos.rings[purple] == 1 and pos.points == [0, 1] and pos.turn == BLACK
    # 7(h): filling right would leave Alain's yellow with a yellow square in front
    right = match.next_round_start("right")
    ysq = right.tower_square[GOLD * 8 + COLOUR_NAMES.index("yellow")]
    assert COLOUR_NAMES[SQUARE_COLOUR[ysq - 8]] == "yellow"
    left = match.next_round_start("left")
    ysq = left.tower_square[GOLD * 8 + COLOUR_NAMES.index("yellow")]
    assert COLOUR_NAMES[SQUARE_COLOUR[ysq - 8]] != "yellow"
    # 7(h): Alain filled left; his purple Sumo, on the orange square, reaches 5
    match.choose_fill("left")
    pos = match.position
    pos.push_move("a1-a2")  # David opens (with his green, which stands on a1)
    pos.pop()
    pos.turn, pos.must_move = GOLD, -1  # look at Alain's Sumo as if opening
    purple_sq = pos.tower_square[GOLD * 8 + COLOUR_NAMES.index("purple")]
    assert COLOUR_NAMES[SQUARE_COLOUR[purple_sq]] == "orange"
    sumo = [m for m in pos.legal_moves if m.from_square == purple_sq]
    assert len(sumo) == 10
    assert max(abs((m.to_square >> 3) - (purple_sq >> 3)) for m in sumo) == RANGE[1] == 5


def test_figure8_sumo_push_optional() -> None:
    pos = Position(DATA["fig8"]["kpn"])
    play(pos, "f1-d3")  # 8(a): orange diagonally two to a purple square
    # 8(b)/(c): a diagonal move to purple or green, or the push
    assert moves_of(pos) == {"a6-b5", "a6-c4", "a6-a5"}
    assert {colour_of("b5"), colour_of("c4")} == {"purple", "green"}
    play(pos, "a6-a5")
    # the red tower went back one onto a yellow square; Alain misses his turn
    red = pos.tower_square[BLACK * 8 + COLOUR_NAMES.index("red")]
    assert colour_of("a4") == "yellow" and red == parse_square("a4")
    # 8(d): Pete moves again, with his yellow tower
    assert pos.turn == GOLD and COLOUR_NAMES[pos.must_move] == "yellow"
    moves_8d = moves_of(pos)
    assert moves_8d and all(m.startswith("h8-") for m in moves_8d)
    # 8(e)/(f): with the orange four squares along, the push is forced
    pos = Position(DATA["fig8"]["kpn"])
    play(pos, "f1-b5")
    assert colour_of("b5") == "purple"
    assert moves_of(pos) == {"a6-a5"}
    play(pos, "a6-a5")
    assert pos.turn == GOLD and COLOUR_NAMES[pos.must_move] == "yellow"
    assert moves_of(pos) == moves_8d  # "the same as before"


def test_sumo_push_restrictions() -> None:
    # S4: never diagonally; S6: not off the board; S8: not another Sumo;
    # S9: not your own tower.  Black's red Sumo on d4 is to move.
    base = "obupy1gn/8/8/3{f}4/3R+4/8/8/NG1YPUBO b r 3 1 0"
    # an opponent's ordinary tower in front with an empty square beyond: push
    assert "d4-d5" in moves_of(Position(base.format(f="r")))
    # the opponent's tower is a Sumo (S8): no push
    sumo = Position("obupy1gn/8/8/3r+4/3R+4/8/8/NG1YPUBO b r 3 1 1")
    assert "d4-d5" not in moves_of(sumo)
    # own tower in front (S9)
    own = Position("obupyrgn/8/8/3N4/3R+4/8/8/1G1YPUBO b r 3 1 0")
    assert "d4-d5" not in moves_of(own)
    # pushed tower would leave the board (S6): Gold's red on its home row d8
    edge = Position("oburypgn/3R+4/8/8/8/8/8/NG1YPUBO b r 3 1 0")
    assert "d7-d8" not in moves_of(edge)
    # two towers in front: a Sumo pushes only one (S7), a Double two (DS7)
    two = "obup2gn/8/3y4/3r4/3R{r}4/8/8/NG1YPUBO b r {t} {b} 0"
    assert "d4-d5" not in moves_of(Position(two.format(r="+", t=3, b=1)))
    assert "d4-d5" in moves_of(Position(two.format(r="++", t=7, b=3)))
    # never diagonally (S4): an opponent diagonally in front just blocks
    diag = Position("obupyrg1/8/8/4n3/3R+4/8/8/NG1YPUBO b r 3 1 0")
    assert "d4-e5" not in moves_of(diag)


def test_sumo_range_and_triple_push_three_but_not_a_triple() -> None:
    # S1/DS1/TS1: ranges 5, 3, 1
    for rings, reach in ((1, 5), (2, 3), (3, 1)):
        points = (0, 1, 3, 7)[rings]
        pos = Position(f"obupyrgn/8/8/8/8/8/8/NG{'R' + '+' * rings}YPUBO b r 15 {points} 0")
        forward = {m for m in moves_of(pos) if m.startswith("c1-c")}
        assert forward == {f"c1-c{r}" for r in range(2, 2 + reach)}
    # TS8: a Triple cannot push another Triple, but pushes three Doubles
    triple = "obupn3/8/3r{a}4/3g{a}4/3y{a}4/3R+++4/8/NG1YPUBO b r 15 7 {gp}"
    assert "d3-d4" in moves_of(Position(triple.format(a="++", gp=9)))
    blocked = Position("obup1rgn/8/8/8/3y+++4/3R+++4/8/NG1YPUBO b r 15 7 7")
    assert "d3-d4" not in moves_of(blocked)


def test_figure9_double_sumo_pushes_and_best_finish() -> None:
    fig = DATA["fig9"]
    pos = Position(fig["kpn"])
    play(pos, "h7-f5")  # 9(a): pink diagonally two to a green square
    # 9(b): diagonal moves to blue, pink, red squares, or the push of two towers
    green = moves_of(pos)
    diagonal = sorted(colour_of(m[3:]) for m in green if m != "d4-d5")
    assert diagonal == ["blue", "pink", "red"] and "d4-d5" in green
    # 9(c): after the push the further tower (yellow) lands on green: the green
    # Double moves again and pushes both again, the yellow onto pink
    play(pos, "d4-d5")
    assert COLOUR_NAMES[pos.must_move] == "green" and pos.turn == BLACK
    play(pos, "d5-d6")
    assert COLOUR_NAMES[pos.must_move] == "pink" and pos.turn == BLACK
    # 9(d): the pink Sumo three forward wins the round for 2 points: 7-3
    match = Match(7, start=fig["kpn"])
    for m in fig["moves"]:
        match.push_move(m)
    assert match.state == "over" and match.winner == BLACK and match.points == [7, 3]
    # 9(e): or, after the first push, the green Double diagonally left three:
    # a Double's finish is worth 4 points: 9-3
    match = Match(7, start=fig["kpn"])
    for m in ("h7-f5", "d4-d5", "d5-a8"):
        match.push_move(m)
    assert match.points == [9, 3] and match.winner == BLACK


def test_figure10_sanjays_big_finish() -> None:
    fig = DATA["fig10"]
    pos = Position(fig["kpn"])
    play(pos, "h2-h5")  # 10(a): red Double forward three to a yellow square
    # 10(b): the yellow Triple pushes orange, brown and green; green onto blue
    play(pos, "d6-d5")
    green = pos.tower_square[BLACK * 8 + COLOUR_NAMES.index("green")]
    assert colour_of("d2") == "blue" and green == parse_square("d2")
    # 10(c): blue Double may move diagonally, but pushes the yellow Sumo
    options = moves_of(pos)
    assert "c4-c3" in options and any(m[3] != "c" for m in options)
    play(pos, "c4-c3")
    # 10(d): the Triple has a clear orange diagonal but a range of one
    assert COLOUR_NAMES[pos.must_move] == "yellow" and pos.turn == GOLD
    assert "d5-h1" not in moves_of(pos)
    play(pos, "d5-d4")
    # 10(e): green is on its home row (TS6): the only move is diagonally left
    assert moves_of(pos) == {"d4-e3"} and colour_of("e3") == "red"
    play(pos, "d4-e3")
    # 10(f): Johan's red has two moves, both to yellow squares, no push (S9)
    assert moves_of(pos) == {"h5-g6", "h5-f7"}
    assert {colour_of("g6"), colour_of("f7")} == {"yellow"}
    play(pos, "h5-g6")
    # 10(g): the Triple pushes Johan's purple onto the pink square
    play(pos, "e3-e2")
    assert colour_of("e1") == "pink" and COLOUR_NAMES[pos.must_move] == "pink"
    # 10(h): the pink Double cannot reach the home row; pink or orange lose
    assert moves_of(pos) == {"g5-g4", "g5-g3", "g5-g2", "g5-h4"}
    for bad in ("g5-g3", "g5-h4", "g5-g2"):
        assert colour_of(bad[3:]) in ("pink", "orange")
        pos.push_move(bad)
        assert any(_wins(pos, m) for m in pos.legal_moves), bad
        pos.pop()
    play(pos, "g5-g4")
    assert colour_of("g4") == "purple"
    # 10(i): three pink squares; only g3 stops the pink Double reaching g1
    assert moves_of(pos) == {"e1-f2", "e1-g3", "e1-h4"}
    for bad in ("e1-f2", "e1-h4"):
        pos.push_move(bad)
        assert "g4-g1" in moves_of(pos)
        pos.pop()
    play(pos, "e1-g3")
    assert "g4-g1" not in moves_of(pos)
    # 10(j)-(l): pink pushes purple onto orange, orange pushes blue onto
    # yellow, and the Triple steps onto Johan's home row for 8 points
    match = Match(15, start=fig["kpn"])
    for m in fig["moves"]:
        match.push_move(m)
    assert match.state == "over" and match.winner == GOLD
    assert match.points == [9, 22]
    assert match.summary() == "match g 9 22"


def _wins(pos: Position, move: Move) -> bool:
    pos.push(move)
    won = pos.outcome is not None and pos.outcome.reason == GOAL
    pos.pop()
    return won
