"""The page offline, in Chromium: the manifest, the service worker, the
offline banner, and a game against the computer played with the network
cut, kept on the device, then sent with the button once back online.

One server for the module, with no process pool: the server never thinks,
so every computer move here is the page's engine's.  Service workers are
allowed in these contexts only (``tests/browser_kit.py`` blocks them
elsewhere)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from kamisado.web.site.live import LiveServer
from tests.browser_kit import browser, move, open_page, start  # noqa: F401 (fixtures)
from tests.test_web_layout import check


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The site with no computer of its own (no process pool)."""
    live = LiveServer(tmp_path_factory.mktemp("web") / "games.sqlite3", workers=0)
    yield live.start()
    live.stop()


@pytest.fixture
def ctx(browser: Browser) -> Iterator[BrowserContext]:  # noqa: F811
    """A context with service workers allowed."""
    c = browser.new_context(service_workers="allow", viewport={"width": 1100, "height": 850})
    c.set_default_timeout(20_000)
    yield c
    c.close()


def test_the_manifest_is_valid_and_its_icons_load(ctx: BrowserContext, server: str) -> None:  # noqa: F811
    pg = open_page(ctx, server)
    href = pg.locator('link[rel="manifest"]').get_attribute("href")
    assert href == "/manifest.webmanifest"
    res = pg.request.get(server + href)
    assert res.ok and res.headers["content-type"] == "application/manifest+json"
    m = res.json()
    assert m["name"] == "Kamisado" and m["short_name"] == "Kamisado"
    assert m["start_url"] == "/" and m["display"] == "standalone"
    # the page's colours (style.css --dark and --bg)
    assert pg.evaluate("getComputedStyle(document.documentElement).getPropertyValue('--dark').trim()") \
        == m["theme_color"]
    assert pg.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(244, 239, 230)"
    assert m["background_color"] == "#f4efe6"
    purposes = {(i["sizes"], i["purpose"]) for i in m["icons"]}
    assert {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")} <= purposes
    for icon in m["icons"]:  # each one loads as the picture it claims to be
        size = int(icon["sizes"].split("x")[0])
        got = pg.evaluate("""async (src) => { const i = new Image(); i.src = src; await i.decode();
                             return [i.naturalWidth, i.naturalHeight]; }""", icon["src"])
        assert got == [size, size]


def test_the_service_worker_controls_the_page_and_the_banner_says_offline(
        ctx: BrowserContext, server: str) -> None:  # noqa: F811
    pg = open_page(ctx, server)
    pg.evaluate("navigator.serviceWorker.ready.then(() => true)")
    pg.reload()
    expect(pg.locator("body")).to_have_attribute("data-ready", "1")
    assert pg.evaluate("navigator.serviceWorker.controller !== null")
    assert pg.evaluate("navigator.serviceWorker.controller.scriptURL") == server + "/sw.js"
    version = pg.evaluate("caches.keys()")
    assert any(k.startswith("kamisado-shell-") for k in version)
    banner = pg.locator("#offline-text")
    expect(banner).to_be_hidden()
    ctx.set_offline(True)
    expect(banner).to_be_visible()
    assert pg.locator("#offline-banner").get_attribute("aria-live") == "polite"
    # the page comes from the cache with no network at all: a lesson too
    pg.reload()
    expect(pg.locator("body")).to_have_attribute("data-ready", "1")
    expect(banner).to_be_visible()
    pg.goto(server + "/#/lesson/" + pg.evaluate(
        "fetch('/api/lessons?lang=en').then((r) => r.json()).then((l) => l[0].id)"))
    expect(pg.locator("#board .tower")).to_have_count(16)
    # a puzzle from the cached set, judged in the page: a win in 3 (the first move against the
    # accepted ones, the defender's reply and the next move by the page's solver)
    puzzles = pg.evaluate("fetch('/api/offline/puzzles?lang=en').then((r) => r.json()).then((d) => d.puzzles)")
    pz = next(p for p in puzzles if p["kind"] == "win_in" and p["win_in"] == 3)
    pg.goto(f"{server}/#/puzzle/{pz['id']}")
    box = pg.locator("#puzzle-box")
    expect(box).to_have_attribute("data-kpn", pz["kpn"])
    play_on_board(pg, pz["accepted"][0])
    expect(box).not_to_have_attribute("data-kpn", pz["kpn"])  # right, and the defender replied
    expect(box).to_have_attribute("data-state", "playing")
    kpn = box.get_attribute("data-kpn")
    win = pg.evaluate("(k) => import('/static/js/engine.js').then((e) => e.solve(k, {exact: true})).then((r) => r.best)",
                      kpn)
    play_on_board(pg, win)
    expect(box).to_have_attribute("data-state", "solved")
    expect(pg.locator("#puzzle-ratings")).to_have_text(re.compile("offline"))
    ctx.set_offline(False)
    expect(banner).to_be_hidden()
    expect(pg.locator("#offline-back")).to_have_text("The network is back.")  # said in the live region


def play_on_board(pg: Page, mv: str) -> None:
    """Click a move's two squares."""
    frm, to = mv.split("-")
    pg.locator(f'#board .square[data-square="{frm}"]').click()
    expect(pg.locator(f'#board .dest[data-dest="{to}"]')).to_have_count(1)
    pg.locator(f'#board .square[data-square="{to}"]').click()


def test_a_game_against_the_computer_offline_is_kept_then_sent(ctx: BrowserContext, server: str) -> None:  # noqa: F811
    pg = open_page(ctx, server)
    pg.evaluate("navigator.serviceWorker.ready.then(() => true)")
    ctx.set_offline(True)  # the network is cut after the first load
    pg.reload()
    expect(pg.locator("body")).to_have_attribute("data-ready", "1")
    expect(pg.locator("#offline-text")).to_be_visible()
    pg.goto(server + "/#/new/computer")
    pg.locator('input[name="level"][value="beginner"]').check()
    pg.select_option('select[name="target"]', "1")
    pg.click("#start")
    expect(pg).to_have_url(re.compile(r"#/local/local-"))
    board = pg.locator("#board")
    expect(board).to_have_attribute("data-kpn", re.compile(" b "))  # Black (this browser) opens
    for i in range(60):  # a single round against the beginner: Black plays its first legal move each time
        if board.get_attribute("data-state") == "over":
            break
        if i == 1:  # kept: the page reloaded (offline) resumes the game where it stood
            kept = board.get_attribute("data-kpn")
            pg.reload()
            expect(pg.locator("body")).to_have_attribute("data-ready", "1")
            expect(board).to_have_attribute("data-kpn", kept or "")
        expect(board).to_have_attribute("data-kpn", re.compile(r" b [-a-z] "))
        if board.get_attribute("data-state") == "over":
            break
        kpn = board.get_attribute("data-kpn")
        first = pg.evaluate("""(kpn) => import("/static/js/engine.js").then((e) => e.legalMoves(kpn))
                               .then((a) => a.moves[0])""", kpn)
        frm, to = first.split("-")
        move(pg, frm, to)
        expect(board).not_to_have_attribute("data-kpn", kpn or "")
        pg.wait_for_function("""() => { const b = document.querySelector('#board');
            return b.dataset.state === 'over' || b.dataset.kpn.split(' ')[1] === 'b'; }""")
    expect(board).to_have_attribute("data-state", "over")
    actions = int(board.get_attribute("data-seq") or 0)
    assert actions >= 3 and not pg.errors  # type: ignore[attr-defined]
    # the view as every view: no sideways scroll, 44 px targets on phones, axe-core clean
    check(pg, "local-game", menu=False)
    # kept on the device: My games lists it, and it cannot be sent while offline
    pg.goto(server + "/#/games")
    card = pg.locator("#device-list .game-card")
    expect(card).to_have_count(1)
    send = card.locator("button.send")
    expect(send).to_be_disabled()
    check(pg, "device-games", menu=False)
    ctx.set_offline(False)
    expect(pg.locator("#offline-text")).to_be_hidden()
    expect(send).to_be_enabled()
    send.click()
    expect(pg.locator("#send-said")).to_have_text(re.compile("sent to the server"))
    link = card.get_by_role("link")
    expect(link).to_have_attribute("href", re.compile(r"#/game/[\w-]+$"))
    game = (link.get_attribute("href") or "").rsplit("/", 1)[1]
    # the server holds it: every action, the same end
    steps = pg.request.get(f"{server}/api/games/{game}/steps").json()
    assert steps["over"] and len(steps["steps"]) == actions + 1


def test_the_page_plays_the_computers_moves_of_a_saved_game(browser: Browser, server: str) -> None:  # noqa: F811
    # a game on the server (online), with no computer on the server: the page's engine answers
    pg = open_page(browser.new_context(), server)
    start(pg, "computer", level="club")
    move(pg, "a1", "a4")
    board = pg.locator("#board")
    expect(board).to_have_attribute("data-seq", "2")  # the computer's answer, stored by the server
    game = pg.url.rsplit("/", 1)[1]
    steps = pg.request.get(f"{server}/api/games/{game}/steps").json()["steps"]
    assert [s["move"] for s in steps[1:]][0] == "a1-a4" and steps[2]["mover"]["side"] == "g"
    # with the server's seed the page chooses the server's very fill (Python's random numbers)
    for level, seed, (fills, want) in zip(["beginner", "novice", "casual", "club"], [3, 17, 40, 8], fill_cases(),
                                            strict=True):
        got = pg.evaluate("""([starts, level, seed]) => import("/static/js/computer.js")
                             .then((c) => c.computerFill(starts, level, seed))""", [fills, level, seed])
        assert got == want(level, seed), (level, seed, fills)
    pg.context.close()


def fill_cases() -> list[tuple[dict[str, str], Any]]:
    """Rounds' ends of the recorded matches (tests/data/offline_matches.json): the two next
    starts, and the server's player's fill there at a level and seed."""
    from kamisado.engine.levels import player
    from kamisado.rules.match import FILL, Match

    data = json.loads((Path(__file__).parent / "data" / "offline_matches.json").read_text())["matches"]
    cases = []
    for game in data[:4]:
        m = Match(game["target"], series=game["series"])
        for action in game["actions"]:
            m.apply(action)
            if m.state == FILL:
                frozen = m.copy()
                starts = {f: frozen.next_round_start(f).kpn() for f in ("left", "right")}
                cases.append((starts, lambda level, seed, mm=frozen: player(level, seed).choose_fill(mm)))
                break
    return cases
