"""Moderation in real browsers (issue 40, item 3; docs/web-moderation.md):
Ann reports Bob from their game (the report names it) and blocks him from
his page; a moderator (granted by ``kamisado admin grant``) sees the report
on #/mod with Bob's chat line, mutes Bob, whose next chat line is refused
with the server's words, closes Bob's account, whose page is then signed
out; the audit log says it all.  Nobody else sees #/mod."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from kamisado.cli import main as kamisado
from tests import browser_kit
from tests.browser_kit import LiveServer, page, sign_up, start

browser = browser_kit.browser


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """A live server and its SQLite file (for ``kamisado admin``)."""
    db = tmp_path_factory.mktemp("web") / "games.sqlite3"
    live = LiveServer(db)
    yield live.start(), db
    live.stop()


def me(pg: Page) -> dict[str, object]:
    """The page's ``/api/me``."""
    found: dict[str, object] = pg.evaluate("fetch('/api/me').then((r) => r.json())")
    return found


def open_chat(pg: Page) -> None:
    chat = pg.locator("#chat")
    expect(chat).to_be_visible()
    if chat.get_attribute("open") is None:
        chat.locator("summary").click()
    expect(pg.locator("#chat-text")).to_be_visible()


def say(pg: Page, text: str) -> None:
    pg.locator("#chat-text").fill(text)
    pg.locator("#chat-send").click()


# the refusals the test causes on purpose: a report with a bidi control (400), #/mod for Ann (403)
@pytest.mark.console_allows(r"status of 400 .*/report:", r"status of 403 .*/api/mod/(reports|audit):")
def test_report_block_mute_and_close_in_two_browsers(browser: Browser, site: tuple[str, Path]) -> None:
    server, db = site
    ann, bob, mod = (page(browser, server + "/") for _ in range(3))
    sign_up(ann, "ann_mod")
    sign_up(bob, "bob_mod")
    sign_up(mod, "mo_mod")
    bob_id = str(me(bob)["id"])
    # their game, with a chat
    ann.goto(server + "/#/")
    start(ann, "online", target="1", colour="b")
    expect(ann.locator("#invite-link")).to_have_value(re.compile(r"\?t="))
    bob.goto(ann.locator("#invite-link").input_value())
    expect(bob.locator("#board")).to_have_attribute("data-you", "g")
    game = ann.url.split("#/game/")[1].split("?")[0]
    for pg in (ann, bob):
        open_chat(pg)
    say(bob, "you play like a potato")
    expect(ann.locator("#chat-log .chat-text")).to_have_text(["you play like a potato"])

    # Ann reports Bob from the game: the form names the game
    ann.locator("#chat-report").click()
    dialog = ann.locator("#complaint")
    expect(dialog).to_be_visible()
    expect(ann.locator("#complaint-game")).to_contain_text(game)
    dialog.locator('input[value="abuse"]').check()
    ann.locator("#complaint-text").fill("insults in the chat")
    ann.locator("#complaint-send").click()
    expect(dialog).to_be_hidden()
    expect(ann.locator("#chat-said")).to_have_text("Report sent: a moderator will read it.")
    # ... and blocks him from his page (the button shows the server's state)
    ann.goto(f"{server}/#/player/{bob_id}")
    block = ann.locator("#pm-block")
    expect(block).to_have_text("Block")
    block.click()
    expect(block).to_have_attribute("aria-pressed", "true")
    expect(block).to_have_text("Unblock")
    ann.reload()
    expect(ann.locator("#pm-block")).to_have_attribute("aria-pressed", "true")
    # a second report of Bob while the first is open is merged into it; a refusal is the server's words
    ann.locator("#pm-report").click()
    ann.locator('#complaint input[value="other"]').check()
    ann.locator("#complaint-text").fill("\u202e")
    ann.locator("#complaint-send").click()
    expect(ann.locator("#complaint-error")).to_contain_text("no bidi controls (U+202E found)")
    ann.locator("#complaint-text").fill("and again after the game")
    ann.locator("#complaint-send").click()
    expect(ann.locator("#pm-said")).to_have_text("Added to your open report of this player.")
    # #/mod is for moderators: no link, and the page says so
    expect(ann.locator("#mod-link")).to_be_hidden()
    ann.goto(server + "/#/mod")
    expect(ann.locator("#mod-denied")).to_be_visible()
    expect(ann.locator("#mod-reports li")).to_have_count(0)

    # a moderator, granted from the command line, sees the report with Bob's chat line and games
    assert kamisado(["admin", "grant", "mo_mod", "moderator", "--db", str(db)]) == 0
    mod.reload()
    expect(mod.locator("#mod-link")).to_be_visible()
    mod.locator("#mod-link").click()
    report = mod.locator(f'.mod-report[data-player="{bob_id}"]')
    expect(report).to_have_count(1)
    expect(report.locator(".mod-text")).to_have_text(re.compile(r"insults in the chat[\s\S]*and again after the game"))
    expect(report.locator(".mod-chat .chat-text")).to_have_text(["you play like a potato"])
    expect(report.locator(f'.mod-chat a[href="#/review/{game}"]')).to_have_count(1)
    expect(report.locator(f'.mod-games a[href="#/game/{game}"]')).to_have_count(1)
    # mutes Bob for 2 hours: his next chat line is refused with the server's message
    report.locator(".mod-hours").fill("2")
    report.locator(".mod-reason").fill("insults")
    report.locator('button[data-action="mute"]').click()
    expect(report.locator(".mod-state")).to_contain_text("muted until")
    say(bob, "one more potato")
    expect(bob.locator("#chat-said")).to_contain_text("A moderator muted you until")
    expect(bob.locator("#chat-log .chat-text")).to_have_text(["you play like a potato"])
    # closes Bob's account: his page is signed out at once
    report.locator(".mod-reason").fill("repeated abuse")
    report.locator('button[data-action="close"]').click()
    expect(report.locator(".mod-state")).to_contain_text("account closed")
    expect(bob.locator("#me-name")).to_have_text("Account")
    assert me(bob)["signed_in"] is False
    # the audit log: who, what, on whom, why (the newest first)
    rows = mod.locator(".mod-audit-row")
    expect(rows.first).to_have_attribute("data-action", "close")
    expect(rows.first).to_contain_text("mo_mod")
    expect(rows.first).to_contain_text("repeated abuse")
    expect(rows.nth(1)).to_contain_text("2 h")
    # resolved, the report leaves the open ones
    report.locator('button[data-action="resolve"]').click()
    expect(mod.locator("#mod-reports-empty")).to_be_visible()
    expect(rows.first).to_have_attribute("data-action", "resolve")
    for pg in (ann, bob, mod):
        assert pg.errors == []  # type: ignore[attr-defined]
