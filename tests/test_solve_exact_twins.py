"""The exact solver's twins: the compiled core and the pure-Python one search
the very same nodes.

``engine.solve(pos)`` (``exact=True``: the shortest win, the longest
resistance) on both cores over small seeded positions near the end of
random rounds (single and Sumo rounds, and line-ups with Sumo, Double and
Triple towers): the same result, distance, best move, line, depth and node
counts (those of the search and of its line).  Two slips made them differ
(``tools/compare_cores.py`` lists such positions):

* the Python DL_2 counted a child twice when it looked at it without making
  the move and then had to make it after all (C's ``sv_dl1`` counts it
  once);
* C's table (buckets of 4 entries, replacing the one with the least work)
  overwrote a stored entry of work 0 while its bucket still had an empty
  entry, and so searched again what the Python table (a dictionary) kept.
  A table of 2**14 entries makes such shared buckets frequent on these
  small searches, while none fills up (where C must replace and Python need
  not, the twins may differ by design).

Small positions only (a few thousand nodes each): the Python core solves
them all in a few seconds.
"""

from __future__ import annotations

import pytest

from kamisado.engine._pure import engine as P
from tests.test_pyengine import late_positions
from tests.test_solve_points import near_end_positions

try:
    from kamisado.engine import _ckamisado as C
except ImportError:  # no compiler where this was installed
    C = None  # type: ignore[assignment]

pytestmark = pytest.mark.skipif(C is None, reason="the compiled core is not built")

KEYS = ("result", "distance", "best_move", "pv", "pv_nodes", "nodes", "depth", "stopped")
#: the largest search kept (the compiled core's nodes)
MAX_NODES = 6_000
#: A larger search (about 14,000 nodes) where, in a table of 2**14 entries,
#: C overwrote an entry of work 0 beside an empty one (the line's nodes
#: differed: 95 against 96); it fills no bucket down to 2**13 entries.
SHARED_BUCKETS = "ob1p1rgn/5G2/u7/8/y7/5Y2/8/N1R1PUBO g o 1 0 0"


def small_positions() -> dict[str, int]:
    """Seeded near-end positions whose exact solve fits in ``MAX_NODES``,
    with their distances (by the compiled core)."""
    kpns = late_positions(40, seed=1)
    kpns += [kpn for kpn, _ in near_end_positions(5, 8, 20_000)]
    out = {}
    for kpn in dict.fromkeys(kpns):
        r = C.Searcher().solve(C.Position(kpn), node_limit=MAX_NODES, pv=False, tt_log2=16)
        if not r["stopped"]:
            out[kpn] = r["distance"]
    return out


@pytest.fixture(scope="module")
def solved() -> dict[str, int]:
    return small_positions()


@pytest.fixture(scope="module")
def positions(solved: dict[str, int]) -> list[str]:
    return [*solved, SHARED_BUCKETS]


def test_the_positions_are_a_few_dozen_with_sumo_towers(solved: dict[str, int]) -> None:
    assert len(solved) >= 30
    assert any("+" in kpn.split()[0] for kpn in solved)  # Sumo towers
    assert len(set(solved.values())) >= 4 and min(solved.values()) > 0


@pytest.mark.parametrize("tt_log2", [0, 14])
def test_both_cores_search_the_same_exact_nodes(positions: list[str], tt_log2: int) -> None:
    differ = []
    for kpn in positions:
        c = C.Searcher().solve(C.Position(kpn), tt_log2=tt_log2)
        p = P.Searcher().solve(P.Position(kpn), tt_log2=tt_log2)
        assert c["result"] != 0 and c["distance"] > 0, kpn  # solved, not stopped
        if [c[k] for k in KEYS] != [p[k] for k in KEYS]:
            differ.append((kpn, [(k, c[k], p[k]) for k in KEYS if c[k] != p[k]]))
    assert not differ


def test_a_searcher_keeps_the_same_table_on_both_cores(positions: list[str]) -> None:
    """One Searcher for every position: later solves start from the table
    the earlier ones left, on both cores alike (and a second solve of the
    same position, from a table that holds its proof, too)."""
    cs, ps = C.Searcher(), P.Searcher()
    for kpn in positions + positions[:5]:
        c = cs.solve(C.Position(kpn))
        p = ps.solve(P.Position(kpn))
        assert [c[k] for k in KEYS] == [p[k] for k in KEYS], kpn
