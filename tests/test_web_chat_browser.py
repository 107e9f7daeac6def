"""A live game's chat in real browsers (issue 27, item 5): "chat escaped,
limited and muted".  Two players and a spectator on one server: a message
holding HTML is shown as the text it is, the page will not send more than
140 characters, canned messages are said in each reader's language, the
server's rate limit is said in the chat, a muted opponent's messages are
hidden in that browser (also after a reload) and shown again when unmuted,
and the spectators' room is their own.  No chat in a hotseat game.

Screenshots go to /tmp/kamisado-chat-*.png.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests import browser_kit
from tests.browser_kit import SHOTS, LiveServer, online_pair, page, settings, shot, start

browser = browser_kit.browser
server = browser_kit.server

XSS = '<img src=x onerror="window.__xss=1"><b>bold</b> & <script>window.__xss=2</script>'


def open_chat(pg: Page) -> None:
    chat = pg.locator("#chat")
    expect(chat).to_be_visible()
    if chat.get_attribute("open") is None:
        chat.locator("summary").click()
    expect(pg.locator("#chat-text")).to_be_visible()


def say(pg: Page, text: str) -> None:
    pg.locator("#chat-text").fill(text)
    pg.locator("#chat-send").click()


def texts(pg: Page) -> list[str]:
    return pg.locator("#chat-log .chat-text").all_inner_texts()


def test_chat_escaped_limited_and_muted(browser: Browser, server: str) -> None:
    black, gold = online_pair(browser, server)
    for pg in (black, gold):
        open_chat(pg)
        expect(pg.locator("#chat-room")).to_contain_text("Players' chat")
    # escaped: shown as the text it is, nothing of it run or drawn
    say(black, XSS)
    expect(gold.locator("#chat-log .chat-text")).to_have_text([XSS])
    expect(black.locator("#chat-log .chat-text")).to_have_text([XSS])
    for pg in (black, gold):
        expect(pg.locator("#chat-log img, #chat-log b, #chat-log script")).to_have_count(0)
        assert pg.evaluate("window.__xss") is None
    expect(gold.locator("#chat-log .chat-who")).to_have_text(["Black: "])
    # limited: 141 characters are not sent; 140 are
    black.locator("#chat-text").fill("x" * 141)
    expect(black.locator("#chat-count")).to_have_text("141/140")
    expect(black.locator("#chat-count")).to_have_class("chat-count over")
    expect(black.locator("#chat-too-long")).to_have_text(
        "Too long by 1: a message holds at most 140 characters.")
    black.locator("#chat-text").press("Enter")  # not sent: the reason flashes
    expect(black.locator("#chat-too-long")).to_have_class(re.compile(r"\bnudge\b"))
    expect(black.locator("#chat-text")).to_have_value("x" * 141)  # kept whole, to shorten
    say(black, "y" * 140)
    expect(gold.locator("#chat-log .chat-text")).to_have_text([XSS, "y" * 140])
    expect(black.locator("#chat-count")).to_have_text("0/140")
    # canned: a code, said in each reader's language
    settings(gold, lang="de")
    gold.locator('#chat [data-canned="good_luck"]').click()
    expect(gold.locator("#chat-log .chat-text").last).to_have_text("Viel Glück!")
    expect(black.locator("#chat-log .chat-text").last).to_have_text("Good luck!")
    shot(black, SHOTS / "kamisado-chat-black.png", full_page=True)
    # muted: Gold hides Black's messages in this browser, also after a reload
    gold.locator("#chat-mute").click()
    expect(gold.locator("#chat-mute")).to_have_attribute("aria-pressed", "true")
    expect(gold.locator("#chat-muted")).to_be_visible()
    expect(gold.locator("#chat-log .chat-text")).to_have_text(["Viel Glück!"])
    say(black, "are you there?")
    expect(black.locator("#chat-log .chat-text").last).to_have_text("are you there?")
    gold.locator('#chat [data-canned="thanks"]').click()  # after Black's message: Gold has had it
    expect(gold.locator("#chat-log .chat-text")).to_have_text(["Viel Glück!", "Danke!"])
    gold.reload()
    open_chat(gold)
    expect(gold.locator("#chat-log .chat-text")).to_have_text(["Viel Glück!", "Danke!"])
    shot(gold, SHOTS / "kamisado-chat-gold-muted.png", full_page=True)
    gold.locator("#chat-mute").click()
    expect(gold.locator("#chat-mute")).to_have_attribute("aria-pressed", "false")
    expect(gold.locator("#chat-log .chat-text")).to_have_text(
        [XSS, "y" * 140, "Viel Glück!", "are you there?", "Danke!"])
    # a spectator reads and writes the spectators' room only
    watcher = page(browser, black.locator("#watch-link").input_value())
    open_chat(watcher)
    expect(watcher.locator("#chat-room")).to_contain_text("Spectators' chat")
    expect(watcher.locator("#chat-empty")).to_be_visible()
    expect(watcher.locator("#chat-mute")).to_be_hidden()
    say(watcher, "go gold")
    expect(watcher.locator("#chat-log .chat-text")).to_have_text(["go gold"])
    shot(watcher, SHOTS / "kamisado-chat-spectator.png", full_page=True)
    # rate limited: the refusal is said in the chat (the server's limit, per player and address)
    hello = black.locator('#chat [data-canned="hello"]')
    for _ in range(30):
        hello.click()
        if black.locator("#chat-said").inner_text():
            break
    expect(black.locator("#chat-said")).to_have_text("Too many messages: wait a moment.")
    assert "go gold" not in texts(black) and "go gold" not in texts(gold)
    for pg in (black, gold, watcher):
        assert not pg.errors, pg.errors  # type: ignore[attr-defined]
        pg.context.close()


def test_no_chat_in_a_hotseat_game(browser: Browser, server: str) -> None:
    pg = page(browser, server + "/")
    start(pg, "hotseat")
    expect(pg.locator("#board")).to_have_attribute("data-you", "bg")
    expect(pg.locator("#chat")).to_be_hidden()
    pg.context.close()


@pytest.fixture
def fresh_server(tmp_path: Path) -> Iterator[str]:
    """A server of this test's own: the test above spends the address's chat
    allowance on purpose, and its server remembers that for a minute."""
    live = LiveServer(tmp_path / "games.sqlite3")
    yield live.start()
    live.stop()


def test_the_open_chat_fits_phones_and_desktops(browser: Browser, fresh_server: str) -> None:
    """Open, with messages, the chat keeps every viewport's rules (no
    sideways scroll, 44 px targets on phones, axe-core clean)."""
    from tests.test_web_layout import look

    black, gold = online_pair(browser, fresh_server)
    open_chat(black)
    say(black, "a message long enough to wrap on a phone's narrow panel, " * 2)
    expect(black.locator("#chat-log .chat-text")).to_have_count(1)
    black.locator("#chat-text").fill("x" * 150)
    assert look(black, "chat-open", menu=False) == []
    black.set_viewport_size({"width": 390, "height": 844})
    black.locator("#chat").scroll_into_view_if_needed()
    shot(black, SHOTS / "kamisado-chat-phone-open.png", full_page=True)
    for pg in (black, gold):
        pg.context.close()
