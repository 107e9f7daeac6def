"""The page offline, in Chromium: the manifest, the service worker, the
offline banner, and a game played with the network cut.

One server for the module; service workers allowed in these contexts only
(``tests/browser_kit.py`` blocks them elsewhere)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, BrowserContext, expect

from tests.browser_kit import browser, open_page, server  # noqa: F401 (fixtures)


@pytest.fixture
def ctx(browser: Browser) -> Iterator[BrowserContext]:  # noqa: F811
    """A context with service workers allowed."""
    c = browser.new_context(service_workers="allow", viewport={"width": 1100, "height": 850})
    c.set_default_timeout(20_000)
    yield c
    c.close()


def test_the_manifest_is_valid_and_its_icons_load(ctx: BrowserContext, server: str) -> None:  # noqa: F811
    pg = open_page(ctx, server)
    href = pg.locator('link[rel="manifest"]').get_attribute("href")
    assert href == "/manifest.webmanifest"
    res = pg.request.get(server + href)
    assert res.ok and res.headers["content-type"] == "application/manifest+json"
    m = res.json()
    assert m["name"] == "Kamisado" and m["short_name"] == "Kamisado"
    assert m["start_url"] == "/" and m["display"] == "standalone"
    # the page's colours (style.css --dark and --bg)
    assert pg.evaluate("getComputedStyle(document.documentElement).getPropertyValue('--dark').trim()") \
        == m["theme_color"]
    assert pg.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(244, 239, 230)"
    assert m["background_color"] == "#f4efe6"
    purposes = {(i["sizes"], i["purpose"]) for i in m["icons"]}
    assert {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")} <= purposes
    for icon in m["icons"]:  # each one loads as the picture it claims to be
        size = int(icon["sizes"].split("x")[0])
        got = pg.evaluate("""async (src) => { const i = new Image(); i.src = src; await i.decode();
                             return [i.naturalWidth, i.naturalHeight]; }""", icon["src"])
        assert got == [size, size]


def test_the_service_worker_controls_the_page_and_the_banner_says_offline(
        ctx: BrowserContext, server: str) -> None:  # noqa: F811
    pg = open_page(ctx, server)
    pg.evaluate("navigator.serviceWorker.ready.then(() => true)")
    pg.reload()
    expect(pg.locator("body")).to_have_attribute("data-ready", "1")
    assert pg.evaluate("navigator.serviceWorker.controller !== null")
    assert pg.evaluate("navigator.serviceWorker.controller.scriptURL") == server + "/sw.js"
    version = pg.evaluate("caches.keys()")
    assert any(k.startswith("kamisado-shell-") for k in version)
    banner = pg.locator("#offline-text")
    expect(banner).to_be_hidden()
    ctx.set_offline(True)
    expect(banner).to_be_visible()
    assert pg.locator("#offline-banner").get_attribute("aria-live") == "polite"
    # the page comes from the cache with no network at all: a lesson too
    pg.reload()
    expect(pg.locator("body")).to_have_attribute("data-ready", "1")
    expect(banner).to_be_visible()
    pg.goto(server + "/#/lesson/" + pg.evaluate(
        "fetch('/api/lessons?lang=en').then((r) => r.json()).then((l) => l[0].id)"))
    expect(pg.locator("#board .tower")).to_have_count(16)
    ctx.set_offline(False)
    expect(banner).to_be_hidden()
