"""The page when the server restarts (docs/web.md, "Server to page"): it
says the server is restarting and will be back shortly, reconnects by
itself once a server answers again, and the game goes on."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests import browser_kit
from tests.browser_kit import LiveServer, move, page, seq, start

browser = browser_kit.browser


@pytest.mark.console_allows(r"WebSocket connection .* failed")  # the server is away a moment
def test_the_page_says_the_server_restarts_and_plays_on_once_it_is_back(
    browser: Browser, tmp_path: Path
) -> None:
    live = LiveServer(tmp_path / "games.sqlite3", workers=0)
    url = live.start()
    try:
        pg = page(browser, url + "/")
        start(pg, "hotseat")
        move(pg, "c1", "c5")
        conn = pg.locator("#conn")
        expect(conn).to_be_hidden()
        live.stop()  # as SIGTERM stops kamisado web: every page is told "restarting"
        expect(conn).to_be_visible()
        expect(conn).to_have_text("The server is restarting: it will be back shortly. Moves are"
                                  " paused until then. Reconnecting…")
        expect(conn).to_have_class("conn restarting")
        pg.wait_for_timeout(1500)  # the page tries again meanwhile: still "restarting", not "lost"
        expect(conn).to_have_class("conn restarting")
        live.start()  # the same port and database: the page comes back by itself
        expect(conn).to_be_hidden(timeout=30_000)
        assert seq(pg) == 1
        move(pg, "b8", "b3")  # and the game goes on
        assert seq(pg) == 2
        assert not pg.errors, pg.errors  # type: ignore[attr-defined]
        pg.context.close()
    finally:
        live.stop()
