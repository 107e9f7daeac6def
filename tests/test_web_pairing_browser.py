"""Getting a game in real browsers (docs/web.md, "Quick pairing"): the home
page's quick pairing, Rated by default for an account, and "New opponent"
after a game the lobby made, which seeks the same speed again; an aborted
game shows no report, a rated game's report shows on both players'
pages, the leaderboard lists provisional players below, marked "?", the
player page's challenge offers every match type, 1+0 and a colour, and the
review's step buttons stay in view on a 360x640 phone.  At a phone's size
(390x844, 360x640), where it was seen.

Screenshots go to /tmp/kamisado-pairing-*.png.
"""

from __future__ import annotations

import re

from playwright.sync_api import Browser, Page, expect

from tests import browser_kit
from tests.browser_kit import SHOTS, game_id, move, page, shot, sign_up, you

# the fixtures: a live server for this module, and Chromium
server = browser_kit.server
browser = browser_kit.browser


def home(pg: Page) -> None:
    """Open the home page by its tab; wait for the speeds to be ready."""
    pg.locator("[data-nav=home]").first.click()
    expect(pg.locator("#view-home #quick-grid button").first).to_be_enabled()


def test_home_quick_pairing_rated_by_default_and_new_opponent_at_the_same_speed(
        browser: Browser, server: str) -> None:
    ann = page(browser, server + "/", size=(390, 844))
    bob = page(browser, server + "/", size=(390, 844))
    sign_up(ann, "annpair")
    sign_up(bob, "bobpair")
    for pg in (ann, bob):
        home(pg)
        expect(pg.locator('#quick input[value="rated"]')).to_be_checked()  # an account: rated by default
    three = '#view-home #quick-grid button[data-speed="3+2"]'
    ann.locator(three).click()
    expect(ann.locator(three)).to_have_attribute("aria-pressed", "true")
    expect(ann.locator(three)).to_have_attribute("aria-label", "Seeking a game: 3+2. Press again to cancel")
    shot(ann, SHOTS / "kamisado-pairing-home.png")
    bob.locator(three).click()
    first = game_id(ann)
    assert game_id(bob) == first and sorted(you(ann) + you(bob)) == ["b", "g"]
    black, gold = (ann, bob) if you(ann) == "b" else (bob, ann)
    black.locator("#abort").click()
    for pg in (ann, bob):
        expect(pg.locator("#result")).to_be_visible()
        expect(pg.locator("#result-report")).to_be_hidden()  # no moves: no report, no "Accuracy – –"
        expect(pg.locator("#result-new")).to_have_text("New opponent")
    # New opponent: the home page, seeking 3+2 rated again; the other's click pairs them
    gold.locator("#result-new").click()
    expect(gold.locator(three)).to_have_attribute("aria-pressed", "true")
    expect(gold.locator('#quick input[value="rated"]')).to_be_checked()
    black.locator("#result-new").click()
    second = game_id(black)
    assert second != first and game_id(gold) == second
    black, gold = (ann, bob) if you(ann) == "b" else (bob, ann)  # the colours drawn again
    assert you(gold) == "g"
    expect(black.locator(".seat-top .presence")).to_have_text("online")  # Gold's page came
    expect(black.locator('.seat .clock[data-side="b"]')).to_contain_text("3:00")
    # a move, then Gold resigns: rated, and its report comes to both pages unasked
    move(black, "a1", "a4")
    gold.locator("#resign").click()
    gold.locator("#resign").click()  # "Really resign?"
    for pg in (ann, bob):
        expect(pg.locator("#result-report .report-table")).to_be_visible(timeout=90_000)
        expect(pg.locator("#result-report .report-ask")).to_have_count(0)
    shot(gold, SHOTS / "kamisado-pairing-report.png", full_page=True)
    # the leaderboard: nobody established yet (said so), both listed below as provisional
    ann.goto(server + "/#/leaderboard")
    expect(ann.locator("#lb-provisional li")).to_have_count(2)
    expect(ann.locator("#lb-empty")).to_contain_text("Nobody has an established rating")
    expect(ann.locator("#lb-provisional li .rating").first).to_have_text(re.compile(r"^\d+\?$"))
    expect(ann.locator("#lb-list li")).to_have_count(0)
    shot(ann, SHOTS / "kamisado-pairing-leaderboard.png")
    # the other's page: a challenge of every match type, 1+0 and a colour, rated by default
    ann.locator("#lb-provisional a", has_text="bobpair").click()
    expect(ann.locator("#pc-target option")).to_have_count(4)
    assert ann.locator("#pc-target option").evaluate_all("os => os.map(o => o.value)") == ["1", "3", "7", "15"]
    expect(ann.locator('#pc-clock option[value="60+0"]')).to_have_text("1+0")
    assert ann.locator("#pc-colour option").evaluate_all("os => os.map(o => o.value)") == ["random", "b", "g"]
    expect(ann.locator("#pc-rated")).to_be_checked()
    # the review on a 360x640 phone: the step buttons in view above the bottom bar
    ann.set_viewport_size({"width": 360, "height": 640})
    ann.goto(f"{server}/#/review/{second}")
    expect(ann.locator("#rv-report .report-table")).to_be_visible(timeout=60_000)
    nav_top = ann.locator("nav.tabs").bounding_box()
    for button in ("#rv-first", "#rv-prev", "#rv-next", "#rv-last"):
        box = ann.locator(button).bounding_box()
        assert box and nav_top and box["y"] >= 0 and box["y"] + box["height"] <= nav_top["y"] + 1, (button, box)
    ann.locator("#rv-first").click()  # within reach: nothing over it
    expect(ann.locator("#rv-where")).to_contain_text("Start of round 1")
    for pg in (ann, bob):
        assert pg.errors == []  # type: ignore[attr-defined]
