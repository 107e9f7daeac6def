"""Issue 26's words and the fill choice, in a real browser: both fill
choices within a phone's screen with boards large enough to see the Sumo
rings and badges, under one heading; review's headline on a proven
position; Gold is "Arany" in Hungarian; the header's name never cut
mid-word; review names the match type as the game view does.  Issue 41:
the server's refusals in the browser's language (by their codes).

Screenshots go to /tmp/kamisado-words-*.png.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from kamisado.lessons import lessons_json, puzzles_json
from kamisado.web.accounts.sessions import FREE_FAILURES
from kamisado.web.work import worker
from tests import browser_kit
from tests.browser_kit import (
    QUICK_WIN,
    SHOTS,
    LiveServer,
    game_id,
    move,
    page,
    settings,
    shot,
    sign_up,
    start,
)

browser = browser_kit.browser

STATIC = Path(__file__).resolve().parent.parent / "kamisado" / "web" / "static"

#: The analysis searches this many nodes from empty tables (not 400 ms), so
#: every machine gets the same answer: too few for the search or the solver
#: to prove ``PROVEN_BY_LINES``, enough for the lines, whose every root move
#: the solver gets first (20,000 nodes each).
ANALYSIS_NODES = 200
#: A single round after which Black, to move, loses whatever it plays: the
#: search with ``ANALYSIS_NODES`` says only "-91"; the best line (the longest
#: resistance, c1-c2) is "Gold wins in 12 moves (proven)".
PROVEN_BY_LINES = [("d1", "f3"), ("a8", "a2"), ("f1", "c4"), ("g8", "g5")]

#: The phones the fill choice must fit (width, height).
PHONES = [(360, 640), (390, 844), (412, 915)]
#: The least size of a fill board's square, in CSS pixels.  The issue's
#: boards were about 165 px (20 px squares), where a Sumo's badge (30 units
#: of a 100-unit square) was about 6 px across: "barely visible".  From 25 px
#: squares (a 200 px board, what room a 360x640 screen leaves for two boards
#: beside their buttons) the badge, drawn 1.6 times larger on the fill boards,
#: is 12 px across with a 8 px digit, and the ring round the tower is 3/4 of
#: a px white on 1.5 px dark.
SQUARE_MIN_PX = 25.0
#: The least size of the rank badge of a fill board's Sumo, in CSS pixels.
BADGE_MIN_PX = 12.0


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The live server, its analysis by nodes (the same answer on any machine)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(worker.ANALYSIS_NODES_ENV, str(ANALYSIS_NODES))
        live = LiveServer(tmp_path_factory.mktemp("web") / "games.sqlite3")
        yield live.start()
        live.stop()


def close(pg: Page) -> None:
    assert not pg.errors, pg.errors  # type: ignore[attr-defined]
    pg.context.close()


def box(loc: Locator) -> dict[str, float]:
    """Where ``loc`` is drawn in the viewport (it must be drawn)."""
    b = loc.bounding_box()
    assert b is not None, f"{loc} is not drawn"
    return b


@pytest.mark.parametrize("size", PHONES, ids=[f"{w}x{h}" for w, h in PHONES])
def test_both_fill_choices_fit_a_phone_under_one_heading(
    browser: Browser, server: str, size: tuple[int, int]
) -> None:
    width, height = size
    pg = page(browser, server + "/", size)
    start(pg, "hotseat", target="3")
    for frm, to in QUICK_WIN:
        move(pg, frm, to)
    panel = pg.locator("#fill-panel")
    expect(panel).to_be_visible()
    # the room between the sticky header and the tab bar at the bottom
    top = box(pg.locator("header.top"))
    room_top = top["y"] + top["height"]
    room_bottom = box(pg.locator("nav.tabs"))["y"]
    assert room_bottom < height  # the tab bar is at the bottom on a phone
    for sel in ("#fill-title", "#fill-left-board", "#fill-right-board", "#fill-left", "#fill-right"):
        b = box(pg.locator(sel))
        assert b["y"] >= room_top - 0.5 and b["y"] + b["height"] <= room_bottom + 0.5, (sel, b, room_top, room_bottom)
        assert b["x"] >= 0 and b["x"] + b["width"] <= width + 0.5, (sel, b)
    for side in ("left", "right"):
        square = box(pg.locator(f'#fill-{side}-board .square[data-square="a1"]'))
        assert square["width"] >= SQUARE_MIN_PX, (side, square)
        # the round's winner, Black's brown tower, is a Sumo: its ring and badge are seen
        sumo = pg.locator(f'#fill-{side}-board [data-tower="b-brown"]')
        expect(sumo.locator(".ring")).to_have_count(1)
        badge = box(sumo.locator(".rank circle"))
        assert badge["width"] >= BADGE_MIN_PX, (side, badge)
    # "Set up the next round" once, as the panel's heading; the status says who chooses
    expect(pg.get_by_text("Set up the next round")).to_have_count(1)
    region = pg.get_by_role("region", name="Set up the next round")
    expect(region).to_be_visible()
    for words in ("Filled from the left", "Filled from the right"):  # each board's name, translated
        expect(region.get_by_role("img", name=words)).to_be_visible()
    expect(pg.locator("#status")).to_have_text("Black won the round and chooses how to fill the home rows.")
    shot(pg, SHOTS / f"kamisado-words-fill-{width}x{height}.png")
    pg.click("#fill-right")
    expect(panel).to_be_hidden()
    expect(pg.locator("#match-info")).to_contain_text("Round 2")
    close(pg)


def test_review_headline_says_a_proven_position(browser: Browser, server: str) -> None:
    pg = page(browser, server + "/")
    start(pg, "hotseat", target="1")
    for frm, to in PROVEN_BY_LINES:
        move(pg, frm, to)
    pg.goto(f"{server}/#/review/{game_id(pg)}")
    lines = pg.locator("#rv-lines li")
    expect(lines.first).to_contain_text("Gold wins in 12 moves (proven)")
    # the headline says what the lines prove, not the search's evaluation
    expect(pg.locator("#analysis")).to_contain_text("Gold wins in 12 moves (proven)")
    expect(pg.locator("#analysis")).not_to_contain_text("Evaluation")
    # and its best move is the best line's
    expect(pg.locator("#analysis")).to_contain_text(lines.first.locator(".line-move").inner_text())
    shot(pg, SHOTS / "kamisado-words-review-proven.png", full_page=True)
    close(pg)


def test_review_names_the_match_type_as_the_game_view_does(browser: Browser, server: str) -> None:
    pg = page(browser, server + "/")
    start(pg, "hotseat", target="3")
    for frm, to in QUICK_WIN:
        move(pg, frm, to)
    expect(pg.locator("#match-info")).to_contain_text("Standard match (3 points)")
    pg.click("#fill-left")
    expect(pg.locator("#match-info")).to_contain_text("Round 2")
    pg.goto(f"{server}/#/review/{game_id(pg)}")
    expect(pg.locator("#match-info")).to_have_text("Standard match (3 points) · Score 1–0")
    settings(pg, lang="de")
    expect(pg.locator("#match-info")).to_have_text("Standard-Partie (3 Punkte) · Punktestand 1–0")
    close(pg)


def test_gold_is_arany_in_hungarian(browser: Browser, server: str) -> None:
    pg = page(browser, server + "/")
    settings(pg, lang="hu")
    pg.goto(f"{server}/#/new/hotseat")
    expect(pg.locator('select[name="colour"] option[value="g"]')).to_have_text("Arany")
    start(pg, "hotseat", target="1")
    move(pg, "a1", "a4")
    expect(pg.locator("#status")).to_contain_text("Arany")
    expect(pg.locator(".seat-top")).to_contain_text("Arany")
    expect(pg.locator("body")).not_to_contain_text(re.compile("fehér", re.IGNORECASE))
    close(pg)


def test_gold_is_arany_in_every_hungarian_text() -> None:
    """The page's words, the lessons and the puzzles' text (the server's)."""
    hu = json.loads((STATIC / "i18n" / "hu.json").read_text(encoding="utf-8"))
    assert hu["side.g"] == "Arany"
    texts = [*hu.values(), json.dumps(lessons_json("hu"), ensure_ascii=False),
             json.dumps(puzzles_json("hu"), ensure_ascii=False)]
    assert not [x for x in texts if "fehér" in x.lower()]
    assert any("(arany)" in x for x in texts)  # the lessons name the sides


@pytest.mark.parametrize("name", ["alice_wonderland", "wolfgang-amadeus"])
def test_the_header_never_cuts_the_name_mid_word(browser: Browser, server: str, name: str) -> None:
    pg = page(browser, server + "/", (360, 640))
    link = pg.locator("#me-link")
    # no room for "Account" either: the icon alone, the word kept as the link's name
    expect(link).to_have_accessible_name("Account")
    sign_up(pg, name)
    expect(link).to_have_accessible_name(name)
    expect(link).to_have_attribute("title", name)
    shown = pg.locator("#me-name")
    # at 360 px the whole name has no room: its initials, never a cut name
    initials = "".join(part[0] for part in re.split(r"[_-]", name)).upper()
    expect(pg.locator("#me-initials")).to_have_text(initials)
    expect(pg.locator("#me-initials")).to_be_visible()
    assert box(shown)["width"] <= 1  # the whole name is for screen readers only
    shot(pg, SHOTS / f"kamisado-words-header-{name}.png", clip={"x": 0, "y": 0, "width": 360, "height": 60})
    # on a desktop the whole name is drawn, not cut
    pg.set_viewport_size({"width": 1280, "height": 800})
    expect(pg.locator("#me-initials")).to_be_hidden()
    expect(shown).to_have_text(name)
    assert shown.evaluate("e => e.scrollWidth <= e.clientWidth && e.clientWidth > 1")
    expect(link).to_have_accessible_name(name)
    close(pg)


#: The sizes the server's translated refusals are looked at (a phone first).
REFUSAL_SIZES = [(390, 844), (1366, 768)]


@pytest.mark.console_allows(r"status of (400|401|429) .*/api/(signin|records)")  # refused on purpose
def test_the_servers_refusals_come_in_the_browsers_language(browser: Browser, server: str) -> None:
    """A browser set to German gets the server's refusals in German, by their
    codes: a wrong password, the sign-in lockout (429), a record that
    cannot be read (the rules' own words, line and column, inside).  One
    page looked at in both sizes: the server limits sign-ins per address."""
    width, height = REFUSAL_SIZES[0]
    ctx = browser.new_context(viewport={"width": width, "height": height}, locale="de-DE")
    ctx.set_default_timeout(20_000)
    pg = browser_kit.open_page(ctx, server + "/#/account")

    def shots(name: str, refused: Locator) -> None:
        for w, h in REFUSAL_SIZES:
            pg.set_viewport_size({"width": w, "height": h})
            refused.scroll_into_view_if_needed()
            shot(pg, SHOTS / f"kamisado-words-refusal-{name}-{w}x{h}.png")
        pg.set_viewport_size({"width": width, "height": height})

    form = pg.locator("#signin-form")
    said = form.locator(".error")
    form.locator('input[name="account"]').fill("niemand")
    for i in range(FREE_FAILURES):
        form.locator('input[name="password"]').fill(f"falsch {i} geraten")
        said.evaluate("e => { e.textContent = ''; }")
        form.locator("button").click()
        expect(said).to_have_text("Falscher Kontoname oder falsches Passwort.")
    shots("password", said)
    form.locator('input[name="password"]').fill("noch einmal falsch")
    form.locator("button").click()  # one try too many: the lockout's 429, in German
    expect(said).to_have_text("Zu viele Versuche: warte kurz und versuche es dann noch einmal.")
    pg.goto(server + "/#/")
    pg.locator("#upload").set_input_files(
        files=[{"name": "kein.txt", "mimeType": "text/plain", "buffer": b"not a record"}])
    expect(pg.locator("#upload-error")).to_have_text(
        "Die Partieaufzeichnung ließ sich nicht lesen: line 1, column 1: expected the title"
        " 'Kamisado match record', found 'not a record'")
    shots("record", pg.locator("#upload-error"))
    close(pg)


def test_every_refusal_code_the_page_knows_is_said_in_every_language() -> None:
    """The refusal.* keys: in en, de and hu alike, each with the same ``{args}``."""
    words = {lang: json.loads((STATIC / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))
             for lang in ("en", "de", "hu")}
    codes = {k for k in words["en"] if k.startswith("refusal.")}
    assert {"refusal.wrong_password", "refusal.rate_limited", "refusal.unavailable",
            "refusal.record_unreadable", "refusal.busy"} <= codes
    for lang in ("de", "hu"):
        assert {k for k in words[lang] if k.startswith("refusal.")} == codes, lang
        for k in codes:
            assert set(re.findall(r"\{\w+\}", words[lang][k])) == set(re.findall(r"\{\w+\}", words["en"][k])), (lang, k)
