"""A live game's controls in real browsers (docs/web.md, "Game controls"):
take back a move (hotseat, against the computer, offered online), resign,
lose on time, a rematch offered and accepted with the colours swapped,
claiming the win from an opponent who left, a rated game's ratings beside
the names and the player page.

Signing in on a second browser and finding the same games is
``tests/test_web_page.py::test_signing_in_on_a_second_browser_brings_the_games``.

Screenshots go to /tmp/kamisado-controls-*.png.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from kamisado.web.basics import clocks as web_clocks
from kamisado.web.play import games as web_games
from tests import browser_kit
from tests.browser_kit import (
    QUICK_WIN,
    SHOTS,
    LiveServer,
    click_square,
    game_id,
    move,
    online_pair,
    page,
    seq,
    shot,
    sign_up,
    start,
    tower_at,
    you,
)

browser = browser_kit.browser

#: A real-time opponent away this long lets the player claim the win (60 s
#: in play; a few seconds here, so a test can wait for it).
CLAIM_AFTER_S = 3.0
#: The shortest initial time on the clock (15 s in play).
INITIAL_MIN_S = 5.0


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The live server, with a short wait before the win can be claimed and
    clocks as short as 5 s (so that a flag falls soon)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(web_games, "CLAIM_AFTER_S", CLAIM_AFTER_S)
        mp.setattr(web_clocks, "INITIAL_MIN_S", INITIAL_MIN_S)
        live = LiveServer(tmp_path_factory.mktemp("web") / "games.sqlite3")
        yield live.start()
        live.stop()


def close(*pages: Page) -> None:
    for pg in pages:
        assert not pg.errors, pg.errors  # type: ignore[attr-defined]
        pg.context.close()


def test_a_takeback_in_a_hotseat_game_is_immediate(browser: Browser, server: str) -> None:
    pg = page(browser, server + "/")
    start(pg, "hotseat", target="3")
    takeback = pg.locator("#takeback")
    expect(takeback).to_be_disabled()  # nothing to take back yet
    move(pg, "c1", "c5")
    move(pg, "b8", "b3")
    expect(takeback).to_be_enabled()
    n = seq(pg)
    takeback.click()
    # the last move, whoever made it: Gold's blue is home again, Black's red stays
    expect(pg.locator("#board")).to_have_attribute("data-seq", str(n + 1))
    tower_at(pg, "g-blue", "b8")
    tower_at(pg, "b-red", "c5")
    expect(pg.locator("#moves td.move")).to_have_count(1)
    expect(pg.locator("#status")).to_contain_text("Gold to move")
    takeback.click()
    expect(pg.locator("#board")).to_have_attribute("data-seq", str(n + 2))
    tower_at(pg, "b-red", "c1")
    expect(pg.locator("#moves td.move")).to_have_count(0)
    expect(takeback).to_be_disabled()
    move(pg, "d1", "d5")  # and play goes on
    tower_at(pg, "b-yellow", "d5")
    close(pg)


def play(pg: Page, frm: str, to: str) -> None:
    """A move against the computer: its reply may come before the page is
    looked at, so the move is waited for in the list, not by its ``seq``."""
    click_square(pg, frm)
    expect(pg.locator(f'#board .dest[data-dest="{to}"]')).to_have_count(1)
    click_square(pg, to)
    expect(pg.locator("#moves td.move").first).to_be_visible()


def test_a_takeback_against_the_computer_takes_its_reply_back_too(browser: Browser, server: str) -> None:
    pg = page(browser, server + "/")
    start(pg, "computer", colour="b", level="beginner")
    play(pg, "d1", "d5")
    expect(pg.locator("#moves td.move")).to_have_count(2)  # the computer answered
    expect(pg.locator("#status")).to_contain_text("Your move")
    pg.locator("#takeback").click()
    # Black's move and Gold's reply: the round's start again
    expect(pg.locator("#moves td.move")).to_have_count(0)
    tower_at(pg, "b-yellow", "d1")
    tower_at(pg, "g-orange", "a8")
    expect(pg.locator("#status")).to_contain_text("Your move: any tower")
    play(pg, "c1", "c5")
    expect(pg.locator("#moves td.move")).to_have_count(2)
    close(pg)


def test_an_online_takeback_is_offered_withdrawn_and_accepted(browser: Browser, server: str) -> None:
    black, gold = online_pair(browser, server, target="3")
    move(black, "c1", "c5")
    expect(black.locator("#takeback")).to_have_text("Ask to take back")
    expect(black.locator("#takeback")).to_be_enabled()
    expect(gold.locator("#takeback")).to_be_disabled()  # Gold has no move to take back
    black.locator("#takeback").click()
    # the asker sees a note and a way to withdraw; the opponent a question
    expect(black.locator("#offer-text")).to_have_text("Takeback offered: waiting for your opponent.")
    expect(black.locator("#offer-withdraw")).to_be_visible()
    expect(black.locator("#offer-accept")).to_be_hidden()
    expect(black.locator("#takeback")).to_be_disabled()
    expect(gold.locator("#offer-text")).to_have_text("Your opponent asks to take back their last move.")
    shot(gold, SHOTS / "kamisado-controls-takeback-offer.png")
    # withdrawn by the asker: nothing is said declined
    black.locator("#offer-withdraw").click()
    for pg in (black, gold):
        expect(pg.locator("#offer-box")).to_be_hidden()
        tower_at(pg, "b-red", "c5")
    expect(black.locator("#takeback")).to_be_enabled()
    # asked again, and accepted: the move is gone on both boards
    black.locator("#takeback").click()
    gold.locator("#offer-accept").click()
    for pg in (black, gold):
        expect(pg.locator("#offer-box")).to_be_hidden()
        tower_at(pg, "b-red", "c1")
        expect(pg.locator("#moves td.move")).to_have_count(0)
    expect(black.locator("#status")).to_contain_text("Your move")
    close(black, gold)


def test_a_resignation_is_seen_by_both_players_and_a_spectator(browser: Browser, server: str) -> None:
    black, gold = online_pair(browser, server, target="3")
    watcher = page(browser, black.locator("#watch-link").input_value())
    expect(watcher.locator("#status")).to_contain_text("watching")
    move(black, "c1", "c5")
    gold.locator("#resign").click()
    expect(gold.locator("#resign")).to_have_text("Really resign?")
    gold.locator("#resign").click()
    for pg in (black, gold, watcher):
        expect(pg.locator("#result")).to_be_visible()
        expect(pg.locator("#result-text")).to_have_text("Black wins: Gold resigned.")
        expect(pg.locator("#status")).to_have_text(re.compile("Black wins: Gold resigned."))
    expect(watcher.locator("#rematch")).to_be_hidden()  # a spectator offers nothing
    expect(black.locator("#rematch")).to_have_text("Offer a rematch")
    close(black, gold, watcher)


def test_a_flag_falls_with_no_message(browser: Browser, server: str) -> None:
    """The shortest clock this server allows (5 s here): Black moves, Gold never does."""
    black = page(browser, server + "/")
    res = black.request.post(server + "/api/games", data={
        "target": 1, "black": "human", "gold": "human", "online": True, "seat": "b",
        "clock": {"initial": INITIAL_MIN_S, "increment": 0}})
    assert res.ok, res.text()
    made = res.json()
    black.goto(f"{server}/#/game/{made['id']}")
    gold = page(browser, f"{server}/#/game/{made['id']}?t={made['tokens']['g']}")
    expect(gold.locator("#board")).to_have_attribute("data-you", "g")
    expect(black.locator('.seat .clock[data-side="g"]')).to_have_text("0:05.0")
    move(black, "c1", "c5")  # Black's first move is not timed: Gold's clock runs
    expect(gold.locator('.seat .clock[data-side="g"]')).to_have_class(re.compile(r"\brunning\b"))
    for pg in (black, gold):
        expect(pg.locator("#result-text")).to_have_text("Black wins on time: Gold's time ran out.", timeout=25_000)
        expect(pg.locator('.seat .clock[data-side="g"]')).to_have_text("0:00.0")
    close(black, gold)


def test_a_rematch_is_offered_accepted_and_swaps_the_colours(browser: Browser, server: str) -> None:
    black, gold = online_pair(browser, server, target="1")
    watcher = page(browser, black.locator("#watch-link").input_value())
    first = game_id(black)
    for i, (frm, to) in enumerate(QUICK_WIN):
        move(black if i % 2 == 0 else gold, frm, to)
    for pg in (black, gold):
        expect(pg.locator("#result-text")).to_have_text("Black wins 1–0!")
    # Gold asks from the result in the panel; Black's Rematch button lights up
    gold.locator("#rematch").click()
    expect(gold.locator("#result")).to_be_visible()
    expect(gold.locator("#rematch-note")).to_have_text("Rematch offered: waiting for your opponent.")
    expect(black.locator("#rematch-note")).to_have_text("Your opponent offers a rematch.")
    expect(black.locator("#rematch")).to_have_text("Accept rematch")
    expect(watcher.locator("#rematch-note")).to_have_text("Gold offers a rematch.")
    shot(black, SHOTS / "kamisado-controls-rematch-offer.png")
    black.locator("#rematch").click()
    # both open the new game, each with the other colour
    expect(black).not_to_have_url(re.compile(first))
    second = game_id(black)
    assert game_id(gold) == second != first
    expect(black.locator("#board")).to_have_attribute("data-you", "g")
    expect(gold.locator("#board")).to_have_attribute("data-you", "b")
    expect(gold.locator("#status")).to_contain_text("Your move")
    # the spectator is shown the way to it, in the result
    link = watcher.locator("#rematch-link")
    expect(link).to_have_text("Watch the rematch")
    expect(link).to_have_attribute("href", f"#/game/{second}")
    link.click()
    expect(watcher).to_have_url(re.compile(f"#/game/{second}"))
    expect(watcher.locator("#status")).to_contain_text("watching")
    move(gold, "c1", "c5")
    tower_at(watcher, "b-red", "c5")
    close(black, gold, watcher)


def test_a_hotseat_rematch_opens_at_once(browser: Browser, server: str) -> None:
    pg = page(browser, server + "/")
    start(pg, "hotseat", target="1")
    first = game_id(pg)
    for frm, to in QUICK_WIN:
        move(pg, frm, to)
    expect(pg.locator("#rematch")).to_have_text("Rematch")
    pg.locator("#rematch").click()
    expect(pg).not_to_have_url(re.compile(first))
    assert you(pg) == "bg"
    expect(pg.locator("#moves td.move")).to_have_count(0)
    close(pg)


def test_the_win_can_be_claimed_once_the_opponent_has_been_away(browser: Browser, server: str) -> None:
    black, gold = online_pair(browser, server, target="3", clock="180+2")
    move(black, "c1", "c5")
    expect(black.locator("#claim-box")).to_be_hidden()
    gold.context.close()  # Gold leaves
    box = black.locator("#claim-box")
    expect(box).to_be_visible()
    expect(black.locator("#claim-text")).to_have_text(re.compile(r"Opponent left — you can claim the win in \d s"))
    expect(black.locator("#claim")).to_be_hidden()
    shot(black, SHOTS / "kamisado-controls-claim-wait.png")
    expect(black.locator("#claim")).to_be_visible(timeout=CLAIM_AFTER_S * 1000 + 3000)
    black.locator("#claim").click()
    expect(black.locator("#result-text")).to_have_text("Black wins: Gold left the game.")
    expect(box).to_be_hidden()
    close(black)


def test_a_rated_game_shows_ratings_and_the_player_page(browser: Browser, server: str) -> None:
    black = page(browser, server + "/")
    ann, bob = "ann" + uuid.uuid4().hex[:8], "bob" + uuid.uuid4().hex[:8]
    sign_up(black, ann)
    black.goto(server + "/#/new/online")
    rated = black.locator('#new-form input[name="rated"]')
    expect(rated).to_be_disabled()  # no clock yet
    expect(black.locator("#rated-hint")).to_have_text("Rated games need a clock.")
    black.select_option('#new-form select[name="clock"]', "300+3")
    expect(rated).to_be_enabled()
    rated.check()
    black.select_option('#new-form select[name="target"]', "1")
    black.click("#start")
    expect(black.locator("#invite-link")).to_have_value(re.compile(r"\?t="))
    invite = black.locator("#invite-link").input_value()
    gold = page(browser, server + "/")
    sign_up(gold, bob)
    gold.goto(invite)
    expect(gold.locator("#board")).to_have_attribute("data-you", "g")
    # each name with its rating, a link to the player's page
    for pg in (black, gold):
        # new players' ratings are provisional: "?" as on the player page
        expect(pg.locator(".seat .rating")).to_have_text(["1500?", "1500?"])
        expect(pg.locator("#match-info")).to_contain_text("Single round · rated")
    for i, (frm, to) in enumerate(QUICK_WIN):
        move(black if i % 2 == 0 else gold, frm, to)
    expect(black.locator("#result-text")).to_have_text("Black wins 1–0!")
    expect(black.locator(".seat-bottom .rating-change")).to_have_text(re.compile(r"^\+\d+$"))
    expect(black.locator(".seat-top .rating-change")).to_have_text(re.compile(r"^−\d+$"))
    shot(black, SHOTS / "kamisado-controls-rated.png")
    black.locator(".seat-top a.name").click()
    expect(black.locator("#view-player")).to_be_visible()
    expect(black.locator("#player-kind")).to_contain_text("registered player")
    realtime = black.locator('#player-ratings [data-speed="realtime"]')
    expect(realtime.locator(".games-count")).to_have_text("Rated games: 1")
    expect(realtime.locator(".value")).to_have_text(re.compile(r"^1[34]\d\d\?$"))
    # a speed never played rated has no made-up rating
    expect(black.locator('#player-ratings [data-speed="correspondence"] .value')).to_have_text("not rated yet")
    chart = black.locator("#player-charts img")
    expect(chart).to_have_count(1)
    expect(chart).to_have_attribute("src", re.compile(r"/rating\.svg\?speed=realtime&width=\d+&lang=en$"))
    # the server draws the chart at the width it is shown at: its 11 px text is 11 px,
    # on a phone too, and its title is in the page's words
    shown = "img => img.complete && img.naturalWidth > 0 ? [img.naturalWidth, img.getBoundingClientRect().width] : null"
    for width in (1100, 360):
        black.set_viewport_size({"width": width, "height": 800})
        black.reload()
        expect(black.locator("#player-charts img")).to_have_count(1)
        black.wait_for_function(f"() => ({shown})(document.querySelector('#player-charts img'))")
        natural, rendered = chart.evaluate(shown)
        assert abs(natural - rendered) <= 1, (width, natural, rendered)
    svg = black.request.get(server + (chart.get_attribute("src") or "")).text()
    assert "Real time" in svg and "realtime" not in svg.split("<svg", 1)[1].split(">", 1)[0]
    black.set_viewport_size({"width": 1100, "height": 850})
    expect(black.locator("#player-games .game-card")).to_have_count(1)
    # the account view links to one's own page
    black.goto(server + "/#/account")
    black.locator("#my-player-page").click()
    expect(black.locator("#player-name")).to_have_text(ann)
    expect(black.locator("#player-kind")).to_contain_text("This is you.")
    close(black, gold)
