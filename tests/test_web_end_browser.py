"""The end of a game and the offers, in real browsers (issue 26, items 4
and 5): the result shows inline in the panel with no dialog over the board,
whose final position stays visible with its marks; Rematch is one button,
lit as "Accept rematch" when the opponent offers one; New game, Review and
Download beside it, for hotseat, the computer, online and a spectator.
Offers are said once; a declined takeback is told to the asker (also after
a reload and on a second tab) and cannot be asked again for the same move;
a declined rematch says so.

Screenshots go to /tmp/shots-end/.
"""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Browser, Page, expect

from tests import browser_kit
from tests.browser_kit import (
    QUICK_WIN,
    game_id,
    move,
    open_page,
    page,
    shot,
    start,
    tower_at,
)

browser = browser_kit.browser
server = browser_kit.server

SHOTS = Path("/tmp/shots-end")
DESKTOP = (1366, 768)
PHONE = (390, 844)

#: Where the board's middle is, and what the browser finds there: the board
#: itself unless something (a modal dialog, its backdrop) lies over it.
COVERED = """() => {
  const b = document.querySelector('#board');
  b.scrollIntoView({block: 'center'});
  const r = b.getBoundingClientRect();
  const e = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  const modal = document.querySelector(':modal');
  if (modal) return 'modal: ' + modal.outerHTML.slice(0, 60);
  return e && e.closest('#board') ? null : (e ? e.outerHTML.slice(0, 60) : 'nothing');
}"""


#: Count the times something is said in the offers' hidden live region
#: (in the body's ``data-said``: waited for with ``expect``).
COUNT_SAID = """() => {
  let n = 0;
  document.body.dataset.said = '0';
  new MutationObserver(() => { document.body.dataset.said = String(++n); })
    .observe(document.querySelector('#offer-said'), {childList: true, characterData: true, subtree: true});
}"""


def opened(browser: Browser, url: str, size: tuple[int, int] = DESKTOP) -> Page:
    """A fresh browser context of the size on ``url`` (its errors and console
    collected: :func:`tests.browser_kit.open_page`)."""
    return page(browser, url, size)


def pair(browser: Browser, server: str, target: str = "1") -> tuple[Page, Page]:
    """An online game from the form: Black on a laptop, Gold (the invite
    link opened) on a phone, both seated."""
    black = opened(browser, server + "/")
    start(black, "online", target=target, colour="b")
    expect(black.locator("#invite-link")).to_have_value(re.compile(r"\?t="))
    gold = opened(browser, black.locator("#invite-link").input_value(), PHONE)
    expect(gold.locator("#board")).to_have_attribute("data-you", "g")
    expect(black.locator(".seat-top .presence")).to_have_text("online")
    return black, gold


def close(*pages: Page) -> None:
    for pg in pages:
        assert not pg.errors, pg.errors  # type: ignore[attr-defined]
        assert not pg.console, pg.console  # type: ignore[attr-defined]
        pg.context.close()


def picture(pg: Page, name: str) -> None:
    pg.evaluate("window.scrollTo(0, 0)")
    shot(pg, SHOTS / f"{name}.png")


def final_position_shown(pg: Page, to: str) -> None:
    """The result is inline: no dialog open on the page (the report form is a closed one), nothing over the board,
    whose last move is still framed."""
    expect(pg.locator("dialog[open]")).to_have_count(0)  # the complaint form is a dialog, closed
    expect(pg.locator(f'#board .last-to.mark[data-square="{to}"]')).to_have_count(1)
    assert pg.evaluate(COVERED) is None


def test_the_result_is_inline_and_a_rematch_is_accepted_while_it_shows(browser: Browser, server: str) -> None:
    black, gold = pair(browser, server)
    watcher = opened(browser, black.locator("#watch-link").input_value(), PHONE)
    expect(watcher.locator("#status")).to_contain_text("watching")
    first = game_id(black)
    for i, (frm, to) in enumerate(QUICK_WIN):
        move(black if i % 2 == 0 else gold, frm, to)
    for pg in (black, gold, watcher):
        expect(pg.locator("#result")).to_be_visible()
        expect(pg.locator("#result-text")).to_have_text("Black wins 1–0!")
        tower_at(pg, "b-brown", "e8")
        final_position_shown(pg, "e8")
        expect(pg.locator("#result-review")).to_have_attribute("href", f"#/review/{first}")
        expect(pg.locator("#result-download")).to_have_attribute("href", f"/api/games/{first}/record")
        expect(pg.locator("#download")).to_be_hidden()  # once, in the result
    expect(black.locator("#result-new")).to_have_attribute("href", "#/new/online")
    expect(watcher.locator("#result-new")).to_have_attribute("href", "#/")
    expect(watcher.locator("#rematch")).to_be_hidden()  # a spectator offers nothing
    picture(black, "end-1366x768")
    picture(gold, "end-390x844")
    # Gold offers; Black's one Rematch button lights up as the answer, Decline beside it
    gold.locator("#rematch").click()
    expect(gold.locator("#rematch")).to_be_disabled()
    expect(gold.locator("#rematch-decline")).to_have_text("Withdraw")
    expect(gold.locator("#rematch-note")).to_have_text("Rematch offered: waiting for your opponent.")
    lit = black.locator("#rematch")
    expect(lit).to_have_text("Accept rematch")
    expect(lit).to_have_class(re.compile(r"\blit\b"))
    expect(black.locator("#rematch-decline")).to_have_text("Decline")
    expect(black.locator("#rematch-note")).to_have_text("Your opponent offers a rematch.")
    expect(watcher.locator("#rematch-note")).to_have_text("Gold offers a rematch.")
    # said once: in the hidden live region for who did not ask, never in the status lines
    expect(black.locator("#offer-said")).to_have_text("Your opponent offers a rematch.")
    for pg in (black, gold, watcher):
        expect(pg.locator("#announce")).not_to_contain_text("rematch")
        expect(pg.locator("#offer-box")).to_be_hidden()
    expect(gold.locator("#offer-said")).not_to_contain_text("rematch")
    picture(black, "end-rematch-offered-1366x768")
    lit.click()
    # both open the new game, each with the other colour; the spectator is shown the way
    expect(black).not_to_have_url(re.compile(first))
    second = game_id(black)
    assert game_id(gold) == second != first
    expect(black.locator("#board")).to_have_attribute("data-you", "g")
    expect(gold.locator("#board")).to_have_attribute("data-you", "b")
    for pg in (black, gold):
        expect(pg.locator("#result")).to_be_hidden()
        expect(pg.locator("#moves td.move")).to_have_count(0)
    link = watcher.locator("#rematch-link")
    expect(link).to_have_text("Watch the rematch")
    expect(link).to_have_attribute("href", f"#/game/{second}")
    expect(watcher.locator("#rematch-note")).to_be_hidden()
    picture(watcher, "end-spectator-390x844")
    link.click()
    expect(watcher).to_have_url(re.compile(f"#/game/{second}"))
    expect(watcher.locator("#result")).to_be_hidden()
    move(gold, "c1", "c5")
    tower_at(watcher, "b-red", "c5")
    close(black, gold, watcher)


def test_the_result_inline_in_hotseat_and_against_the_computer(browser: Browser, server: str) -> None:
    pg = page(browser, server + "/", PHONE)
    start(pg, "hotseat", target="1")
    first = game_id(pg)
    for frm, to in QUICK_WIN:
        move(pg, frm, to)
    expect(pg.locator("#result-text")).to_have_text("Black wins 1–0!")
    final_position_shown(pg, "e8")
    expect(pg.locator("#result-new")).to_have_attribute("href", "#/new/hotseat")
    expect(pg.locator("#rematch-decline")).to_be_hidden()
    record = pg.request.get(server + (pg.locator("#result-download").get_attribute("href") or ""))
    assert record.ok and "Black" in record.text()
    pg.locator("#result-review").click()
    expect(pg.locator("#review-controls")).to_be_visible()
    expect(pg).to_have_url(re.compile(f"#/review/{first}"))
    pg.go_back()
    expect(pg.locator("#rematch")).to_have_text("Rematch")
    pg.locator("#rematch").click()  # alone: at once
    expect(pg).not_to_have_url(re.compile(first))
    expect(pg.locator("#result")).to_be_hidden()
    # against the computer: resigned after a move, the last move stays framed
    start(pg, "computer", colour="b", level="beginner")
    move(pg, "d1", "d5")
    expect(pg.locator("#moves td.move")).to_have_count(2)  # the computer answered
    answer = pg.locator("#moves .entry").nth(1).get_attribute("title") or ""
    pg.locator("#resign").click()
    pg.locator("#resign").click()
    expect(pg.locator("#result-text")).to_have_text("Gold wins: Black resigned.")
    final_position_shown(pg, answer.split("-")[1])
    expect(pg.locator("#rematch")).to_have_text("Rematch")
    expect(pg.locator("#result-new")).to_have_attribute("href", "#/new/computer?level=beginner")
    picture(pg, "end-computer-390x844")
    close(pg)


def test_a_declined_takeback_is_told_to_the_asker_and_not_asked_again(browser: Browser, server: str) -> None:
    black, gold = pair(browser, server, target="3")
    move(black, "c1", "c5")
    takeback = black.locator("#takeback")
    takeback.click()
    expect(gold.locator("#offer-text")).to_have_text("Your opponent asks to take back their last move.")
    # said once: the box shows it, the hidden live region says it; the status lines do not
    expect(gold.locator("#offer-said")).to_have_text("Your opponent asks to take back their last move.")
    expect(gold.locator("#announce")).not_to_contain_text("take back")
    gold.locator("#offer-decline").click()
    declined = "Your opponent declined the takeback. You can ask again after the next move."
    expect(black.locator("#offer-text")).to_have_text(declined)
    expect(black.locator("#offer-said")).to_have_text(declined)
    expect(black.locator("#announce")).not_to_contain_text("declined")
    for pg in (black, gold):
        expect(pg.locator("#offer-accept")).to_be_hidden()
        expect(pg.locator("#offer-withdraw")).to_be_hidden()
        tower_at(pg, "b-red", "c5")
    expect(gold.locator("#offer-box")).to_be_hidden()  # who said no knows it
    expect(takeback).to_be_disabled()
    expect(takeback).to_have_attribute("title", re.compile("ask again after the next move"))
    picture(black, "takeback-declined-1366x768")
    # the server keeps it: after a reload, and on a second tab
    black.reload()
    expect(black.locator("body")).to_have_attribute("data-ready", "1")
    expect(black.locator("#offer-text")).to_have_text(declined)
    expect(takeback).to_be_disabled()
    tab = open_page(black.context, black.url)
    expect(tab.locator("#offer-text")).to_have_text(declined)
    expect(tab.locator("#takeback")).to_be_disabled()
    # the next move: a takeback (now of both moves) may be asked again, the note goes
    move(gold, "b8", "b3")
    for pg in (black, tab):
        expect(pg.locator("#offer-box")).to_be_hidden()
        expect(pg.locator("#takeback")).to_be_enabled()
    expect(takeback).not_to_have_attribute("title", re.compile("."))
    takeback.click()
    gold.locator("#offer-accept").click()
    for pg in (black, gold):
        expect(pg.locator("#moves td.move")).to_have_count(0)
        tower_at(pg, "b-red", "c1")
    close(tab)
    close(black, gold)


def test_a_declined_rematch_is_said_to_the_asker(browser: Browser, server: str) -> None:
    black, gold = pair(browser, server)
    for i, (frm, to) in enumerate(QUICK_WIN):
        move(black if i % 2 == 0 else gold, frm, to)
    black.locator("#rematch").click()
    expect(gold.locator("#rematch")).to_have_text("Accept rematch")
    gold.locator("#rematch-decline").click()
    said = "Your opponent declined the rematch."
    expect(black.locator("#rematch-note")).to_have_text(said)
    expect(black.locator("#offer-said")).to_have_text(said)
    expect(gold.locator("#rematch-note")).to_have_text("You declined the rematch.")
    for pg in (black, gold):
        expect(pg.locator("#rematch")).to_have_text("Offer a rematch")
        expect(pg.locator("#rematch")).to_be_enabled()
        expect(pg.locator("#rematch")).not_to_have_class(re.compile(r"\blit\b"))
        expect(pg.locator("#rematch-decline")).to_be_hidden()
    picture(black, "rematch-declined-1366x768")
    black.reload()  # kept with the game
    expect(black.locator("body")).to_have_attribute("data-ready", "1")
    expect(black.locator("#rematch-note")).to_have_text(said)
    # asked once more: an offer again, the refusal forgotten; declined once
    # more: said to the asker again, once
    black.evaluate(COUNT_SAID)
    black.locator("#rematch").click()
    expect(gold.locator("#rematch-note")).to_have_text("Your opponent offers a rematch.")
    expect(black.locator("#rematch-note")).to_have_text("Rematch offered: waiting for your opponent.")
    gold.locator("#rematch-decline").click()
    expect(black.locator("#rematch-note")).to_have_text(said)
    expect(black.locator("body")).to_have_attribute("data-said", "1")
    gold.locator("#rematch").click()  # and Gold's own offer: said to Black, once
    expect(black.locator("#rematch")).to_have_text("Accept rematch")
    expect(black.locator("body")).to_have_attribute("data-said", "2")
    expect(black.locator("#offer-said")).to_have_text("Your opponent offers a rematch.")
    close(black, gold)
