"""The puzzle trainer in a real browser (docs/web.md, "Puzzles"): a puzzle
missed (said wrong, the answer kept until asked for), retried and solved by
a signed-in player, whose puzzle rating and the puzzle's moved with the
first (rated) try only, at a phone's and a desktop's size; the list's even
cards with their pictures; a puzzle in German; and a streak ended by a
miss.  One server for the module."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from kamisado.lessons import load_puzzle_set
from kamisado.rules.position import Position
from kamisado.web.basics.ratings import Rating, rate_puzzle
from tests import browser_kit
from tests.browser_kit import click_square, page, settings, sign_up

server = browser_kit.server
browser = browser_kit.browser


def api(pg: Page, path: str) -> Any:
    """``GET path`` from the page (its cookie: its player)."""
    return pg.evaluate("(p) => fetch(p).then((r) => r.json())", path)


def play(pg: Page, mv: str) -> None:
    """Pick the tower, see the destination lit, move it."""
    frm, to = mv.split("-")
    click_square(pg, frm)
    expect(pg.locator(f'#board .dest[data-dest="{to}"]')).to_have_count(1)
    click_square(pg, to)


def shown(pg: Page) -> dict[str, Any]:
    """The stored puzzle the page shows (its accepted moves from the set)."""
    expect(pg.locator("#puzzle-box")).to_have_attribute("data-state", "playing")
    pid = pg.locator("#puzzle-box").get_attribute("data-puzzle")
    return next(p for p in load_puzzle_set() if p["id"] == pid)


def wrong_move(p: dict[str, Any]) -> str:
    return next(str(m) for m in Position(p["kpn"]).legal_moves if str(m) not in p["accepted"])


@pytest.mark.parametrize("size", [(390, 844), (1366, 768)], ids=["phone-390", "desktop-1366"])
def test_a_puzzle_missed_retried_solved_and_the_ratings_moved(browser: Browser, server: str,
                                                             size: tuple[int, int]) -> None:
    pg = page(browser, server + "/", size)
    sign_up(pg, f"solver{size[0]}")
    before = api(pg, "/api/puzzles/p01-w1")
    pg.goto(server + "/#/puzzle/p01-w1")
    expect(pg.locator("#puzzle-text")).to_contain_text("Gold to move wins in 1")
    # a human source line: the match and the levels, no generator seeds
    source = pg.locator("#puzzle-source")
    expect(source).to_have_text("From a single round between two computer levels (Novice and Club player),"
                                " round 1, move 13")
    meta = pg.locator("#puzzle-meta")
    expect(meta).to_have_text("The only winning move")  # no rating while it is played
    play(pg, "h6-h5")
    feedback = pg.locator("#puzzle-feedback")
    expect(pg.locator("#status")).to_have_text("That is not the move.")
    expect(feedback).to_have_text("You played Brown Forward 1 Yellow. Retry, or view the solution.")
    expect(pg.get_by_role("button", name="Retry")).to_be_visible()
    expect(pg.get_by_role("button", name="View the solution")).to_be_visible()
    # the answer is nowhere on the page before it is asked for
    expect(pg.locator("body")).not_to_contain_text("Forward 5 Orange")
    expect(pg.locator("body")).not_to_contain_text("h6-h1")
    mine, theirs = rate_puzzle(Rating(), Rating(before["rating"], before["rd"]), False)
    ratings = pg.locator("#puzzle-ratings")
    expect(ratings).to_have_text(f"Your puzzle rating: {round(mine.rating)} ({round(mine.rating) - 1500})")
    expect(meta).to_have_text(f"The only winning move · This puzzle is rated {round(theirs.rating)}")
    # one puzzle rating on the screen: the player's, the puzzle's own labelled as such
    box = pg.locator("#puzzle-box")
    assert box.inner_text().lower().count("puzzle rating") == 1, box.inner_text()
    pg.get_by_role("button", name="View the solution").click()
    expect(feedback).to_have_text("The solution: Brown Forward 5 Orange")
    expect(pg.locator('#board [data-at="h1"]')).to_have_count(1)
    expect(pg.get_by_role("button", name="View the solution")).to_be_hidden()
    pg.get_by_role("button", name="Retry").click()
    expect(pg.locator("#puzzle-box")).to_have_attribute("data-state", "playing")
    expect(feedback).to_have_text("")
    play(pg, "h6-h1")
    expect(pg.locator("#puzzle-box")).to_have_attribute("data-state", "solved")
    expect(pg.locator("#status")).to_have_text("Solved!")
    expect(pg.get_by_text("Solved!")).to_have_count(1)  # said once
    expect(ratings).to_have_text("A retry is not rated.")
    expect(meta).to_contain_text(f"This puzzle is rated {round(theirs.rating)}")
    expect(pg.get_by_role("button", name="Next puzzle")).to_be_visible()
    # the player page: one puzzle solved, the rating the miss made
    me = api(pg, "/api/me")["id"]
    pg.goto(server + f"/#/player/{me}")
    expect(pg.locator("#player-puzzles")).to_contain_text(f"1 solved · puzzle rating: {round(mine.rating)}")
    # "Next puzzle" from a puzzle opens another one
    pg.goto(server + "/#/puzzle/p01-w1")
    expect(pg.locator("#puzzle-box")).to_have_attribute("data-state", "playing")
    play(pg, "h6-h1")
    pg.get_by_role("button", name="Next puzzle").click()
    expect(pg).not_to_have_url(server + "/#/puzzle/p01-w1")
    assert not pg.errors  # type: ignore[attr-defined]


def test_the_list_cards_and_the_puzzle_in_german(browser: Browser, server: str) -> None:
    pg = page(browser, server + "/#/puzzles", (390, 844))
    cards = pg.locator("#puzzle-list li")
    expect(cards).to_have_count(100)
    expect(cards.nth(0).locator("img.thumb")).to_have_js_property("complete", True)
    assert cards.nth(0).locator("img.thumb").evaluate("(i) => i.naturalWidth") > 0  # a picture came
    heights = {round(cards.nth(i).bounding_box()["height"]) for i in range(8)}  # type: ignore[index]
    assert len(heights) == 1, heights  # even cards
    settings(pg, lang="de")
    expect(pg.locator("html")).to_have_attribute("lang", "de")
    pg.goto(server + "/#/puzzle/p01-w1")
    expect(pg.locator("#puzzle-text")).to_contain_text("Gold am Zug gewinnt in 1")
    expect(pg.locator("#puzzle-source")).to_have_text(
        "Aus einer Einzelrunde zweier Computerstufen (Neuling und Vereinsspieler), Runde 1, Zug 13")
    play(pg, "h6-h5")
    expect(pg.locator("#status")).to_have_text("Das ist nicht der Zug.")
    expect(pg.locator("#puzzle-feedback")).to_contain_text("Braun Vorwärts 1 Gelb")
    assert not pg.errors  # type: ignore[attr-defined]


def test_a_streak_ended_by_a_miss(browser: Browser, server: str) -> None:
    pg = page(browser, server + "/#/puzzles/streak", (390, 844))
    first = shown(pg)
    expect(pg.locator("#puzzle-streak")).to_have_text("Streak: 0 · best: 0")
    assert first["win_in"] == 1  # the easiest puzzle comes first
    play(pg, first["accepted"][0])
    expect(pg.locator("#puzzle-box")).to_have_attribute("data-state", "solved")
    expect(pg.locator("#puzzle-streak")).to_have_text("Streak: 1 · best: 1")
    expect(pg.locator("#puzzle-ratings")).to_contain_text("Streak puzzles are not rated.")
    pg.get_by_role("button", name="Next puzzle").click()
    second = shown(pg)
    assert second["id"] != first["id"] and second["rating"] >= first["rating"]
    play(pg, wrong_move(second))
    expect(pg.locator("#puzzle-box")).to_have_attribute("data-state", "failed")
    expect(pg.locator("#status")).to_have_text("Streak over: 1 · best: 1")
    expect(pg.locator("#puzzle-feedback")).to_contain_text("You played ")
    expect(pg.locator("#puzzle-feedback")).not_to_contain_text("Retry")
    expect(pg.locator("#puzzle-streak")).to_be_hidden()  # the status says it once
    expect(pg.get_by_role("button", name="Retry")).to_be_hidden()
    pg.get_by_role("button", name="View the solution").click()  # the miss brought it: no second rating
    expect(pg.locator("#puzzle-feedback")).to_contain_text("The solution: ")
    pg.get_by_role("button", name="New streak").click()
    expect(pg.locator("#puzzle-streak")).to_have_text("Streak: 0 · best: 1")
    assert not pg.errors  # type: ignore[attr-defined]
