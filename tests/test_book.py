"""The opening book (kamisado.engine.book, kamisado/data/book.txt) against the solver."""

from __future__ import annotations

import random
from importlib import resources

import pytest

from kamisado import engine
from kamisado.engine import book
from kamisado.rules.board import BLACK, START_KPN
from kamisado.rules.position import Position

#: Re-proving the book takes the compiled solver seconds, the pure-Python one
#: (no C compiler, or KAMISADO_PURE_PYTHON=1) many minutes.
slow_on_pure_python = pytest.mark.skipif(
    engine.BACKEND == "python", reason="too slow on the pure-Python engine core"
)

def _lines() -> list[tuple[str, str, str]]:
    text = resources.files("kamisado").joinpath("data/book.txt").read_text("utf-8")
    out = []
    for line in text.splitlines():
        if line and not line.startswith("#"):
            kpn, move, note = line.split("\t")
            out.append((kpn, move, note))
    return out


def test_book_covers_both_starts_and_every_reply_to_the_first_move() -> None:
    entries = book.entries()
    assert len(entries) >= 200
    for first in ("b", "g"):
        start = Position(START_KPN.replace(" b - ", f" {first} - "))
        assert start.kpn() in entries
        for m in list(start.legal_moves):  # the book answers every first move
            q = start.copy()
            q.push(m)
            assert q.kpn() in entries, q.kpn()


def test_every_book_move_is_legal() -> None:
    for kpn, move in book.entries().items():
        assert Position(kpn).is_legal(move), (kpn, move)


@slow_on_pure_python
def test_the_start_is_a_first_player_win_in_17() -> None:
    kpn, move, note = next(x for x in _lines() if x[0] == START_KPN)
    assert note == "b wins in 17"
    pos = Position()
    pos.push_move(move)
    r = engine.solve(pos)
    assert (r.winner, r.distance) == (BLACK, 16)


@slow_on_pure_python
@pytest.mark.parametrize("chunk", range(4))
def test_a_sample_of_book_moves_are_perfect(chunk: int) -> None:
    """The winner's book move keeps the shortest win; the loser's the longest resistance."""
    lines = _lines()
    sample = random.Random(1000 + chunk).sample(lines, 8)
    for kpn, move, note in sample:
        pos = Position(kpn)
        side, dist = note.split()[0], int(note.split()[-1])
        winner = 0 if side == "b" else 1
        value = engine.solve(pos, pv=False)
        assert (value.winner, value.distance) == (winner, dist), kpn
        pos.push_move(move)
        if pos.outcome is not None:
            assert dist == 1 and pos.outcome.winner == winner
            continue
        after = engine.solve(pos, pv=False)
        assert (after.winner, after.distance) == (winner, dist - 1), (kpn, move)


def test_lookup_outside_the_book_is_none() -> None:
    pos = Position("obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 3 0 0")  # a Standard Match: no book
    assert book.lookup(pos) is None
