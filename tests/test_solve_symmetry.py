"""The exact solver's two short cuts at the root, on both cores.

* **The mirror.**  The board's colours are symmetric under the mirror
  a <-> h that maps colour c to 7 - c, and so are the rules.  A position
  equal to its mirror image (the start of a single round, and the seeded
  line-ups below) has mirror-image moves of equal value, so the root
  searches one of each pair.  The tests check that the skipped moves are
  worth what their images are (each child solved on its own, where nothing
  is skipped), that the root's value is the best of its children's, and
  that both cores still search the very same nodes.
* **One-sided tests.**  Without a horizon the exact solve proves who wins
  first (df-pn), then only "the winner wins within d" for d = 1, 2, ...
  (``ex_root``).  With a horizon it is the full window of every depth
  (``sv_root``).  Both give the same value and distance, and a whole line.
"""

from __future__ import annotations

import random

import pytest

from kamisado.engine._pure import engine as P
from kamisado.engine._pure.solve import mirror_symmetric
from kamisado.rules import position as core
from tests.test_pyengine import late_positions

try:
    from kamisado.engine import _ckamisado as C
except ImportError:  # no compiler where this was installed
    C = None  # type: ignore[assignment]

pytestmark = pytest.mark.skipif(C is None, reason="the compiled core is not built")

KEYS = ("result", "distance", "best_move", "pv", "pv_nodes", "nodes", "depth", "stopped")
LETTERS = "ngrypubo"
MATE = 30000


def symmetric_line_up(rng: random.Random, rings: bool) -> str:
    """A KPN equal to its mirror image: tower c on a square, tower 7 - c on
    its mirror image, both sides, ranks 2-7, any tower to move; with
    ``rings`` a mirrored pair of each side carries a ring."""
    board: dict[tuple[int, int], str] = {}
    for side in (0, 1):
        ringed = rng.randrange(4)
        for c in range(4):
            while True:
                rank, f = rng.randrange(1, 7), rng.randrange(4)
                if (rank, f) not in board:
                    break
            for colour, file in ((c, f), (7 - c, 7 - f)):
                letter = LETTERS[colour].upper() if side == 0 else LETTERS[colour]
                board[rank, file] = letter + ("+" if rings and c == ringed else "")
    rows = []
    for rank in range(7, -1, -1):
        row, empty = "", 0
        for file in range(8):
            if (rank, file) in board:
                row += (str(empty) if empty else "") + board[rank, file]
                empty = 0
            else:
                empty += 1
        rows.append(row + (str(empty) if empty else ""))
    match = "7 2 2" if rings else "1 0 0"  # the points the rings stand for
    return "/".join(rows) + f" {rng.choice('bg')} - {match}"


def symmetric_positions(count: int, seed: int, max_nodes: int) -> list[str]:
    """Seeded symmetric line-ups, half with rings, that the compiled exact
    solver proves within ``max_nodes`` nodes at a distance of 4 or more."""
    rng = random.Random(seed)
    searcher = C.Searcher()
    out: list[str] = []
    while len(out) < count:
        kpn = symmetric_line_up(rng, rings=len(out) % 2 == 1)
        try:
            pos = C.Position(kpn)
        except ValueError:
            continue  # a round already over (a tower on its goal row)
        r = searcher.solve(pos, node_limit=max_nodes, pv=False, tt_log2=16)
        if not r["stopped"] and r["distance"] >= 4:
            out.append(kpn)
    return out


@pytest.fixture(scope="module")
def symmetric() -> list[str]:
    return symmetric_positions(12, seed=5, max_nodes=20_000)


def test_the_start_and_the_line_ups_are_symmetric(symmetric: list[str]) -> None:
    assert mirror_symmetric(core.Position())
    assert all(mirror_symmetric(core.Position(kpn)) for kpn in symmetric)
    assert any("+" in kpn.split()[0] for kpn in symmetric)
    # a position in play is not: one tower has moved
    pos = core.Position()
    pos.push_move(pos.parse_move("a1-a5"))
    assert not mirror_symmetric(pos)


def test_a_move_and_its_mirror_image_are_worth_the_same(symmetric: list[str]) -> None:
    for kpn in symmetric:
        root = C.Searcher().solve(C.Position(kpn), pv=False, tt_log2=16)
        children = {}
        for m in C.Position(kpn).moves():
            pos = C.Position(kpn)
            side = pos.turn
            pos.push(m)
            if pos.outcome is not None:
                children[m] = MATE - 1 if pos.outcome[0] == side else -(MATE - 1)
                continue
            r = C.Searcher().solve(pos, pv=False, tt_log2=16)
            v = MATE - r["distance"] if r["result"] > 0 else -(MATE - r["distance"])
            v = v if pos.turn == side else -v
            children[m] = v - 1 if v > 0 else v + 1  # one move further away
        for m, v in children.items():
            image = (m & 63) ^ 7 | ((m >> 6) ^ 7) << 6
            assert children[image] == v, (kpn, m)
        best = max(children.values())
        assert root["distance"] == MATE - abs(best), kpn
        assert root["result"] == (1 if best > 0 else -1), kpn
        assert children[root["best_move"]] == best, kpn


@pytest.mark.parametrize("tt_log2", [18, 16])
def test_both_cores_search_the_same_nodes_on_symmetric_positions(
    symmetric: list[str], tt_log2: int
) -> None:
    for kpn in symmetric:
        c = C.Searcher().solve(C.Position(kpn), tt_log2=tt_log2)
        p = P.Searcher().solve(P.Position(kpn), tt_log2=tt_log2)
        assert c["result"] != 0 and not c["stopped"], kpn
        assert [c[k] for k in KEYS] == [p[k] for k in KEYS], kpn
        # with a horizon (the full window at every depth): the same again
        c = C.Searcher().solve(C.Position(kpn), max_depth=60, tt_log2=tt_log2)
        p = P.Searcher().solve(P.Position(kpn), max_depth=60, tt_log2=tt_log2)
        assert [c[k] for k in KEYS] == [p[k] for k in KEYS], kpn


def test_one_sided_tests_give_the_full_windows_value(symmetric: list[str]) -> None:
    """``ex_root`` (no horizon) against ``sv_root`` (a horizon beyond the
    distance): the same winner, distance and line, on symmetric and seeded
    late positions, won and lost for the side to move."""
    kpns = symmetric + late_positions(30, seed=3)
    outcomes = set()
    for kpn in kpns:
        one = C.Searcher().solve(C.Position(kpn), tt_log2=18)
        full = C.Searcher().solve(C.Position(kpn), max_depth=200, tt_log2=18)
        assert one["result"] != 0 and not one["stopped"], kpn
        for k in ("result", "distance"):
            assert one[k] == full[k], (kpn, k)
        # the lines may differ where two moves are as good: each is a whole,
        # shortest win for the winner
        for r in (one, full):
            pos = C.Position(kpn)
            side = pos.turn
            for m in r["pv"]:
                assert pos.outcome is None, kpn
                pos.push(m)
            assert len(r["pv"]) == r["distance"], kpn
            assert pos.outcome is not None, kpn
            assert (pos.outcome[0] == side) == (r["result"] > 0), kpn
        outcomes.add(one["result"])
    assert outcomes == {1, -1}


def test_the_loser_plays_the_longest_resistance() -> None:
    """A lost root's best move lasts the whole distance: after it the winner
    needs exactly one move less."""
    for kpn in late_positions(30, seed=3):
        r = C.Searcher().solve(C.Position(kpn), tt_log2=18)
        if r["result"] > 0 or r["distance"] < 3:
            continue
        pos = C.Position(kpn)
        side = pos.turn
        pos.push(r["best_move"])
        assert pos.outcome is None
        after = C.Searcher().solve(pos, tt_log2=18)
        assert after["distance"] == r["distance"] - 1, kpn
        assert (after["result"] > 0) == (pos.turn != side), kpn
