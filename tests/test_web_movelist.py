"""The move list kept up to date as a game goes on (:class:`MoveList`) is
always the one worked out from scratch (:func:`rounds_view`): through
moves, fills, series rounds, takebacks, games forked and adopted as the
hub does, and games rebuilt from their actions."""

from __future__ import annotations

import random

import pytest

from kamisado.rules.board import SIDE_LETTERS
from kamisado.rules.match import FILL, FILLS, PLAYING
from kamisado.web.basics.views import MoveList, rounds_view
from kamisado.web.play.game import Game
from kamisado.web.store.storage import GameRow


def play(seed: int, target: int, series: bool) -> None:
    rng = random.Random(seed)
    row = GameRow.new(f"g{seed}", target=target, series=series)
    game = Game.build(row, [])
    for _ in range(400):
        if game.state not in (PLAYING, FILL):
            break
        match = game.match
        if match.state == FILL:
            token = rng.choice(FILLS)
        else:
            in_round = len(match.rounds[-1].moves)
            if in_round and rng.random() < 0.08:
                n = rng.randint(1, min(3, in_round))
                token = f"undo-{SIDE_LETTERS[game.movers[-n]]}-{n}"
            else:
                token = str(rng.choice(list(match.position.legal_moves)))
        trial = game.fork()  # as the hub does: tried on a copy, then adopted
        trial.apply(token)
        game.adopt(trial)
        assert game.rounds == rounds_view(game.match), (seed, game.tokens)
        if rng.random() < 0.05:  # rebuilt from the store: a new match, the same list
            rebuilt = Game.build(game.row, game.tokens)
            game.adopt(rebuilt)
            assert game.rounds == rounds_view(game.match)
    fresh = MoveList()
    assert fresh.view(game.match) == rounds_view(game.match)


@pytest.mark.parametrize("seed", range(40))
def test_move_list_matches_rounds_view(seed: int) -> None:
    target, series = [(1, False), (3, False), (7, False), (3, True), (5, True)][seed % 5]
    play(seed, target, series)


def test_views_handed_out_do_not_change() -> None:
    """A view handed out earlier (a frame being written) is not changed by
    the moves made after it."""
    row = GameRow.new("gx", target=3)
    game = Game.build(row, [])
    first = game.rounds
    entries = list(first[0]["entries"])
    rng = random.Random(3)
    for _ in range(3):
        game.apply(str(rng.choice(list(game.match.position.legal_moves))))
        _ = game.rounds
    assert first[0]["entries"] == entries
