"""Screenshots of the web app's main views, at a phone's size and a desktop's.

    python tools/screenshots.py [--write | --out DIR] [--port 0] [--chromium PATH]

Without ``--write`` or ``--out`` it checks (about a minute: too long for
CI, run it by hand after changing the page): it takes every view into a
temporary folder and compares each PNG with the one in docs/screenshots by
its pixels (a view is current when at most one pixel in 10,000 differs, by
more than a faint anti-aliasing shade), prints what differs and exits 1 when
one is stale, missing or no longer taken.  ``--write`` writes the PNGs to
docs/screenshots, ``--out DIR`` to another folder.  The pixels depend on the
browser and its fonts: the tracked PNGs are Debian's Chromium's.

Starts the real app (:func:`kamisado.web.site.server.create_app` under uvicorn, in a
thread) on a throwaway SQLite database, drives Debian's Chromium with
Playwright as a person would, and writes one PNG per view and size:

    home          the landing page
    new-computer  the new-game form against the computer
    game          a live hotseat Standard match (target 3), five moves in,
                  with the last move marked
    review        the review of a finished single round (Black wins in three),
                  one step before its end, with the engine's best moves
    lesson        the first lesson (figure 2 of the rules)
    games         the my-games list (the two games above)
    live          a live rated 5+3 single round between two accounts, two
                  moves in, as the player to move sees it (both clocks in view)
    rated         the same round just won: the game's end inline (the result,
                  Rematch, New game, Review, Download; ratings and their
                  changes beside the names, the game report made by itself),
                  as the winner sees it
    player        the winner's player page (ratings, the rating chart, games)
    lobby         the lobby with another player's challenge and one's own

named ``<view>-phone.png`` (390x844) and ``<view>-desktop.png`` (1366x768),
each the viewport only.  A rerun gives the same pictures: the moves are
fixed; the games list, the player page and its rating chart show fixed dates
and times; the game links show a fixed address; the engine's analysis
searches a node budget, not the clock (``KAMISADO_ANALYSIS_NODES``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))  # tools/generated.py, however this is loaded

import generated  # noqa: E402

try:
    from playwright.sync_api import Page, Route, expect, sync_playwright
except ImportError:  # pragma: no cover - run without the test extra
    sys.exit(generated.fail("screenshots.py", "needs Playwright, in the 'test' extra:"
                            " pip install -e '.[test]'"))

from kamisado.web.site.live import LiveServer
from kamisado.web.site.pages import rating_chart
from kamisado.web.work.worker import ANALYSIS_NODES_ENV

OUT = generated.ROOT / "docs" / "screenshots"
#: The engine's budget for the review's analysis (nodes, not the clock).
ANALYSIS_NODES = 100_000
#: What the game links show instead of the server's port and the game's id.
FIXED_LINK = "http://127.0.0.1:8000/game/Kq3xZ7mP"
#: A view is current when at most this share of its pixels differ ...
ALLOWED = 0.0001
#: ... by more than this in some channel (anti-aliasing's faint shades).
THRESHOLD = 24

#: The sizes every view is taken at.
SIZES = {"phone": (390, 844), "desktop": (1366, 768)}
#: A single round that Black wins in three moves (the brown tower reaches e8).
QUICK_WIN = [("a1", "a4"), ("e8", "e5"), ("a4", "e8")]
#: Five moves of a Standard match; the round goes on.
OPENING = [("d1", "d5"), ("a8", "a6"), ("b1", "b7"), ("a6", "b5"), ("f1", "f4")]
#: The date and time the games list shows (2026-01-15 14:30 UTC).
FIXED_TIME = 1768487400.0
#: The same arguments as the browser tests give Chromium.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
#: Longer than the towers' slide (0.35 s) and the page's own settling.
SETTLE_MS = 600
_DIGITS = re.compile(r"\d")


def goto(pg: Page, base: str, route: str) -> None:
    """Open a route of the page (a hash change once the page is loaded)."""
    pg.goto(f"{base}/#{route}")
    expect(pg.locator("body")).to_have_attribute("data-ready", "1")


def seq(pg: Page) -> int:
    """The number of actions in the game the page shows."""
    board = pg.locator("#board")
    expect(board).to_have_attribute("data-seq", _DIGITS)
    return int(board.get_attribute("data-seq") or 0)


def move(pg: Page, frm: str, to: str, seen: int | None = None) -> None:
    """Click a tower, then its destination; wait for the server's answer.

    ``seen``: the actions the game holds before this move, waited for on this
    page first (in a game of two pages the other's last move may not have
    reached this one yet: counted from a stale board, the answer is missed)."""
    if seen is not None:
        expect(pg.locator("#board")).to_have_attribute("data-seq", str(seen))
    n = seq(pg)
    pg.locator(f'#board .square[data-square="{frm}"]').click()
    expect(pg.locator(f'#board .dest[data-dest="{to}"]')).to_have_count(1)
    pg.locator(f'#board .square[data-square="{to}"]').click()
    expect(pg.locator("#board")).to_have_attribute("data-seq", str(n + 1))


def new_game(pg: Page, base: str, mode: str, target: str) -> str:
    """Start a game from the new-game form; return its id."""
    goto(pg, base, f"/new/{mode}")
    expect(pg.locator(f'input[name="mode"][value="{mode}"]')).to_be_checked()
    pg.select_option('select[name="target"]', target)
    pg.click("#start")
    expect(pg.locator("#view-play")).to_be_visible()
    pg.wait_for_url("**/#/game/*")
    seq(pg)
    return pg.url.rsplit("/", 1)[1].split("?")[0]


def fixed_times(route: Route) -> None:
    """The games list with every game's date and time set to :data:`FIXED_TIME`."""
    if route.request.method != "GET":
        route.fallback()
        return
    response = route.fetch()
    rows = response.json()
    for i, row in enumerate(rows):
        row["created"] = FIXED_TIME + 60 * i
        row["updated"] = FIXED_TIME + 60 * i
    route.fulfill(response=response, body=json.dumps(rows))


def fixed_player_times(route: Route) -> None:
    """A player page with its games' dates set to :data:`FIXED_TIME`."""
    if route.request.method != "GET" or "/rating.svg" in route.request.url:
        route.fallback()
        return
    response = route.fetch()
    body = response.json()
    for i, row in enumerate(body.get("games") or []):
        row["created"] = row["updated"] = FIXED_TIME + 60 * i
    route.fulfill(response=response, body=json.dumps(body))


def fixed_rating_chart(history: list[dict[str, Any]], name: str) -> Callable[[Route], None]:
    """The player page's rating chart of player ``name`` drawn from ``history``
    (the player's points, from ``/api/players/ID``) at fixed times,
    :data:`FIXED_TIME` on, as the server draws it (the width and language asked)."""

    def fulfil(route: Route) -> None:
        query = parse_qs(urlsplit(route.request.url).query)
        speed = query.get("speed", ["realtime"])[0]
        points = [{**h, "at": FIXED_TIME + 3600 * i}
                  for i, h in enumerate(x for x in history if x["speed"] == speed)]
        body = rating_chart(points, name, speed, int(query.get("width", ["640"])[0]),
                            query.get("lang", ["en"])[0])
        route.fulfill(status=200, body=body, content_type="image/svg+xml")

    return fulfil


#: Every read-only field that shows a link to a game: a fixed address.
FIX_LINKS = f"""() => {{
  for (const el of document.querySelectorAll("input[readonly]"))
    if (el.value.startsWith(location.origin + "/game/"))
      el.value = {json.dumps(FIXED_LINK)} + (el.value.includes("?t=") ? "?t=Yw5nR2cV" : "");
}}"""


#: Parts of a view that show real time (the rated game's clocks, a second
#: more or less each run): the check leaves them out.
VOLATILE = {"live": ".seat .clock", "rated": ".seat .clock"}


def shoot(pg: Page, out: Path, name: str, written: list[Path],
          ignored: dict[str, list[generated.Box]]) -> None:
    """Take the view at every size: ``<name>-<size>.png`` (the viewport only);
    the boxes of its :data:`VOLATILE` parts go to ``ignored`` (by file name)."""
    for size, (w, h) in SIZES.items():
        pg.set_viewport_size({"width": w, "height": h})
        pg.evaluate("window.scrollTo(0, 0)")
        pg.wait_for_timeout(SETTLE_MS)
        pg.evaluate(FIX_LINKS)
        path = out / f"{name}-{size}.png"
        pg.screenshot(path=str(path), animations="disabled", caret="hide")
        written.append(path)
        if name in VOLATILE:
            for part in pg.locator(VOLATILE[name]).all():
                box = part.bounding_box()
                if box is not None:
                    ignored.setdefault(path.name, []).append(
                        (int(box["x"]), int(box["y"]), int(box["x"] + box["width"]) + 1,
                         int(box["y"] + box["height"]) + 1))


def take(base: str, out: Path, chromium: str, ignored: dict[str, list[generated.Box]]) -> list[Path]:
    """Play the games and take every view; return the files written (the
    boxes the check leaves out go to ``ignored``)."""
    written: list[Path] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
        context = browser.new_context(
            viewport={"width": SIZES["phone"][0], "height": SIZES["phone"][1]},
            locale="en-GB", timezone_id="UTC", device_scale_factor=1,
            # the page's service worker would answer from its cache, past the routes
            # that fix the dates (Playwright's routes do not see what a worker answers)
            service_workers="block",
        )
        pg = context.new_page()
        pg.set_default_timeout(15_000)
        errors: list[str] = []
        pg.on("pageerror", lambda e: errors.append(str(e)))
        pg.route("**/api/games", fixed_times)

        goto(pg, base, "/")
        expect(pg.locator("#view-home")).to_be_visible()
        shoot(pg, out, "home", written, ignored)

        goto(pg, base, "/new/computer")
        expect(pg.locator('input[name="mode"][value="computer"]')).to_be_checked()
        shoot(pg, out, "new-computer", written, ignored)

        # a finished single round, for the review
        done = new_game(pg, base, "hotseat", "1")
        for frm, to in QUICK_WIN:
            move(pg, frm, to)
        expect(pg.locator("#result")).to_be_visible()  # inline: nothing to close

        # a Standard match in progress
        new_game(pg, base, "hotseat", "3")
        for frm, to in OPENING:
            move(pg, frm, to)
        expect(pg.locator("#board .last-to")).not_to_have_count(0)
        shoot(pg, out, "game", written, ignored)

        goto(pg, base, f"/review/{done}")
        expect(pg.locator("#rv-where")).not_to_be_empty()
        # one step back: Black to move and win, with the engine's best moves
        pg.click("#rv-prev")
        expect(pg.locator("#rv-lines li")).not_to_have_count(0, timeout=60_000)
        expect(pg.locator("#analysis")).not_to_contain_text("…")
        # the evaluation graph (the server analyses every position first: slow on a
        # loaded machine), its point of the step shown marked
        expect(pg.locator("#rv-graph svg")).to_be_visible(timeout=120_000)
        expect(pg.locator("#rv-graph [data-ply].current")).to_have_count(1)
        shoot(pg, out, "review", written, ignored)

        goto(pg, base, "/lesson/fig2")
        expect(pg.locator("#lesson-text")).not_to_be_empty()
        shoot(pg, out, "lesson", written, ignored)

        goto(pg, base, "/games")
        expect(pg.locator("#games-list .game-card")).to_have_count(2)
        shoot(pg, out, "games", written, ignored)

        # a rated game between two accounts: the winner's view, then its player page
        other = browser.new_context(viewport={"width": 1280, "height": 800}, locale="en-GB", timezone_id="UTC",
                                    service_workers="block")
        opp = other.new_page()
        opp.set_default_timeout(15_000)
        opp.on("pageerror", lambda e: errors.append(str(e)))
        for who, account in ((pg, "ann"), (opp, "bob")):
            goto(who, base, "/account")
            res = who.request.post(base + "/api/signup", data={"account": account, "password": "a good password"})
            if not res.ok:
                raise RuntimeError(f"sign up: {res.text()}")
            who.reload()  # the page asks who it is again
            expect(who.locator("body")).to_have_attribute("data-ready", "1")
        res = pg.request.post(base + "/api/games", data={
            "target": 1, "series": False, "black": "human", "gold": "human", "online": True, "seat": "b",
            "rated": True, "clock": {"initial": 300, "increment": 3}})
        if not res.ok:
            raise RuntimeError(f"a rated game: {res.text()}")
        made = res.json()
        goto(pg, base, f"/game/{made['id']}")
        goto(opp, base, f"/game/{made['id']}?t={made['tokens']['g']}")
        expect(opp.locator("#board")).to_have_attribute("data-you", "g")
        for i, (frm, to) in enumerate(QUICK_WIN[:2]):
            move(pg if i % 2 == 0 else opp, frm, to, seen=i)
        # the live timed game as the player to move sees it: both clocks, the board
        expect(pg.locator("#status")).to_contain_text("Your move")
        shoot(pg, out, "live", written, ignored)
        move(pg, *QUICK_WIN[2], seen=2)
        expect(pg.locator("#result")).to_be_visible()
        expect(pg.locator(".seat .rating-change")).to_have_count(2)
        # a rated game's report is made by itself once the game is over: shot when it is done
        expect(pg.locator("#result-report .report-table")).to_be_visible(timeout=60_000)
        shoot(pg, out, "rated", written, ignored)

        pg.route("**/api/players/*", fixed_player_times)
        me = pg.request.get(base + "/api/me").json()
        history = pg.request.get(f"{base}/api/players/{me['id']}").json()["history"]
        pg.route("**/api/players/*/rating.svg*", fixed_rating_chart(history, me["name"]))
        goto(pg, base, f"/player/{me['id']}")
        expect(pg.locator("#player-charts img")).to_have_count(1)
        pg.wait_for_function("() => [...document.images].every((i) => i.complete)")
        shoot(pg, out, "player", written, ignored)

        # the lobby: bob's challenge and ann's own
        goto(opp, base, "/lobby")
        expect(opp.locator("#challenge-post")).to_be_enabled()
        opp.select_option('#challenge-form select[name="clock"]', "300+3")
        opp.locator('#challenge-form input[name="rated"]').check()
        opp.click("#challenge-post")
        goto(pg, base, "/lobby")
        expect(pg.locator("#challenge-post")).to_be_enabled()
        pg.select_option('#challenge-form select[name="target"]', "7")
        pg.select_option('#challenge-form select[name="clock"]', "d2")
        pg.click("#challenge-post")
        expect(pg.locator("#challenges .challenge")).to_have_count(2)
        shoot(pg, out, "lobby", written, ignored)
        other.close()

        context.close()
        browser.close()
    if errors:
        raise RuntimeError("JavaScript errors on the page: " + "; ".join(errors))
    return written


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="tools/screenshots.py",
                                 description=__doc__.split("\n\n")[0])
    mode = generated.add_options(ap, "the PNGs to docs/screenshots")
    mode.add_argument("--out", type=Path, metavar="DIR", help="write the PNGs to this folder instead")
    ap.add_argument("--port", type=int, default=0, help="the server's port (default: any free one)")
    ap.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium",
                    help="the Chromium to drive (default: Debian's chromium)")
    args = ap.parse_args(argv)
    os.environ[ANALYSIS_NODES_ENV] = str(ANALYSIS_NODES)  # the server's engine processes too
    with tempfile.TemporaryDirectory(prefix="kamisado-shots-") as tmp:
        shots = Path(tmp) / "shots"
        shots.mkdir()
        server = LiveServer(Path(tmp) / "games.sqlite3", args.port)
        base = server.start()
        try:
            ignored: dict[str, list[generated.Box]] = {}
            written = take(base, shots, args.chromium, ignored)
        finally:
            server.stop()
        if args.out is not None:
            args.out.mkdir(parents=True, exist_ok=True)
            for path in written:
                shutil.copyfile(path, args.out / path.name)
                print(f"{args.out / path.name}  {path.stat().st_size:,} bytes")
            return 0
        made = {OUT / path.name: path.read_bytes() for path in written}
    retired = sorted(set(OUT.glob("*.png")) - set(made))
    return generated.settle(made, write=args.write, script="screenshots.py",
                            same=generated.same_pictures(THRESHOLD, ALLOWED, ignored),
                            retired=retired)


if __name__ == "__main__":
    sys.exit(main())
