"""Screenshots of the moderation flow (docs/web-moderation.md), for people to
look at (never compared, never tracked):

    python tools/mod_screenshots.py [--out DIR] [--chromium PATH]

Starts the real app on a throwaway SQLite database and walks the flow in
Debian's Chromium with three browser contexts, as people would: Ann and Bob
play an online game and Bob says something rude; Ann reports him from the
game and blocks him from his page; a moderator (granted by ``kamisado admin
grant``) reads the report on #/mod, mutes Bob (his next line is refused with
the server's words), closes his account (his page is signed out) and reads
the audit log.  Each step is taken at 390x844 and 1366x768 (the viewport):

    ann-player     Bob's page as Ann sees it (Block, Report)
    ann-form       the report form, opened from the game
    ann-sent       the game's chat saying the report was sent
    ann-blocked    Bob's page once Ann blocked him
    mod-report     #/mod with Ann's report, Bob's chat line and games
    bob-muted      Bob's refused chat line
    mod-done       the report once Bob is muted and his account closed
    bob-closed     Bob's page, signed out
    mod-audit      the audit log

named ``<step>-phone.png`` and ``<step>-desktop.png``.  Every shot is also
checked: the page scrolls no wider than the screen and no element of the
view sticks out of it (exit 1, naming them, otherwise).
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # tools/screenshots.py, however this is loaded

import screenshots  # noqa: E402
from playwright.sync_api import Browser, Page, expect, sync_playwright  # noqa: E402

from kamisado.cli import main as kamisado  # noqa: E402
from kamisado.web.site.live import LiveServer  # noqa: E402

#: Where the PNGs go by default (outside the repository).
OUT = Path("/tmp/kamisado-mod-shots")
SIZES = screenshots.SIZES
#: What sticks out of the screen: the page wider than it, or an element of
#: the view shown (or of an open dialog) past its right edge.
OVERFLOW = """() => {
  const w = document.documentElement.clientWidth;
  const out = [];
  if (document.documentElement.scrollWidth > w) out.push(`the page is ${document.documentElement.scrollWidth} px wide`);
  for (const e of document.querySelectorAll(".view.active *, dialog[open] *")) {
    const r = e.getBoundingClientRect();
    if (r.width > 1 && r.height > 1 && e.checkVisibility() && r.right > w + 0.5)
      out.push(`${e.tagName.toLowerCase()}${e.id ? "#" + e.id : ""}.${e.className} ends at ${Math.round(r.right)}`);
  }
  return out;
}"""


def shoot(pg: Page, out: Path, name: str, at: str | None, problems: list[str]) -> list[Path]:
    """Take ``name`` at every size, scrolled to ``at`` (a selector) or the top."""
    written = []
    for size, (w, h) in SIZES.items():
        pg.set_viewport_size({"width": w, "height": h})
        if at is None:
            pg.evaluate("window.scrollTo(0, 0)")
        else:
            pg.locator(at).first.evaluate("(e) => e.scrollIntoView({block: 'nearest'})")
        pg.wait_for_timeout(screenshots.SETTLE_MS)
        problems.extend(f"{name}-{size}: {p}" for p in pg.evaluate(OVERFLOW))
        path = out / f"{name}-{size}.png"
        pg.screenshot(path=str(path), animations="disabled", caret="hide")
        written.append(path)
    return written


def person(browser: Browser, base: str, account: str) -> Page:
    """A browser context of its own, signed up as ``account``."""
    ctx = browser.new_context(viewport={"width": SIZES["phone"][0], "height": SIZES["phone"][1]},
                              locale="en-GB", timezone_id="UTC", device_scale_factor=1,
                              service_workers="block")
    pg = ctx.new_page()
    pg.set_default_timeout(20_000)
    screenshots.goto(pg, base, "/account")
    pg.locator('#signup-form input[name="account"]').fill(account)
    pg.locator('#signup-form input[name="password"]').fill("a good password")
    pg.locator("#signup-form button").click()
    expect(pg.locator("#account-who")).to_contain_text(f"Signed in as {account}")
    return pg


def open_chat(pg: Page) -> None:
    chat = pg.locator("#chat")
    expect(chat).to_be_visible()
    if chat.get_attribute("open") is None:
        chat.locator("summary").click()


def say(pg: Page, text: str) -> None:
    pg.locator("#chat-text").fill(text)
    pg.locator("#chat-send").click()


def walk(base: str, db: Path, out: Path, chromium: str) -> tuple[list[Path], list[str]]:
    """Walk the flow; the files written and what stuck out."""
    written: list[Path] = []
    problems: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True, args=screenshots.CHROMIUM_ARGS)
        ann, bob, mod = person(browser, base, "ann"), person(browser, base, "bob"), person(browser, base, "moderator")
        bob_id = bob.evaluate("fetch('/api/me').then((r) => r.json())")["id"]
        screenshots.goto(ann, base, "/new/online")
        ann.select_option('select[name="target"]', "1")
        ann.click("#start")
        expect(ann.locator("#invite-link")).to_have_value(re.compile(r"\?t="))
        bob.goto(ann.locator("#invite-link").input_value())
        expect(bob.locator("#board")).to_have_attribute("data-you", "g")
        for pg in (ann, bob):
            open_chat(pg)
        say(bob, "you play like a potato, go away")
        expect(ann.locator("#chat-log .chat-text")).to_have_count(1)
        game_url = ann.url

        screenshots.goto(ann, base, f"/player/{bob_id}")
        expect(ann.locator("#pm-block")).to_have_text("Block")
        written += shoot(ann, out, "ann-player", None, problems)
        ann.goto(game_url)
        open_chat(ann)
        ann.locator("#chat-report").click()
        ann.locator('#complaint input[value="abuse"]').check()
        ann.locator("#complaint-text").fill("Insults in the chat after my second move.")
        written += shoot(ann, out, "ann-form", None, problems)
        ann.locator("#complaint-send").click()
        expect(ann.locator("#chat-said")).to_contain_text("Report sent")
        written += shoot(ann, out, "ann-sent", "#chat", problems)
        screenshots.goto(ann, base, f"/player/{bob_id}")
        ann.locator("#pm-block").click()
        expect(ann.locator("#pm-block")).to_have_text("Unblock")
        written += shoot(ann, out, "ann-blocked", None, problems)

        assert kamisado(["admin", "grant", "moderator", "moderator", "--db", str(db)]) == 0
        mod.reload()
        mod.locator("#mod-link").click()
        report = mod.locator(f'.mod-report[data-player="{bob_id}"]')
        expect(report.locator(".mod-chat li")).to_have_count(1)
        written += shoot(mod, out, "mod-report", None, problems)
        report.locator(".mod-hours").fill("2")
        report.locator(".mod-reason").fill("insults in the chat")
        report.locator('button[data-action="mute"]').click()
        expect(report.locator(".mod-state")).to_contain_text("muted until")
        say(bob, "one more potato")
        expect(bob.locator("#chat-said")).to_contain_text("muted you until")
        written += shoot(bob, out, "bob-muted", "#chat-said", problems)
        report.locator(".mod-reason").fill("repeated abuse")
        report.locator('button[data-action="close"]').click()
        expect(report.locator(".mod-state")).to_contain_text("account closed")
        written += shoot(mod, out, "mod-done", ".mod-report", problems)
        expect(bob.locator("#me-name")).to_have_text("Account")
        written += shoot(bob, out, "bob-closed", None, problems)
        written += shoot(mod, out, "mod-audit", "#mod-audit", problems)
        browser.close()
    return written, problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="tools/mod_screenshots.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=OUT, help=f"the folder for the PNGs (default: {OUT})")
    ap.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium",
                    help="the Chromium to drive (default: Debian's chromium)")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="kamisado-mod-shots-") as tmp:
        db = Path(tmp) / "games.sqlite3"
        server = LiveServer(db)
        base = server.start()
        try:
            written, problems = walk(base, db, args.out, args.chromium)
        finally:
            server.stop()
    for path in written:
        print(f"{path}  {path.stat().st_size:,} bytes")
    for line in problems:
        print(f"sticks out: {line}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
