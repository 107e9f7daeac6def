"""The puzzle trainer in a real browser (docs/web.md, "Puzzles"): a puzzle
missed, retried and solved by a signed-in player, whose puzzle rating and
the puzzle's moved with the first (rated) try only; and a streak ended by a
miss.  One server for the module."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Browser, Page, expect

from kamisado.lessons import load_puzzle_set
from kamisado.rules.position import Position
from kamisado.web.basics.ratings import Rating, rate_puzzle
from tests import browser_kit
from tests.browser_kit import click_square, page, sign_up

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


def test_a_puzzle_missed_retried_solved_and_the_ratings_moved(browser: Browser, server: str) -> None:
    pg = page(browser, server + "/")
    sign_up(pg, "solver")
    before = api(pg, "/api/puzzles/p01-w1")
    pg.goto(server + "/#/puzzle/p01-w1")
    expect(pg.locator("#puzzle-text")).to_contain_text("Gold to move wins in 1")
    play(pg, "h6-h5")
    feedback = pg.locator("#puzzle-feedback")
    expect(feedback).to_contain_text("h6-h5 is not right. The right move: h6-h1.")
    mine, theirs = rate_puzzle(Rating(), Rating(before["rating"], before["rd"]), False)
    ratings = pg.locator("#puzzle-ratings")
    expect(ratings).to_contain_text(f"Your puzzle rating: {round(mine.rating)} ({round(mine.rating) - 1500})")
    expect(ratings).to_contain_text(f"Puzzle rated {round(theirs.rating)}")
    pg.get_by_role("button", name="Show the solution").click()
    expect(feedback).to_contain_text("The solution: h6-h1")
    expect(pg.locator('#board [data-at="h1"]')).to_have_count(1)
    pg.get_by_role("button", name="Retry").click()
    expect(pg.locator("#puzzle-box")).to_have_attribute("data-state", "playing")
    expect(feedback).to_have_text("")
    play(pg, "h6-h1")
    expect(pg.locator("#puzzle-box")).to_have_attribute("data-state", "solved")
    expect(feedback).to_contain_text("Solved!")
    expect(ratings).to_contain_text("A retry is not rated.")
    expect(ratings).to_contain_text(f"Puzzle rated {round(theirs.rating)}")
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


def test_a_streak_ended_by_a_miss(browser: Browser, server: str) -> None:
    pg = page(browser, server + "/#/puzzles/streak")
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
    expect(pg.locator("#puzzle-feedback")).to_contain_text("The streak is over: 1 solved.")
    expect(pg.locator("#puzzle-streak")).to_have_text("Streak: 1 · best: 1")
    expect(pg.get_by_role("button", name="Retry")).to_be_hidden()
    pg.get_by_role("button", name="New streak").click()
    expect(pg.locator("#puzzle-streak")).to_have_text("Streak: 0 · best: 1")
    assert not pg.errors  # type: ignore[attr-defined]
