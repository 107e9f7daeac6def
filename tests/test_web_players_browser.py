"""Player pages and direct challenges in real browsers (docs/web.md, "Player
pages and the leaderboard", "Direct challenges"): two signed-up players in
two browser contexts; one challenges the other from the other's player page,
the other sees it live wherever they are on the site, declines one and
accepts the next with one click, and both are put in the same game.

Screenshots go to /tmp/kamisado-players-*.png.
"""

from __future__ import annotations

from playwright.sync_api import Browser, Page, expect

from tests import browser_kit
from tests.browser_kit import SHOTS, game_id, page, shot, sign_up, you
from tests.test_web_layout import look

# the fixtures: a live server for this module, and Chromium
server = browser_kit.server
browser = browser_kit.browser


def player_id(pg: Page) -> str:
    """The page's player's id (``GET /api/me`` from the page)."""
    got: str = pg.evaluate("fetch('/api/me').then((r) => r.json()).then((m) => m.id)")
    return got


def challenge(pg: Page) -> None:
    """Send the player shown a rated 5+3 challenge, as a person would."""
    pg.locator("#pc-clock").select_option("300+3")
    pg.locator("#pc-rated").check()
    pg.get_by_role("button", name="Challenge", exact=True).click()
    expect(pg.locator("#pc-said")).to_contain_text("Challenge sent")


def test_a_direct_challenge_accepted_from_a_player_page(browser: Browser, server: str) -> None:
    ann = page(browser, server + "/")
    bob = page(browser, server + "/")
    sign_up(ann, "annie")
    sign_up(bob, "bobby")
    bob_id = player_id(bob)
    bob.goto(server + "/#/games")  # Bob is somewhere else on the site
    ann.goto(server + f"/#/player/{bob_id}")
    expect(ann.locator("#player-name")).to_have_text("bobby")
    expect(ann.locator("#player-online")).to_have_text("Online now")
    # the first challenge: declined
    challenge(ann)
    notice = bob.locator("#notices .notice")
    expect(notice).to_have_count(1)
    expect(notice).to_contain_text("annie")
    expect(notice).to_contain_text("5+3")
    expect(notice).to_contain_text("rated")
    shot(bob, SHOTS / "kamisado-players-notice.png")
    notice.get_by_role("button", name="Decline annie's challenge").click()
    expect(notice).to_have_count(0)
    expect(bob.locator("#notices")).to_be_hidden()
    expect(ann.locator("#pc-said")).to_have_text("Your challenge was declined.")
    # the second: accepted with one click, and both are in the same game
    challenge(ann)
    expect(notice).to_have_count(1)
    notice.get_by_role("button", name="Accept annie's challenge").click()
    game = game_id(bob)
    assert game_id(ann) == game
    assert sorted(you(ann) + you(bob)) == ["b", "g"]
    expect(bob.locator("#notices")).to_be_hidden()
    shot(ann, SHOTS / "kamisado-players-started.png")
    assert ann.errors == [] and bob.errors == []  # type: ignore[attr-defined]


def test_a_player_page_says_when_the_player_is_offline(browser: Browser, server: str) -> None:
    ann = page(browser, server + "/")
    bob = page(browser, server + "/")
    bob_id = player_id(bob)
    bob.context.close()  # Bob's page goes: Bob is offline
    ann.goto(server + f"/#/player/{bob_id}")
    expect(ann.locator("#player-online")).to_have_text("Not online now")
    expect(ann.get_by_role("button", name="Challenge", exact=True)).to_be_disabled()
    expect(ann.locator("#pc-said")).to_contain_text("not online now")


def test_the_player_page_the_notice_and_the_leaderboard_fit_every_screen(browser: Browser, server: str) -> None:
    """Another player's page (online, the Challenge form, a recent game),
    a notice and the leaderboard at 360x740, 390x844 and 1280x800: no
    sideways scroll, 44 px touch targets on phones, axe-core clean."""
    ann = page(browser, server + "/")
    bob = page(browser, server + "/")
    sign_up(ann, "anne_layout")
    sign_up(bob, "bob_layout_with_a_long_name")
    bob_id = player_id(bob)
    bob.goto(server + "/#/games")
    ann.goto(server + f"/#/player/{bob_id}")
    expect(ann.locator("#player-online")).to_have_text("Online now")
    # a game Bob resigns: a recent game on his page
    challenge(ann)
    bob.locator("#notices .notice button.accept").click()
    game_id(bob)
    game_id(ann)
    you(bob)
    bob.locator("#resign").click()
    expect(bob.locator("#resign")).to_have_text("Really resign?")
    bob.locator("#resign").click()
    expect(bob.locator("#result-text")).to_contain_text("resigned")
    ann.goto(server + f"/#/player/{bob_id}")
    expect(ann.locator("#player-recent li")).to_have_count(1)
    expect(ann.locator("#player-recent li")).to_contain_text("Lost against anne_layout")
    problems = look(ann, "player-other", menu=False)
    bob.goto(server + "/#/lessons")
    challenge(ann)
    expect(bob.locator("#notices .notice")).to_have_count(1)
    problems += look(bob, "notice", menu=False)
    ann.goto(server + "/#/leaderboard?speed=correspondence")
    expect(ann.locator('#view-leaderboard a[data-speed="correspondence"]')).to_have_attribute("aria-current", "page")
    expect(ann.locator("#lb-empty")).to_be_visible()  # nobody's rating has settled yet
    problems += look(ann, "leaderboard", menu=False)
    assert problems == [], "\n".join(problems)
