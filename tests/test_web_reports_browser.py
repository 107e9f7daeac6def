"""A game report on a known game with a known blunder (docs/web.md, "Game
reports"): asked for with one click beside the review, its counts shown,
its link opening the review at the blunder's move, from the review and from
a fresh tab, and the same report in the match's end."""

from __future__ import annotations

import json
import re
import urllib.request

from playwright.sync_api import Browser, expect

from kamisado.rules import record
from kamisado.rules.match import Match
from tests import browser_kit
from tests.browser_kit import open_page, page

browser = browser_kit.browser
server = browser_kit.server

#: Gold to move wins in 3; g8-a2 (the match's first move) throws the win
#: away and Black wins in 2 (tests/test_engine_report.py).
WON = "obu1yrgn/8/8/P7/8/3p3U/8/NGRY2BO g g 1 0 0"


def test_a_game_report_on_a_known_game_with_known_blunders(browser: Browser, server: str) -> None:
    m = Match(1, start=WON)
    for token in ["g8-a2", "h3-d7", "d7-d8"]:
        m.apply(token)
    text = record.write(record.Record.new(m, black="Ann", gold="Bo"))
    req = urllib.request.Request(server + "/api/records", data=text.encode(), method="POST")
    with urllib.request.urlopen(req) as r:
        game = json.loads(r.read())["id"]
    pg = page(browser, f"{server}/#/review/{game}")
    box = pg.locator("#rv-report")
    ask = box.get_by_role("button", name="Analyse this game")
    expect(ask).to_be_visible()
    ask.click()
    expect(box.locator('td.blunders[data-side="g"]')).to_have_text("1", timeout=60_000)
    expect(box.locator('td.accuracy[data-side="g"]')).to_have_text("0.0%")
    expect(box.locator('td.blunders[data-side="b"]')).to_have_text("0")
    expect(box.locator('td.accuracy[data-side="b"]')).to_have_text("100.0%")
    link = box.locator('.report-moves[data-side="g"] li.blunder a')
    expect(link).to_have_count(1)
    expect(link).to_have_text("Move 1: Gold Green Right 6 Purple ?? blunder")
    expect(link).to_have_attribute("title", "g8-a2: Blunder: threw away a win in 3 moves")
    href = f"#/game/{game}/review?ply=1"
    expect(link).to_have_attribute("href", href)
    # the review is at its end; the link opens it at the blunder
    expect(pg.locator("#rv-where")).to_contain_text("move 3")
    link.click()
    expect(pg).to_have_url(re.compile(re.escape(href) + "$"))
    expect(pg.locator("#rv-where")).to_contain_text("Round 1, move 1")
    expect(pg.locator("#rv-where .mark.blunder")).to_have_text("??")
    # pasted into a fresh tab
    tab = open_page(pg.context, f"{server}/{href}")
    expect(tab.locator("#rv-where")).to_contain_text("Round 1, move 1")
    expect(tab.locator("#rv-where")).to_contain_text("Gold Green Right 6 Purple")
    expect(tab.locator('#rv-report td.blunders[data-side="g"]')).to_have_text("1")
    # the match's end shows the same report
    tab.goto(f"{server}/#/game/{game}")
    expect(tab.locator('#result-report td.blunders[data-side="g"]')).to_have_text("1")
    expect(tab.locator("#result-report .report-moves a")).to_have_attribute("href", href)
    assert not pg.errors and not tab.errors  # type: ignore[attr-defined]
    pg.context.close()
