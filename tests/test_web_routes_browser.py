"""Issue 41's routes and words, in Chromium at the sizes they were seen:
the offline banner one line at 360x640 (More opens over the page, × hides
it until the network returns), the browser's language on a first visit,
the tab bar's words on one line at 360 px in every language, an unknown
game or route saying what is missing in place of the previous view, and
the last move's frame through a takeback and a reload of a kept game."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from tests import browser_kit
from tests.browser_kit import move, open_page, page, settings, start

browser = browser_kit.browser
server = browser_kit.server


def frame_at(pg: Page, kind: str, square: str) -> None:
    """The board frames ``square`` as the last move's ``kind`` (``last-from``, ``last-to``)."""
    expect(pg.locator(f'#board .{kind}.mark[data-square="{square}"]')).to_have_count(1)


def close(pg: Page) -> None:
    assert not pg.errors, pg.errors  # type: ignore[attr-defined]
    pg.context.close()


def test_the_offline_banner_is_one_line_that_leaves_the_board_in_view(browser: Browser, server: str) -> None:
    pg = page(browser, server + "/", size=(360, 640))
    start(pg, "hotseat")
    move(pg, "c1", "c5")
    board_top = pg.locator("#board").bounding_box()
    pg.context.set_offline(True)
    line = pg.locator("#offline-text")
    expect(line).to_be_visible()
    assert (line.bounding_box() or {"height": 99})["height"] <= 46  # one line (a 44 px target), not six
    tabbar = pg.evaluate("document.querySelector('nav.tabs').getBoundingClientRect().top")
    # Black's home row (the board's bottom) and the status line stay above the tab bar
    for sel in ("#board", "#status"):
        box = pg.locator(sel).bounding_box()
        assert box and box["y"] + box["height"] <= tabbar, (sel, box, tabbar)
    # More opens the explanation over the page: the board does not move
    before = pg.locator("#board").bounding_box()
    more = pg.locator("#offline-more")
    more.click()
    expect(more).to_have_attribute("aria-expanded", "true")
    expect(pg.locator("#offline-needs")).to_be_visible()
    expect(pg.locator("#offline-needs")).to_contain_text("need the network")
    assert pg.locator("#board").bounding_box() == before
    more.click()
    expect(pg.locator("#offline-needs")).to_be_hidden()
    # × hides it, and a page opened again offline remembers that
    pg.locator("#offline-hide").click()
    expect(line).to_be_hidden()
    assert board_top and (pg.locator("#board").bounding_box() or {})["y"] == board_top["y"]
    assert not pg.errors, pg.errors  # type: ignore[attr-defined]
    ctx = pg.context
    pg.close()  # (no service worker here: the page is loaded with the network, and told it has none)
    ctx.add_init_script("Object.defineProperty(Navigator.prototype, 'onLine', {get: () => false})")
    ctx.set_offline(False)
    pg = open_page(ctx, server + "/#/games")
    expect(pg.locator("body")).to_have_class(re.compile("is-offline"))
    expect(pg.locator("#offline-text")).to_be_hidden()
    close(pg)


@pytest.mark.console_allows(r"status of 401 .*/api/")
def test_the_browsers_language_is_the_first_visits_until_one_is_picked(browser: Browser, server: str) -> None:
    ctx = browser.new_context(locale="de-DE", viewport={"width": 1280, "height": 720})
    pg = open_page(ctx, server + "/")
    expect(pg.locator("html")).to_have_attribute("lang", "de")
    expect(pg.locator('[data-nav="home"]')).to_contain_text("Spielen")
    assert pg.locator("#lang").input_value() == "de"
    assert pg.evaluate("localStorage.getItem('kamisado.lang')") is None  # not kept: the browser's
    # the server's refusal of a form in the page's language
    pg.goto(server + "/#/account")
    pg.locator('#signin-form input[name="account"]').fill("nobody_here")
    pg.locator('#signin-form input[name="password"]').fill("not the password")
    pg.locator("#signin-form button").click()
    expect(pg.locator("#signin-form .error")).to_have_text("Falscher Kontoname oder falsches Passwort.")
    settings(pg, lang="en")
    expect(pg.locator('[data-nav="home"]')).to_contain_text("Play")
    pg.reload()  # the choice made in the page wins
    expect(pg.locator("body")).to_have_attribute("data-ready", "1")
    expect(pg.locator("html")).to_have_attribute("lang", "en")
    close(pg)
    ctx = browser.new_context(locale="hu-HU", viewport={"width": 360, "height": 640})
    pg = open_page(ctx, server + "/")
    expect(pg.locator("html")).to_have_attribute("lang", "hu")
    # the tab bar's words fit at 360 px, each on one line, in every language
    for lang in ("hu", "de", "en"):
        settings(pg, lang=lang)
        expect(pg.locator("html")).to_have_attribute("lang", lang)
        bad = pg.evaluate("""() => [...document.querySelectorAll('nav.tabs a:not([hidden])')].flatMap((a) => {
            const word = a.querySelector('[data-i18n]');
            const lines = word.getClientRects().length;
            const cut = word.getBoundingClientRect().width > a.getBoundingClientRect().width + 0.5
              || a.scrollWidth > a.clientWidth;
            return lines > 1 || cut ? [`${word.textContent}: ${lines} lines${cut ? ', cut' : ''}`] : [];
        })""")
        assert not bad, (lang, bad)
    close(pg)


@pytest.mark.console_allows(r"status of 404 .*/api/puzzles/nosuchpuzzle/attempts")
def test_an_unknown_game_or_route_clears_the_view_and_says_what_is_missing(browser: Browser, server: str) -> None:
    pg = page(browser, server + "/", size=(1366, 768))
    start(pg, "hotseat")
    move(pg, "c1", "c5")
    missing = pg.locator("#view-missing")
    for path, said in (("#/game/doesnotexist", "There is no game doesnotexist."),
                       ("#/nowhere/at/all", "There is no page #/nowhere/at/all"),
                       ("#/puzzle/nosuchpuzzle", "There is no puzzle nosuchpuzzle."),
                       ("#/game/doesnotexist", "There is no game doesnotexist.")):
        pg.goto(server + "/" + path)
        expect(missing).to_be_visible()
        expect(pg.locator("#missing-text")).to_contain_text(said)
        expect(pg.locator("#view-play")).to_be_hidden()  # the previous board, names, clocks gone
        pg.goto(server + "/#/games")  # from one missing thing to the next through another view
    pg.goto(server + "/#/game/doesnotexist")
    expect(missing).to_be_visible()
    missing.get_by_role("link", name="Back to the home page").click()
    expect(pg.locator("#view-home")).to_be_visible()
    expect(missing).to_be_hidden()
    close(pg)


def test_the_last_moves_frame_stays_through_a_takeback_and_a_reload(browser: Browser, server: str) -> None:
    pg = page(browser, server + "/", size=(390, 844))
    start(pg, "hotseat", target="3")
    move(pg, "c1", "c5")
    move(pg, "b8", "b3")
    frame_at(pg, "last-to", "b3")
    n = int(pg.locator("#board").get_attribute("data-seq") or 0)
    pg.locator("#takeback").click()
    expect(pg.locator("#board")).to_have_attribute("data-seq", str(n + 1))
    frame_at(pg, "last-from", "c1")  # Black's move, the one before it, framed again
    frame_at(pg, "last-to", "c5")
    # a hotseat game kept on this device: its last move framed after a reload
    local = pg.evaluate("""() => import('/static/js/views/local.js').then((l) =>
        l.createLocal({target: 1, series: false, black: 'human', gold: 'human'}))""")
    pg.goto(f"{server}/#/local/{local}")
    expect(pg.locator("#board")).to_have_attribute("data-seq", "0")
    move(pg, "d1", "d4")
    frame_at(pg, "last-to", "d4")
    pg.reload()
    expect(pg.locator("body")).to_have_attribute("data-ready", "1")
    expect(pg.locator("#board")).to_have_attribute("data-seq", "1")
    frame_at(pg, "last-from", "d1")
    frame_at(pg, "last-to", "d4")
    close(pg)
