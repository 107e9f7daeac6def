"""The account page's API tokens in a real browser (docs/web-tokens.md): a
signed-up player makes a token with a name and scopes, sees it once with a
copy button and the warning, the token works as ``Authorization: Bearer``,
and the revoke button ends it.  Screenshot: /tmp/kamisado-tokens.png."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

from playwright.sync_api import Browser, expect

from tests import browser_kit
from tests.browser_kit import SHOTS, page, shot, sign_up

server = browser_kit.server
browser = browser_kit.browser


def me_status(server: str, token: str) -> tuple[int, dict[str, object]]:
    req = urllib.request.Request(f"{server.rstrip('/')}/api/me", headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return int(r.status), json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return int(exc.code), json.loads(exc.read())


def test_a_token_is_made_shown_once_used_and_revoked_from_the_account_page(browser: Browser, server: str) -> None:
    pg = page(browser, server)
    sign_up(pg, "tokenann")
    expect(pg.locator("#token-list")).to_contain_text("No tokens.")
    pg.locator('#token-form input[name="name"]').fill("my bot")
    pg.locator('#token-form input[value="play"]').check()
    pg.locator("#token-form button").click()
    expect(pg.locator("#token-new")).to_be_visible()
    expect(pg.locator("#token-new")).to_contain_text("shown this once")
    token = pg.locator("#token-value").input_value()
    assert token.startswith("kam_")
    expect(pg.locator("#token-list li")).to_have_count(1)
    expect(pg.locator("#token-list")).to_contain_text("my bot (play, read)")
    expect(pg.locator("#token-list")).to_contain_text("never used")
    shot(pg, SHOTS / "kamisado-tokens.png")
    status, body = me_status(server, token)
    assert (status, body["account"]) == (200, "tokenann")
    pg.reload()
    expect(pg.locator("body")).to_have_attribute("data-ready", "1")
    expect(pg.locator("#token-new")).to_be_hidden()  # never shown again
    expect(pg.locator("#token-list")).to_contain_text("last used")
    pg.locator("#token-list .token-revoke").click()
    expect(pg.locator("#token-list")).to_contain_text("No tokens.")
    status, body = me_status(server, token)
    assert (status, body["code"]) == (401, "bad_token")
    assert pg.errors == []  # type: ignore[attr-defined]
