"""Quick pairing in real browsers (docs/web.md, "Quick pairing"): two
players on two server processes sharing one PostgreSQL each click the same
speed in the lobby and land in the same game, one seat each; a second
click cancels a seek; the lobby counts both processes' players and games
and links a game in play to watch.

Screenshots go to /tmp/kamisado-seeks-*.png.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests import browser_kit
from tests.browser_kit import SHOTS, game_id, page, shot, you
from tests.test_web_processes import servers
from tests.test_web_seeks import database_of_its_own

browser = browser_kit.browser


@pytest.fixture(scope="module")
def two_servers(pg_database: str) -> Iterator[tuple[str, str]]:
    """Two server processes on a PostgreSQL database of their own: their URLs."""
    with database_of_its_own(pg_database) as url, servers(url, 2) as (a, b):
        yield f"http://{a}", f"http://{b}"


def lobby(pg: Page) -> None:
    """Open the lobby by its tab; wait for the speeds to be ready."""
    pg.get_by_role("link", name="Lobby").click()
    expect(pg.locator("#quick-grid button").first).to_be_enabled()


def test_quick_pairing_with_two_players_on_two_server_processes(
        browser: Browser, two_servers: tuple[str, str]) -> None:
    a_url, b_url = two_servers
    ann = page(browser, a_url + "/", size=(390, 844))
    bob = page(browser, b_url + "/")
    lobby(ann)
    lobby(bob)
    expect(ann.locator("#lobby-counts")).to_have_text("Players online: 2 · Games in play: 0")
    expect(ann.locator("#lobby-top")).to_be_hidden()
    # one click seeks, a second cancels
    five = ann.locator('#quick-grid button[data-speed="5+3"]')
    five.click()
    expect(five).to_have_attribute("aria-pressed", "true")
    expect(five).to_contain_text("Seeking")
    expect(ann.locator("#quick-said")).to_have_text(
        "Seeking a game (5+3): it starts as soon as an opponent is found.")
    shot(ann, SHOTS / "kamisado-seeks-seeking.png")
    five.click()
    expect(five).to_have_attribute("aria-pressed", "false")
    expect(ann.locator("#quick-said")).to_have_text("Seek cancelled.")
    # the same speed on two processes: one game, a seat each
    ann.locator('#quick-grid button[data-speed="3+2"]').click()
    expect(ann.locator('#quick-grid button[data-speed="3+2"]')).to_have_attribute("aria-pressed", "true")
    bob.locator('#quick-grid button[data-speed="3+2"]').click()
    game = game_id(ann)
    assert game_id(bob) == game
    assert sorted(you(ann) + you(bob)) == ["b", "g"]
    expect(ann.locator('.seat .clock[data-side="b"]')).to_contain_text("3:00")
    # a third player on process A sees both processes' players and the game, and watches it
    cy = page(browser, a_url + "/")
    lobby(cy)
    expect(cy.locator("#lobby-counts")).to_have_text("Players online: 3 · Games in play: 1")
    top = cy.locator("#lobby-top a")
    expect(top).to_be_visible()
    shot(cy, SHOTS / "kamisado-seeks-lobby.png", full_page=True)
    top.click()
    assert game_id(cy) == game and you(cy) == ""
    for pg in (ann, bob, cy):
        assert pg.errors == []  # type: ignore[attr-defined]
