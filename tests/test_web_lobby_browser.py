"""The lobby in real browsers (docs/web.md, "The lobby"): a challenge posted
in one browser appears live in another, is accepted with one click and
puts both in the same game with opposite colours; a challenge goes away
with the tab that posted it.

Screenshots go to /tmp/kamisado-lobby-*.png.
"""

from __future__ import annotations

import re

from playwright.sync_api import Browser, Page, expect

from tests import browser_kit
from tests.browser_kit import SHOTS, game_id, move, open_page, page, shot, tower_at, you

# the fixtures: a live server for this module, and Chromium
server = browser_kit.server
browser = browser_kit.browser

# two moves each: Black's red, Gold's blue, Black's yellow, Gold's purple
MOVES = [("c1", "c5"), ("b8", "b3"), ("d1", "g4"), ("c8", "c7")]


def post(pg: Page, target: str = "1", clock: str = "", color: str = "random") -> None:
    """Post a challenge from the lobby's form, as a person would."""
    form = pg.locator("#challenge-form")
    form.locator('select[name="target"]').select_option(target)
    form.locator('select[name="clock"]').select_option(clock)
    form.locator('select[name="color"]').select_option(color)
    expect(pg.locator("#challenge-post")).to_be_enabled()
    pg.locator("#challenge-post").click()


def lobby(pg: Page) -> None:
    """Open the lobby by its tab and wait for the challenges to come."""
    pg.get_by_role("link", name="Lobby").click()
    expect(pg.locator("#view-lobby")).to_be_visible()
    expect(pg.locator("#challenge-post")).to_be_enabled()  # the lobby frame came


def test_a_challenge_appears_live_is_accepted_in_one_click_and_goes_with_its_tab(
        browser: Browser, server: str) -> None:
    a = page(browser, server + "/")
    b = page(browser, server + "/")
    lobby(a)
    lobby(b)
    expect(b.locator("#challenges .challenge")).to_have_count(0)
    post(a, target="3")
    # A's own challenge, with a way to withdraw it
    mine = a.locator('#challenges .challenge[data-mine="1"]')
    expect(mine).to_have_count(1)
    expect(mine.locator("button.cancel")).to_be_visible()
    # B sees it come with no reload: match type, clock, casual, the poster's name
    theirs = b.locator('#challenges .challenge[data-mine="0"]')
    expect(theirs).to_have_count(1)
    expect(theirs.locator(".facts")).to_contain_text("Standard match (3 points)")
    expect(theirs.locator(".facts")).to_contain_text("No clock")
    expect(theirs.locator(".facts")).to_contain_text("casual")
    b.wait_for_timeout(300)
    shot(b, SHOTS / "kamisado-lobby-challenge.png")
    # one click: both open the same game, one seat each
    theirs.locator("button.accept").click()
    gid = game_id(a)
    assert game_id(b) == gid
    sides = {you(a), you(b)}
    assert sides == {"b", "g"}, sides
    black, gold = (a, b) if you(a) == "b" else (b, a)
    expect(black.locator("#status")).to_contain_text("Your move")
    expect(gold.locator("#status")).to_contain_text("Black to move")
    for i, (frm, to) in enumerate(MOVES):
        move(black if i % 2 == 0 else gold, frm, to)
    for pg in (black, gold):
        tower_at(pg, "b-yellow", "g4")
        tower_at(pg, "g-purple", "c7")
        expect(pg.locator("#moves td.move")).to_have_count(4)
    # the lobby no longer lists the accepted challenge
    c = page(browser, server + "/")
    lobby(c)
    expect(c.locator("#challenges .challenge")).to_have_count(0)
    # a second challenge from a new tab of A's browser: C sees it, then it
    # goes when that tab closes
    tab = open_page(a.context, server + "/#/lobby")
    expect(tab.locator("#challenge-post")).to_be_enabled()
    post(tab, target="1", clock="300+3")
    seen = c.locator("#challenges .challenge")
    expect(seen).to_have_count(1)
    expect(seen.locator(".facts")).to_contain_text("5+3")
    tab.close()
    expect(seen).to_have_count(0)
    expect(c.locator("#challenges-empty")).to_be_visible()
    for pg in (a, b, c):
        assert not pg.errors  # type: ignore[attr-defined]
        pg.context.close()


def test_leaving_the_lobby_withdraws_the_challenge_and_own_ones_can_be_cancelled(
        browser: Browser, server: str) -> None:
    a = page(browser, server + "/")
    b = page(browser, server + "/")
    lobby(a)
    lobby(b)
    post(a, target="7", color="b")
    theirs = b.locator("#challenges .challenge")
    expect(theirs).to_have_count(1)
    # A plays Black: B would play Gold
    expect(theirs.locator(".facts")).to_contain_text("you play Gold")
    a.locator('#challenges .challenge[data-mine="1"] button.cancel').click()
    expect(theirs).to_have_count(0)
    post(a, target="15", clock="300+3")
    expect(theirs).to_have_count(1)
    # a timed challenge shows its poster's rating for the speed: a new
    # player's is provisional, "?" as everywhere else
    expect(theirs.locator(".rating")).to_have_text("1500?")
    expect(theirs.locator(".rating")).to_have_attribute("title", re.compile("Provisional"))
    a.get_by_role("link", name="My games").click()  # leaving the lobby
    expect(theirs).to_have_count(0)
    # the rated box wants an account and a clock
    lobby(a)
    rated = a.locator('#challenge-form input[name="rated"]')
    expect(rated).to_be_disabled()
    expect(a.locator("#challenge-rated-hint")).to_contain_text("account")
    for pg in (a, b):
        assert not pg.errors  # type: ignore[attr-defined]
        pg.context.close()


def test_accepting_a_challenge_that_is_gone_says_so(browser: Browser, server: str) -> None:
    a = page(browser, server + "/")
    b = page(browser, server + "/")
    lobby(a)
    lobby(b)
    post(a)
    theirs = b.locator("#challenges .challenge button.accept")
    expect(theirs).to_have_count(1)
    a.locator("button.cancel").click()
    expect(b.locator("#challenges .challenge")).to_have_count(0)
    # a challenge id that is gone, sent as the page would
    answer = b.evaluate(
        """() => new Promise((resolve) => {
            const ws = new WebSocket(`ws://${location.host}/ws`);
            ws.onopen = () => ws.send(JSON.stringify({type: "accept", challenge: "gone00000000"}));
            ws.onmessage = (ev) => { const m = JSON.parse(ev.data); if (m.type === "error") { resolve(m); ws.close(); } };
        })"""
    )
    assert answer["code"] == "no_challenge", answer
    assert re.search(r"\w", answer["message"])
    for pg in (a, b):
        assert not pg.errors  # type: ignore[attr-defined]
        pg.context.close()
