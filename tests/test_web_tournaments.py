"""Tournaments on the site (docs/web-tournaments.md): the API's checks, an
Arena and a Swiss of four played to the end over a real server (Starlette's
test client, its websockets, its SQLite database), the pairing time
injected; across processes on PostgreSQL: tests/test_web_tournaments_processes.py."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from kamisado.web.community.arena import win_points
from kamisado.web.community.schedule import HOURLY, parse_schedule
from kamisado.web.site.server import create_app
from kamisado.web.store.schema import ratings
from tests.test_web_controls import (
    browser,
    close_all,
    connect,
    me,
    open_ws,
    sign_up,
    state,
    until,
)

START = 1_900_000_000_000


class Clock:
    """The tournaments' clock (ms), moved by hand, and a millisecond at each
    reading (so two passes never share a time: a player's games are told
    apart by when they started)."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> int:
        self.now += 1
        return self.now


@pytest.fixture
def site(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(str(tmp_path / "games.db"), workers=0, limits={})) as c:
        c.get("/")
        try:
            yield c
        finally:
            close_all()


@dataclass
class Seat:
    """A player of the tests: its browser, its id and its open page's websocket."""

    c: TestClient
    id: str
    ws: Any


def events(c: TestClient) -> Any:
    return c.app.state.lobby.tournaments  # type: ignore[attr-defined]


def people(c: TestClient, n: int, page: bool = True) -> list[Seat]:
    """``n`` players with accounts (the first is ``c``'s), each with a page open."""
    out = []
    for i in range(n):
        b = c if i == 0 else browser(c)
        sign_up(b, f"player{i}x{n}")
        out.append(Seat(b, me(b), connect(b) if page else None))
    return out


def make(c: TestClient, status: int = 201, **body: Any) -> dict[str, Any]:
    r = c.post("/api/tournaments", json=body)
    assert r.status_code == status, r.text
    got: dict[str, Any] = r.json()
    return got


def event(c: TestClient, tid: str) -> dict[str, Any]:
    r = c.get(f"/api/tournaments/{tid}")
    assert r.status_code == 200, r.text
    got: dict[str, Any] = r.json()
    return got


def started(seat: Seat) -> str:
    game: str = until(seat.ws, lambda m: m["type"] == "started")["game"]
    return game


def resign(loser: Seat, game: str) -> None:
    """The loser resigns ``game`` on the game's websocket."""
    ws = open_ws(loser.c, game)
    assert state(ws)["state"] != "over"
    ws.send_json({"type": "resign"})
    assert until(ws, lambda m: m["type"] == "state" and m["state"] == "over")
    ws.close()


def passes(c: TestClient) -> int:
    made: int = c.portal.call(events(c).pass_now)  # type: ignore[union-attr]
    return made


def running(c: TestClient, tid: str) -> list[dict[str, Any]]:
    return [g for g in event(c, tid)["games"] if g["running"]]


ARENA = {"kind": "arena", "name": "Test Arena", "clock": {"initial": 180, "increment": 2}, "minutes": 5,
         "starts_in": 0}


# -- the API's checks --------------------------------------------------------------------


@pytest.mark.parametrize(("body", "words"), [
    ({**ARENA, "kind": "blitz"}, "kind: expected 'arena' or 'swiss'"),
    ({**ARENA, "clock": {"initial": 5, "increment": 0}}, "clock: expected an initial time"),
    ({**ARENA, "clock": {"initial": 180, "increment": 900}}, "clock:"),
    ({**ARENA, "clock": {"days": 40}}, "clock:"),
    ({**ARENA, "clock": None}, "clock: an event needs a clock"),
    ({**ARENA, "minutes": 0}, "minutes: expected a whole number from 5 to 720"),
    ({**ARENA, "minutes": "ten"}, "minutes: expected a whole number"),
    ({k: v for k, v in ARENA.items() if k != "minutes"}, "minutes:"),
    ({**ARENA, "rounds": 3}, "rounds: not for an arena"),
    ({**ARENA, "kind": "swiss", "rounds": 0}, "minutes: not for a swiss"),
    ({**{k: v for k, v in ARENA.items() if k != "minutes"}, "kind": "swiss", "rounds": 99},
     "rounds: expected a whole number from 1 to 20"),
    ({**ARENA, "target": 2}, "target: expected one of 1, 3, 7, 15"),
    ({**ARENA, "name": ""}, "name:"),
    ({**ARENA, "starts_in": -5}, "starts_in:"),
    ({**ARENA, "rated": "yes"}, "rated: expected true or false"),
    ({**ARENA, "prize": 100}, "unknown fields: prize"),
])
def test_a_bad_event_is_a_clear_400_and_makes_nothing(site: TestClient, body: dict[str, Any], words: str) -> None:
    sign_up(site, "maker")
    r = site.post("/api/tournaments", json=body)
    assert r.status_code == 400, r.text
    assert words in r.json()["error"]
    assert site.get("/api/tournaments").json() == []


def test_making_needs_an_account_and_a_rated_event_needs_one_to_join(site: TestClient) -> None:
    r = site.post("/api/tournaments", json=ARENA)
    assert r.status_code == 403 and r.json()["code"] == "account_needed"
    maker = browser(site)
    sign_up(maker, "maker")
    rated = make(maker, **{**ARENA, "starts_in": 600})
    casual = make(maker, **{**ARENA, "starts_in": 600, "rated": False, "name": "Casual"})
    r = site.post(f"/api/tournaments/{rated['id']}/join")
    assert r.status_code == 403 and r.json()["code"] == "account_needed"
    assert site.post(f"/api/tournaments/{casual['id']}/join").status_code == 200
    assert [s["player"] for s in event(site, casual["id"])["standings"]] == [me(site)]
    assert event(site, rated["id"])["standings"] == []
    assert site.get("/api/tournaments/nope").status_code == 404
    assert site.post(f"/api/tournaments/{rated['id']}/withdraw").json()["code"] == "not_joined"
    listed = site.get("/api/tournaments").json()
    assert [(e["name"], e["status"], e["players"]) for e in listed] == [
        ("Test Arena", "created", 0), ("Casual", "created", 1)]
    for n in range(3):
        make(maker, **{**ARENA, "starts_in": 700 + n, "name": f"More {n}"})
    r = maker.post("/api/tournaments", json={**ARENA, "starts_in": 900})
    assert r.status_code == 409 and r.json()["code"] == "too_many_tournaments"
    assert len(site.get("/api/tournaments").json()) == 5


# -- an Arena -----------------------------------------------------------------------------


def arena_scores(games: list[dict[str, Any]]) -> dict[str, int]:
    """The scores the Arena's rules give, from the games (oldest first)."""
    score: dict[str, int] = {}
    streak: dict[str, int] = {}
    for g in games:
        if g["running"]:
            continue
        won = g[{"b": "black", "g": "gold"}[g["winner"]]]["player"]
        lost = g["gold" if g["winner"] == "b" else "black"]["player"]
        score[won] = score.get(won, 0) + win_points(streak.get(won, 0))
        streak[won] = streak.get(won, 0) + 1
        streak[lost] = 0
    return score


def test_an_arena_of_four_played_to_the_end(site: TestClient) -> None:
    clock = Clock()
    events(site).clock = clock
    seats = people(site, 4)
    by_id = {s.id: s for s in seats}
    ace = seats[0]  # wins every game
    tid = make(site, **ARENA)["id"]
    for s in seats:
        assert s.c.post(f"/api/tournaments/{tid}/join").status_code == 200
    passes(site)

    def current() -> dict[str, tuple[str, str]]:
        """Each player's running game: (game, opponent)."""
        out = {}
        for g in running(site, tid):
            b, w = g["black"]["player"], g["gold"]["player"]
            out[b], out[w] = (g["id"], w), (g["id"], b)
        return out

    def loser(game: str) -> Seat:
        g = next(x for x in event(site, tid)["games"] if x["id"] == game)
        b, w = g["black"]["player"], g["gold"]["player"]
        if ace.id in (b, w):
            return by_id[w if b == ace.id else b]
        return by_id[max(b, w)]

    # round 1: every player was told of their game on their open page
    now = current()
    assert sorted(now) == sorted(by_id)
    assert {s.id: started(s) for s in seats} == {p: g for p, (g, _) in now.items()}
    first_game, first_opp = now[ace.id]
    resign(loser(first_game), first_game)
    assert passes(site) == 0  # the two free players just met: no immediate rematch
    assert ace.id not in current()
    other = next(g for p, (g, _) in now.items() if g != first_game)
    resign(loser(other), other)  # the hook pairs at once: everyone is told
    round2 = {s.id: started(s) for s in seats}
    now = current()
    assert {p: g for p, (g, _) in now.items()} == round2
    assert now[ace.id][1] != first_opp
    for game in sorted({g for g, _ in now.values()}, key=lambda g: g != now[ace.id][0]):
        resign(loser(game), game)
    for s in seats:
        started(s)
    now = current()
    assert sorted(now) == sorted(by_id)
    # the Arena's minutes are over: the games running still count, none starts
    clock.now = START + 5 * 60_000 + 1
    last = sorted({g for g, _ in now.values()}, key=lambda g: g == now[ace.id][0])
    resign(loser(last[0]), last[0])
    passes(site)
    assert event(site, tid)["status"] == "started" and len(running(site, tid)) == 1
    resign(loser(last[1]), last[1])
    passes(site)
    final = event(site, tid)
    assert final["status"] == "finished" and len(final["games"]) == 6
    table = {s["player"]: s for s in final["standings"]}
    assert {p: s["score"] for p, s in table.items() if s["score"]} == arena_scores(final["games"])
    assert table[ace.id]["score"] == 2 + 2 + 4 and table[ace.id]["fire"] and table[ace.id]["streak"] == 3
    assert final["podium"][0] == ace.id and final["standings"][0]["rank"] == 1
    assert all(s["games"] == 3 for s in final["standings"])
    for p in by_id:  # never the same opponent twice in a row
        opps = [g["gold" if g["black"]["player"] == p else "black"]["player"] for g in final["games"]
                if p in (g["black"]["player"], g["gold"]["player"])]
        assert all(a != b for a, b in zip(opps, opps[1:], strict=False)), opps
    with site.app.state.hub.store.engine.begin() as conn:  # type: ignore[attr-defined]
        rated = {r.player: r.rating for r in conn.execute(ratings.select())}
    assert set(rated) == set(by_id) and rated[ace.id] > 1500  # rated games moved the ratings


# -- a Swiss -------------------------------------------------------------------------------


def test_a_swiss_of_four_over_two_rounds(site: TestClient) -> None:
    clock = Clock()
    events(site).clock = clock
    seats = people(site, 4)
    absent = browser(site)
    sign_up(absent, "absent")
    by_id = {s.id: s for s in seats}
    body = {**{k: v for k, v in ARENA.items() if k != "minutes"}, "kind": "swiss", "rounds": 2, "starts_in": 60,
            "name": "Test Swiss"}
    tid = make(site, **body)["id"]
    for s in seats:
        assert s.c.post(f"/api/tournaments/{tid}/join").status_code == 200
    assert absent.post(f"/api/tournaments/{tid}/join").status_code == 200  # no page open
    assert passes(site) == 0 and event(site, tid)["status"] == "created"  # not yet
    clock.now = START + 120_000  # past the start
    passes(site)  # (or the server's own loop, a moment before)
    r1 = event(site, tid)
    assert len(r1["games"]) == 2
    assert r1["status"] == "started" and r1["round"] == 1
    games1 = {s.id: started(s) for s in seats}
    assert len(set(games1.values())) == 2

    def winner_loser(g: dict[str, Any]) -> tuple[str, str]:
        b, w = g["black"]["player"], g["gold"]["player"]
        return (min(b, w), max(b, w))

    first, second = r1["games"]
    resign(by_id[winner_loser(first)[1]], first["id"])
    assert passes(site) == 0  # a game of the round still runs
    assert event(site, tid)["round"] == 1
    resign(by_id[winner_loser(second)[1]], second["id"])
    games2 = {s.id: started(s) for s in seats}
    r2 = event(site, tid)
    assert r2["round"] == 2 and len(r2["games"]) == 4
    assert set(games2.values()).isdisjoint(games1.values())
    met1 = {frozenset((g["black"]["player"], g["gold"]["player"])) for g in r2["games"] if g["round"] == 1}
    met2 = {frozenset((g["black"]["player"], g["gold"]["player"])) for g in r2["games"] if g["round"] == 2}
    assert not met1 & met2  # no pair twice
    black1 = {g["black"]["player"] for g in r2["games"] if g["round"] == 1}
    for g in r2["games"]:
        if g["round"] == 2:  # winners meet winners; one who had Gold gets Black where it can
            b, w = g["black"]["player"], g["gold"]["player"]
            assert not (b in black1 and w not in black1)
    for g in [g for g in r2["games"] if g["round"] == 2]:
        resign(by_id[winner_loser(g)[1]], g["id"])
    passes(site)
    final = event(site, tid)
    assert final["status"] == "finished" and final["round"] == 2 and len(final["games"]) == 4
    wins: dict[str, int] = {}
    for g in final["games"]:
        won = g["black" if g["winner"] == "b" else "gold"]["player"]
        wins[won] = wins.get(won, 0) + 1
    table = {s["player"]: s for s in final["standings"]}
    assert {p: s["score"] for p, s in table.items() if s["score"]} == wins
    assert table[me(absent)]["games"] == 0 and table[me(absent)]["byes"] == 0  # absent: no game, no bye
    assert final["podium"][0] == min(by_id)
    took_part = site.get("/api/tournaments", params={"player": me(absent)}).json()
    assert [(e["id"], e["score"], e["games"]) for e in took_part] == [(tid, 0, 0)]


def test_the_schedule_makes_each_recurring_event_once(tmp_path: Path) -> None:
    with TestClient(create_app(str(tmp_path / "games.db"), workers=0, tournaments=HOURLY)) as site:
        deadline = time.monotonic() + 20  # made by the server's own loop, at its start
        while "Hourly 3+2 Arena" not in {e["name"] for e in site.get("/api/tournaments").json()}:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        tours = events(site)
        half_past_five = 20_000 * 86_400_000 + 17 * 3_600_000 + 30 * 60_000  # 17:30 UTC, a day in 2024
        tours.clock = lambda: half_past_five
        tours._scheduled_at = None
        # 18:00: the hourly Arena and the daily Swiss (made by this call, or by the loop's meanwhile)
        assert site.portal.call(tours.make_due) in (0, 1, 2)
        tours._scheduled_at = None  # another process, or the next minute: nothing twice
        assert site.portal.call(tours.make_due) == 0
        made = [e for e in site.get("/api/tournaments").json() if e["starts"] == half_past_five + 1_800_000]
        assert sorted((e["kind"], e["name"], e["target"]) for e in made) == [
            ("arena", "Hourly 3+2 Arena", 1), ("swiss", "Daily Standard Swiss", 3)]
    with pytest.raises(ValueError, match="line 2: CLOCK"):
        parse_schedule("arena hourly 3+2 1 30m Fine\nswiss daily@18:00 fast 3 5r Bad")


def test_the_documented_schedule_reads() -> None:
    page = (Path(__file__).parent.parent / "docs" / "web-tournaments.md").read_text("utf-8")
    block = page.split("```text\n", 1)[1].split("```", 1)[0]
    got = parse_schedule(block)
    assert [(r.name, r.body["rated"], r.body["bots"], r.offset) for r in got] == [
        ("Hourly 3+2 Arena", True, False, 0), ("Half-past bullet", False, False, 30 * 60_000),
        ("Daily Standard Swiss", True, True, 18 * 3_600_000)]


def test_a_bad_schedule_stops_kamisado_web_at_start_with_its_line(tmp_path: Path) -> None:
    from tests.test_web_cli import refused, web

    bad = tmp_path / "events.txt"
    bad.write_text("# the events\narena hourly 3+2 1 30m Fine\nswiss weekly 10+5 3 5r Bad\n", "utf-8")
    refused(web("--tournaments", str(bad), "--db", str(tmp_path / "g.db")), "--tournaments", "line 3: EVERY")
    refused(web("--tournaments", str(tmp_path / "none.txt"), "--db", str(tmp_path / "g.db")), "--tournaments")


def test_a_page_that_comes_back_is_told_of_a_game_nobody_told_it_of(site: TestClient) -> None:
    from kamisado.web.community.tournaments import plan_of, winner_of

    clock = Clock()
    tours = events(site)
    tours.clock = clock  # stays before the start: the server's own passes pair nobody
    seats = people(site, 2)
    tid = make(site, **{**ARENA, "starts_in": 600})["id"]
    for s in seats:
        assert s.c.post(f"/api/tournaments/{tid}/join").status_code == 200
    store = site.app.state.hub.store  # type: ignore[attr-defined]
    # the pass of a process that died before it told anyone: stored, nobody told
    starts = event(site, tid)["starts"]
    made = site.portal.call(store.call, store.tournament_pass, starts + 1,  # type: ignore[union-attr]
                            {s.id for s in seats}, plan_of, winner_of, tours._games_of)
    ((_, [(game, _, _)]),) = made
    assert running(site, tid)[0]["id"] == game
    tours.live_until = START + 10**9  # (as after any pass that found the event running)
    again = connect(seats[1].c)  # the page comes back
    assert until(again, lambda m: m["type"] == "started")["game"] == game
