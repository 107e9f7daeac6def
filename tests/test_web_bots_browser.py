"""A bot on the page (docs/web-bots.md): a program's account, listening on
its event stream, is listed at ``#/bots`` marked BOT; a person challenges it
from its page, the program hears the challenge and accepts it over HTTP,
and the person's page is put in the game, the bot's seat marked BOT.

Screenshots (``KAMISADO_SHOTS=1``) go to /tmp/kamisado-bots-*.png.
"""

from __future__ import annotations

from playwright.sync_api import Browser, expect

from tests import browser_kit
from tests.browser_kit import SHOTS, game_id, page, shot, sign_up, you
from tests.test_web_bots import HttpStream, _account_token, _post
from tests.test_web_players_browser import challenge

server = browser_kit.server
browser = browser_kit.browser


def test_a_person_challenges_a_bot_listed_online_which_accepts_over_http(browser: Browser, server: str) -> None:
    addr = server.split("//", 1)[1].rstrip("/")
    token, _, _ = _account_token(addr, "robo")
    bot = _post(addr, "/api/bot/upgrade", token)
    events = HttpStream(addr, token)  # the program listens: the bot is online
    try:
        ann = page(browser, server + "/", size=(1366, 768))
        sign_up(ann, "annie")
        ann.goto(server + "/#/bots")
        listed = ann.locator("#bots-list li")
        expect(listed).to_have_count(1)
        expect(listed).to_contain_text("Robo")
        expect(listed.locator(".bot-badge")).to_have_text("BOT")
        shot(ann, SHOTS / "kamisado-bots-list.png")
        listed.get_by_role("link", name="Challenge").click()
        expect(ann.locator("#player-name")).to_have_text("Robo BOT")
        expect(ann.locator("#player-online")).to_have_text("Online now")
        challenge(ann)  # rated 5+3, as a person sends it
        heard = events.next()
        assert heard["type"] == "challenge" and heard["challenge"]["destUser"]["id"] == bot["id"]
        assert heard["challenge"]["challenger"]["name"] == "annie" and heard["challenge"]["rated"] is True
        game = _post(addr, f"/api/challenge/{heard['challenge']['id']}/accept", token)["game"]
        assert game_id(ann) == game
        assert you(ann) in ("b", "g")
        expect(ann.locator(".seat .bot-badge")).to_have_count(1)
        started = events.next()
        assert started["type"] == "gameStart" and started["game"]["id"] == game
        shot(ann, SHOTS / "kamisado-bots-game-1366.png")
        ann.set_viewport_size({"width": 390, "height": 844})
        shot(ann, SHOTS / "kamisado-bots-game-390.png")
        assert ann.errors == []  # type: ignore[attr-defined]
    finally:
        events.close()
