"""A bot plays a person's challenge to the end in a real browser (issue 42):
``kamisado bot`` with the beginner level online; a person signs up in
Chromium, challenges it from its player page, and plays every move by
clicking the board (the first legal move, read from the game's stream as
a watcher reads it) until the game ends."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx2
import pytest
from playwright.sync_api import Browser, expect

from kamisado.api import Client
from tests import browser_kit, test_api_e2e
from tests.browser_kit import SHOTS, move, page, shot, sign_up
from tests.test_api_e2e import BotProcess, bots, new_bot

pytestmark = test_api_e2e.pytestmark  # the server side of docs/web-bots.md
server = browser_kit.server
browser = browser_kit.browser


@pytest.fixture
def bot(server: str) -> Iterator[tuple[BotProcess, str, str]]:
    url = server.removeprefix("http://").rstrip("/")
    token, bot_id = new_bot(url, "kai")
    proc = BotProcess(url, token, "--accept", "casual,rated", "--target", "1")
    with bots(proc):
        proc.wait_for("the event stream is open")
        yield proc, token, bot_id


def test_a_person_challenges_a_bot_from_its_page_and_plays_it_to_the_end(
        browser: Browser, server: str, bot: tuple[BotProcess, str, str]) -> None:
    proc, token, bot_id = bot
    pg = page(browser, server.rstrip("/") + "/", size=(1366, 768))
    sign_up(pg, "ann")
    pg.goto(pg.url.split("#")[0] + f"#/player/{bot_id}")
    expect(pg.locator("#player-name")).to_contain_text("BOT")
    expect(pg.locator("#pc-go")).to_be_enabled()
    pg.select_option("#pc-target", "1")
    pg.select_option("#pc-clock", "300+3")
    pg.select_option("#pc-colour", "b")
    pg.locator("#pc-go").click()
    expect(pg).to_have_url(re.compile(r"#/game/[\w-]+"))
    game_id = re.sub(r".*#/game/([\w-]+).*", r"\1", pg.url)
    proc.wait_for(rf"game {game_id}: started: kai \(gold\) against ann, Single, 300\+3, rated")
    moves = 0
    with Client(server, token) as watcher:
        for line in watcher.bots.stream_game_state(game_id):
            state = line["state"] if line["type"] == "gameFull" else line
            if state["status"] == "finished":
                break
            if state["to_act"] == "b" and state["awaiting"] == "move":
                frm, to = state["legal"][0].split("-")
                move(pg, frm, to)
                moves += 1
                if moves == 3:
                    shot(pg, SHOTS / "kamisado-bot-game-1366.png")
    end = proc.wait_for(rf"game {game_id}: (won|lost|drawn) ")
    assert moves > 0 and end.group(1) in ("won", "lost")
    expect(pg.locator("#board")).to_have_attribute("data-seq", re.compile(r"\d"))
    shot(pg, SHOTS / "kamisado-bot-game-end-1366.png")
    pg.set_viewport_size({"width": 390, "height": 844})
    shot(pg, SHOTS / "kamisado-bot-game-end-390.png", full_page=True)
    assert pg.errors == []  # type: ignore[attr-defined]
    with httpx2.Client(base_url=server) as anyone:
        record = anyone.get(f"/api/games/{game_id}/record")
        assert record.status_code == 200 and "Gold: kai" in record.text
