"""End to end: the real server, the real page, Debian's Chromium.

Screenshots go to /tmp/kamisado-e2e-*.png.
"""

from __future__ import annotations

import re
import time

from playwright.sync_api import Browser, Page, expect

from tests import browser_kit
from tests.browser_kit import (
    QUICK_WIN,
    SHOTS,
    click_square,
    move,
    page,
    settings,
    shot,
    start,
    tower_at,
)

# the fixtures: a live server for this module, and Chromium
server = browser_kit.server
browser = browser_kit.browser


def test_online_round_with_a_spectator(browser: Browser, server: str) -> None:
    black = page(browser, server + "/")
    start(black, "online", colour="b")
    expect(black.locator("#invite-link")).to_have_value(re.compile(r"\?t="))
    invite = black.locator("#invite-link").input_value()
    watch = black.locator("#watch-link").input_value()
    assert re.search(r"/#/game/[\w-]+\?t=[\w-]+$", invite) and "?t=" not in watch
    expect(black.locator("#status")).to_contain_text("Your move")
    gold = page(browser, invite)
    watcher = page(browser, watch)
    expect(watcher.locator("#status")).to_contain_text("watching")
    expect(black.locator(".seat-top .presence")).to_have_text("online")
    for i, (frm, to) in enumerate(QUICK_WIN):
        mover = black if i % 2 == 0 else gold
        move(mover, frm, to)
        tower = "b-brown" if i % 2 == 0 else "g-yellow"
        for pg in (black, gold, watcher):
            tower_at(pg, tower, to)
        if i == 0:
            # the page of the side not to move offers nothing to move
            expect(black.locator("#board .dest")).to_have_count(0)
            expect(gold.locator("#status")).to_contain_text("Your move: the Yellow tower")
    for pg in (black, gold, watcher):
        expect(pg.locator("#result")).to_be_visible()
        expect(pg.locator("#result-text")).to_have_text("Black wins 1–0!")
    watcher.wait_for_timeout(400)
    shot(watcher, SHOTS / "kamisado-e2e-online-watcher.png")
    shot(gold, SHOTS / "kamisado-e2e-online-gold.png")
    for pg in (black, gold, watcher):
        assert not pg.errors  # type: ignore[attr-defined]
        pg.context.close()


def test_hotseat_standard_match_round_end_and_fill(browser: Browser, server: str) -> None:
    pg = page(browser, server + "/")
    start(pg, "hotseat", target="3")
    for frm, to in QUICK_WIN:
        move(pg, frm, to)
    expect(pg.locator("#fill-panel")).to_be_visible()
    expect(pg.locator("#announce")).to_contain_text("Black wins the round")
    # both line-ups side by side before choosing
    expect(pg.locator('#fill-left-board [data-tower="b-brown"]')).to_have_attribute("data-at", "h1")
    expect(pg.locator('#fill-right-board [data-tower="b-brown"]')).to_have_attribute("data-at", "a1")
    expect(pg.locator('#fill-left-board [data-tower="g-yellow"]')).to_have_attribute("data-at", "a8")
    shot(pg, SHOTS / "kamisado-e2e-fill.png")
    pg.click("#fill-left")
    expect(pg.locator("#fill-panel")).to_be_hidden()
    expect(pg.locator("#match-info")).to_contain_text("Round 2")
    expect(pg.locator("#match-info")).to_contain_text("1–0")
    tower_at(pg, "b-brown", "h1")  # the Sumo stands where the left fill put it
    tower_at(pg, "g-yellow", "a8")
    expect(pg.locator('#board [data-tower="b-brown"] .ring')).to_have_count(1)
    expect(pg.locator("#status")).to_contain_text("Gold to move")  # the loser starts round 2
    assert not pg.errors  # type: ignore[attr-defined]
    pg.context.close()


def test_hotseat_series_of_single_rounds(browser: Browser, server: str) -> None:
    pg = page(browser, server + "/")
    start(pg, "hotseat", target="s3")  # a series: first to 3 round wins
    for frm, to in QUICK_WIN:
        move(pg, frm, to)
    # no fill choice in a series: round 2 starts from the colour-matching start,
    # no ring is won, and the first move alternates to Gold
    expect(pg.locator("#match-info")).to_contain_text("Round 2")
    expect(pg.locator("#match-info")).to_contain_text("1–0")
    expect(pg.locator("#match-info")).to_contain_text("first to 3 wins")
    expect(pg.locator("#fill-panel")).to_be_hidden()
    tower_at(pg, "b-brown", "a1")
    expect(pg.locator('#board [data-tower="b-brown"] .ring')).to_have_count(0)
    expect(pg.locator("#status")).to_contain_text("Gold to move")
    assert not pg.errors  # type: ignore[attr-defined]
    pg.context.close()


def test_game_against_the_computer(browser: Browser, server: str) -> None:
    pg = page(browser, server + "/")
    start(pg, "computer", colour="b", level="beginner")
    move(pg, "d1", "d5")
    tower_at(pg, "b-yellow", "d5")
    # the computer (Gold) answers with its orange tower (d5 is orange)
    expect(pg.locator("#moves td.move")).to_have_count(2)
    expect(pg.locator('#board [data-tower="g-orange"]')).not_to_have_attribute("data-at", "a8")
    expect(pg.locator("#status")).to_contain_text("Your move")
    shot(pg, SHOTS / "kamisado-e2e-computer.png")
    assert not pg.errors  # type: ignore[attr-defined]
    pg.context.close()


def test_reload_mid_game_resumes(browser: Browser, server: str) -> None:
    pg = page(browser, server + "/")
    start(pg, "hotseat", target="7")
    move(pg, "c1", "c5")
    move(pg, "b8", "b3")
    tower_at(pg, "g-blue", "b3")
    url = pg.url
    pg.reload()
    assert pg.url == url
    tower_at(pg, "b-red", "c5")
    tower_at(pg, "g-blue", "b3")
    expect(pg.locator("#moves td.move")).to_have_count(2)
    expect(pg.locator("#status")).to_contain_text("the Yellow tower")
    move(pg, "d1", "g4")  # and play goes on
    tower_at(pg, "b-yellow", "g4")
    pg.context.close()


def test_forged_move_for_the_other_seat_is_refused(browser: Browser, server: str) -> None:
    black = page(browser, server + "/")
    start(black, "online", colour="b")
    expect(black.locator("#invite-link")).to_have_value(re.compile(r"\?t="))
    invite = black.locator("#invite-link").input_value()
    gold = page(browser, invite)
    expect(gold.locator("#status")).to_contain_text("Black to move")
    game_id = black.url.split("/")[-1]
    # Gold's page sends a move for Black's tower on a socket of its own
    answer = gold.evaluate(
        """([id, token]) => new Promise((resolve) => {
            const ws = new WebSocket(`ws://${location.host}/ws`);
            ws.onopen = () => ws.send(JSON.stringify({type: "join", game: id, token}));
            ws.onmessage = (ev) => {
                const m = JSON.parse(ev.data);
                if (m.type === "state" && m.seq === 0 && !ws.sent) {
                    ws.sent = true;
                    ws.send(JSON.stringify({type: "move", move: "c1-c5"}));
                } else if (m.type === "error") { resolve(m); ws.close(); }
            };
        })""",
        [game_id, invite.split("?t=")[1]],
    )
    assert answer["code"] == "not_your_turn"
    # the board did not change anywhere
    time.sleep(0.3)
    tower_at(black, "b-red", "c1")
    tower_at(gold, "b-red", "c1")
    expect(black.locator("#status")).to_contain_text("Your move")
    black.context.close()
    gold.context.close()


def test_lesson_ends_with_its_puzzle_solved(browser: Browser, server: str) -> None:
    pg = page(browser, server + "/#/lessons")
    lessons = pg.locator("#lesson-list a")
    from kamisado.lessons import lessons_json

    expect(lessons).to_have_count(len(lessons_json("en")))
    pg.locator('#lesson-list a[href="#/lesson/fig3"]').click()
    expect(pg.locator("#lesson-step")).to_contain_text("1 of")
    while pg.locator("#lesson-text").get_attribute("data-kind") != "puzzle":
        step = pg.locator("#lesson-step").text_content()
        pg.click("#ls-next")
        expect(pg.locator("#lesson-step")).not_to_have_text(step or "")
    expect(pg.locator("#status")).to_contain_text("Your turn")
    click_square(pg, "a1")
    click_square(pg, "a3")
    # the server answers with the solver's best defence: Gold's blue h5-h4
    expect(pg.locator('#board [data-tower="g-blue"]')).to_have_attribute("data-at", "h4")
    click_square(pg, "b5")
    click_square(pg, "b8")
    expect(pg.locator("#status")).to_have_text("Solved!")
    shot(pg, SHOTS / "kamisado-e2e-lesson.png")
    # the way on: the next lesson, or a first game against the computer
    expect(pg.locator("#lesson-feedback")).to_have_text("Lesson complete.")
    expect(pg.locator("#lesson-next-lesson")).to_have_attribute("href", re.compile(r"#/lesson/\w+"))
    pg.locator("#lesson-play").click()
    expect(pg.locator("#view-new")).to_be_visible()
    expect(pg.locator('input[name="mode"][value="computer"]')).to_be_checked()
    expect(pg.locator('input[name="level"][value="beginner"]')).to_be_checked()
    pg.click("#start")
    expect(pg.locator("#status")).to_contain_text("Your move")
    assert not pg.errors  # type: ignore[attr-defined]
    pg.context.close()


def test_footer_names_the_engine_core(browser: Browser, server: str) -> None:
    from kamisado.engine import BACKEND

    pg = page(browser, server)
    footer = pg.locator("#engine-backend")
    expect(footer).to_have_attribute("data-backend", BACKEND)
    english = {"compiled": "compiled C engine", "python": "pure-Python engine (slower)"}
    expect(footer).to_have_text(english[BACKEND])
    assert not pg.errors  # type: ignore[attr-defined]


def move_rows(pg: Page) -> list[list[str]]:
    """The live move list's rows below the last round heading: [black, gold]."""
    return pg.evaluate(
        """() => {
            const rows = [...document.querySelectorAll("#moves tr")];
            const last = rows.map((r) => !!r.querySelector(".round-head")).lastIndexOf(true);
            return rows.slice(last + 1).map((r) => [r.cells[1].textContent, r.cells[2].textContent]);
        }"""
    )


def test_move_list_rows_when_gold_opens_a_round(browser: Browser, server: str) -> None:
    """Issue 10: Black won round 1, so Gold opens round 2; the rows follow the record."""
    from kamisado.rules.match import Match
    from kamisado.rules.record import entry_lines, match_entries

    round2 = [("h8", "h7"), ("e1", "e2"), ("g8", "a2"), ("e2", "c4")]  # Gold then passes
    m = Match(3)
    for frm, to in QUICK_WIN:
        m.push_move(f"{frm}-{to}")
    m.choose_fill("left")
    for frm, to in round2:
        m.push_move(f"{frm}-{to}")
    rnd = list(match_entries(m))[-1]
    lines = entry_lines([e for ply in rnd.plies for e in ply.entries])
    expected = [re.split(r"\s{2,}", line.split(". ", 1)[1]) for line in lines]
    expected = [[b if b != "..." else "", g[0] if g else ""] for b, *g in expected]
    assert expected[0] == ["", "Brown Forward 1 Purple"] and expected[-1][1] == "Green 0 Purple"

    pg = page(browser, server + "/")
    start(pg, "hotseat", target="3")
    for frm, to in QUICK_WIN:
        move(pg, frm, to)
    pg.click("#fill-left")
    expect(pg.locator("#match-info")).to_contain_text("Round 2")
    for frm, to in round2:
        move(pg, frm, to)
    expect(pg.locator("#moves td.pass")).to_have_count(1)
    rows = move_rows(pg)
    assert [[b if b != "..." else "", g] for b, g in rows] == expected
    assert rows[0][0] == "..."  # the empty Black cell of a round Gold opens
    assert not pg.errors  # type: ignore[attr-defined]
    pg.context.close()


def _luminance(rgb: str) -> float:
    vals = [int(v) / 255 for v in re.findall(r"\d+", rgb)[:3]]
    lin = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in vals]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def _contrast(a: str, b: str) -> float:
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def test_keyboard_cursor_is_visible_on_every_square(browser: Browser, server: str) -> None:
    """Issue 10: the cursor was a blue that vanished on blue squares."""
    pg = page(browser, server + "/")
    start(pg, "hotseat")
    pg.locator("#board").focus()
    pg.keyboard.press("ArrowUp")  # the cursor appears on d1
    for _ in range(3):
        pg.keyboard.press("ArrowRight")  # onto g1, a blue square
    blue = pg.locator('#board .square[data-square="g1"] > rect')
    expect(blue).to_have_attribute("fill", "#1f6fbf")
    cursor = pg.locator("#board .cursor")
    expect(cursor.first).to_be_visible()
    # the cursor stands on g1: its box lies within the square's
    sq, cur = blue.bounding_box(), cursor.first.bounding_box()
    assert sq and cur and abs((sq["x"] + sq["width"] / 2) - (cur["x"] + cur["width"] / 2)) < 2
    strokes = cursor.evaluate_all(
        "els => els.map((e) => getComputedStyle(e))"
        ".filter((s) => s.stroke !== 'none' && parseFloat(s.strokeWidth) > 0).map((s) => s.stroke)"
    )
    assert strokes
    fills = set(pg.locator("#board .square > rect").evaluate_all(
        "els => els.map((e) => getComputedStyle(e).fill)"
    ))
    assert len(fills) == 8
    for fill in fills:  # WCAG's 3:1 for graphics, against every square colour
        best = max(_contrast(s, fill) for s in strokes)
        assert best >= 3, f"cursor {strokes} lost on a {fill} square (contrast {best:.2f})"
    shot(pg, SHOTS / "kamisado-e2e-cursor.png")
    assert not pg.errors  # type: ignore[attr-defined]
    pg.context.close()


def test_series_is_named_in_the_page_language(browser: Browser, server: str) -> None:
    """Issue 10: "Series N" in the saved-games list was English whatever the language."""
    pg = page(browser, server + "/")
    start(pg, "hotseat", target="s3")
    move(pg, "c1", "c5")
    game_id = pg.url.split("/")[-1]
    pg.goto(server + "/#/games")
    card = pg.locator(f'#games-list [data-game="{game_id}"]')
    expect(card.locator(".match")).to_have_text("Series 3")
    for lang, text in (("de", "Serie bis 3"), ("hu", "Sorozat 3 győzelemig")):
        settings(pg, lang=lang)
        expect(card.locator(".match")).to_have_text(text)
    settings(pg, lang="en")
    assert not pg.errors  # type: ignore[attr-defined]
    pg.context.close()
