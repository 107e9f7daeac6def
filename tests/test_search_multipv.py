"""MultiPV as one search: exact scores for the k best root moves, on both cores."""

from __future__ import annotations

from typing import Any

import pytest

from kamisado import engine
from kamisado.engine import MULTIPV_MAX, Line, search
from kamisado.engine._pure import engine as P
from kamisado.engine.review import search_root_move
from kamisado.rules.board import Move
from kamisado.rules.position import Position
from tests.test_pyengine import SOLVABLE, SUMO_KPNS

try:
    from kamisado.engine import _ckamisado as C
except ImportError:  # no compiler where this was installed
    C = None  # type: ignore[assignment]

needs_c = pytest.mark.skipif(C is None, reason="the compiled core is not built here")

AFTER_C1C5 = "obupyrgn/8/8/2R5/8/8/8/NG1YPUBO g b 1 0 0"


def each_move(pos: Position, depth: int) -> dict[Move, int]:
    """Every root move searched on its own to ``depth`` (the old MultiPV)."""
    out = {}
    for m in pos.legal_moves:
        child = pos.copy(stack=False)
        child.push(m)
        out[m] = search_root_move(pos, m, child, depth).raw
    return out


@pytest.mark.parametrize("kpn", [AFTER_C1C5, *SUMO_KPNS[:3], SOLVABLE[1]])
@pytest.mark.parametrize(("depth", "k"), [(2, 3), (3, 4), (4, 2)])
def test_the_k_lines_are_the_k_best_moves_with_exact_scores(kpn: str, depth: int, k: int) -> None:
    pos = Position(kpn)
    r = search(pos, depth=depth, multipv=k)
    alone = each_move(pos, depth)
    assert len(r.lines) == min(k, len(alone))
    # each line's score is its move's own search at that depth
    for line in r.lines:
        assert line.score == alone[line.pv[0]], line
    # ... and they are the k best, best first; no other move scores more than the last
    scores = [line.score for line in r.lines]
    assert scores == sorted(scores, reverse=True)
    assert scores == sorted(alone.values(), reverse=True)[: len(scores)]
    assert (r.score, r.pv) == (r.lines[0].score, r.lines[0].pv)
    assert all(pos.copy().is_legal(line.pv[0]) for line in r.lines)


def test_multipv_1_is_the_plain_search_and_root_moves_restrict_it() -> None:
    pos = Position(AFTER_C1C5)
    plain = search(pos, depth=5)
    one = search(pos, depth=5, multipv=1)
    assert (one.score, one.pv, one.nodes, one.lines) == (plain.score, plain.pv, plain.nodes, ())
    allowed = [Move.from_str("b8-h2"), "b8-b5"]
    r = search(pos, depth=4, multipv=2, root_moves=allowed)
    assert {str(line.pv[0]) for line in r.lines} == {"b8-h2", "b8-b5"}
    alone = each_move(pos, 4)
    assert [line.score for line in r.lines] == sorted(
        (alone[Move.from_str("b8-h2")], alone[Move.from_str("b8-b5")]), reverse=True
    )
    single = search(pos, depth=3, root_moves=["b8-b7"])
    assert str(single.best_move) == "b8-b7" and len(single.lines) == 1


def test_multipv_costs_less_than_a_search_per_root_move() -> None:
    """The reason for one search: the same lines for a fraction of the nodes."""
    pos = Position(SUMO_KPNS[0])
    r = search(pos, depth=5, multipv=3)
    per_move = 0
    for m in pos.legal_moves:
        child = pos.copy(stack=False)
        child.push(m)
        per_move += search_root_move(pos, m, child, 5).nodes
    assert r.nodes < per_move


def test_iterations_carry_their_lines() -> None:
    seen: list[tuple[int, tuple[Line, ...]]] = []
    r = search(AFTER_C1C5, depth=4, multipv=3, on_iteration=lambda it: seen.append(
        (it.depth, it.lines)
    ))
    assert [d for d, _ in seen] == [1, 2, 3, 4]
    assert all(len(lines) == 3 for _, lines in seen)
    assert seen[-1][1] == r.lines
    assert seen[-1][1][0].value == r.value


@pytest.mark.parametrize(
    ("kw", "error", "message"),
    [
        ({"multipv": 0}, ValueError, r"multipv must be an integer in 1\.\.256"),
        ({"multipv": MULTIPV_MAX + 1}, ValueError, "multipv must be an integer"),
        ({"multipv": True}, TypeError, "multipv must be an integer, got bool"),
        ({"root_moves": ["a1-a2"]}, Exception, "a1-a2|illegal|not legal"),
        ({"root_moves": []}, ValueError, "root_moves: expected at least one move"),
        ({"root_moves": "b8-b7"}, TypeError, "not one string"),
        ({"root_moves": [3]}, TypeError, "root_moves: expected moves or their text"),
    ],
)
def test_bad_arguments(kw: dict[str, Any], error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        search(AFTER_C1C5, depth=2, **kw)


@needs_c
@pytest.mark.parametrize("kpn", [AFTER_C1C5, *SUMO_KPNS, *SOLVABLE])
def test_both_cores_search_the_same_lines_and_nodes(kpn: str) -> None:
    for kw in (
        {"depth": 4, "multipv": 3},
        {"depth": 3, "multipv": 2, "seed": 7},
        {"node_limit": 3000, "multipv": 2},
        {"depth": 4, "multipv": 1, "root_moves": None},
    ):
        answers = []
        for M in (C, P):
            seen: list[tuple[object, ...]] = []
            r = M.search(
                M.Position(kpn),
                on_iteration=lambda *a, seen=seen: seen.append((a[0], a[1], a[2], a[4], a[5], a[6])),
                **kw,
            )
            del r["seconds"]
            r["iterations"] = [i[:3] for i in r["iterations"]]
            answers.append((r, seen))
        assert answers[0] == answers[1], kw


@needs_c
def test_both_cores_check_root_moves_alike() -> None:
    for M in (C, P):
        pos = M.Position(AFTER_C1C5)
        with pytest.raises(ValueError, match="root_moves: illegal move code 1"):
            M.search(pos, depth=1, root_moves=[1])
        with pytest.raises(ValueError, match="root_moves: expected at least one move"):
            M.search(pos, depth=1, root_moves=[])
        with pytest.raises(TypeError, match="root_moves must be a list of move codes or None"):
            M.search(pos, depth=1, root_moves=5)
        with pytest.raises(ValueError, match=r"multipv must be an integer in 0\.\.256"):
            M.search(pos, depth=1, multipv=257)
    assert engine.BACKEND in ("compiled", "python")


def test_a_depth_cut_short_gives_its_lead() -> None:
    """3000 nodes cut depth 6 after a move scored above depth 5's best: the lead."""
    pos = Position(AFTER_C1C5)
    r = search(pos, nodes=3000, multipv=2)
    assert r.lead is not None and r.lead_depth == r.depth + 1
    assert r.lead.score > r.score  # better than the last finished depth's best
    child = pos.copy(stack=False)
    child.push(r.lead.pv[0])
    assert search_root_move(pos, r.lead.pv[0], child, r.lead_depth).raw == r.lead.score
    # a finished search, or a plain one, has none
    assert search(pos, depth=5, multipv=2).lead is None
    plain = search(pos, nodes=3000)
    assert (plain.lead, plain.lead_depth) == (None, None)
