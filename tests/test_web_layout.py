"""The phone-first layout and accessibility of every view of the page.

Every view (landing page, the four new-game forms, my games, a live hotseat
game, an online game as its creator, the fill between rounds, the result
dialog, a review, the lessons, a lesson, the puzzles, a puzzle) is looked at
in three viewports (two phones and a desktop), also with the settings menu
open:

* no sideways scrolling (``scrollWidth <= innerWidth``);
* on a phone, every visible touch target at least 44x44 CSS px and the board
  (nearly) as wide as the screen; on a desktop the board beside its panel and
  wholly on the first screen;
* axe-core reports no serious or critical violation.

Screenshots of each view go to /tmp/layout-shots/ when KAMISADO_SHOTS=1 is set.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests import browser_kit
from tests.browser_kit import QUICK_WIN, VIEWPORTS, move, open_page, settings, shot, start

# the fixtures: a live server for this module, and Chromium
server = browser_kit.server
browser = browser_kit.browser

SHOTS = Path("/tmp/layout-shots")
PHONES = ("phone-360", "phone-390")
AXE_AT = ("phone-390", "desktop")
SHOT_AT = ("phone-390", "desktop")
MIN_TARGET = 43.5  # 44 CSS px, less rounding

# the touch targets too small on a phone: a description of each
SMALL_TARGETS = """(min) => {
  const out = [];
  const seen = new Set();
  const sel = 'a[href], button, select, input:not([type="hidden"]), textarea, summary, label[for]';
  for (const el of document.querySelectorAll(sel)) {
    if (el.closest('svg, [hidden], .sr-only')) continue;
    // not rendered: another view, a closed menu or dialog
    if (!el.checkVisibility({contentVisibilityAuto: true, visibilityProperty: true})) continue;
    let box = el;
    if (el.matches('label[for]')) {
      // a label that stands in for a visually hidden control (the record upload)
      const ctl = document.getElementById(el.htmlFor);
      if (!ctl || !ctl.matches('.sr-only')) continue;
    } else if (el.matches('input[type="radio"], input[type="checkbox"]')) {
      const label = el.closest('label');
      if (label) box = label;
    }
    if (seen.has(box)) continue;
    seen.add(box);
    const style = getComputedStyle(box);
    if (style.visibility === 'hidden' || style.display === 'none') continue;
    const r = box.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;  // not rendered (closed menu, other view)
    if (r.right <= 0 || r.left >= innerWidth) continue;  // off screen (the skip link)
    if (r.width < min || r.height < min) {
      const name = (box.getAttribute('aria-label') || box.textContent || box.id || '').trim().slice(0, 30);
      const id = box.id ? '#' + box.id : '';
      out.push(`${box.tagName.toLowerCase()}${id}.${[...box.classList].join('.')} "${name}" ${r.width.toFixed(1)}x${r.height.toFixed(1)}`);
    }
  }
  return out;
}"""

BOXES = """() => {
  const box = (s) => { const e = document.querySelector(s);
    if (!e || !e.checkVisibility({visibilityProperty: true})) return null;
    const r = e.getBoundingClientRect(); return {left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width}; };
  return {board: box('#view-play.active #board'), panel: box('#view-play.active .panel'),
          vw: innerWidth, vh: innerHeight,
          banner: parseFloat(getComputedStyle(document.documentElement).getPropertyValue('--banner')) || 0};
}"""

OVERFLOW = """() => {
  const vw = window.innerWidth, sw = document.documentElement.scrollWidth;
  if (sw <= vw) return null;
  const wide = [...document.querySelectorAll('body *')].filter((e) => {
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.right > vw + 0.5 && !e.closest('.sr-only');
  }).slice(0, 4).map((e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') +
    (e.classList.length ? '.' + [...e.classList].join('.') : '') + ' right=' + e.getBoundingClientRect().right.toFixed(0));
  return `scrollWidth ${sw} > innerWidth ${vw}: ${wide.join(', ')}`;
}"""

# text wider than its own box (a button's label running out of the button)
CLIPPED = """() => [...document.querySelectorAll('button, .button, summary, label, select, nav a, .brand, .seat, h1, h2, h3')]
  .filter((e) => !e.closest('[hidden], .sr-only') && e.checkVisibility({contentVisibilityAuto: true})
    && e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).display !== 'inline')
  .slice(0, 6).map((e) => `${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''} "${e.textContent.trim().slice(0, 30)}" ` +
    `${e.scrollWidth} > ${e.clientWidth}`)"""

_axe = Axe()


def serious(pg: Page) -> list[str]:
    """axe-core's serious and critical violations, each with its first targets."""
    found = _axe.run(pg).response["violations"]
    return [
        f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes'][:4]]}"
        for v in found
        if v.get("impact") in ("serious", "critical")
    ]


def settle(pg: Page) -> None:
    pg.evaluate("() => window.scrollTo(0, 0)")
    pg.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")


def look(pg: Page, view: str, axe: bool = True, menu: bool = True) -> list[str]:
    """Every viewport's problems with the view ``pg`` shows (empty: none)."""
    problems: list[str] = []
    for vp, (w, h) in VIEWPORTS.items():
        pg.set_viewport_size({"width": w, "height": h})
        settle(pg)
        where = f"{view} @ {vp}"
        if over := pg.evaluate(OVERFLOW):
            problems.append(f"{where}: horizontal overflow: {over}")
        problems += [f"{where}: text wider than its box: {c}" for c in pg.evaluate(CLIPPED)]
        if vp in PHONES:
            problems += [f"{where}: small target {s}" for s in pg.evaluate(SMALL_TARGETS, MIN_TARGET)]
        boxes: dict[str, Any] = pg.evaluate(BOXES)
        board, panel = boxes["board"], boxes["panel"]
        if board:
            # (the offline banner's line is taken from a phone's board: style.css)
            if vp in PHONES and board["width"] < 0.94 * w - boxes["banner"]:
                problems.append(f"{where}: board {board['width']:.0f} px wide of {w}")
            if vp == "desktop":
                if panel and panel["left"] < board["right"] - 0.5:
                    problems.append(f"{where}: panel not beside the board: {board} {panel}")
                if board["bottom"] > h + 0.5:
                    problems.append(f"{where}: board bottom {board['bottom']:.0f} below {h}")
        if axe and vp in AXE_AT:
            problems += [f"{where}: axe {v}" for v in serious(pg)]
        if vp in SHOT_AT:
            shot(pg, SHOTS / f"{view}-{vp}.png", full_page=True)
        if menu:
            summary = pg.locator("details.prefs summary")
            summary.click()
            expect(pg.locator(".prefs-box")).to_be_visible()
            settle(pg)
            if over := pg.evaluate(OVERFLOW):
                problems.append(f"{where} (settings open): horizontal overflow: {over}")
            if vp in PHONES:
                problems += [f"{where} (settings open): small target {s}"
                             for s in pg.evaluate(SMALL_TARGETS, MIN_TARGET)]
            if vp in SHOT_AT and view == "home":
                shot(pg, SHOTS / f"settings-{vp}.png")
            if axe and vp == "phone-390" and view == "home":
                problems += [f"{where} (settings open): axe {v}" for v in serious(pg)]
            summary.click()
            expect(pg.locator(".prefs-box")).to_be_hidden()
    return problems


@pytest.fixture(scope="module")
def ctx(browser: Browser, server: str) -> Iterator[BrowserContext]:
    """One browser context for the module (the seats it holds list as games)."""
    c = browser.new_context(viewport={"width": 1280, "height": 800})
    c.set_default_timeout(10_000)
    yield c
    c.close()


@pytest.fixture(scope="module")
def won(ctx: BrowserContext, server: str) -> Iterator[tuple[Page, str]]:
    """A single-round hotseat game Black has just won: its page (the result
    shown in the panel) and its id."""
    pg = open_page(ctx, server + "/")
    start(pg, "hotseat", target="1")
    for frm, to in QUICK_WIN:
        move(pg, frm, to)
    expect(pg.locator("#result")).to_be_visible()
    game = re.sub(r".*#/game/([\w-]+).*", r"\1", pg.url)
    yield pg, game
    pg.close()


def check(pg: Page, view: str, **kw: bool) -> None:
    problems = look(pg, view, **kw)
    errors = pg.errors  # type: ignore[attr-defined]
    assert not problems and not errors, "\n".join(problems + errors)


def simple(path: str, ready: str) -> Callable[[BrowserContext, str], Page]:
    def go(ctx: BrowserContext, server: str) -> Page:
        pg = open_page(ctx, server + "/" + path)
        expect(pg.locator(ready).first).to_be_visible()
        return pg
    return go


SIMPLE = {
    "home": simple("#/", "#level-list li"),
    "new-computer": simple("#/new/computer", "#level-cards label"),
    "new-hotseat": simple("#/new/hotseat", "#start"),
    "new-online": simple("#/new/online", 'input[name="name"]'),
    "new-watch": simple("#/new/watch", 'select[name="level2"]'),
    "lessons": simple("#/lessons", "#lesson-list a"),
    "lesson": simple("#/lesson/fig3", "#lesson-step"),
    "puzzles": simple("#/puzzles", "#puzzle-list a"),
    "account": simple("#/account", "#signin-form button"),
    "lobby": simple("#/lobby", "#challenge-post:enabled"),
}


@pytest.mark.parametrize("view", list(SIMPLE))
def test_simple_views(ctx: BrowserContext, server: str, view: str) -> None:
    pg = SIMPLE[view](ctx, server)
    check(pg, view)
    pg.close()


def test_puzzle(ctx: BrowserContext, server: str) -> None:
    pg = open_page(ctx, server + "/#/puzzles")
    first = pg.locator("#puzzle-list a").first
    href = first.get_attribute("href") or ""
    assert href.startswith("#/puzzle/")
    first.click()
    expect(pg.locator("#puzzle-box")).to_have_attribute("data-state", "playing")
    check(pg, "puzzle")
    pg.close()


def test_my_games(ctx: BrowserContext, server: str) -> None:
    pg = open_page(ctx, server + "/")
    res = pg.request.post(server + "/api/games", data={
        "target": 3, "series": False, "black": "human", "gold": "casual"})
    assert res.ok
    pg.goto(server + "/#/games")
    expect(pg.locator("#games-list .game-card").first).to_be_visible()
    check(pg, "games")
    pg.close()


def test_live_hotseat_game(ctx: BrowserContext, server: str) -> None:
    pg = open_page(ctx, server + "/")
    start(pg, "hotseat", target="3")
    move(pg, "a1", "a4")
    move(pg, "e8", "e5")
    # the status line is a live region
    status = pg.locator("#status")
    assert status.get_attribute("role") == "status" or status.get_attribute("aria-live") == "polite"
    check(pg, "game")
    # the colour-blind mode
    settings(pg, characters=True)
    try:
        expect(pg.locator("body")).to_have_class(re.compile(r"\bcharacters\b"))
        check(pg, "game-characters", axe=False)
    finally:
        settings(pg, characters=False)
    pg.close()


def test_online_game_as_its_creator(ctx: BrowserContext, server: str) -> None:
    pg = open_page(ctx, server + "/")
    start(pg, "online", colour="b")
    expect(pg.locator("#invite-link")).to_have_value(re.compile(r"\?t="))
    check(pg, "online")
    pg.close()


def test_lobby_with_challenges(browser: Browser, ctx: BrowserContext, server: str) -> None:
    """The lobby with a challenge of another browser's and one of its own."""
    other = browser.new_context()
    try:
        theirs = open_page(other, server + "/#/lobby")
        theirs.locator('#challenge-form select[name="clock"]').select_option("300+3")
        theirs.locator("#challenge-post").click()
        pg = open_page(ctx, server + "/#/lobby")
        pg.locator("#challenge-post").click()
        expect(pg.locator("#challenges .challenge")).to_have_count(2)
        check(pg, "lobby-challenges")
        pg.close()
    finally:
        other.close()


def test_player_page(ctx: BrowserContext, server: str) -> None:
    pg = open_page(ctx, server + "/#/account")
    pg.locator("#my-player-page").click()
    expect(pg.locator("#player-ratings li")).to_have_count(2)
    check(pg, "player")
    pg.close()


def test_an_offer_in_an_online_game(browser: Browser, server: str) -> None:
    """A takeback offered: the opponent's Accept and Decline."""
    black = browser.new_context()
    gold = browser.new_context()
    try:
        b = open_page(black, server + "/")
        start(b, "online", colour="b")
        expect(b.locator("#invite-link")).to_have_value(re.compile(r"\?t="))
        g = open_page(gold, b.locator("#invite-link").input_value())
        expect(g.locator("#board")).to_have_attribute("data-you", "g")
        move(b, "c1", "c5")
        b.locator("#takeback").click()
        expect(g.locator("#offer-accept")).to_be_visible()
        check(g, "offer")
    finally:
        black.close()
        gold.close()


def test_fill_between_rounds(ctx: BrowserContext, server: str) -> None:
    pg = open_page(ctx, server + "/")
    start(pg, "hotseat", target="3")
    for frm, to in QUICK_WIN:
        move(pg, frm, to)
    expect(pg.locator("#fill-panel")).to_be_visible()
    check(pg, "fill")
    pg.close()


def test_result_inline(won: tuple[Page, str]) -> None:
    pg, _ = won
    expect(pg.locator("#result")).to_be_visible()
    check(pg, "result")


def test_review(ctx: BrowserContext, server: str, won: tuple[Page, str]) -> None:
    pg = open_page(ctx, f"{server}/#/review/{won[1]}")
    expect(pg.locator("#review-controls")).to_be_visible()
    expect(pg.locator("#moves .entry").first).to_be_visible()
    check(pg, "review")
    pg.close()


@pytest.mark.parametrize("lang", ["de", "hu"])
def test_longer_words_fit(ctx: BrowserContext, server: str, lang: str) -> None:
    """German and Hungarian words are longer: the landing page, the form, a
    live game (step buttons, fill buttons) and the lobby still fit a phone."""
    pg = open_page(ctx, server + "/")
    settings(pg, lang=lang)
    try:
        problems = look(pg, f"home-{lang}", axe=False, menu=False)
        pg.goto(server + "/#/new/computer")
        expect(pg.locator("#level-cards label").first).to_be_visible()
        problems += look(pg, f"new-{lang}", axe=False, menu=False)
        start(pg, "hotseat", target="3")
        for frm, to in QUICK_WIN:
            move(pg, frm, to)
        expect(pg.locator("#fill-panel")).to_be_visible()
        problems += look(pg, f"fill-{lang}", axe=False)
        pg.goto(server + "/#/lobby")
        expect(pg.locator("#challenge-post")).to_be_enabled()
        pg.locator("#challenge-post").click()
        expect(pg.locator("#challenges .challenge")).to_have_count(1)
        problems += look(pg, f"lobby-{lang}", axe=False, menu=False)
    finally:
        settings(pg, lang="en")
    assert not problems, "\n".join(problems)
    pg.close()
