"""The engine in the page (static/js/engine.js: the C core as WebAssembly in a
Web Worker) gives the native engine's very answers, in Chromium: perft
counts; at a fixed depth and seed the search's score, line and node count
(and the lines of a MultiPV search); the solver's winner and distance (and
the round's value in points), on the start, seeded random positions, Sumo
round starts of matches (bench/proven_starts.txt) and mid-round positions of
seeded games with Sumo towers; the levels choose the server's moves.  And
the review analyses a late position in the page until it shows a proven
result (the server does where WebAssembly is missing).

One server and one page for the module; the positions go to the page in one
``page.evaluate`` per kind.
"""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from kamisado import engine
from kamisado.rules.position import Position
from tests import browser_kit
from tests.browser_kit import open_page

server = browser_kit.server
browser = browser_kit.browser

ROOT = Path(__file__).resolve().parent.parent
START = "obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 1 0 0"
#: Long-match positions whose round is worth 2 points to the winner (solve_points' doctests)
SUMO_POINTS = [
    "2o++5/3u+1p2/3g4/7G+/1U1B2b+1/4N+++2Y++/O+y+R1r++1n1/5P+2 b g 15 13 9",
    "3rn1py/3bP+3/1G6/o+2B4/1u6/6g1/6R+1/O+1Y+1U+1N1 g p 15 5 1",
]


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
    # those the solver proves in 300k nodes (most; one of them takes 3.5M)
    late = [k for k in _positions()["late"] + SUMO_POINTS
            if engine.solve(k, node_limit=300_000, pv=False).winner is not None]
    got = engine_page.evaluate(
        """async (cases) => {
          const out = [];
          for (const kpn of cases) {
            const exact = await eng.solve(kpn);
            const who = await eng.solve(kpn, {exact: false});
            const pts = await eng.solve(kpn, {points: true});
            out.push([exact.winner, exact.distance, who.winner, pts.points]);
          }
          return out;
        }""",
        late,
    )
    want = []
    for kpn in late:
        r = engine.solve(kpn, pv=False)
        w = engine.solve(kpn, exact=False)
        p = engine.solve_points(kpn)
        want.append(["bg"[r.winner] if r.winner is not None else None, r.distance,
                     "bg"[w.winner] if w.winner is not None else None, p.points])
    assert len(late) >= 10 and all(x[0] is not None for x in want)
    assert {x[3] for x in want} >= {2, -2}  # rounds worth more than a point (a Sumo wins)
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


def test_stop_answers_the_last_depth_and_the_engine_goes_on(engine_page: Page) -> None:
    res = engine_page.evaluate(
        """async (start) => {
          let depths = 0;
          let first;
          const seen = new Promise((ok) => { first = ok; });
          const running = eng.search(start, {depth: 60, onDepth: (d) => { depths++; if (d.depth >= 3) first(); }});
          const solving = eng.solve(start);
          await seen;
          await eng.stop();
          const r = await running;
          const s = await solving;
          return {stopped: r.stopped, depth: r.depth, depths, pv: r.pv.length > 0, solve: s,
                  after: await eng.perft(start, 3)};
        }""",
        START,
    )
    assert res["stopped"] is True and res["depth"] >= 3 and res["depths"] >= res["depth"] and res["pv"]
    assert res["solve"]["stopped"] is True and res["solve"]["winner"] is None
    assert res["after"] == engine.perft(START, 3)


def _finished_game(server: str) -> tuple[str, int, list[str]]:
    """A single round played by two seeded casual players, uploaded as a record:
    its id, the ply three moves before its end and the positions of the round."""
    import json
    import urllib.request

    from kamisado.engine.levels import player
    from kamisado.rules import record
    from kamisado.rules.match import Match

    m = Match(1)
    players = [player("casual", seed=3), player("casual", seed=4)]
    kpns = []
    while m.position.outcome is None:
        pos = m.position
        kpns.append(pos.kpn())
        m.apply(str(players[pos.turn].choose_move(pos)))
    text = record.write(record.Record.new(m, black="Ann", gold="Bo"))
    req = urllib.request.Request(server + "/api/records", data=text.encode(), method="POST")
    with urllib.request.urlopen(req) as r:
        game = json.loads(r.read())["id"]
    return game, len(kpns) - 3, kpns


@pytest.fixture(scope="module")
def finished(server: str) -> tuple[str, int, list[str]]:
    return _finished_game(server)


def test_the_review_analyses_in_the_page_until_a_proven_result(
    browser: Browser, server: str, finished: tuple[str, int, list[str]]
) -> None:
    game, ply, kpns = finished
    want = engine.solve(kpns[ply], pv=False)
    assert want.winner is not None and want.distance is not None and want.distance > 1
    ctx = browser.new_context(viewport={"width": 1100, "height": 850})
    seen: list[str] = []
    ctx.on("request", lambda r: seen.append(r.url))
    pg = open_page(ctx, f"{server}/#/game/{game}/review?ply={ply}")
    box = pg.locator("#analysis")
    side = "Black" if want.winner == 0 else "Gold"
    expect(box).to_have_attribute("data-solved", f"{'bg'[want.winner]}:{want.distance}", timeout=30_000)
    expect(box).to_contain_text(f"{side} wins in {want.distance} moves (proven)")
    expect(box).to_contain_text(re.compile(r"depth \d+$"))  # done: no "…"
    expect(box).to_have_attribute("aria-busy", "false")
    expect(pg.locator("#rv-lines li")).to_have_count(3)
    assert not any("/api/analyse" in u for u in seen)  # the page analysed it, not the server
    # a step back: the analysis starts again there and proves that position
    pg.locator("#rv-prev").click()
    before = engine.solve(kpns[ply - 1], pv=False)
    assert before.winner is not None
    expect(box).to_have_attribute("data-solved", f"{'bg'[before.winner]}:{before.distance}", timeout=30_000)
    assert not pg.errors  # type: ignore[attr-defined]
    ctx.close()


def test_every_level_chooses_a_legal_move(engine_page: Page) -> None:
    from kamisado.engine import book
    from kamisado.rules.board import Move

    mid = _positions()["sumo"][3]
    # a single round's late position that the side to move wins (the round decides the match)
    late = next(k for k in _positions()["late"]
                if Position(k).target == 1 and engine.solve(k, pv=False).winner == Position(k).turn)
    out, bad = engine_page.evaluate(
        """async ([start, mid, late]) => {
          const out = {};
          for (const level of eng.LEVELS) {
            out[level] = await eng.best(level === 'strong' || level === 'expert' || level === 'perfect' ? late : mid, {level, seed: 7});
          }
          out.book = await eng.best(start, {level: 'perfect'});
          let bad = null;
          try { await eng.best(mid, {level: 'grandmaster'}); } catch (e) { bad = e.message; }
          return [out, bad];
        }""",
        [START, mid, late],
    )
    levels = ["beginner", "novice", "casual", "club", "strong", "expert", "perfect"]
    for level in levels:
        pos = Position(late if level in ("strong", "expert", "perfect") else mid)
        assert out[level] in {str(m) for m in pos.legal_moves}, level
    assert out["book"] == str(book.lookup(Position(START)))
    # the levels that prove keep a proven win: after their move the mover still wins
    pos = Position(late)
    for level in ("expert", "perfect"):
        q = Position(late)
        q.push(Move.from_str(out[level]))
        after = q.outcome.winner if q.outcome is not None else engine.solve(q, pv=False).winner
        assert after == pos.turn, level
    assert bad is not None and "expected a level" in bad


def test_the_levels_choose_the_servers_moves(engine_page: Page) -> None:
    """A level and a seed choose the server's very move (Python's random
    numbers, the same searches); ``expert`` where the round does not decide
    the match, ``perfect`` where its proofs end within their budgets (a proof
    cut short by its budget may end otherwise: its table is the worker's, not
    this process's)."""
    from kamisado.engine.levels import player

    kinds = _positions()
    cases = []
    for i, kpn in enumerate(kinds["random"][::2] + kinds["sumo"][:4]):
        for level in ("beginner", "novice", "casual", "club", "strong"):
            cases.append((kpn, level, 11 * i + len(level)))
    for i, kpn in enumerate(kinds["sumo"][6:9]):
        cases.append((kpn, "expert", i))
    # perfect where its proofs end within their budgets (won, lost, points rounds)
    for kpn in kinds["late"][:4] + SUMO_POINTS:
        cases.append((kpn, "perfect", 5))
    got = engine_page.evaluate(
        """async (cases) => {
          const out = [];
          for (const [kpn, level, seed] of cases) out.push(await eng.best(kpn, {level, seed}));
          return out;
        }""",
        cases,
    )
    want = [str(player(level, seed).choose_move(Position(kpn))) for kpn, level, seed in cases]
    assert len(cases) > 40 and got == want



def test_the_engine_data_and_the_wasm_are_served() -> None:
    """The book and the equity model from the package's own files, nothing
    else under /static/engine/data/; the module with the headers the page
    needs to compile it."""
    from importlib import resources

    from starlette.testclient import TestClient

    from kamisado.web.site.server import create_app

    with TestClient(create_app("sqlite://", workers=0)) as c:
        book = c.get("/static/engine/data/book.txt")
        assert book.status_code == 200
        assert book.text == resources.files("kamisado").joinpath("data/book.txt").read_text("utf-8")
        equity = c.get("/static/engine/data/equity.json")
        assert equity.status_code == 200 and "opener_win" in equity.json()
        missing = c.get("/static/engine/data/lessons.json")
        assert missing.status_code == 404 and "no engine data" in missing.json()["error"]
        wasm = c.get("/static/engine/kamisado.wasm")
        assert wasm.status_code == 200 and wasm.content[:4] == b"\0asm"
        assert wasm.content == (ROOT / "kamisado/web/static/engine/kamisado.wasm").read_bytes()
        assert "'wasm-unsafe-eval'" in wasm.headers["content-security-policy"]


def test_without_webassembly_the_review_asks_the_server(
    browser: Browser, server: str, finished: tuple[str, int, list[str]]
) -> None:
    game, ply, kpns = finished
    want = engine.solve(kpns[ply], pv=False)
    ctx = browser.new_context(viewport={"width": 1100, "height": 850})
    ctx.add_init_script("delete globalThis.WebAssembly;")
    seen: list[str] = []
    ctx.on("request", lambda r: seen.append(r.url))
    pg = open_page(ctx, f"{server}/#/game/{game}/review?ply={ply}")
    side = "Black" if want.winner == 0 else "Gold"
    expect(pg.locator("#analysis")).to_contain_text(f"{side} wins in {want.distance} moves (proven)")
    expect(pg.locator("#rv-lines li")).not_to_have_count(0)
    assert any("/api/analyse" in u for u in seen) and not any(u.endswith(".wasm") for u in seen)
    assert not pg.errors  # type: ignore[attr-defined]
    ctx.close()



def test_the_levels_choose_the_servers_fills(engine_page: Page) -> None:
    """After a won round the computer fills as the server's player of its
    level and seed, from the two next rounds' starts the rules make."""
    from kamisado.engine.levels import player
    from kamisado.rules.match import FILLS, Match

    matches = []
    for target in (3, 7):
        m = Match(target)
        for frm, to in [("a1", "a4"), ("e8", "e5"), ("a4", "e8")]:  # Black wins with the brown tower
            m.apply(f"{frm}-{to}")
        assert m.position.outcome is not None
        matches.append(m)
    cases = [(m, level, seed) for m in matches
             for level in ("beginner", "novice", "casual", "club", "strong", "expert")
             for seed in ((1, 2, 3) if level in ("beginner", "novice", "casual") else (1,))]
    got = engine_page.evaluate(
        """async (cases) => {
          const out = [];
          for (const [starts, level, seed] of cases) out.push(await eng.bestFill(starts, {level, seed}));
          let bad = null;
          try { await eng.bestFill({left: 'x'}, {level: 'club'}); } catch (e) { bad = e.message; }
          out.push(bad);
          return out;
        }""",
        [({f: m.next_round_start(f).kpn() for f in FILLS}, level, seed) for m, level, seed in cases],
    )
    want = [player(level, seed).choose_fill(m) for m, level, seed in cases]
    assert got[:-1] == want and set(want) == {"left", "right"}
    assert "next round's starts" in got[-1]
