"""The page as a player meets it (issue 10): a lost connection, pushes in
words and marks, Sumo ranks, one notation in every list, stepping through a
live game, the colour-blind mode, a whole game by keyboard alone, and the
ways in from the landing page.  Real server, real Chromium."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from kamisado.rules import record
from kamisado.rules.match import Match
from tests import browser_kit
from tests.browser_kit import (
    QUICK_WIN,
    SHOTS,
    LiveServer,
    click_square,
    move,
    page,
    seq,
    settings,
    shot,
    start,
    tower_at,
)

server = browser_kit.server
browser = browser_kit.browser

#: Figure 9 of the rulebook: Black's Double Sumo (green, d4) pushes Gold's
#: blue tower (d5) and yellow Sumo (d6) back one square each.
FIG9 = "1ng1r+o+1u/8/3y+4/3b2P+1/3G++4/7p/8/N+RY1UB1O b g 7 5 3"


def upload(pg: Page, match: Match) -> None:
    """Open a record through the landing page's file input, as a person would."""
    text = record.write(record.Record.new(match, black="Ann", gold="Bo"))
    pg.goto(pg.url.split("#")[0] + "#/")
    pg.locator("#upload").set_input_files(
        files=[{"name": "match.txt", "mimeType": "text/plain", "buffer": text.encode()}]
    )
    expect(pg.locator("#view-play")).to_be_visible()
    seq(pg)


def rows(pg: Page, where: str = "#moves") -> list[list[str]]:
    """The move list as text, row by row (the number column dropped)."""
    out: list[list[str]] = pg.locator(f"{where} tbody tr").evaluate_all(
        "trs => trs.map((tr) => Array.from(tr.cells).slice(tr.cells.length > 1 ? 1 : 0)"
        ".map((td) => td.textContent.trim()))"
    )
    return out


# -- the connection ---------------------------------------------------------------


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[LiveServer]:
    live = LiveServer(tmp_path / "games.sqlite3")
    live.start()
    yield live
    live.stop()


@pytest.mark.console_allows(r"WebSocket connection .* failed")  # the server is stopped under the page
def test_a_lost_connection_is_shown_and_no_move_is_taken_until_it_is_back(
    browser: Browser, own_server: LiveServer
) -> None:
    """Issue 10: a move made while the connection was down vanished silently."""
    pg = page(browser, own_server.url + "/")
    start(pg, "hotseat")
    move(pg, "c1", "c5")
    expect(pg.locator("#conn")).to_be_hidden()
    own_server.stop()  # as SIGTERM stops it: the page is told the server restarts
    # the page says so at once, and offers no move (a connection lost without
    # a word says "Connection lost": the offline test below)
    expect(pg.locator("#conn")).to_be_visible()
    expect(pg.locator("#conn")).to_contain_text("The server is restarting")
    expect(pg.locator("#board")).to_have_attribute("data-conn", "restarting")
    click_square(pg, "b8")  # Gold's blue tower must move
    expect(pg.locator("#board .dest")).to_have_count(0)
    shot(pg, SHOTS / "kamisado-e2e-connection-lost.png")
    # back on the same port and database: the page reconnects and resyncs
    own_server.start()
    expect(pg.locator("#conn")).to_be_hidden(timeout=15_000)
    expect(pg.locator("#board")).to_have_attribute("data-conn", "open")
    assert seq(pg) == 1
    move(pg, "b8", "b5")
    tower_at(pg, "g-blue", "b5")
    assert not pg.errors  # type: ignore[attr-defined]
    pg.context.close()


def test_offline_the_board_takes_no_move_and_resyncs_after(browser: Browser, server: str) -> None:
    pg = page(browser, server + "/")
    start(pg, "hotseat")
    move(pg, "c1", "c5")
    pg.context.set_offline(True)
    expect(pg.locator("#conn")).to_contain_text("Connection lost")
    click_square(pg, "b8")
    expect(pg.locator("#board .dest")).to_have_count(0)
    pg.context.set_offline(False)
    expect(pg.locator("#conn")).to_be_hidden(timeout=15_000)
    assert seq(pg) == 1  # nothing was sent while offline
    move(pg, "b8", "b5")
    pg.context.close()


# -- pushes, Sumo ranks, last-move marks -------------------------------------------


def test_a_push_is_marked_and_spelled_out(browser: Browser, server: str) -> None:
    pg = page(browser, server + "/")
    upload(pg, Match(7, start=FIG9))
    # the rank of every Sumo at a glance: a badge with its ring count, both sides
    expect(pg.locator('[data-tower="b-green"] .rank text')).to_have_text("2")
    expect(pg.locator('[data-tower="g-yellow"] .rank text')).to_have_text("1")
    expect(pg.locator('[data-tower="g-blue"] .rank')).to_have_count(0)
    expect(pg.locator("#status")).to_contain_text("the Green Double Sumo (at most 3 squares)")
    click_square(pg, "d4")
    expect(pg.locator('#board .dest.push[data-dest="d5"]')).to_have_count(1)
    click_square(pg, "d5")
    expect(pg.locator("#board")).to_have_attribute("data-seq", "1")
    tower_at(pg, "g-blue", "d6")
    tower_at(pg, "g-yellow", "d7")
    # the marks: where the pusher came from and went, and where each pushed tower went
    for cls, square in (("last-from", "d4"), ("last-to", "d5"), ("pushed-to", "d6"), ("pushed-to", "d7")):
        expect(pg.locator(f'#board .{cls}.mark[data-square="{square}"]')).to_have_count(1)
    expect(pg.locator("#announce")).to_have_text(re.compile(
        r"Black's Green Double Sumo pushes Gold's Blue tower and Gold's Yellow Sumo back one "
        r"square each\. Gold misses a turn\. Black moves again: the (\w+) tower\."
    ))
    again = re.search(r"the (\w+) tower\.$", pg.locator("#announce").inner_text())
    assert again
    expect(pg.locator("#status")).to_contain_text(f"Black to move: the {again.group(1)}")
    # the move list: the push, then the pushed tower's Back 1 in Gold's column
    assert rows(pg)[0] == ["Green Forward 1 Orange", "Yellow Back 1 Green"]
    shot(pg, SHOTS / "kamisado-e2e-push.png")
    assert not pg.errors  # type: ignore[attr-defined]
    pg.context.close()


def _contrast(a: str, b: str) -> float:
    def lum(rgb: str) -> float:
        vals = [int(x) / 255 for x in re.findall(r"\d+", rgb)[:3]]
        r, g, b = (v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in vals)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    la, lb = sorted((lum(a), lum(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def test_last_move_marks_show_on_every_square_colour(browser: Browser, server: str) -> None:
    """Issue 10: the last move was a faint wash, lost on yellow, pink and orange."""
    pg = page(browser, server + "/")
    start(pg, "hotseat")
    move(pg, "c1", "c5")
    marks = pg.locator("#board .last-from, #board .last-to")
    expect(marks).to_have_count(4)  # a dark frame under a light one, on each square
    strokes = set(marks.evaluate_all("els => els.map((e) => getComputedStyle(e).stroke)"))
    widths = marks.evaluate_all("els => els.map((e) => parseFloat(getComputedStyle(e).strokeWidth))")
    assert min(widths) >= 4
    fills = set(pg.locator("#board .square > rect").evaluate_all(
        "els => els.map((e) => getComputedStyle(e).fill)"
    ))
    assert len(fills) == 8
    for fill in fills:
        assert max(_contrast(s, fill) for s in strokes) >= 3, fill
    pg.context.close()


# -- one notation; stepping through a live game -------------------------------------


def test_live_list_review_and_analysis_speak_the_same_words(browser: Browser, server: str) -> None:
    pg = page(browser, server + "/")
    start(pg, "hotseat")
    for frm, to in QUICK_WIN:
        move(pg, frm, to)
    live = rows(pg)
    assert live == [["Brown Forward 3 Yellow", "Yellow Forward 3 Brown"], ["Brown Right 4 Yellow", ""]]
    # the square form on hover
    expect(pg.locator("#moves .entry").first).to_have_attribute("title", "a1-a4")
    pg.locator("#result-review").click()
    expect(pg.locator("#review-controls")).to_be_visible()
    expect(pg.locator("#moves tbody tr")).to_have_count(2)
    assert rows(pg) == live
    pg.locator("#rv-first").click()
    expect(pg.locator("#rv-where")).to_contain_text("Start of round 1")
    # the analysis (three best lines, the solver on the start) takes seconds on a busy
    # machine, more on a loaded one: a generous cap (met, the wait ends at once)
    expect(pg.locator("#analysis")).to_contain_text(re.compile(
        r"Best move: (Orange|Blue|Purple|Pink|Yellow|Red|Green|Brown) (Forward|Left|Right) \d"
    ), timeout=60_000)
    pg.locator("#rv-next").click()
    expect(pg.locator("#rv-where")).to_contain_text("Round 1, move 1: Black Brown Forward 3 Yellow")
    expect(pg.locator("#moves .current")).to_have_text("Brown Forward 3 Yellow")
    # the squares as a setting
    settings(pg, squares=True)
    expect(pg.locator("#moves .current")).to_have_text("Brown Forward 3 Yellow a1-a4")
    settings(pg, squares=False)
    assert not pg.errors  # type: ignore[attr-defined]
    pg.context.close()


def test_the_review_graph_steps_to_the_point_clicked(browser: Browser, server: str) -> None:
    pg = page(browser, server + "/")
    start(pg, "hotseat")
    for frm, to in QUICK_WIN:
        move(pg, frm, to)
    pg.locator("#result-review").click()
    expect(pg.locator("#review-controls")).to_be_visible()
    game_id = pg.url.split("#/review/")[1]
    expect(pg.locator("#download-gif")).to_have_attribute("href", f"/api/games/{game_id}/match.gif")
    # the graph: one point a position, the present one ringed
    points = pg.locator("#rv-graph svg [data-ply]")
    expect(points).to_have_count(4, timeout=60_000)
    expect(pg.locator('#rv-graph [data-ply="3"]')).to_have_class(re.compile(r"\bcurrent\b"))
    pg.locator('#rv-graph [data-ply="1"]').click()
    tower_at(pg, "b-brown", "a4")
    tower_at(pg, "g-yellow", "e8")
    expect(pg.locator("#moves .current")).to_have_text("Brown Forward 3 Yellow")
    expect(pg.locator("#rv-where")).to_contain_text("Round 1, move 1")
    expect(pg.locator('#rv-graph [data-ply="1"]')).to_have_class(re.compile(r"\bcurrent\b"))
    assert not pg.errors  # type: ignore[attr-defined]
    pg.context.close()


def test_the_review_marks_a_thrown_away_win_and_shows_the_best_three(
    browser: Browser, server: str
) -> None:
    import json
    import urllib.request

    # Gold wins in 3 from this start, plays g8-a2 and Black wins in 2 (tests/test_review.py)
    m = Match(1, start="obu1yrgn/8/8/P7/8/3p3U/8/NGRY2BO g g 1 0 0")
    for token in ["g8-a2", "h3-d7", "d7-d8"]:
        m.apply(token)
    text = record.write(record.Record.new(m, black="Ann", gold="Bo"))
    req = urllib.request.Request(server + "/api/records", data=text.encode(), method="POST")
    with urllib.request.urlopen(req) as r:
        game_id = json.loads(r.read())["id"]
    pg = page(browser, f"{server}/#/review/{game_id}")
    mark = pg.locator("#moves .mark.blunder")
    expect(mark).to_have_count(1, timeout=60_000)
    expect(mark).to_have_text("??")
    expect(mark).to_have_attribute("aria-label", "Blunder: threw away a win in 3 moves")
    # the last step ends the round (and the match): Black's match chance before and after
    from kamisado.engine.review import round_ends

    (end,) = round_ends(m)
    expect(pg.locator("#status .equity")).to_have_text(
        f"Black's chance to win the match: {round(100 * end.before)}% → 100%")
    pg.locator("#rv-first").click()
    expect(pg.locator("#status .equity")).to_have_count(0)
    expect(pg.locator("#rv-lines li")).to_have_count(3, timeout=60_000)
    expect(pg.locator("#rv-lines li").first).to_contain_text("Gold wins in 3 moves")
    pg.locator("#rv-next").click()
    expect(pg.locator("#rv-where .mark.blunder")).to_have_text("??")
    assert not pg.errors  # type: ignore[attr-defined]
    pg.context.close()


def test_a_share_link_opens_the_game(browser: Browser, server: str) -> None:
    pg = page(browser, server + "/")
    start(pg, "hotseat")
    move(pg, "a1", "a4")
    game_id = pg.url.split("#/game/")[1]
    watcher = page(browser, f"{server}/game/{game_id}")
    expect(watcher).to_have_url(f"{server}/#/game/{game_id}")
    tower_at(watcher, "b-brown", "a4")
    assert watcher.locator('meta[property="og:image"]').get_attribute("content") == (
        f"/api/games/{game_id}/board.png")  # no --public-url: a path on the site
    assert not watcher.errors  # type: ignore[attr-defined]
    watcher.context.close()
    pg.context.close()


def test_a_live_game_can_be_stepped_back_and_forth(browser: Browser, server: str) -> None:
    pg = page(browser, server + "/")
    start(pg, "hotseat")
    move(pg, "a1", "a4")
    move(pg, "e8", "e5")
    pg.locator("#board").focus()
    pg.keyboard.press("PageUp")  # one position back: before Gold's move
    expect(pg.locator("#history-bar")).to_be_visible()
    tower_at(pg, "g-yellow", "e8")
    tower_at(pg, "b-brown", "a4")
    expect(pg.locator("#board .dest")).to_have_count(0)  # no move while looking back
    pg.keyboard.press("PageUp")
    tower_at(pg, "b-brown", "a1")
    pg.keyboard.press("PageDown")
    tower_at(pg, "b-brown", "a4")
    pg.keyboard.press("End")  # one key back to the present
    expect(pg.locator("#history-bar")).to_be_hidden()
    tower_at(pg, "g-yellow", "e5")
    # a click on a move in the list shows the position after it
    pg.locator("#moves .entry").first.click()
    expect(pg.locator("#history-bar")).to_be_visible()
    tower_at(pg, "g-yellow", "e8")
    pg.locator("#history-present").click()
    tower_at(pg, "g-yellow", "e5")
    move(pg, "a4", "e8")  # and the game goes on
    assert not pg.errors  # type: ignore[attr-defined]
    pg.context.close()


# -- the colour-blind mode; the keyboard; the ways in -----------------------------------


def test_colour_blind_mode_names_colours_with_their_characters(browser: Browser, server: str) -> None:
    pg = page(browser, server + "/")
    settings(pg, characters=True)
    start(pg, "hotseat")
    move(pg, "c1", "c5")
    expect(pg.locator("#status .cname svg.glyph")).to_have_count(1)
    expect(pg.locator("#moves .entry .cname svg.glyph")).to_have_count(2)
    click_square(pg, "b8")
    dest = pg.locator('#board .dest[data-dest="b5"]')
    expect(dest).to_have_count(1)
    # a ring round the square's character, not a dot on it
    assert dest.evaluate("e => getComputedStyle(e).fill") == "none"
    radius = float(dest.evaluate("e => getComputedStyle(e).r").rstrip("px"))
    assert radius >= 40
    shot(pg, SHOTS / "kamisado-e2e-characters.png")
    settings(pg, characters=False)
    expect(pg.locator("#status .cname svg.glyph")).to_have_count(0)
    pg.context.close()


def _tab_to(pg: Page, selector: str, limit: int = 40) -> None:
    for _ in range(limit):
        pg.keyboard.press("Tab")
        if pg.evaluate("(s) => document.activeElement && document.activeElement.matches(s)", selector):
            return
    raise AssertionError(f"Tab never reached {selector}")


def test_a_whole_game_by_keyboard_alone(browser: Browser, server: str) -> None:
    pg = page(browser, server + "/")
    _tab_to(pg, "#way-hotseat")
    pg.keyboard.press("Enter")
    expect(pg.locator("#view-new")).to_be_visible()
    _tab_to(pg, "#start")
    pg.keyboard.press("Enter")
    expect(pg.locator("#view-play")).to_be_visible()
    seq(pg)
    _tab_to(pg, "#board")
    pg.keyboard.press("ArrowUp")  # the cursor on d1, said for a screen reader
    expect(pg.locator("#board-said")).to_contain_text("d1")
    for key in ("ArrowLeft", "Enter", "ArrowUp", "ArrowUp", "ArrowUp", "ArrowUp", "Enter"):
        pg.keyboard.press(key)  # c1, pick the red tower, up to c5, move
    expect(pg.locator("#board")).to_have_attribute("data-seq", "1")
    tower_at(pg, "b-red", "c5")
    # Gold's blue tower (b8) is the only one to move, so it is picked already:
    # the cursor goes from c5 to b5, one of its destinations, and Enter moves it
    pg.keyboard.press("ArrowLeft")
    expect(pg.locator("#board-said")).to_contain_text("b5")
    expect(pg.locator("#board-said")).to_contain_text("a destination")
    pg.keyboard.press("Enter")
    expect(pg.locator("#board")).to_have_attribute("data-seq", "2")
    tower_at(pg, "g-blue", "b5")
    assert not pg.errors  # type: ignore[attr-defined]
    pg.context.close()


def test_the_landing_page_has_three_ways_in_and_the_levels(browser: Browser, server: str) -> None:
    pg = page(browser, server + "/")
    expect(pg.locator(".way")).to_have_count(3)
    levels = pg.locator("#level-list li")
    expect(levels).to_have_count(7)
    expect(levels.first).to_contain_text("Beginner")
    expect(levels.nth(5)).to_contain_text("Expert")
    expect(levels.nth(5)).to_contain_text("Elo +1300")
    # a level picked on the landing page is the one the form starts with
    levels.nth(3).locator("a").click()
    expect(pg.locator('input[name="level"][value="club"]')).to_be_checked()
    expect(pg.locator('input[name="mode"][value="computer"]')).to_be_checked()
    pg.locator("#way-computer")  # the ways in are links any browser can follow
    pg.goto(server + "/")
    pg.locator("#way-learn").click()
    expect(pg.locator("#view-lessons")).to_be_visible()
    pg.context.close()


# -- clocks and game controls (issue 11) --------------------------------------------


def test_clocks_tick_and_resigning_asks_twice(browser: Browser, server: str) -> None:
    pg = page(browser, server + "/")
    start(pg, "hotseat", target="3", clock="180+2")
    black, gold = pg.locator('.seat .clock[data-side="b"]'), pg.locator('.seat .clock[data-side="g"]')
    expect(black).to_have_text("3:00")
    expect(gold).to_have_text("3:00")
    move(pg, "c1", "c5")  # Black's first move is not timed: Gold's clock starts
    expect(gold).to_have_class(re.compile(r"\brunning\b"))
    expect(black).not_to_have_class(re.compile(r"\brunning\b"))
    # it counts down (polled, with the page's default deadline)
    expect(gold).to_have_attribute("data-ms", re.compile(r"^(1[0-6]\d|17[0-8])\d{3}$"))
    expect(pg.locator("#abort")).to_be_visible()  # before both sides have moved
    move(pg, "b8", "b5")
    expect(pg.locator("#abort")).to_be_hidden()
    pg.locator("#resign").click()
    expect(pg.locator("#resign")).to_have_text("Really resign?")
    expect(pg.locator("#board")).to_have_attribute("data-seq", "2")  # nothing sent yet
    pg.locator("#resign").click()
    expect(pg.locator("#result")).to_be_visible()
    expect(pg.locator("#result-text")).to_have_text("Gold wins: Black resigned.")
    expect(pg.locator("#game-controls")).to_be_hidden()
    assert not pg.errors  # type: ignore[attr-defined]
    pg.context.close()


def test_an_untimed_game_shows_no_clock_and_can_be_aborted(browser: Browser, server: str) -> None:
    pg = page(browser, server + "/")
    start(pg, "hotseat")
    expect(pg.locator(".seat .clock")).to_have_count(0)
    move(pg, "c1", "c5")
    pg.locator("#abort").click()
    expect(pg.locator("#result-text")).to_have_text("The game was aborted.")
    pg.context.close()


def test_the_tab_says_when_it_is_your_move(browser: Browser, server: str) -> None:
    pg = page(browser, server + "/")
    start(pg, "online", colour="b")
    expect(pg).to_have_title("● Your move – Kamisado")
    assert (pg.locator("#favicon").get_attribute("href") or "").startswith("data:image/svg+xml")
    move(pg, "c1", "c5")  # now the game waits for Gold
    expect(pg).to_have_title("Kamisado")
    assert pg.locator("#favicon").get_attribute("href") == "data:,"
    pg.goto(server + "/#/games")
    expect(pg).to_have_title("Kamisado")
    pg.context.close()


# -- players: seats follow the player, invites are claimed once (issue 11) ------------


def test_signing_in_on_a_second_browser_brings_the_games(browser: Browser, server: str) -> None:
    import uuid

    name = "p" + uuid.uuid4().hex[:10]
    first = page(browser, server + "/#/account")
    first.locator('#signup-form input[name="account"]').fill(name)
    first.locator('#signup-form input[name="password"]').fill("a good password")
    first.locator("#signup-form button").click()
    expect(first.locator("#account-who")).to_contain_text(f"Signed in as {name}")
    start(first, "hotseat", target="3")
    move(first, "c1", "c5")
    game_id = first.url.split("/")[-1]
    # another browser: nothing of it until it signs in
    second = page(browser, server + "/#/games")
    expect(second.locator(f'#games-list [data-game="{game_id}"]')).to_have_count(0)
    second.goto(server + "/#/account")
    second.locator('#signin-form input[name="account"]').fill(name)
    second.locator('#signin-form input[name="password"]').fill("a good password")
    second.locator("#signin-form button").click()
    expect(second.locator("#account-who")).to_contain_text(f"Signed in as {name}")
    second.goto(server + "/#/games")
    card = second.locator(f'#games-list [data-game="{game_id}"]')
    expect(card).to_have_count(1)
    card.get_by_role("link", name="Resume").click()
    # the seats are the player's: it plays on in this browser, no token needed
    move(second, "b8", "b5")
    tower_at(second, "g-blue", "b5")
    assert not first.errors and not second.errors  # type: ignore[attr-defined]
    first.context.close()
    second.context.close()


@pytest.mark.console_allows(r"status of 403")  # a wrong current password, on purpose
def test_the_account_page_changes_the_password_and_signs_out_everywhere(browser: Browser, server: str) -> None:
    import uuid

    name = "s" + uuid.uuid4().hex[:10]
    first = page(browser, server + "/#/account")
    first.locator('#signup-form input[name="account"]').fill(name)
    first.locator('#signup-form input[name="password"]').fill("a good password")
    first.locator("#signup-form button").click()
    expect(first.locator("#account-who")).to_contain_text(f"Signed in as {name}")
    second = page(browser, server + "/#/account")
    second.locator('#signin-form input[name="account"]').fill(name)
    second.locator('#signin-form input[name="password"]').fill("a good password")
    second.locator("#signin-form button").click()
    expect(second.locator("#account-who")).to_contain_text(f"Signed in as {name}")
    # both browsers are listed, this one marked
    expect(second.locator("#session-list li")).to_have_count(2)
    expect(second.locator("#session-list li.current")).to_contain_text("(this browser)")
    # the first changes the password: the second is signed out, the first goes on
    first.reload()
    first.locator('#password-form input[name="current"]').fill("a wrong password")
    first.locator('#password-form input[name="password"]').fill("a better password")
    first.locator("#password-form button").click()
    expect(first.locator("#password-form .error")).to_have_text("The current password is wrong.")
    first.locator('#password-form input[name="current"]').fill("a good password")
    first.locator('#password-form input[name="password"]').fill("a better password")
    first.locator("#password-form button").click()
    expect(first.locator("#password-form .error")).to_contain_text("every other device is signed out")
    expect(first.locator("#session-list li")).to_have_count(1)
    second.reload()
    expect(second.locator("#account-who")).to_contain_text("without an account")
    # signed in again there, then out everywhere from the first
    second.locator('#signin-form input[name="account"]').fill(name)
    second.locator('#signin-form input[name="password"]').fill("a better password")
    second.locator("#signin-form button").click()
    expect(second.locator("#account-who")).to_contain_text(f"Signed in as {name}")
    first.locator("#signout-all").click()
    expect(first.locator("#account-who")).to_contain_text("without an account")
    second.reload()
    expect(second.locator("#account-who")).to_contain_text("without an account")
    assert not first.errors and not second.errors  # type: ignore[attr-defined]
    first.context.close()
    second.context.close()


def test_an_invite_is_taken_once_and_never_moves_a_seat(browser: Browser, server: str) -> None:
    black = page(browser, server + "/")
    start(black, "online", colour="b")
    expect(black.locator("#invite-link")).to_have_value(re.compile(r"\?t="))
    invite = black.locator("#invite-link").input_value()
    game_id = black.url.split("/")[-1]
    # the creator opens its own invite link: it stays Black
    own = black.context.new_page()
    own.goto(invite)
    expect(own.locator("#announce")).to_contain_text("the invite link is for your opponent")
    expect(own.locator("#status")).to_contain_text("Your move")
    own.close()
    # a friend takes the empty seat ...
    gold = page(browser, invite)
    expect(gold.locator("#status")).to_contain_text("Black to move")
    expect(gold.locator(".seat-bottom")).to_contain_text("you")
    # ... once: a third browser with the same link watches
    third = page(browser, invite)
    expect(third.locator("#announce")).to_contain_text("belongs to another player")
    expect(third.locator("#status")).to_contain_text("watching")
    # a wrong token in the URL never costs the friend the seat
    gold.goto(f"{server}/#/games")
    # the games view first: a hash set before the page handled the last one's
    # hashchange is read by both handlers, and the game is never left
    expect(gold.locator("#view-games")).to_have_class(re.compile(r"\bactive\b"))
    gold.goto(f"{server}/#/game/{game_id}?t=not-a-token")
    expect(gold.locator("#announce")).to_contain_text("holds no seat")
    expect(gold.locator(".seat-bottom")).to_contain_text("you")
    move(black, "c1", "c5")
    move(gold, "b8", "b5")
    assert not black.errors and not gold.errors and not third.errors  # type: ignore[attr-defined]
    for pg in (black, gold, third):
        pg.context.close()


def test_the_review_shows_an_uploaded_records_move_comments(browser: Browser, server: str) -> None:
    import json
    import urllib.request

    m = Match(3)
    for token in ["c1-c5", "b8-b3", "d1-g4"]:
        m.apply(token)
    rec = record.Record.new(m, black="Ann", gold="Bo")
    rec.comments[(1, 1)] = record.Comment(("cp", 35), 12, 1234, (118_766, 120_000))
    rec.comments[(1, 3)] = record.Comment(("win", 3), 7)
    req = urllib.request.Request(server + "/api/records", data=record.write(rec).encode(),
                                 method="POST")
    with urllib.request.urlopen(req) as r:
        game_id = json.loads(r.read())["id"]
    pg = page(browser, f"{server}/#/review/{game_id}")
    comment = pg.locator("#rv-where .comment")
    expect(comment).to_have_text("{W3/7}")  # the last step: move 3
    expect(comment).to_have_attribute("title", "win in 3 moves at depth 7")
    pg.locator("#rv-prev").click()  # move 2 has none
    expect(pg.locator("#rv-where")).to_contain_text("Round 1, move 2")
    expect(comment).to_have_count(0)
    pg.locator("#rv-prev").click()
    expect(pg.locator("#rv-where")).to_contain_text(
        "Round 1, move 1: Black Red Forward 4 Blue {+0.35/12 1.234s b=1:58.766 g=2:00.000}")
    expect(comment).to_have_attribute(
        "title", "score +0.35 at depth 12, 1.234 s used, clocks Black 1:58.766 Gold 2:00.000")
    assert not pg.errors  # type: ignore[attr-defined]
    pg.context.close()
