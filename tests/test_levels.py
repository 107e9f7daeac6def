"""Computer players (kamisado.engine.levels): legality, seeds, levels, fill choice."""

from __future__ import annotations

import random

import pytest

from kamisado.engine import BACKEND
from kamisado.engine.levels import LEVELS, choose_fill_by_search, player
from kamisado.rules.board import BLACK, GOLD, START_KPN
from kamisado.rules.match import FILLS, Match
from kamisado.rules.position import Position
from tests.conftest import random_positions

_positions = random_positions
#: The pure-Python core searches the very nodes the compiled one does
#: (tests/test_pyengine.py), some fifty times slower: its run of the strong
#: levels plays fewer positions.
COMPILED = BACKEND == "compiled"


@pytest.mark.parametrize(
    "level,count", [("beginner", 300), ("novice", 150), ("casual", 60), ("club", 30),
                    ("strong", 4 if COMPILED else 1),
                    pytest.param("expert", 2, marks=pytest.mark.skipif(
                        not COMPILED, reason="up to 15 s a move on the pure-Python core")),
                    ("perfect", 3 if COMPILED else 1)]
)
def test_every_level_plays_legal_moves_and_leaves_the_position_alone(
    level: str, count: int
) -> None:
    p = player(level, seed=4)
    for pos in _positions(count, seed=list(LEVELS).index(level)):
        before = pos.kpn()
        move = p.choose_move(pos)
        assert pos.is_legal(move)
        assert pos.kpn() == before


@pytest.mark.parametrize("level", ["beginner", "novice", "casual", "club", pytest.param(
    "strong", marks=pytest.mark.skipif(
        not COMPILED, reason="120 strong moves; the pure core searches the compiled one's nodes"))])
def test_a_level_and_seed_replay_the_same_game(level: str) -> None:
    def game(seed: int) -> list[str]:
        a, b = player(level, seed=seed), player(level, seed=seed + 1)
        pos = Position()
        moves = []
        while pos.outcome is None and len(moves) < 60:
            m = (a if pos.turn == BLACK else b).choose_move(pos)
            moves.append(str(m))
            pos.push(m)
        return moves

    assert game(5) == game(5)
    if level in ("beginner", "novice"):  # noisy levels: another seed, another game
        assert any(game(5) != game(s) for s in (6, 7, 8))


def test_beginner_always_takes_a_win_on_the_spot() -> None:
    # figure 3(c): the pink tower wins at once
    pos = Position("o1upyrgn/8/8/1P6/6Bb/N6O/8/1GRY1U2 b p 1 0 0")
    for seed in range(20):
        assert str(player("beginner", seed).choose_move(pos)) == "b5-b8"


def test_beginner_usually_avoids_handing_over_a_win() -> None:
    # Black must move a tower; some moves let Gold win at once.  A new player
    # sees that danger most of the time.
    from kamisado.engine.levels import _gives_win

    rng = random.Random(3)
    careful = total = 0
    for pos in _positions(2000, seed=9):
        moves = list(pos.legal_moves)
        bad = [m for m in moves if _gives_win(pos, m)]
        if not bad or len(bad) == len(moves):
            continue
        seed = rng.randrange(1000)
        total += 1
        careful += not _gives_win(pos, player("beginner", seed).choose_move(pos))
        if total == 150:
            break
    assert total >= 100
    assert 0.6 < careful / total < 1.0  # careless now and then, not always


@pytest.mark.parametrize("first", [BLACK, GOLD])
def test_perfect_play_wins_the_single_round_in_17(first: int) -> None:
    pos = Position(START_KPN.replace(" b - ", " b - " if first == BLACK else " g - "))
    a, b = player("perfect", 1), player("perfect", 2)
    n = 0
    while pos.outcome is None:
        pos.push((a if pos.turn == BLACK else b).choose_move(pos))
        n += 1
    assert pos.outcome.winner == first  # the first player wins
    assert n == 17  # the shortest win against the longest resistance


def test_perfect_punishes_a_losing_first_move() -> None:
    # c1-c6 loses for Black (Gold wins in 30 at most): perfect Gold wins
    pos = Position()
    pos.push_move("c1-c6")
    gold, black = player("perfect", 3), player("club", 3)
    while pos.outcome is None:
        pos.push((gold if pos.turn == GOLD else black).choose_move(pos))
    assert pos.outcome.winner == GOLD


def test_fill_choice_is_by_search_and_reproducible() -> None:
    m = Match(3, start="2b3n1/4U3/5u1B/3o4/1pN2Or1/4y1P1/g7/1G1R3Y g u 3 0 0")
    m.push_move("f6-a1")
    assert m.state == "fill"
    choices = {player("club", s).choose_fill(m) for s in range(4)}
    assert choices <= set(FILLS)
    # the winner picks the line-up whose search score is worse for the Challenger
    from kamisado import engine

    scores = {f: engine.search(m.next_round_start(f), depth=4).score for f in FILLS}
    choice = choose_fill_by_search(m, 4, random.Random(0))
    assert scores[choice] == min(scores.values())
    assert m.state == "fill"  # choosing does not change the match


def test_unknown_level_and_finished_round_are_refused() -> None:
    with pytest.raises(ValueError, match="expected a level"):
        player("grandmaster")
    done = Position("2b3n1/4U3/5u1B/3o4/1pN2Or1/4y1P1/g7/1G1R3Y g u 3 0 0")
    done.push_move("f6-a1")
    with pytest.raises(ValueError, match="round is over"):
        player("club").choose_move(done)
    assert list(LEVELS)[0] == "beginner" and list(LEVELS)[-1] == "perfect"


def test_every_level_carries_the_readme_elo() -> None:
    import re
    from pathlib import Path

    readme = (Path(__file__).resolve().parent.parent / "docs" / "engine.md").read_text("utf-8")
    table = {
        name: int(elo)
        for name, elo in re.findall(r"^\| `(\w+)` \|[^|]*\| \+?(\d+) \|", readme, re.MULTILINE)
    }
    assert {name: lv.elo for name, lv in LEVELS.items()} == table
    assert LEVELS["beginner"].elo == 0 and LEVELS["perfect"].elo == 1319
