"""The browser tests' kit: a real server on a real port (stopped and started
again on the same port when a test needs the connection to drop), Debian's
Chromium, and a person's actions on the page.  Test files import the
fixtures (``server``, ``browser``) and helpers from here."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Page,
    expect,
    sync_playwright,
)

from kamisado.web.site.live import LiveServer
from tests.conftest import CHROMIUM_ARGS

__all__ = ["LiveServer"]  # re-exported: test files import it from here

# how long an expect() waits for what it expects when the test names no
# time: long enough for a computer's move on a loaded machine (a wait that
# is met ends at once; only a failing test waits it out)
expect.set_options(timeout=20_000)

SHOTS = Path("/tmp")
#: Screenshots for people to look at (never compared: tools/screenshots.py
#: compares the docs' pictures) are taken only when this is set in the
#: environment (``KAMISADO_SHOTS=1``): they cost the suite CPU time otherwise.
SHOTS_WANTED = bool(os.environ.get("KAMISADO_SHOTS"))


def shot(page: Page, path: Path, **kw: Any) -> None:
    """``page.screenshot(path=path, **kw)`` when screenshots are wanted
    (:data:`SHOTS_WANTED`), its folder made; nothing otherwise."""
    if SHOTS_WANTED:
        path.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(path), **kw)
# a three-move single round: Black's brown tower reaches e8
QUICK_WIN = [("a1", "a4"), ("e8", "e5"), ("a4", "e8")]
#: The viewports every view is checked at: two phones and a desktop.
VIEWPORTS = {"phone-360": (360, 740), "phone-390": (390, 844), "desktop": (1280, 800)}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    live = LiveServer(tmp_path_factory.mktemp("web") / "games.sqlite3")
    yield live.start()
    live.stop()


@pytest.fixture(scope="module")
def browser(chromium_path: str) -> Iterator[Browser]:
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium_path, headless=True, args=CHROMIUM_ARGS)
        block_service_workers(b)
        yield b
        b.close()


#: What Chromium logs for the page's service worker where the context blocks them.
SW_BLOCKED = "Service Worker registration blocked by Playwright"


def block_service_workers(b: Browser) -> None:
    """Make ``b``'s new contexts block service workers unless a test asks
    for them (``service_workers="allow"``): the page's worker precaches
    the whole site on every first visit, which the tests of other things
    need not pay for (tests/test_web_offline_browser.py tests it)."""
    make = b.new_context

    def new_context(**kw: Any) -> BrowserContext:
        kw.setdefault("service_workers", "block")
        return make(**kw)

    setattr(b, "new_context", new_context)  # noqa: B010 (an instance's method replaced)


def page(browser: Browser, url: str, size: tuple[int, int] = (1100, 850)) -> Page:
    """A fresh browser context (no stored seats) on ``url``; JavaScript errors
    are collected in ``page.errors``."""
    ctx = browser.new_context(viewport={"width": size[0], "height": size[1]})
    ctx.set_default_timeout(20_000)
    return open_page(ctx, url)


#: The pages :func:`open_page` opened in the running test, each with the
#: console errors and warnings it logged in ``page.console``: a test that
#: leaves one fails (tests/conftest.py, ``console_clean``) unless it is
#: marked ``@pytest.mark.console_allows(regex, ...)`` for the lines it causes
#: on purpose (a server stopped under the page, a game that does not exist).
OPENED: list[Page] = []


def _console_line(msg: ConsoleMessage) -> str:
    where = msg.location or {}
    return f"{msg.type}: {msg.text} ({where.get('url', '?')}:{where.get('lineNumber', '?')})"


def open_page(ctx: BrowserContext, url: str) -> Page:
    """A new page of ``ctx`` on ``url``, once the page is ready; JavaScript
    errors are collected in ``page.errors``, console errors and warnings in
    ``page.console``."""
    pg = ctx.new_page()
    errors: list[str] = []
    console: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.on("console", lambda m: console.append(_console_line(m))
          if m.type in ("error", "warning") and m.text != SW_BLOCKED else None)
    pg.errors = errors  # type: ignore[attr-defined]
    pg.console = console  # type: ignore[attr-defined]
    OPENED.append(pg)
    pg.goto(url)
    expect(pg.locator("body")).to_have_attribute("data-ready", "1")
    return pg


def click_square(pg: Page, square: str) -> None:
    """Click a square as a person would."""
    pg.locator(f'#board .square[data-square="{square}"]').click()


def seq(pg: Page) -> int:
    """The number of actions in the game the page shows."""
    expect(pg.locator("#board")).to_have_attribute("data-seq", re.compile(r"\d"))
    return int(pg.locator("#board").get_attribute("data-seq") or 0)


def move(pg: Page, frm: str, to: str) -> None:
    """Select a tower, see its destinations light up, move; wait for the answer."""
    n = seq(pg)
    click_square(pg, frm)
    expect(pg.locator(f'#board .dest[data-dest="{to}"]')).to_have_count(1)
    click_square(pg, to)
    # taken: the count went past n (a computer's answer may already have come too)
    pg.wait_for_function("(n) => Number(document.querySelector('#board').dataset.seq) > n", arg=n)


def tower_at(pg: Page, tower: str, square: str) -> None:
    expect(pg.locator(f'#board [data-tower="{tower}"]')).to_have_attribute("data-at", square)


def start(pg: Page, mode: str, target: str = "1", **selects: str) -> None:
    """Start a game from the new-game form of ``mode`` (``level`` picks a level card)."""
    base = pg.url.split("#")[0]
    pg.goto(f"{base}#/new/{mode}")
    expect(pg.locator(f'input[name="mode"][value="{mode}"]')).to_be_checked()
    pg.select_option('select[name="target"]', target)
    for name, value in selects.items():
        if name == "level":
            pg.locator(f'input[name="level"][value="{value}"]').check()
        else:
            pg.select_option(f'select[name="{name}"]', value)
    pg.click("#start")
    expect(pg.locator("#view-play")).to_be_visible()
    # the game's state has come (the page drops the board's count until it
    # does, and takes no move meanwhile): a click before it would be lost
    expect(pg.locator("#board")).to_have_attribute("data-seq", re.compile(r"\d"))


def settings(pg: Page, lang: str | None = None, **checks: bool) -> None:
    """Change settings as a person would: open the settings menu, choose, close it."""
    menu = pg.locator("details.prefs")
    if menu.get_attribute("open") is None:
        menu.locator("summary").click()
    if lang:
        pg.select_option("#lang", lang)
    for box, on in checks.items():
        pg.locator(f"#{box}").set_checked(on)
    menu.locator("summary").click()


# -- players, online games, the lobby ------------------------------------------------


def game_id(pg: Page) -> str:
    """The id of the game the page shows (from its URL, ``#/game/<id>``)."""
    expect(pg).to_have_url(re.compile(r"#/game/[\w-]+"))
    return re.sub(r".*#/game/([\w-]+).*", r"\1", pg.url)


def you(pg: Page) -> str:
    """The seats the page holds in its game, once its state came: ``"b"``, ``"g"``,
    ``"bg"`` (hotseat) or ``""`` (a spectator)."""
    expect(pg.locator("#board")).to_have_attribute("data-seq", re.compile(r"\d"))
    return pg.locator("#board").get_attribute("data-you") or ""


def online_pair(browser: Browser, server: str, target: str = "1", **selects: str) -> tuple[Page, Page]:
    """An online game from the form: Black (its creator) and Gold (a second
    browser that opened the invite link), both seated."""
    black = page(browser, server + "/")
    start(black, "online", target=target, colour="b", **selects)
    expect(black.locator("#invite-link")).to_have_value(re.compile(r"\?t="))
    gold = page(browser, black.locator("#invite-link").input_value())
    expect(gold.locator("#board")).to_have_attribute("data-you", "g")
    expect(black.locator(".seat-top .presence")).to_have_text("online")
    return black, gold


def sign_up(pg: Page, account: str, password: str = "a good password") -> None:
    """Create an account for the page's player, as a person would (#/account)."""
    pg.goto(pg.url.split("#")[0] + "#/account")
    pg.locator('#signup-form input[name="account"]').fill(account)
    pg.locator('#signup-form input[name="password"]').fill(password)
    pg.locator("#signup-form button").click()
    expect(pg.locator("#account-who")).to_contain_text(f"Signed in as {account}")
