"""The game screen's panel in real browsers (issue 41, items 3, 8 and 9).

During a timed online game the move list keeps at least four whole rows in
view at 1280x720 and 1366x768 beside the board and both clocks, the chat
folded or open (the step buttons, the list and the game's controls together,
as lichess's move table; the chat and the spectators' link under them).  A
message that comes while the chat is folded shows as a badge ("1 new").  On
phones (390x844, 360x640) long names are shown whole, "(you)" and the rest
wrapping under them; a message over the limit is kept whole in the input
with the reason right under it, Enter sends, and a message that comes while
the chat (under the board) is folded shows in a chip above the tab bar.

Screenshots go to /tmp/kamisado-panel-*.png (``KAMISADO_SHOTS=1``).
"""

from __future__ import annotations

import re

from playwright.sync_api import Browser, Page, expect

from tests import browser_kit
from tests.browser_kit import SHOTS, move, online_pair, page, shot, sign_up, start

browser = browser_kit.browser
server = browser_kit.server

#: Ten short moves, none ending the round: five rows of the move list.
MOVES = ["a1-a2", "c8-c7", "e1-e2", "g8-g7", "a2-a3", "b8-b7", "h1-h2", "f8-f7", "d1-d2", "b7-b6"]

#: The move list's rows wholly in view: inside the list's box, under its
#: sticky heading, inside the panel (which may scroll) and the window.
ROWS_IN_VIEW = """() => {
  const box = document.querySelector('#moves').getBoundingClientRect();
  const panel = document.querySelector('.play > .panel').getBoundingClientRect();
  const head = document.querySelector('#moves thead').getBoundingClientRect();
  const top = Math.max(box.top, panel.top, head.bottom, 0);
  const bottom = Math.min(box.bottom, panel.bottom, innerHeight);
  return [...document.querySelectorAll('#moves tbody tr')].filter((r) => {
    const b = r.getBoundingClientRect();
    return b.height > 0 && b.top >= top - 0.5 && b.bottom <= bottom + 0.5;
  }).length;
}"""

#: The reason a message is not sent is seen: inside the chat's and the panel's
#: visible boxes and the window (above a phone's tab bar).
WHY_SEEN = """() => {
  const b = document.querySelector('#chat-too-long').getBoundingClientRect();
  const tabs = document.querySelector('nav.tabs').getBoundingClientRect();
  const boxes = ['#chat', '.play > .panel'].map((q) => document.querySelector(q).getBoundingClientRect());
  const bottom = Math.min(innerHeight, ...boxes.map((r) => r.bottom), tabs.top > 0 && tabs.left === 0 ? tabs.top : innerHeight);
  return b.height > 0 && b.top >= Math.max(0, ...boxes.map((r) => r.top)) - 0.5 && b.bottom <= bottom + 0.5;
}"""


def play(black: Page, gold: Page, moves: list[str]) -> None:
    """Play ``moves`` by click, Black and Gold in turn, each after the other's move came."""
    for i, mv in enumerate(moves):
        pg = black if i % 2 == 0 else gold
        expect(pg.locator("#board")).to_have_attribute("data-seq", str(i))
        move(pg, *mv.split("-"))
    for pg in (black, gold):
        expect(pg.locator("#board")).to_have_attribute("data-seq", str(len(moves)))


def board_and_clocks_in_view(pg: Page) -> None:
    for seen in ("#board", '.seat-top [role="timer"]', '.seat-bottom [role="timer"]'):
        expect(pg.locator(seen)).to_be_in_viewport(ratio=1)


def open_chat(pg: Page) -> None:
    if pg.locator("#chat").get_attribute("open") is None:
        pg.locator("#chat summary").click()
    expect(pg.locator("#chat-text")).to_be_visible()


def test_four_moves_in_view_and_unread_chat_on_desktops(browser: Browser, server: str) -> None:
    black, gold = online_pair(browser, server, clock="300+3")
    play(black, gold, MOVES)
    expect(black.locator("#moves tbody tr")).to_have_count(5)
    # Gold writes; Enter sends.  Black's chat is folded: a badge says so
    open_chat(gold)
    gold.locator("#chat-text").fill("good luck, have fun")
    gold.locator("#chat-text").press("Enter")
    expect(gold.locator("#chat-log .chat-text")).to_have_text(["good luck, have fun"])
    expect(gold.locator("#chat-text")).to_have_value("")
    badge = black.locator("#chat-unread")
    expect(badge).to_have_text("1 new")
    expect(black.locator("#chat-jump")).to_be_hidden()  # a phone's chip only
    for size in ((1280, 720), (1366, 768)):
        for pg in (black, gold):  # Black's chat folded, Gold's open
            pg.set_viewport_size({"width": size[0], "height": size[1]})
            board_and_clocks_in_view(pg)
            pg.wait_for_function(f"({ROWS_IN_VIEW})() >= 4")
        expect(badge).to_be_in_viewport(ratio=1)
        # a message too long: the panel and the chat scroll to the input and the reason
        # under it; the list stays in view
        gold.locator("#chat-text").fill("x" * 150)
        gold.locator("#chat-text").scroll_into_view_if_needed()
        assert gold.evaluate(WHY_SEEN), size
        gold.wait_for_function(f"({ROWS_IN_VIEW})() >= 4")
        shot(black, SHOTS / f"kamisado-panel-black-{size[0]}.png")
        shot(gold, SHOTS / f"kamisado-panel-gold-{size[0]}.png")
        gold.locator("#chat-text").fill("")
    open_chat(black)  # read: the badge goes
    expect(badge).to_be_hidden()
    expect(black.locator("#chat-log .chat-text")).to_have_text(["good luck, have fun"])
    black.wait_for_function(f"({ROWS_IN_VIEW})() >= 4")
    for pg in (black, gold):
        pg.context.close()


def test_long_names_and_the_chat_on_phones(browser: Browser, server: str) -> None:
    black = page(browser, server + "/", (390, 844))
    sign_up(black, "catherine_the_great390")
    start(black, "online", colour="b", clock="300+3")
    invite = black.locator("#invite-link")
    expect(invite).to_have_value(re.compile(r"\?t="))
    gold = page(browser, server + "/", (390, 844))
    sign_up(gold, "bob390_5_longname")
    gold.goto(invite.input_value())
    expect(gold.locator("#board")).to_have_attribute("data-you", "g")
    play(black, gold, MOVES[:2])
    for size in ((390, 844), (360, 640)):
        for pg in (black, gold):
            pg.set_viewport_size({"width": size[0], "height": size[1]})
            names = pg.locator(".seat .name")
            expect(names).to_have_text(["bob390_5_longname", "catherine_the_great390"] if pg is black
                                       else ["catherine_the_great390", "bob390_5_longname"])
            # whole: nothing cut off with an ellipsis
            assert pg.evaluate("""() => [...document.querySelectorAll('.seat .name')]
                .every((n) => n.scrollWidth <= n.clientWidth + 1)"""), size
            expect(pg.locator(".seat-bottom .you-mark")).to_have_text("(you)")
            board_and_clocks_in_view(pg)
            shot(pg, SHOTS / f"kamisado-panel-names-{size[0]}-{'black' if pg is black else 'gold'}.png")
    # too long: kept whole, the reason right under the input, in view with it
    open_chat(black)
    text = black.locator("#chat-text")
    text.fill("x" * 150)
    why = black.locator("#chat-too-long")
    expect(why).to_have_text("Too long by 10: a message holds at most 140 characters.")
    text.scroll_into_view_if_needed()
    assert black.evaluate(WHY_SEEN)
    below = why.bounding_box()
    field = text.bounding_box()
    assert below and field and 0 <= below["y"] - (field["y"] + field["height"]) < 24, (below, field)
    text.press("Enter")
    expect(why).to_have_class(re.compile(r"\bnudge\b"))
    expect(text).to_have_value("x" * 150)
    shot(black, SHOTS / "kamisado-panel-too-long-360.png")
    text.fill("well played so far")
    expect(why).to_have_text("")
    text.press("Enter")
    expect(gold.locator("#chat-log .chat-text")).to_have_text(["well played so far"])
    expect(black.locator("#chat-log .chat-text")).to_have_text(["well played so far"])
    # Gold's chat is folded, under the board: a chip above the tab bar says so, clear
    # of the board and the clocks, and opens the chat
    expect(gold.locator("#chat-unread")).to_have_text("1 new")
    chip = gold.locator("#chat-jump")
    expect(chip).to_have_text("Chat: 1 new")
    expect(chip).to_be_in_viewport(ratio=1)
    box = chip.bounding_box()
    assert box and gold.evaluate("""(y) => ['#board', '.seat-top .clock', '.seat-bottom .clock'].every(
        (q) => document.querySelector(q).getBoundingClientRect().bottom <= y)""", box["y"])
    shot(gold, SHOTS / "kamisado-panel-chip-360.png")
    chip.click()
    expect(chip).to_be_hidden()
    expect(gold.locator("#chat-unread")).to_be_hidden()
    expect(gold.locator("#chat-log .chat-text").last).to_be_in_viewport(ratio=1)
    expect(black.locator("#chat-jump")).to_be_hidden()  # Black's chat is open
    for pg in (black, gold):
        pg.context.close()
