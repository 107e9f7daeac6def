"""The tournament page, #/tournament/<id>, in Chromium at 390x844 and
1366x768: an Arena of four played over a real server (its players on the
HTTP API and websockets), seen mid-event by one of its players (the
clock to the end, Pause, their own game, the standings) and once
finished (the podium, the flame of a streak), then a Swiss of the same
four over two rounds, finished.  With ``KAMISADO_SHOTS=1`` the standings
are shot to /tmp/kamisado-tournaments/ (or the folder it names)."""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests import browser_kit
from tests.browser_kit import LiveServer, open_page
from tests.test_web_tournaments_processes import Player, call, loser_of, maker, wait_for

browser = browser_kit.browser


@pytest.fixture
def live(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    db = tmp_path / "games.sqlite3"
    server = LiveServer(db, workers=0)
    url = server.start()
    try:
        yield url, db
    finally:
        server.stop()


def view(browser: Browser, url: str, cookie: str, tid: str, size: tuple[int, int]) -> Page:
    ctx = browser.new_context(viewport={"width": size[0], "height": size[1]})
    ctx.set_default_timeout(20_000)
    name, _, value = cookie.partition("=")
    ctx.add_cookies([{"name": name, "value": value, "url": url}])
    pg = open_page(ctx, f"{url}/#/tournament/{tid}")
    expect(pg.locator("#tn-body")).to_be_visible()
    return pg


def fits(pg: Page) -> None:
    """Nothing wider than the screen: no sideways scrolling."""
    assert pg.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def shoot(pg: Page, name: str) -> None:
    folder = os.environ.get("KAMISADO_SHOTS")
    if folder == "1":
        folder = "/tmp/kamisado-tournaments"
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        pg.screenshot(path=str(Path(folder) / name), full_page=True)


def test_the_tournament_page_mid_event_and_finished(browser: Browser, live: tuple[str, Path]) -> None:
    url, db = live
    addr = url.removeprefix("http://")
    names = ("Ann", "Bob", "Cleo", "Maximilian Featherstonehaugh-Smythe")  # the longest name fits
    seats = [Player(addr, name) for name in names]
    players = {p.id: p for p in seats}
    ace = players[min(players)]  # the loser of each game is the greater id: this one wins them all
    status, ev, _ = call(addr, "/api/tournaments", maker(addr), {
        "kind": "arena", "name": "Evening Arena", "clock": {"initial": 180, "increment": 2}, "minutes": 30,
        "starts_in": 0, "rated": False})
    assert status == 201
    tid = ev["id"]
    for p in seats:
        assert call(addr, f"/api/tournaments/{tid}/join", p.cookie, {})[0] == 200
    for n in (2, 4):
        for p in seats:
            p.started()
        got = wait_for(addr, tid, lambda e, n=n: len(e["games"]) == n)
        for g in [g for g in got["games"] if g["running"]]:
            loser_of(g, players).resign(g["id"])
    for p in seats:
        p.started()
    mid = wait_for(addr, tid, lambda e: len(e["games"]) == 6)
    pg = view(browser, url, ace.cookie, tid, (390, 844))
    expect(pg.locator("#tn-name")).to_have_text("Evening Arena")
    expect(pg.locator("#tn-when")).to_contain_text("Ends in")
    expect(pg.locator("#tn-leave")).to_have_text("Pause")
    own = next(g["id"] for g in mid["games"] if g["running"] and ace.id in (g["black"]["player"], g["gold"]["player"]))
    expect(pg.locator("#tn-mine a")).to_have_attribute("href", f"#/game/{own}")
    expect(pg.locator("#tn-standings tr")).to_have_count(4)
    expect(pg.locator("#tn-standings tr").first).to_have_attribute("data-player", ace.id)
    expect(pg.locator("#tn-standings tr").first.locator(".score")).to_have_text("4")
    expect(pg.locator("#tn-games li")).to_have_count(2)
    fits(pg)
    shoot(pg, "tournament-running-390x844.png")
    # the Arena's minutes run out; the games running end and count
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE tournaments SET ends = ? WHERE id = ?", (int(time.time() * 1000), tid))
    for g in [g for g in mid["games"] if g["running"]]:
        loser_of(g, players).resign(g["id"])
    final = wait_for(addr, tid, lambda e: e["status"] == "finished")
    assert final["standings"][0]["player"] == ace.id and final["standings"][0]["score"] == 8
    expect(pg.locator("#tn-when")).to_have_text("Finished", timeout=10_000)  # the page read it again
    for size in ((390, 844), (1366, 768)):
        big = view(browser, url, ace.cookie, tid, size)
        expect(big.locator("#tn-podium li")).to_have_count(3)
        expect(big.locator("#tn-podium li").first).to_contain_text(names[seats.index(ace)])
        expect(big.locator("#tn-standings tr").first.locator(".fire")).to_have_count(1)
        expect(big.locator("#tn-join")).to_be_hidden()
        expect(big.locator("#tn-leave")).to_be_hidden()
        expect(big.locator("#tn-games li")).to_have_count(0)
        expect(big.locator("#tn-no-games")).to_be_hidden()  # over: no "games running" section
        fits(big)
        shoot(big, f"tournament-finished-{size[0]}x{size[1]}.png")
        assert not big.errors, big.errors  # type: ignore[attr-defined]
        big.context.close()
    # a Swiss of the same four over two rounds, finished
    status, sw, _ = call(addr, "/api/tournaments", maker(addr), {
        "kind": "swiss", "name": "Saturday Swiss", "clock": {"initial": 300, "increment": 3}, "rounds": 2,
        "starts_in": 600, "rated": False})
    assert status == 201
    for p in seats:
        assert call(addr, f"/api/tournaments/{sw['id']}/join", p.cookie, {})[0] == 200
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE tournaments SET starts = ? WHERE id = ?", (int(time.time() * 1000), sw["id"]))
    for rnd in (1, 2):
        for p in seats:
            p.started()
        got = wait_for(addr, sw["id"], lambda e, rnd=rnd: e["round"] == rnd and len(e["games"]) == 2 * rnd)
        for g in [g for g in got["games"] if g["running"]]:
            loser_of(g, players).resign(g["id"])
    swiss = wait_for(addr, sw["id"], lambda e: e["status"] == "finished")
    assert swiss["standings"][0]["player"] == ace.id and swiss["standings"][0]["score"] == 2
    for size in ((390, 844), (1366, 768)):
        big = view(browser, url, ace.cookie, sw["id"], size)
        expect(big.locator("#tn-when")).to_have_text("Finished")
        expect(big.locator("#tn-standings tr")).to_have_count(4)
        expect(big.locator("#tn-standings tr").first.locator(".score")).to_have_text("2")
        expect(big.locator("#tn-standings .fire")).to_have_count(0)  # two wins in a row: a Swiss has no flame
        expect(big.locator("#tn-podium li").first).to_contain_text(names[seats.index(ace)])
        fits(big)
        shoot(big, f"swiss-finished-{size[0]}x{size[1]}.png")
        assert not big.errors, big.errors  # type: ignore[attr-defined]
        big.context.close()
    # the player's page lists the events; the lobby and the home page the next one
    soon = call(addr, "/api/tournaments", maker(addr), {
        "kind": "swiss", "name": "Sunday Swiss", "clock": {"initial": 600, "increment": 5}, "rounds": 3,
        "starts_in": 3600, "rated": False})[1]
    pg.goto(f"{url}/#/player/{ace.id}")
    expect(pg.locator("#player-tournaments li")).to_have_text(["Saturday Swiss 2 points in 2 games",
                                                              "Evening Arena 8 points in 3 games"])
    pg.goto(f"{url}/#/lobby")
    expect(pg.locator("#lobby-tournaments li")).to_have_count(1)
    expect(pg.locator("#lobby-tournaments a")).to_have_attribute("href", f"#/tournament/{soon['id']}")
    expect(pg.locator("#lobby-tournaments li")).to_contain_text("Swiss · 10+5 · Starts in")
    fits(pg)
    pg.goto(f"{url}/#/")
    expect(pg.locator("#home-tournament")).to_contain_text("Next tournament: Sunday Swiss")
    shoot(pg, "home-next-tournament-390x844.png")
    pg.locator("#home-tournament a").click()
    expect(pg.locator("#tn-name")).to_have_text("Sunday Swiss")
    expect(pg.locator("#tn-when")).to_contain_text("Starts in")
    expect(pg.locator("#tn-join")).to_have_text("Join")
    pg.locator("#tn-join").click()
    expect(pg.locator("#tn-leave")).to_have_text("Withdraw")
    expect(pg.locator("#tn-standings tr")).to_have_count(1)
    assert not pg.errors, pg.errors  # type: ignore[attr-defined]
    pg.context.close()
    for p in seats:
        p.ws.close()

