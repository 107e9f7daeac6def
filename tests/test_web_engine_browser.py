"""The engine in the page (static/js/engine.js: the C core as WebAssembly in a
Web Worker) gives the native engine's very answers, in Chromium: perft
counts; at a fixed depth and seed the search's score, line and node count
(and the lines of a MultiPV search); the solver's winner and distance, on
the start, seeded random positions, Sumo round starts of matches
(bench/proven_starts.txt) and mid-round positions of seeded games with Sumo
towers.  And the review analyses a late position in the page until it shows
a proven result.

One server and one page for the module; the positions go to the page in one
``page.evaluate`` per kind.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from kamisado import engine
from kamisado.rules.position import Position
from tests import browser_kit
from tests.browser_kit import open_page

server = browser_kit.server
browser = browser_kit.browser

pytestmark = pytest.mark.xdist_group("engine_browser")

ROOT = Path(__file__).resolve().parent.parent
START = "obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 1 0 0"


def _playout(kpn: str, plies: int, rng: random.Random) -> list[str]:
    """The positions of a seeded random game from ``kpn`` (at most ``plies`` moves, the round's end excluded)."""
    pos = Position(kpn)
    out = []
    for _ in range(plies):
        moves = list(pos.legal_moves)
        if not moves:
            break
        pos.push(rng.choice(moves))
        if pos.outcome is not None:
            break
        out.append(pos.kpn())
    return out


def _positions() -> dict[str, list[str]]:
    """The positions compared: by kind, all in progress."""
    rng = random.Random(30)
    sumo_starts = [
        line.split("\t")[1]
        for line in (ROOT / "bench" / "proven_starts.txt").read_text("utf-8").splitlines()
        if "\t" in line and not line.startswith("#")
    ]
    starts = [START, *rng.sample(sumo_starts, 6)]
    random_single = [p for _ in range(4) for p in _playout(START, 12, rng)[2::4]]
    sumo_mid = [p for s in sumo_starts[:8] for p in _playout(s, 14, rng)[3::5]]
    # near the ends of seeded games: cheap for the exact solver
    late = []
    for s in [START, *sumo_starts[8:16]]:
        line = _playout(s, 60, rng)
        late += line[-4:-1:2]
    return {"starts": starts, "random": random_single, "sumo": sumo_mid, "late": late}


@pytest.fixture(scope="module")
def engine_page(browser: Browser, server: str) -> Page:
    """One page with engine.js loaded (as ``window.eng``)."""
    ctx = browser.new_context()
    pg = open_page(ctx, server + "/")
    pg.evaluate("async () => { window.eng = await import('/static/js/engine.js'); }")
    return pg


def test_perft_equals_native(engine_page: Page) -> None:
    kinds = _positions()
    cases = [(k, 4 if k != "late" else 5) for kind in kinds.values() for k in kind]
    got = engine_page.evaluate(
        "async (cases) => { const out = []; for (const [k, d] of cases) out.push(await eng.perft(k, d)); return out; }",
        cases,
    )
    want = [engine.perft(k, d) for k, d in cases]
    assert len(cases) >= 30 and got == want


def test_search_equals_native(engine_page: Page) -> None:
    kinds = _positions()
    cases: list[tuple[str, int, int, int]] = []
    for i, k in enumerate(kinds["starts"] + kinds["random"] + kinds["sumo"] + kinds["late"]):
        cases.append((k, 5 + i % 3, 1000 + i, 3 if i % 4 == 0 else 1))
    got: list[dict[str, Any]] = engine_page.evaluate(
        """async (cases) => {
          const out = [];
          for (const [kpn, depth, seed, multipv] of cases) {
            const r = await eng.search(kpn, {depth, seed, multipv});
            out.push({score: r.score, pv: r.pv, depth: r.depth, nodes: r.nodes, lines: r.lines});
          }
          return out;
        }""",
        cases,
    )
    for (kpn, depth, seed, k), g in zip(cases, got, strict=True):
        r = engine.search(kpn, depth=depth, seed=seed, multipv=k if k > 1 else None)
        want = {
            "score": r.score, "pv": [str(m) for m in r.pv], "depth": r.depth, "nodes": r.nodes,
            "lines": [{"score": x.score, "pv": [str(m) for m in x.pv]} for x in r.lines],
        }
        assert g == want, kpn


def test_solver_equals_native(engine_page: Page) -> None:
    late = _positions()["late"]
    got = engine_page.evaluate(
        """async (cases) => {
          const out = [];
          for (const kpn of cases) {
            const exact = await eng.solve(kpn);
            const who = await eng.solve(kpn, {exact: false});
            out.push([exact.winner, exact.distance, who.winner]);
          }
          return out;
        }""",
        late,
    )
    want = []
    for kpn in late:
        r = engine.solve(kpn, pv=False)
        w = engine.solve(kpn, exact=False)
        want.append(["bg"[r.winner] if r.winner is not None else None, r.distance,
                     "bg"[w.winner] if w.winner is not None else None])
    assert len(late) >= 10 and all(x[0] is not None for x in want)
    assert got == want


def test_moves_play_and_bad_input(engine_page: Page) -> None:
    res = engine_page.evaluate(
        """async (start) => {
          const legal = await eng.legalMoves(start);
          const played = await eng.play(start, legal.moves[0]);
          let bad = null, illegal = null;
          try { await eng.play('not a kpn', 'a1-a2'); } catch (e) { bad = e.message; }
          try { await eng.play(start, 'a1-b8'); } catch (e) { illegal = e.message; }
          return {legal, played, bad, illegal};
        }""",
        START,
    )
    pos = Position(START)
    assert res["legal"]["moves"] == [str(m) for m in pos.legal_moves]
    first = list(pos.legal_moves)[0]
    assert res["legal"]["legal"]["a1"][:2] == ["a2", "a3"]
    pos.push(first)
    assert res["played"] == {"kpn": pos.kpn(), "outcome": None, "turn": "g", "must": res["played"]["must"]}
    assert res["played"]["must"] is not None
    assert res["bad"].startswith("bad KPN") and "illegal move a1-b8" in res["illegal"]
