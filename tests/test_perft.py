"""Perft counts of ``kamisado.rules.position`` against stored data.

``tests/data/perft.json`` holds, for each position, the number of legal move
sequences of each length (passes are applied by the rules and are not moves;
a finished round has no moves).  Every stored count was computed by both
``kamisado.rules.position`` and the independent ``tests/reference.py`` and only counts
they agreed on were stored.  The default run checks core up to
``CORE_LEAVES`` leaves per count and the reference on the small counts; set
``KAMISADO_SLOW=1`` to check every stored count.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from kamisado.rules.position import Position

try:
    import reference as ref
except ImportError:  # pragma: no cover - when tests/ becomes a package
    from tests import reference as ref

DATA: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "data" / "perft.json").read_text(encoding="utf-8")
)
SLOW = bool(os.environ.get("KAMISADO_SLOW"))
CORE_LEAVES = 1_100_000
REF_LEAVES = 20_000


def load(entry: dict[str, Any]) -> Position:
    pos = Position(entry["kpn"])
    for move in entry["moves"]:
        pos.push_move(move)
    assert pos.kpn() == entry["position"]
    return pos


def load_ref(entry: dict[str, Any]) -> ref.RefPosition:
    rp = ref.RefPosition(entry["kpn"])
    for move in entry["moves"]:
        frm, to = move.split("-")
        rp = rp.play((frm, to))
    assert rp.kpn() == entry["position"]
    return rp


def test_data_is_rich_enough() -> None:
    names = {e["name"] for e in DATA}
    assert len(DATA) >= 6 and len(names) == len(DATA)
    assert {"start", "sumo-pushes", "double-push", "triple-push", "pass-heavy"} <= names
    assert all(len(e["perft"]) >= 3 for e in DATA)
    assert DATA[0]["perft"][:2] == [102, 1150]


@pytest.mark.parametrize("entry", DATA, ids=[e["name"] for e in DATA])
def test_core_perft(entry: dict[str, Any]) -> None:
    pos = load(entry)
    before = pos.kpn()
    checked = 0
    for depth, count in enumerate(entry["perft"], start=1):
        if count > CORE_LEAVES and not SLOW:
            break
        assert pos.perft(depth) == count, f"{entry['name']} depth {depth}"
        checked += 1
    assert checked >= 3
    # perft leaves the position as it found it
    assert pos.kpn() == before
    assert len(pos.move_stack) == len(entry["moves"])


@pytest.mark.parametrize("entry", DATA, ids=[e["name"] for e in DATA])
def test_reference_perft(entry: dict[str, Any]) -> None:
    rp = load_ref(entry)
    checked = 0
    for depth, count in enumerate(entry["perft"], start=1):
        if count > REF_LEAVES and not SLOW:
            break
        assert rp.perft(depth) == count, f"{entry['name']} depth {depth}"
        checked += 1
    assert checked >= 3


@pytest.mark.parametrize("entry", DATA, ids=[e["name"] for e in DATA])
def test_position_has_the_described_features(entry: dict[str, Any]) -> None:
    """The Sumo, pass and deadlock positions really are what they claim."""
    pos = load(entry)
    assert len(pos.passes()) == entry["passes_before"]
    runs = []
    for move in pos.legal_moves:
        if pos.board[move.to_square] < 0:
            continue
        before = list(pos.tower_square)
        pos.push(move)
        runs.append(sum(a != b for a, b in zip(before, pos.tower_square, strict=True)) - 1)
        pos.pop()
    assert sorted(runs) == entry["root_push_runs"]
    if entry["name"] == "deadlock-on-load":
        assert pos.outcome is not None and pos.outcome.reason == "deadlock"
    else:
        assert pos.outcome is None


def test_perft_is_the_sum_over_moves() -> None:
    """perft(d) is the sum of perft(d-1) over the legal moves (core and reference)."""
    for entry in DATA:
        pos = load(entry)
        rp = load_ref(entry)
        total = 0
        for move in list(pos.legal_moves):
            pos.push(move)
            child = pos.perft(2)
            pos.pop()
            name = (
                ref.FILES[move.from_square % 8] + str(move.from_square // 8 + 1),
                ref.FILES[move.to_square % 8] + str(move.to_square // 8 + 1),
            )
            assert rp.play(name).perft(2) == child, f"{entry['name']} {move}"
            total += child
        assert total == entry["perft"][2]
