"""The browser tests fail on what a page logs to the console, not only on
uncaught errors (tests/conftest.py ``console_clean``): every view of
tests/test_web_layout.py, at every size, is thereby checked for console
errors and warnings.  Here: the check sees what a page logs, and the form
that logged an error before (the sign-up name's pattern, invalid under the
``v`` flag) now checks the name in the page."""

from __future__ import annotations

from playwright.sync_api import Browser

from tests import browser_kit
from tests.browser_kit import page

server = browser_kit.server
browser = browser_kit.browser


def test_a_console_warning_or_error_is_seen(browser: Browser, server: str) -> None:
    pg = page(browser, server + "/")
    assert pg.console == []  # type: ignore[attr-defined]  # the landing page logs nothing
    pg.evaluate("() => { console.warn('careful'); console.error('broken'); console.log('fine'); }")
    lines: list[str] = pg.console  # type: ignore[attr-defined]
    for _ in range(200):  # the events come a moment after the call (no time budget: a count)
        if len(lines) >= 2:
            break
        pg.wait_for_timeout(25)
    assert [line.split(" (")[0] for line in lines] == ["warning: careful", "error: broken"]
    browser_kit.OPENED.remove(pg)  # logged on purpose: not this test's failure
    pg.context.close()


def test_the_sign_up_form_checks_the_account_name_in_the_page(browser: Browser, server: str) -> None:
    pg = page(browser, server + "/#/account")
    name = pg.locator('#signup-form input[name="account"]')
    name.fill("bad name!")
    assert name.evaluate("e => e.validity.patternMismatch") is True
    name.fill("good_name-2")
    assert name.evaluate("e => e.validity.patternMismatch") is False
    assert pg.console == [] and pg.errors == []  # type: ignore[attr-defined]
    pg.context.close()
