"""The play screen (issue 26, docs/web.md "The play screen"): in a live timed
game the whole board and both clocks are on the first screen at every
common size; a tower can be dragged; a move made on a touch screen can wait
for its confirmation; the board's size is a setting kept in the browser; the
zen mode shows only the board and the clocks; the low-time warning sounds
once; and while the server restarts the clocks stand still.

Screenshots go to /tmp/screen-shots/.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from kamisado.web.basics import clocks as web_clocks
from tests import browser_kit
from tests.browser_kit import (
    LiveServer,
    move,
    open_page,
    page,
    seq,
    settings,
    shot,
    start,
    tower_at,
)

browser = browser_kit.browser

SHOTS = Path("/tmp/screen-shots")
#: The sizes the issue names: four desktops and three phones.
SIZES = [(1280, 720), (1366, 768), (1440, 900), (1920, 1080), (360, 640), (390, 844), (412, 915)]
PHONE_MAX = 759  # the page's phone layout ends here (style.css)
TABBAR = 60  # a phone's bottom tab bar covers this much of the viewport
#: The shortest initial time on the clock (15 s in play), so that a clock starts under 10 s.
INITIAL_MIN_S = 5.0

# where the board and the clocks are, and whether the page is scrolled
GEOMETRY = """() => {
  const box = (e) => { const r = e.getBoundingClientRect();
    return {left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width}; };
  const timers = [...document.querySelectorAll('#view-play [role="timer"]')];
  return {board: box(document.querySelector('#board')),
          top: box(document.querySelector('.seat-top [role="timer"]')),
          bottom: box(document.querySelector('.seat-bottom [role="timer"]')),
          timers: timers.length, topSide: document.querySelector('.seat-top .clock').dataset.side,
          sx: scrollX, sy: scrollY, sw: document.documentElement.scrollWidth, vw: innerWidth, vh: innerHeight};
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The live server, with clocks as short as 5 s (so a clock starts under 10 s)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(web_clocks, "INITIAL_MIN_S", INITIAL_MIN_S)
        live = LiveServer(tmp_path_factory.mktemp("web") / "games.sqlite3")
        yield live.start()
        live.stop()


def online_game(browser: Browser, server: str, initial: float = 180, increment: float = 2,
                init_script: str | None = None) -> tuple[Page, Page, str]:
    """A timed online game made with the API: Black's page, Gold's (from its
    seat token) and the game's id, once both are seated."""
    pages = []
    for _ in range(2):
        ctx = browser.new_context(viewport={"width": 1280, "height": 720})
        ctx.set_default_timeout(20_000)
        if init_script:
            ctx.add_init_script(init_script)
        pages.append(ctx)
    black = open_page(pages[0], server + "/")
    res = black.request.post(server + "/api/games", data={
        "target": 3, "black": "human", "gold": "human", "online": True, "seat": "b",
        "clock": {"initial": initial, "increment": increment}})
    assert res.ok, res.text()
    made: dict[str, Any] = res.json()
    black.goto(f"{server}/#/game/{made['id']}")
    expect(black.locator("#board")).to_have_attribute("data-you", "b")
    gold = open_page(pages[1], f"{server}/#/game/{made['id']}?t={made['tokens']['g']}")
    expect(gold.locator("#board")).to_have_attribute("data-you", "g")
    return black, gold, made["id"]


def width(pg: Page, selector: str) -> float:
    """The width of the first element ``selector`` finds, as drawn."""
    box = pg.locator(selector).first.bounding_box()
    assert box is not None, selector
    return float(box["width"])


def confirm_touch(pg: Page, on: bool) -> None:
    """Switch the touch screens' move confirmation in the settings menu."""
    menu = pg.locator("details.prefs")
    menu.locator("summary").click()
    pg.locator("#confirm-touch").set_checked(on)
    menu.locator("summary").click()


def close(*pages: Page) -> None:
    for pg in pages:
        assert not pg.errors, pg.errors  # type: ignore[attr-defined]
        pg.context.close()


@pytest.fixture(scope="module")
def to_move(browser: Browser, server: str) -> Iterator[Page]:
    """Gold's page in a live 3+2 online game, Gold to move with its clock running."""
    black, gold, _ = online_game(browser, server)
    move(black, "c1", "c5")  # Black's first move is not timed: Gold's clock starts
    expect(gold.locator('.seat .clock[data-side="g"]')).to_have_class(re.compile(r"\brunning\b"))
    yield gold
    close(black, gold)


@pytest.mark.parametrize(("width", "height"), SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_the_board_and_both_clocks_are_on_the_first_screen(to_move: Page, width: int, height: int) -> None:
    pg = to_move
    pg.set_viewport_size({"width": width, "height": height})
    pg.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
    g: dict[str, Any] = pg.evaluate(GEOMETRY)
    phone = width <= PHONE_MAX
    # nothing scrolled, nothing wider than the screen
    assert (g["sx"], g["sy"]) == (0, 0), g
    assert g["sw"] <= width, g
    assert g["timers"] == 2, g
    # what a phone's tab bar covers is not on the screen
    floor = height - (TABBAR if phone else 0) + 0.5
    for name in ("board", "top", "bottom"):
        box = g[name]
        assert box["left"] >= -0.5 and box["right"] <= width + 0.5, (name, g)
        assert box["top"] >= 51.5 and box["bottom"] <= floor, (name, g)  # under the header, over the floor
    board, top, bottom = g["board"], g["top"], g["bottom"]
    # the opponent's clock on top, one's own at the bottom
    assert g["topSide"] == "b", g
    assert top["bottom"] <= bottom["top"], g
    if phone:
        # above and below the board, which is (nearly) as wide as the screen
        assert top["bottom"] <= board["top"] + 0.5 and bottom["top"] >= board["bottom"] - 0.5, g
        assert board["width"] >= 0.94 * width, g
    else:
        # beside the board, large
        assert top["left"] >= board["right"] and bottom["left"] >= board["right"], g
        assert top["top"] <= board["top"] + height * 0.1 and bottom["bottom"] >= board["bottom"] - height * 0.1, g
        font = float(pg.locator(".seat-bottom .clock").evaluate("e => parseFloat(getComputedStyle(e).fontSize)"))
        assert font >= 28, font
        # the board takes the room the screen leaves: the height under the header
        assert board["width"] >= 0.9 * (height - 52 - 24), g
    shot(pg, SHOTS / f"live-{width}x{height}.png")


def test_a_tower_dragged_with_the_mouse_is_moved_on_the_server(browser: Browser, server: str) -> None:
    black, gold, gid = online_game(browser, server)
    move(black, "c1", "c5")
    n = seq(gold)
    src = gold.locator('#board .square[data-square="b8"]').bounding_box()
    dst = gold.locator('#board .square[data-square="b5"]').bounding_box()
    assert src and dst
    gold.mouse.move(src["x"] + src["width"] / 2, src["y"] + src["height"] / 2)
    gold.mouse.down()
    gold.mouse.move(dst["x"] + dst["width"] / 2, dst["y"] + dst["height"] / 2, steps=8)
    # held: the tower follows the pointer and its destinations are lit
    expect(gold.locator('#board [data-tower="g-blue"]')).to_have_class(re.compile(r"\bdragging\b"))
    expect(gold.locator('#board .dest[data-dest="b5"]')).to_have_count(1)
    gold.mouse.up()
    expect(gold.locator("#board")).to_have_attribute("data-seq", str(n + 1))
    tower_at(black, "g-blue", "b5")  # the opponent sees it
    steps = gold.request.get(f"{server}/api/games/{gid}/steps").json()["steps"]
    assert steps[-1]["move"] == "b8-b5"  # and the server has it
    # a tower dropped off its destinations goes back, and nothing is sent
    # (Black must move its purple tower: b5 is purple)
    n = seq(black)
    src = black.locator('#board .square[data-square="f1"]').bounding_box()
    off = black.locator('#board .square[data-square="h1"]').bounding_box()
    assert src and off
    black.mouse.move(src["x"] + src["width"] / 2, src["y"] + src["height"] / 2)
    black.mouse.down()
    black.mouse.move(off["x"] + 10, off["y"] + 10, steps=8)
    expect(black.locator('#board [data-tower="b-purple"]')).to_have_class(re.compile(r"\bdragging\b"))
    black.mouse.up()
    expect(black.locator('#board [data-tower="b-purple"]')).not_to_have_class(re.compile(r"\bdragging\b"))
    # it slides back onto its square
    black.wait_for_function("""() => {
      const t = document.querySelector('#board [data-tower="b-purple"] .body').getBoundingClientRect();
      const q = document.querySelector('#board .square[data-square="f1"]').getBoundingClientRect();
      return Math.abs((t.left + t.right) / 2 - (q.left + q.right) / 2) < 1 && Math.abs((t.top + t.bottom) / 2 - (q.top + q.bottom) / 2) < 1;
    }""")
    tower_at(black, "b-purple", "f1")
    assert seq(black) == n
    move(black, "f1", "f3")  # click, click still works after it
    assert seq(black) == n + 1
    close(black, gold)


def test_a_touch_move_waits_for_its_confirmation(browser: Browser, server: str) -> None:
    ctx: BrowserContext = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    ctx.set_default_timeout(20_000)
    pg = open_page(ctx, server + "/")
    confirm_touch(pg, True)
    start(pg, "hotseat")
    confirm = pg.locator("#move-confirm")

    def tap(square: str) -> None:
        pg.locator(f'#board .square[data-square="{square}"]').tap()

    # the new game's state has come (a tap before it, on a loaded machine, selects nothing)
    expect(pg.locator("#board")).to_have_attribute("data-seq", "0")
    tap("c1")
    expect(pg.locator('#board .dest[data-dest="c5"]')).to_have_count(1)
    tap("c5")
    expect(confirm).to_be_visible()
    expect(confirm).to_contain_text("c1–c5")
    expect(pg.locator("#board .pending")).to_have_count(2)
    pg.locator("#move-confirm-no").tap()
    expect(confirm).to_be_hidden()
    expect(pg.locator("#board .pending")).to_have_count(0)
    assert seq(pg) == 0  # nothing was sent
    tap("c1")
    tap("c5")
    expect(confirm).to_be_visible()
    pg.locator("#move-confirm-yes").tap()
    expect(pg.locator("#board")).to_have_attribute("data-seq", "1")
    tower_at(pg, "b-red", "c5")
    expect(confirm).to_be_hidden()
    # the setting off: a tap, tap moves at once
    confirm_touch(pg, False)
    tap("b8")
    tap("b5")
    expect(pg.locator("#board")).to_have_attribute("data-seq", "2")
    expect(confirm).to_be_hidden()
    close(pg)


def test_the_board_size_is_a_setting_kept_across_a_reload(browser: Browser, server: str) -> None:
    pg = page(browser, server + "/", size=(1366, 768))
    start(pg, "hotseat", clock="180+2")
    full = width(pg, "#board")
    menu = pg.locator("details.prefs")
    menu.locator("summary").click()
    size = pg.locator("#board-size")
    expect(size).to_have_value("100")
    size.focus()
    for _ in range(6):
        pg.keyboard.press("ArrowLeft")  # 5 % a step
    expect(size).to_have_value("70")
    menu.locator("summary").click()
    smaller = width(pg, "#board")
    assert abs(smaller - 0.7 * full) <= 2, (smaller, full)
    pg.reload()
    expect(pg.locator("body")).to_have_attribute("data-ready", "1")
    expect(pg.locator("#board")).to_have_attribute("data-seq", "0")
    expect(pg.locator("#board-size")).to_have_value("70")
    assert abs(width(pg, "#board") - smaller) <= 1
    # the clocks stay beside the smaller board
    clock = pg.locator('.seat-bottom [role="timer"]').bounding_box()
    assert clock and clock["x"] >= smaller
    close(pg)


def test_zen_mode_shows_only_the_board_and_the_clocks(browser: Browser, server: str) -> None:
    for size in ((1366, 768), (390, 844)):
        pg = page(browser, server + "/", size=size)
        start(pg, "hotseat", clock="180+2")
        move(pg, "c1", "c5")
        before = width(pg, "#board")
        pg.locator("#zen").click()
        for hidden in ("header.top", "#status", "#moves", "#game-controls", "#site-footer"):
            expect(pg.locator(hidden)).to_be_hidden()
        for seen in ("#board", '.seat-top [role="timer"]', '.seat-bottom [role="timer"]'):
            expect(pg.locator(seen)).to_be_in_viewport(ratio=1)
        expect(pg.locator("#zen")).to_have_text("Leave zen mode")
        if size[0] > PHONE_MAX:  # the header's room goes to the board
            assert width(pg, "#board") > before
        shot(pg, SHOTS / f"zen-{size[0]}x{size[1]}.png")
        pg.reload()  # remembered
        expect(pg.locator("body")).to_have_attribute("data-ready", "1")
        expect(pg.locator("#board")).to_have_attribute("data-seq", "1")
        expect(pg.locator("header.top")).to_be_hidden()
        pg.locator("#zen").click()
        expect(pg.locator("header.top")).to_be_visible()
        expect(pg.locator("#status")).to_be_visible()
        expect(pg.locator("#zen")).to_have_text("Zen mode")
        # the zen mode is for live games: the landing page keeps its header
        pg.locator("#zen").click()
        pg.goto(server + "/#/")
        expect(pg.locator("header.top")).to_be_visible()
        close(pg)


TONES = """(() => {
  window.__tones = [];
  const Real = window.AudioContext;
  window.AudioContext = class extends Real {
    createOscillator() {
      const osc = super.createOscillator();
      const start = osc.start.bind(osc);
      osc.start = (...a) => { window.__tones.push(osc.frequency.value); return start(...a); };
      return osc;
    }
  };
})();"""


def test_the_low_time_warning_sounds_for_the_player_whose_time_it_is(browser: Browser, server: str) -> None:
    """A 5 s clock: Gold's time starts under 10 s with Black's first move;
    Gold's page (sounds on) plays the warning, Black's does not."""
    black, gold, _ = online_game(browser, server, initial=INITIAL_MIN_S, increment=0, init_script=TONES)
    for pg in (black, gold):
        settings(pg, sound=True)
    move(black, "c1", "c5")
    clock = gold.locator('.seat .clock[data-side="g"]')
    expect(clock).to_have_class(re.compile(r"\blow\b"))
    expect(clock).to_have_text(re.compile(r"^0:0\d\.\d$"))  # tenths under 10 s
    gold.wait_for_function("() => window.__tones.includes(880)")
    expect(black.locator("#status")).to_contain_text(re.compile("wins on time"), timeout=25_000)
    assert 880 not in black.evaluate("() => window.__tones")  # not Black's clock
    assert gold.evaluate("() => window.__tones.filter((f) => f === 880).length") == 1  # once
    close(black, gold)


@pytest.mark.console_allows(r"WebSocket connection .* failed")  # the server is restarting
def test_the_clocks_stand_still_while_the_server_restarts(browser: Browser, tmp_path: Path) -> None:
    live = LiveServer(tmp_path / "games.sqlite3", workers=0)
    url = live.start()
    try:
        pg = page(browser, url + "/")
        start(pg, "hotseat", clock="180+2")
        move(pg, "c1", "c5")  # Gold's clock runs
        clock = pg.locator('.seat .clock[data-side="g"]')
        expect(clock).to_have_class(re.compile(r"\brunning\b"))
        live.stop()  # every page is told "restarting"
        expect(pg.locator("#conn")).to_have_class("conn restarting")
        expect(clock).to_have_class(re.compile(r"\bpaused\b"))
        shown = clock.text_content(), clock.get_attribute("data-ms")
        pg.wait_for_timeout(1500)  # the page tries to reconnect meanwhile
        expect(pg.locator("#conn")).to_have_class("conn restarting")
        assert (clock.text_content(), clock.get_attribute("data-ms")) == shown
        live.start()  # back: a fresh state frame, and the clock runs again
        expect(pg.locator("#conn")).to_be_hidden(timeout=30_000)
        expect(clock).to_have_class(re.compile(r"\brunning\b"))
        expect(clock).not_to_have_attribute("data-ms", shown[1] or "")
        move(pg, "b8", "b3")
        close(pg)
    finally:
        live.stop()
