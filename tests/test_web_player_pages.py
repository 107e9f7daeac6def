"""Player pages, the leaderboard and direct challenges (docs/web.md,
"Ratings", "Player pages and the leaderboard", "Direct challenges"): over a
real server (Starlette's test client), its websocket and its database."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from starlette.testclient import TestClient

from kamisado.web.basics.ratings import Rating, rate_game
from kamisado.web.site.server import create_app
from kamisado.web.store.schema import players, rating_history, ratings
from tests.test_web_controls import (
    browser,
    close_all,
    connect,
    error,
    me,
    online_pair,
    sign_up,
    state,
    until,
)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(str(tmp_path / "games.db"), workers=0)) as c:
        c.get("/")  # a player and its cookie
        try:
            yield c
        finally:
            close_all()


def notices(c: TestClient) -> tuple[Any, list[dict[str, Any]]]:
    """A websocket following its player's notices, and the pending ones."""
    ws = connect(c)
    ws.send_json({"type": "notices"})
    return ws, until(ws, lambda m: m["type"] == "notices")["challenges"]


# -- the player page ------------------------------------------------------------


def test_a_player_page_gives_results_per_speed_recent_games_and_whether_online(client: TestClient) -> None:
    bob = browser(client)
    sign_up(client, "ann")
    sign_up(bob, "bob")
    ann_id, bob_id = me(client), me(bob)
    # a real-time rated game Ann resigns, then a correspondence one Bob resigns
    first, wb, wg, _ = online_pair(client, bob, rated=True, clock={"initial": 180, "increment": 2})
    wb.send_json({"type": "resign"})
    state(wb)
    wb.close()
    wg.close()
    second, wb, wg, _ = online_pair(client, bob, rated=True, clock={"days": 2})
    wg.send_json({"type": "resign"})
    state(wg)
    wb.close()
    wg.close()
    page = client.get(f"/api/players/{ann_id}").json()
    assert page["results"] == {"realtime": {"won": 0, "lost": 1}, "correspondence": {"won": 1, "lost": 0}}
    bob_page = client.get(f"/api/players/{bob_id}").json()
    assert bob_page["results"] == {"realtime": {"won": 1, "lost": 0}, "correspondence": {"won": 0, "lost": 1}}
    recent = page["recent"]
    assert [g["id"] for g in recent] == [second, first]  # the newest first
    won_rt, _ = rate_game(Rating(), Rating())
    last, before = recent
    assert last["result"] == "won" and before["result"] == "lost"
    assert last["opponent"]["player"] == bob_id and last["opponent"]["name"] == "Bob"
    assert last["clock"] == {"days": 2} and last["speed"] == "correspondence" and last["rated"] is True
    assert before["clock"] == {"initial": 180.0, "increment": 2.0} and before["speed"] == "realtime"
    # the opponent's rating (now) at the game's speed: Bob won his real-time game
    assert before["opponent"]["rating"] == {"rating": round(won_rt.rating), "provisional": True}
    assert before["you"] == "b" and before["ended"] == "resignation"
    assert "token" not in str(recent)
    # online: while a websocket of the player is open (any page of the site)
    assert page["online"] is False
    ws = connect(bob)
    assert client.get(f"/api/players/{bob_id}").json()["online"] is True
    ws.close()
    assert client.get(f"/api/players/{bob_id}").json()["online"] is False


def test_an_unfinished_game_is_no_recent_game_and_no_result(client: TestClient) -> None:
    bob = browser(client)
    online_pair(client, bob)
    page = client.get(f"/api/players/{me(client)}").json()
    assert page["recent"] == [] and len(page["games"]) == 1  # still being played
    assert page["results"] == {
        "realtime": {"won": 0, "lost": 0}, "correspondence": {"won": 0, "lost": 0}}


def test_a_casual_game_shows_the_ratings_its_players_have(client: TestClient) -> None:
    bob = browser(client)
    sign_up(client, "ann")
    sign_up(bob, "bob")
    _, wb, wg, _ = online_pair(client, bob, rated=True, clock={"initial": 180, "increment": 2})
    wb.send_json({"type": "resign"})
    rated = state(wb)
    wb.close()
    wg.close()
    # a casual game at the same speed: each player's real-time rating beside the name, no change
    _, wb, wg, st = online_pair(client, bob, clock={"initial": 300, "increment": 3})
    for side in "bg":
        assert st["seats"][side]["rating"] == rated["seats"][side]["rating"]
        assert st["seats"][side]["provisional"] is True
    wg.send_json({"type": "resign"})
    over = state(wg)
    assert over["seats"]["b"]["rating_change"] is None and over["seats"]["b"]["rating"] == rated["seats"]["b"]["rating"]
    wb.close()
    wg.close()
    # no rating at a speed yet (correspondence), or no clock: nothing beside the names
    for clock in ({"days": 2}, None):
        _, wb, wg, st = online_pair(client, bob, **({"clock": clock} if clock else {}))
        assert st["seats"]["b"]["rating"] is None and st["seats"]["g"]["rating"] is None
        wb.close()
        wg.close()


# -- the leaderboard ------------------------------------------------------------


def test_the_leaderboard_lists_active_established_players_best_first(client: TestClient) -> None:
    engine = client.app.state.hub.store.engine  # type: ignore[attr-defined]
    now = time.time()
    day = 86400.0
    # name, rating, rd, the last rated game (days ago)
    people = [("Ann", 1900.0, 60.0, 1), ("Bob", 2100.0, 70.0, 29), ("Cy", 2300.0, 50.0, 31),
              ("Di", 2400.0, 200.0, 2), ("Ed", 1700.0, 110.0, 0), ("Flo", 1950.0, 80.0, 3)]
    with engine.begin() as conn:
        for name, rating, rd, ago in people:
            pid = f"p-{name}"
            conn.execute(players.insert().values(id=pid, name=name, created=now, last_seen=now,
                                                 bot=name == "Ed"))
            conn.execute(ratings.insert().values(player=pid, speed="realtime", rating=rating, rd=rd,
                                                 vol=0.06, games=20, updated=now))
            conn.execute(rating_history.insert().values(player=pid, game_id=f"g-{name}", speed="realtime",
                                                        at=now - ago * day, rating=rating, rd=rd, change=5.0))
        # Flo's correspondence rating: another board
        conn.execute(ratings.insert().values(player="p-Flo", speed="correspondence", rating=1600.0, rd=60.0,
                                             vol=0.06, games=20, updated=now))
        conn.execute(rating_history.insert().values(player="p-Flo", game_id="g-Flo2", speed="correspondence",
                                                    at=now - day, rating=1600.0, rd=60.0, change=5.0))
    board = client.get("/api/leaderboard?speed=realtime").json()
    assert board["speed"] == "realtime" and board["active_days"] == 30
    # Cy: no rated game for 31 days; Di: provisional (rd 200 > 110); Ed at rd 110 is established
    assert [(p["rank"], p["name"], p["rating"]) for p in board["players"]] == [
        (1, "Bob", 2100), (2, "Flo", 1950), (3, "Ann", 1900), (4, "Ed", 1700)]
    assert board["players"][0]["player"] == "p-Bob" and board["players"][0]["games"] == 20
    assert [p["bot"] for p in board["players"]] == [False, False, False, True]  # Ed is a bot: marked
    assert client.get("/api/leaderboard").json()["players"] == board["players"]  # real time by default
    corr = client.get("/api/leaderboard?speed=correspondence").json()["players"]
    assert [p["name"] for p in corr] == ["Flo"]
    bad = client.get("/api/leaderboard?speed=blitz")
    assert bad.status_code == 400 and "speed" in bad.json()["error"]


def test_the_leaderboard_lists_provisional_players_apart_best_first(client: TestClient) -> None:
    engine = client.app.state.hub.store.engine  # type: ignore[attr-defined]
    now = time.time()
    # name, rating, rd, the last rated game (days ago): only provisional ratings, one gone quiet
    people = [("Gil", 1550.0, 250.0, 0), ("Hal", 1620.0, 180.0, 1), ("Ivy", 1900.0, 300.0, 40)]
    with engine.begin() as conn:
        for name, rating, rd, ago in people:
            pid = f"p-{name}"
            conn.execute(players.insert().values(id=pid, name=name, created=now, last_seen=now))
            conn.execute(ratings.insert().values(player=pid, speed="realtime", rating=rating, rd=rd,
                                                 vol=0.06, games=2, updated=now))
            conn.execute(rating_history.insert().values(player=pid, game_id=f"g-{name}", speed="realtime",
                                                        at=now - ago * 86400.0, rating=rating, rd=rd, change=5.0))
    board = client.get("/api/leaderboard?speed=realtime").json()
    assert board["players"] == []  # nobody established yet
    assert [(p["rank"], p["name"], p["rating"], p["rd"]) for p in board["provisional"]] == [
        (1, "Hal", 1620, 180), (2, "Gil", 1550, 250)]  # Ivy: not active
    assert client.get("/api/leaderboard?speed=correspondence").json()["provisional"] == []


def test_the_leaderboard_shows_at_most_fifty(client: TestClient) -> None:
    engine = client.app.state.hub.store.engine  # type: ignore[attr-defined]
    now = time.time()
    with engine.begin() as conn:
        for i in range(55):
            pid = f"p{i:02d}"
            conn.execute(players.insert().values(id=pid, name=f"P{i}", created=now, last_seen=now))
            conn.execute(ratings.insert().values(player=pid, speed="realtime", rating=1500.0 + i, rd=60.0,
                                                 vol=0.06, games=20, updated=now))
            conn.execute(rating_history.insert().values(player=pid, game_id=f"g{i}", speed="realtime",
                                                        at=now, rating=1500.0 + i, rd=60.0, change=1.0))
    got = client.get("/api/leaderboard?speed=realtime").json()["players"]
    assert len(got) == 50 and got[0]["player"] == "p54" and got[-1]["player"] == "p05"
    assert [p["rating"] for p in got] == sorted((p["rating"] for p in got), reverse=True)
    with engine.connect() as conn:  # nothing was written by reading
        assert conn.execute(sa.select(sa.func.count()).select_from(ratings)).scalar() == 55


# -- direct challenges --------------------------------------------------------------


def test_a_direct_challenge_to_an_offline_player_is_refused_clearly(client: TestClient) -> None:
    bob = browser(client)
    bob_id = me(bob)
    wa, _ = notices(client)
    wa.send_json({"type": "challenge", "to": bob_id, "clock": {"initial": 300, "increment": 3}})
    err = error(wa)
    assert err["code"] == "offline" and "not online" in err["message"]
    wa.send_json({"type": "challenge", "to": "nobody-at-all"})
    assert error(wa)["code"] == "offline"  # no such player is online either
    wa.send_json({"type": "challenge", "to": me(client)})
    assert error(wa)["code"] == "not_allowed"  # oneself
    wa.send_json({"type": "challenge", "to": "no spaces"})
    assert error(wa)["code"] == "malformed"
    wb, pending = notices(bob)
    assert pending == []  # nothing was left behind for Bob


def test_a_direct_challenge_is_delivered_live_and_accepted_in_one_click(client: TestClient) -> None:
    bob, cy = browser(client), browser(client)
    ann_id, bob_id = me(client), me(bob)
    wb, pending = notices(bob)
    wb2, _ = notices(bob)  # Bob has two pages open
    wc, _ = notices(cy)
    lobby_watcher = connect(cy)
    lobby_watcher.send_json({"type": "lobby", "watch": True})
    until(lobby_watcher, lambda m: m["type"] == "lobby")
    assert pending == []
    wa, _ = notices(client)
    wa.send_json({"type": "challenge", "to": bob_id, "target": 3, "clock": {"initial": 300, "increment": 3},
                  "color": "g"})
    sent = until(wa, lambda m: m["type"] == "challenging")["challenge"]
    got = until(wb, lambda m: m["type"] == "challenged")["challenge"]
    assert until(wb2, lambda m: m["type"] == "challenged")["challenge"]["id"] == got["id"] == sent["id"]
    assert got["to"] == bob_id and got["by"]["player"] == ann_id and got["target"] == 3
    assert got["clock"] == {"initial": 300.0, "increment": 3.0} and got["color"] == "g"
    # a page opened later is told too; the lobby does not list it
    _, later = notices(bob)
    assert [c["id"] for c in later] == [got["id"]]
    wc.send_json({"type": "lobby", "watch": True})
    assert until(wc, lambda m: m["type"] == "lobby")["challenges"] == []
    # nobody else may take it
    wc.send_json({"type": "accept", "challenge": got["id"]})
    assert error(wc)["code"] == "not_allowed"
    wc.send_json({"type": "decline", "challenge": got["id"]})
    assert error(wc)["code"] == "no_challenge"
    wb.send_json({"type": "accept", "challenge": got["id"]})
    game = until(wb, lambda m: m["type"] == "started")["game"]
    assert until(wa, lambda m: m["type"] == "started")["game"] == game
    assert until(wb2, lambda m: m["type"] == "withdrawn")["challenge"] == got["id"]
    st = state(connect_join(client, game))
    assert st["you"] == ["g"] and st["online_game"]
    assert state(connect_join(bob, game))["you"] == ["b"]
    wb.send_json({"type": "accept", "challenge": got["id"]})
    assert error(wb)["code"] == "no_challenge"  # once


def test_a_direct_challenge_takes_every_match_type_one_minute_and_a_colour(client: TestClient) -> None:
    # the player page's form offers them all: the server makes the game as asked
    bob = browser(client)
    wb, _ = notices(bob)
    wa, _ = notices(client)
    wa.send_json({"type": "challenge", "to": me(bob), "target": 15, "clock": {"initial": 60, "increment": 0},
                  "color": "b"})
    got = until(wb, lambda m: m["type"] == "challenged")["challenge"]
    assert (got["target"], got["clock"], got["color"]) == (15, {"initial": 60.0, "increment": 0.0}, "b")
    wb.send_json({"type": "accept", "challenge": got["id"]})
    game = until(wb, lambda m: m["type"] == "started")["game"]
    st = state(connect_join(client, game))
    assert st["you"] == ["b"] and st["target"] == 15
    assert st["clock"]["control"]["initial"] == 60 and not st["clock"]["control"].get("increment")


def connect_join(c: TestClient, game: str) -> Any:
    ws = connect(c)
    ws.send_json({"type": "join", "game": game})
    return ws


def test_a_direct_challenge_declined_or_withdrawn(client: TestClient) -> None:
    bob = browser(client)
    bob_id = me(bob)
    wb, _ = notices(bob)
    wa, _ = notices(client)
    wa.send_json({"type": "challenge", "to": bob_id})
    ch = until(wb, lambda m: m["type"] == "challenged")["challenge"]
    wa.send_json({"type": "decline", "challenge": ch["id"]})
    assert error(wa)["code"] == "no_challenge"  # the poster cannot decline it for Bob
    wb.send_json({"type": "decline", "challenge": ch["id"]})
    assert until(wa, lambda m: m["type"] == "declined")["challenge"] == ch["id"]
    assert until(wb, lambda m: m["type"] == "withdrawn")["challenge"] == ch["id"]
    wb.send_json({"type": "accept", "challenge": ch["id"]})
    assert error(wb)["code"] == "no_challenge"
    # a challenge goes with the page that made it
    wa.send_json({"type": "challenge", "to": bob_id})
    ch = until(wb, lambda m: m["type"] == "challenged")["challenge"]
    wa.close()
    assert until(wb, lambda m: m["type"] == "withdrawn")["challenge"] == ch["id"]
    _, pending = notices(bob)
    assert pending == []
