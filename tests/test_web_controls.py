"""Game controls, the lobby and ratings in the server (issue: online play as
a service, items 3, 5 and 6): takeback, rematch, claiming the win, open
challenges, rated games and the player page.  Each :class:`TestClient` is
a browser with its own cookie; the others share the first one's server."""

from __future__ import annotations

import asyncio
import contextlib
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from kamisado.web.basics import clocks as web_clocks
from kamisado.web.basics.ratings import Rating, rate_game
from kamisado.web.play import computer as web_computer
from kamisado.web.play import games as web_games
from kamisado.web.site.server import create_app
from kamisado.web.store.storage import GameRow, Store
from tests.waiting import until as poll_until


class FakeTime:
    """The server's time source (ms), moved by hand."""

    def __init__(self) -> None:
        self.ms = 1_700_000_000_000

    def __call__(self) -> int:
        return self.ms


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeTime:
    fake = FakeTime()
    monkeypatch.setattr(web_clocks, "now_ms", fake)
    return fake


#: the websockets a test opened: closed before its server stops
OPEN: list[Any] = []


def close_all() -> None:
    while OPEN:
        ws = OPEN.pop()
        with contextlib.suppress(Exception):  # closed by the test already
            ws.__exit__(None, None, None)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(str(tmp_path / "games.db"), workers=0)) as c:
        c.get("/")  # a player and its cookie
        try:
            yield c
        finally:
            close_all()


def me(c: TestClient) -> str:
    """The id of the player ``c``'s cookie is."""
    player_id: str = c.get("/api/me").json()["id"]
    return player_id


def browser(first: TestClient) -> TestClient:
    """Another browser on the same server."""
    other = TestClient(first.app)
    other.portal = first.portal
    other.get("/")
    return other


def sign_up(client: TestClient, account: str) -> None:
    r = client.post("/api/signup", json={"account": account, "password": "a long password",
                                         "name": account.title()})
    assert r.status_code == 200, r.text


def create(client: TestClient, status: int = 200, **body: Any) -> dict[str, Any]:
    r = client.post("/api/games", json=body)
    assert r.status_code == status, r.text
    data: dict[str, Any] = r.json()
    return data


def until(ws: Any, pred: Callable[[dict[str, Any]], bool], limit: int = 20) -> dict[str, Any]:
    """The first frame that ``pred`` accepts (a test fails when none of the
    next ``limit`` frames do)."""
    for _ in range(limit):
        msg: dict[str, Any] = ws.receive_json()
        if pred(msg):
            return msg
    raise AssertionError("no such frame")


def state(ws: Any) -> dict[str, Any]:
    return until(ws, lambda m: m["type"] == "state")


def error(ws: Any) -> dict[str, Any]:
    return until(ws, lambda m: m["type"] == "error")


def a_move(st: dict[str, Any]) -> str:
    """Some legal move of the state (the first destination of the first tower)."""
    square, dests = next(iter(st["legal"].items()))
    return f"{square}-{dests[0]}"


def connect(client: TestClient) -> Any:
    ws = client.websocket_connect("/ws").__enter__()
    OPEN.append(ws)
    return ws


def open_ws(client: TestClient, game: str, token: str | None = None) -> Any:
    ws = connect(client)
    ws.send_json({"type": "join", "game": game, **({"token": token} if token else {})})
    return ws


def online_pair(client: TestClient, other: TestClient, **body: Any) -> tuple[str, Any, Any, dict[str, Any]]:
    """An online game between two browsers: the first is Black; both joined;
    and the last state Black was sent."""
    g = create(client, online=True, seat="b", **body)
    wb = open_ws(client, g["id"])
    state(wb)
    wg = open_ws(other, g["id"], g["tokens"]["g"])
    st = state(wg)
    assert st["you"] == ["g"]
    return g["id"], wb, wg, state(wb)  # Black sees Gold come online


# -- takeback --------------------------------------------------------------------


def test_a_takeback_in_hotseat_undoes_the_last_move_at_once(client: TestClient) -> None:
    g = create(client, target=3)
    ws = open_ws(client, g["id"])
    st = state(ws)
    start_kpn = st["kpn"]
    ws.send_json({"type": "takeback"})
    assert error(ws)["code"] == "not_allowed"  # nothing to take back yet
    first = a_move(st)
    ws.send_json({"type": "move", "move": first})
    st = state(ws)
    second = a_move(st)
    ws.send_json({"type": "move", "move": second})
    after_two = state(ws)
    ws.send_json({"type": "takeback"})
    st = state(ws)
    assert st["last"] == {"kind": "takeback", "side": "g", "count": 1}
    assert st["seq"] == 3 and st["turn"] == "g"
    assert [e["move"] for e in st["rounds"][0]["entries"] if e.get("move")] == [first]
    ws.send_json({"type": "takeback"})
    st = state(ws)
    assert st["kpn"] == start_kpn and st["turn"] == "b" and st["seq"] == 4
    assert after_two["kpn"] != start_kpn
    ws.close()
    # stored as actions: the game rebuilt from the store is the same
    st2 = state(open_ws(client, g["id"]))
    assert st2["kpn"] == start_kpn and st2["seq"] == 4
    # the record holds the moves in effect: none
    from kamisado.rules.record import read

    rec = read(client.get(f"/api/games/{g['id']}/record").text)
    assert [len(r.moves) for r in rec.match.rounds] == [0]


def test_a_takeback_against_the_computer_is_immediate(client: TestClient) -> None:
    g = create(client, gold="club")  # no process pool (workers=0): the computer never answers
    ws = open_ws(client, g["id"])
    st = state(ws)
    ws.send_json({"type": "move", "move": a_move(st)})
    assert state(ws)["turn"] == "g"
    ws.send_json({"type": "takeback", "action": "offer"})
    st = state(ws)
    assert st["turn"] == "b" and st["last"]["kind"] == "takeback" and st["offer"] is None
    ws.send_json({"type": "takeback", "action": "accept"})
    assert error(ws)["code"] == "no_offer"


def test_takeback_offer_accept_decline_online(client: TestClient) -> None:
    other = browser(client)
    gid, wb, wg, st = online_pair(client, other)
    assert st["takeback"] == {"b": 0, "g": 0}
    wb.send_json({"type": "move", "move": a_move(st)})
    st = state(wb)
    assert state(wg)["takeback"] == st["takeback"] == {"b": 1, "g": 0}  # the page enables by it
    wg.send_json({"type": "takeback"})  # Gold has no move in this round
    assert error(wg)["code"] == "not_allowed"
    wb.send_json({"type": "takeback"})
    offered = state(wb)
    assert offered["offer"] == {"kind": "takeback", "by": "b"} and state(wg)["offer"] == offered["offer"]
    wb.send_json({"type": "takeback"})
    assert error(wb)["code"] == "not_allowed"  # offered already
    wb.send_json({"type": "takeback", "action": "decline"})  # withdrawn: nothing is declined
    withdrawn = state(wb)
    assert withdrawn["offer"] is None and withdrawn["declined"] is None
    state(wg)
    wb.send_json({"type": "takeback"})
    state(wb), state(wg)
    wg.send_json({"type": "takeback", "action": "decline"})
    declined = {"kind": "takeback", "by": "b"}
    for ws in (wg, wb):
        st = state(ws)
        assert st["offer"] is None and st["declined"] == declined
    wb.send_json({"type": "takeback"})  # the same move again: refused, nothing changes
    msg = error(wb)
    assert msg["code"] == "declined" and "after the next move" in msg["message"]
    wg.send_json({"type": "move", "move": a_move(st)})
    st = state(wg)
    assert st["declined"] is None  # a move: a new takeback may be asked (now of two moves)
    state(wb)
    wg.send_json({"type": "takeback"})
    state(wb), state(wg)
    wb.send_json({"type": "takeback", "action": "decline"})
    state(wb), state(wg)
    wb.send_json({"type": "takeback"})  # Black's own takeback was not the one declined
    state(wb), state(wg)
    wg.send_json({"type": "takeback", "action": "accept"})
    st = state(wg)
    assert st["last"] == {"kind": "takeback", "side": "b", "count": 2} and st["rounds"][0]["entries"] == []
    state(wb)
    wb.send_json({"type": "move", "move": a_move(st)})
    st = state(wb)
    state(wg)
    wb.send_json({"type": "takeback"})
    state(wb), state(wg)
    wg.send_json({"type": "takeback", "action": "accept"})
    st = state(wg)
    assert st["turn"] == "b" and st["last"] == {"kind": "takeback", "side": "b", "count": 1}
    assert st["offer"] is None and st["rounds"][0]["entries"] == []
    # an offer made, then a move: the move ends it
    state(wb)
    wb.send_json({"type": "move", "move": a_move(st)})
    st = state(wb)
    state(wg)
    wb.send_json({"type": "takeback"})
    state(wb), state(wg)
    wg.send_json({"type": "move", "move": a_move(st)})
    st = state(wg)
    assert st["offer"] is None and st["takeback"] == {"b": 2, "g": 1}
    wb.send_json({"type": "takeback", "action": "accept"})
    assert error(wb)["code"] == "no_offer"
    # Black takes back after Gold replied: both moves go (the offer's count is 2)
    wb.send_json({"type": "takeback"})
    state(wb), state(wg)
    wg.send_json({"type": "takeback", "action": "accept"})
    st = state(wg)
    assert st["last"]["count"] == 2 and st["turn"] == "b" and st["rounds"][0]["entries"] == []
    # a spectator holds no seat
    spectator = browser(client)
    ws = open_ws(spectator, gid)
    state(ws)
    ws.send_json({"type": "takeback"})
    assert error(ws)["code"] == "not_your_turn"


@pytest.mark.parametrize(("stored", "offer", "declined"), [
    (None, None, None),
    ("takeback-b", ("takeback", 0), None),
    ("rematch-g", ("rematch", 1), None),
    ("takeback-b-n", None, ("takeback", 0)),
    ("rematch-g-n", None, ("rematch", 1)),
    ("takeback-x", None, None),  # anything else is no offer at all
    ("takeback-b-y", None, None),
    ("draw-b", None, None),
    ("takeback-b-n-n", None, None),
])
def test_the_offer_column_is_read_as_an_offer_or_a_declined_one(
    stored: str | None, offer: tuple[str, int] | None, declined: tuple[str, int] | None
) -> None:
    from kamisado.web.play.state import GameState

    game = GameState.build(GameRow(id="g", target=1, offer=stored), [])
    assert (game.offer(), game.declined()) == (offer, declined)


def test_a_declined_takeback_is_kept_for_the_asker_across_a_restart(tmp_path: Path) -> None:
    """The answer is stored with the game: a page that comes back later, or
    a server started again on the same database, still says it and still
    refuses the same takeback."""
    db = str(tmp_path / "games.db")
    with TestClient(create_app(db, workers=0)) as client:
        client.get("/")
        other = browser(client)
        gid, wb, wg, st = online_pair(client, other)
        wb.send_json({"type": "move", "move": a_move(st)})
        state(wb), state(wg)
        wb.send_json({"type": "takeback"})
        state(wb), state(wg)
        wg.send_json({"type": "takeback", "action": "decline"})
        state(wb), state(wg)
        assert client.app.state.hub.store.load(gid)[0].offer == "takeback-b-n"  # type: ignore[attr-defined]
        wg.send_json({"type": "takeback", "action": "decline"})  # nothing pending to decline
        assert error(wg)["code"] == "no_offer"
        cookies = dict(client.cookies)
        close_all()
    with TestClient(create_app(db, workers=0)) as again:
        again.cookies.update(cookies)
        ws = open_ws(again, gid)
        st = state(ws)
        assert st["you"] == ["b"] and st["declined"] == {"kind": "takeback", "by": "b"} and st["offer"] is None
        seq = st["seq"]
        ws.send_json({"type": "takeback"})
        assert error(ws)["code"] == "declined"
        ws.send_json({"type": "ping"})
        assert until(ws, lambda m: m["type"] in ("pong", "state"))["type"] == "pong"  # no state: nothing changed
        assert again.app.state.hub.store.load(gid)[0].actions == seq  # type: ignore[attr-defined]
        close_all()


def test_no_takeback_of_a_won_round(tmp_path: Path) -> None:
    from kamisado.rules.match import Match
    from kamisado.rules.position import Position

    # play a round to its end (first legal moves), then ask for a takeback
    with TestClient(create_app(str(tmp_path / "g.db"), workers=0)) as client:
        client.get("/")
        g = create(client, target=3)
        ws = open_ws(client, g["id"])
        st = state(ws)
        match = Match(3)
        while st["state"] == "playing":
            pos: Position = match.position
            move = str(next(iter(pos.legal_moves)))
            match.push_move(move)
            ws.send_json({"type": "move", "move": move})
            st = state(ws)
        assert st["state"] == "fill"
        ws.send_json({"type": "takeback"})
        msg = error(ws)
        close_all()
        assert msg["code"] == "not_allowed" and "won round stands" in msg["message"]


# -- rematch ---------------------------------------------------------------------


def test_a_rematch_in_hotseat_is_made_at_once_with_the_colours_swapped(client: TestClient) -> None:
    g = create(client, target=3, clock={"initial": 300, "increment": 3})
    ws = open_ws(client, g["id"])
    state(ws)
    ws.send_json({"type": "rematch"})
    assert error(ws)["code"] == "not_allowed"  # not over
    ws.send_json({"type": "resign"})
    assert state(ws)["state"] == "over"
    ws.send_json({"type": "rematch"})
    st = state(ws)  # everyone watching learns of it, then the seats are sent it
    new = until(ws, lambda m: m["type"] == "started")["game"]
    assert new != g["id"] and st["rematch"] == new
    ws.send_json({"type": "rematch"})  # asking again opens the same rematch
    assert until(ws, lambda m: m["type"] == "started")["game"] == new
    assert client.app.state.hub.store.load(g["id"])[0].rematch == new  # type: ignore[attr-defined]
    nst = state(open_ws(client, new))
    assert nst["you"] == ["b", "g"] and nst["target"] == 3 and nst["seq"] == 0
    assert nst["clock"]["control"] == {"initial": 300.0, "increment": 3.0}


def test_an_online_rematch_is_offered_accepted_and_swaps_the_players(client: TestClient) -> None:
    other = browser(client)
    gid, wb, wg, _ = online_pair(client, other, target=1)
    wb.send_json({"type": "resign"})
    assert state(wb)["ended"] == {"reason": "resignation", "winner": "g"}
    state(wg)
    wg.send_json({"type": "rematch", "action": "accept"})
    assert error(wg)["code"] == "no_offer"
    wg.send_json({"type": "rematch"})
    assert state(wb)["offer"] == {"kind": "rematch", "by": "g"}
    state(wg)
    wb.send_json({"type": "rematch", "action": "accept"})
    new_b = until(wb, lambda m: m["type"] == "started")["game"]
    new_g = until(wg, lambda m: m["type"] == "started")["game"]
    assert new_b == new_g
    # the players swapped colours: the first browser is Gold now
    assert state(open_ws(client, new_b))["you"] == ["g"]
    nst = state(open_ws(other, new_b))
    assert nst["you"] == ["b"] and nst["online_game"] is True
    mine = {item["id"]: item for item in client.get("/api/games").json()}
    assert mine[new_b]["you"] == ["g"] and mine[gid]["you"] == ["b"]


def test_a_declined_rematch_is_said_to_the_asker_who_may_offer_again(client: TestClient) -> None:
    other = browser(client)
    gid, wb, wg, _ = online_pair(client, other, target=1)
    wb.send_json({"type": "resign"})
    state(wb), state(wg)
    wg.send_json({"type": "rematch"})
    state(wb), state(wg)
    wb.send_json({"type": "rematch", "action": "decline"})
    for ws in (wb, wg):
        st = state(ws)
        assert st["offer"] is None and st["declined"] == {"kind": "rematch", "by": "g"} and st["rematch"] is None
    spectator = browser(client)
    assert state(open_ws(spectator, gid))["declined"] == {"kind": "rematch", "by": "g"}
    wg.send_json({"type": "rematch"})  # asked again: an offer once more, the refusal forgotten
    st = state(wb)
    assert st["offer"] == {"kind": "rematch", "by": "g"} and st["declined"] is None
    state(wg)
    wb.send_json({"type": "rematch", "action": "accept"})
    assert until(wb, lambda m: m["type"] == "started")["game"] == until(wg, lambda m: m["type"] == "started")["game"]


# -- claiming the win ----------------------------------------------------------------


def test_the_win_is_claimed_when_a_real_time_opponent_stays_away(client: TestClient, clock: FakeTime) -> None:
    other = browser(client)
    hub = client.app.state.hub  # type: ignore[attr-defined]
    gid, wb, wg, st = online_pair(client, other, clock={"initial": 300, "increment": 0})
    assert st["claim_after_ms"] == 60_000 and st["seats"]["g"]["away_ms"] is None
    wb.send_json({"type": "claim"})
    assert error(wb)["code"] == "not_allowed"  # Gold is here
    wg.close()
    st = state(wb)  # Gold left
    assert st["seats"]["g"]["online"] is False and st["seats"]["g"]["away_ms"] == 0
    clock.ms += 59_000
    wb.send_json({"type": "claim"})
    msg = error(wb)
    assert msg["code"] == "not_allowed" and "in 1 s" in msg["message"]
    clock.ms += 1_000
    hub.claim_after_s = 60.0
    wb.send_json({"type": "claim"})
    st = state(wb)
    assert st["state"] == "over" and st["ended"] == {"reason": "abandonment", "winner": "b"}
    assert st["last"] == {"kind": "end", "side": "g", "reason": "abandonment"}
    rec = client.get(f"/api/games/{gid}/record").text
    assert "(abandonment: Gold left the game)" in rec


def test_no_claim_in_an_untimed_or_correspondence_game(client: TestClient) -> None:
    other = browser(client)
    for extra in ({}, {"clock": {"days": 2}}):
        _, wb, wg, st = online_pair(client, other, **extra)
        assert st["claim_after_ms"] is None
        wg.close()
        state(wb)
        wb.send_json({"type": "claim"})
        assert error(wb)["code"] == "not_allowed"


# -- ratings -------------------------------------------------------------------------


def test_a_rated_game_needs_accounts_and_a_clock(client: TestClient) -> None:
    body: dict[str, Any] = {"online": True, "seat": "b", "rated": True, "clock": {"initial": 180, "increment": 2}}
    assert "account" in create(client, 403, **body)["error"]
    assert "clock" in create(client, 400, online=True, seat="b", rated=True)["error"]
    assert "two people" in create(client, 400, gold="club", online=True, seat="b", rated=True,
                                  clock={"initial": 180, "increment": 2})["error"]
    sign_up(client, "ann")
    g = create(client, **body)
    anonymous = browser(client)
    ws = open_ws(anonymous, g["id"], g["tokens"]["g"])
    st = state(ws)
    assert st["you"] == [] and st["rated"] is True
    assert error(ws)["code"] == "account_needed"  # the seat stays free
    sign_up(anonymous, "bob")
    ws = open_ws(anonymous, g["id"], g["tokens"]["g"])
    assert state(ws)["you"] == ["g"]


def test_a_rated_game_updates_both_ratings_once(client: TestClient) -> None:
    other = browser(client)
    sign_up(client, "ann")
    sign_up(other, "bob")
    gid, wb, wg, st = online_pair(client, other, rated=True, clock={"initial": 180, "increment": 2})
    assert (st["seats"]["b"]["rating"], st["seats"]["g"]["rating"]) == (1500, 1500)
    # new players' ratings are provisional: the page shows them with "?"
    assert st["seats"]["b"]["provisional"] is True and st["seats"]["g"]["provisional"] is True
    wb.send_json({"type": "resign"})
    st = state(wb)
    expected_g, expected_b = rate_game(Rating(), Rating())
    assert st["seats"]["g"]["rating"] == round(expected_g.rating)
    assert st["seats"]["b"]["rating"] == round(expected_b.rating)
    assert st["seats"]["g"]["rating_change"] == round(expected_g.rating - 1500) > 0
    assert st["seats"]["b"]["rating_change"] < 0
    hub = client.app.state.hub  # type: ignore[attr-defined]
    ann, bob = (client.get("/api/me").json()["id"], other.get("/api/me").json()["id"])
    assert hub.store.rate(gid, "realtime", bob, ann) is False  # once per game
    page = client.get(f"/api/players/{bob}").json()
    assert page["name"] == "Bob" and page["registered"] is True and "account" not in page
    assert page["ratings"]["realtime"]["rating"] == round(expected_g.rating)
    assert page["ratings"]["realtime"]["games"] == 1 and page["ratings"]["correspondence"] is None
    assert [h["game"] for h in page["history"]] == [gid]
    assert [g["id"] for g in page["games"]] == [gid]
    assert "token" not in str(page["games"])
    svg = client.get(f"/api/players/{bob}/rating.svg?speed=realtime")
    assert svg.status_code == 200 and svg.headers["content-type"].startswith("image/svg+xml")
    points = [e for e in ET.fromstring(svg.text).iter() if e.get("class") == "point"]
    assert len(points) == 1
    assert client.get(f"/api/players/{bob}/rating.svg?speed=blitz").status_code == 400
    assert client.get("/api/players/nobody").status_code == 404
    # drawn at the width the page shows it, in the page's language
    root = ET.fromstring(svg.text)
    assert root.get("width") == "640" and "Bob: Real time" in svg.text
    small = client.get(f"/api/players/{bob}/rating.svg?speed=realtime&width=350&lang=de")
    root = ET.fromstring(small.text)
    assert root.get("width") == "350" and root.get("viewBox", "").split()[2] == "350"
    assert root.get("aria-label") == "Bob: Echtzeit" and "realtime" not in small.text
    assert {"Wertung", "Datum (UTC)"} <= {t.text for t in root.iter() if t.tag.endswith("text")}
    sizes = {float(e.get("font-size") or 0) for e in root.iter() if e.get("font-size")}
    assert sizes and min(sizes) >= 11
    for bad_width in ("100", "5000", "wide"):
        got = client.get(f"/api/players/{bob}/rating.svg?speed=realtime&width={bad_width}")
        assert got.status_code == 400 and "width" in got.json()["error"]


def test_an_abort_is_never_rated(client: TestClient) -> None:
    other = browser(client)
    sign_up(client, "ann")
    sign_up(other, "bob")
    gid, wb, wg, _ = online_pair(client, other, rated=True, clock={"days": 1})
    wb.send_json({"type": "abort"})
    st = state(wb)
    assert st["ended"]["reason"] == "abort" and st["seats"]["b"]["rating_change"] is None
    ann = client.get("/api/me").json()["id"]
    assert client.get(f"/api/players/{ann}").json()["history"] == []


def test_a_rated_game_the_store_could_not_rate_is_rated_when_next_loaded(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "g.db"))
    row = GameRow.new("r1", online=True, rated=True, clock_initial=60.0, clock_increment=0.0,
                      black_player="pa", gold_player="pb", state="over", ended="resignation")
    store.create(row, ["resign-b"])
    hub = web_games.Hub(store, None)

    async def hold() -> web_games.Game | None:
        return await hub.hold("r1")  # a game coming into memory reads its ratings

    game = asyncio.run(hold())
    assert game is not None and game.ratings[1][1] is not None and game.ratings[1][1] > 0
    assert set(store.rating_changes("r1")) == {"pa", "pb"}
    store.close()


def test_computer_seats_show_their_fixed_rating(client: TestClient) -> None:
    g = create(client, gold="expert")
    st = state(open_ws(client, g["id"]))
    levels = {lv["name"]: lv["rating"] for lv in client.get("/api/levels").json()}
    assert st["seats"]["g"]["rating"] == levels["expert"] and st["seats"]["b"]["rating"] is None


# -- the lobby ---------------------------------------------------------------------


def lobby_ws(client: TestClient) -> tuple[Any, list[dict[str, Any]]]:
    ws = connect(client)
    ws.send_json({"type": "lobby", "watch": True})
    return ws, until(ws, lambda m: m["type"] == "lobby")["challenges"]


def test_a_challenge_is_seen_live_accepted_once_and_starts_a_game(client: TestClient) -> None:
    bob, cy = browser(client), browser(client)
    wa, first = lobby_ws(client)
    wb, _ = lobby_ws(bob)
    wc, _ = lobby_ws(cy)
    assert first == []
    wa.send_json({"type": "challenge", "target": 3, "clock": {"initial": 300, "increment": 3},
                  "color": "g"})
    mine = until(wa, lambda m: m["type"] == "lobby")["challenges"]
    seen = until(wb, lambda m: m["type"] == "lobby")["challenges"]
    until(wc, lambda m: m["type"] == "lobby")
    assert len(mine) == len(seen) == 1 and mine[0]["mine"] is True and seen[0]["mine"] is False
    ch = seen[0]
    assert (ch["target"], ch["clock"], ch["color"], ch["rated"]) == (3, {"initial": 300.0, "increment": 3.0}, "g", False)
    assert ch["name"] and ch["by"]["rating"] == 1500 and ch["by"]["provisional"] is True
    wa.send_json({"type": "accept", "challenge": ch["id"]})
    assert error(wa)["code"] == "not_allowed"  # one's own
    wb.send_json({"type": "accept", "challenge": ch["id"]})
    game = until(wb, lambda m: m["type"] == "started")["game"]
    assert until(wa, lambda m: m["type"] == "started")["game"] == game
    assert until(wc, lambda m: m["type"] == "lobby")["challenges"] == []
    wc.send_json({"type": "accept", "challenge": ch["id"]})
    assert error(wc)["code"] == "no_challenge"
    # the poster chose Gold: it holds Gold, the acceptor Black, in any browser
    assert state(open_ws(client, game))["you"] == ["g"]
    st = state(open_ws(bob, game))
    assert st["you"] == ["b"] and st["online_game"] and st["clock"]["control"]["initial"] == 300.0


def test_a_challenge_goes_when_its_connection_closes_or_leaves_the_lobby(client: TestClient) -> None:
    bob = browser(client)
    wa, _ = lobby_ws(client)
    wb, _ = lobby_ws(bob)
    wa.send_json({"type": "challenge", "target": 1})
    assert len(until(wb, lambda m: m["type"] == "lobby")["challenges"]) == 1
    wa.close()
    assert until(wb, lambda m: m["type"] == "lobby")["challenges"] == []
    wa, _ = lobby_ws(client)
    wa.send_json({"type": "challenge", "target": 7, "color": "random"})
    assert len(until(wb, lambda m: m["type"] == "lobby")["challenges"]) == 1
    wa.send_json({"type": "lobby", "watch": False})
    assert until(wb, lambda m: m["type"] == "lobby")["challenges"] == []
    wa.send_json({"type": "challenge", "target": 1})
    ch = until(wb, lambda m: m["type"] == "lobby")["challenges"][0]
    wb.send_json({"type": "cancel", "challenge": ch["id"]})
    assert error(wb)["code"] == "no_challenge"  # not Bob's
    wa.send_json({"type": "cancel", "challenge": ch["id"]})
    assert until(wb, lambda m: m["type"] == "lobby")["challenges"] == []


def test_lobby_refusals(client: TestClient) -> None:
    wa, _ = lobby_ws(client)
    wa.send_json({"type": "challenge", "rated": True, "clock": {"initial": 60, "increment": 0}})
    assert error(wa)["code"] == "account_needed"
    wa.send_json({"type": "challenge", "rated": True})
    assert error(wa)["code"] == "malformed"
    wa.send_json({"type": "challenge", "color": "red"})
    assert error(wa)["code"] == "malformed"
    for _ in range(3):
        wa.send_json({"type": "challenge"})
        until(wa, lambda m: m["type"] == "lobby")
    wa.send_json({"type": "challenge"})
    assert error(wa)["code"] == "not_allowed"  # three at most
    # a client without the cookie is no player
    with TestClient(client.app) as bare:
        bare.portal = client.portal
        ws = connect(bare)
        ws.send_json({"type": "challenge"})
        assert error(ws)["code"] == "no_player"
        close_all()


# -- the computer, paused and after a restart ------------------------------------------


def test_a_timed_computer_game_nobody_watches_pauses_its_clock(tmp_path: Path, clock: FakeTime) -> None:
    body: dict[str, Any] = {"black": "beginner", "gold": "beginner", "target": 15, "delay": 0.05,
            "clock": {"initial": 60, "increment": 0}}
    with TestClient(create_app(str(tmp_path / "g.db"), workers=1)) as client:
        hub = client.app.state.hub  # type: ignore[attr-defined]
        g = create(client, **body)
        ws = open_ws(client, g["id"])
        st = until(ws, lambda m: m["type"] == "state" and m["seq"] >= 3)
        assert st["clock"]["running"] is not None
        close_all()
        deadline = time.monotonic() + 10
        while True:  # it pauses after the move it was thinking about
            row = hub.store.load(g["id"])[0]
            if g["id"] not in hub.games and row.clock_running is None:
                break
            assert time.monotonic() < deadline, "the clock never paused"
            time.sleep(0.05)
        paused_at = row.actions
        scans = [0]  # the flag loop's looks at the store's overdue games, counted
        looks = hub.store.overdue

        def counted(now_ms: int, limit: int = 100) -> list[str]:
            scans[0] += 1
            return list(looks(now_ms, limit))

        hub.store.overdue = counted
        seen = scans[0]
        clock.ms += 120_000  # two minutes: more than either side's time
        # the flag loop looks twice after it (not a time: a loaded machine looks later)
        poll_until(lambda: scans[0] >= seen + 2, "the flag loop looked at the store twice")
        row = hub.store.load(g["id"])[0]
        # nothing happened while it was paused: no flag fell (the round may
        # have ended on the move it paused after: then it waits for a fill)
        assert (row.state in ("playing", "fill"), row.ended, row.actions) == (True, None, paused_at)
        ws = open_ws(client, g["id"])  # someone watches again: it goes on, its clock too
        st = until(ws, lambda m: m["type"] == "state" and m["seq"] > paused_at + 1)
        close_all()
        assert st["state"] != "over" and st["clock"]["running"] in ("b", "g")
        assert min(st["clock"]["b"], st["clock"]["g"]) > 0


def test_after_a_restart_the_computer_answers_a_waiting_person(tmp_path: Path) -> None:
    db = str(tmp_path / "g.db")
    with TestClient(create_app(db, workers=1)) as client:
        client.get("/")
        g = create(client, gold="beginner", delay=3.0)
        ws = open_ws(client, g["id"])
        st = state(ws)
        ws.send_json({"type": "move", "move": a_move(st)})
        assert until(ws, lambda m: m["type"] == "state" and m["seq"] == 1)["thinking"] is True
        close_all()
    # the server stopped while the computer was thinking; nobody rejoins
    with TestClient(create_app(db, workers=1)) as client:
        store = client.app.state.hub.store  # type: ignore[attr-defined]
        deadline = time.monotonic() + 30
        while store.load(g["id"])[0].actions < 2:
            assert time.monotonic() < deadline, "the computer never answered after the restart"
            time.sleep(0.1)
        assert store.load(g["id"])[0].to_act == "b"


def test_a_takeback_earns_no_increment_and_the_clock_runs_for_the_side_to_move(
    client: TestClient, clock: FakeTime
) -> None:
    g = create(client, clock={"initial": 60, "increment": 5})
    ws = open_ws(client, g["id"])
    st = state(ws)
    ws.send_json({"type": "move", "move": a_move(st)})  # Black's first move: not timed
    st = state(ws)
    clock.ms += 4_000
    ws.send_json({"type": "move", "move": a_move(st)})  # Gold: 4 s spent, 5 s earned
    st = state(ws)
    assert (st["clock"]["b"], st["clock"]["g"], st["clock"]["running"]) == (60_000, 61_000, "b")
    clock.ms += 3_000
    ws.send_json({"type": "takeback"})  # Black's clock stops (3 s spent, nothing earned); Gold's runs
    st = state(ws)
    assert (st["clock"]["b"], st["clock"]["g"], st["clock"]["running"]) == (57_000, 61_000, "g")
    ws.send_json({"type": "takeback"})  # back at the start: the clocks wait for the first move
    st = state(ws)
    assert st["seq"] == 4 and st["clock"]["running"] is None


class FlakyRunner:
    """A job runner whose first job fails (a queue that cannot be reached),
    then runs the job here."""

    def __init__(self) -> None:
        self.calls = 0

    async def run(self, queue: str, fn: Callable[..., Any], *args: Any) -> Any:
        self.calls += 1
        if self.calls == 1:
            raise OSError("the queue cannot be reached")
        return fn(*args)

    async def close(self) -> None:
        pass


def test_a_computer_move_that_failed_is_asked_for_again(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(web_computer, "RETRY_S", 0.2)
    hub = client.app.state.hub  # type: ignore[attr-defined]
    runner = FlakyRunner()
    hub.computer.jobs = runner
    g = create(client, gold="beginner")
    ws = open_ws(client, g["id"])
    st = state(ws)
    ws.send_json({"type": "move", "move": a_move(st), "seq": 0})
    st = until(ws, lambda m: m["type"] == "state" and m["seq"] == 2)
    assert runner.calls == 2 and st["last"]["side"] == "g"


def test_after_a_takeback_the_computer_plays_on(tmp_path: Path) -> None:
    # the computer replays the moves in effect, not the takeback actions
    with TestClient(create_app(str(tmp_path / "g.db"), workers=1)) as client:
        client.get("/")
        g = create(client, gold="beginner")
        ws = open_ws(client, g["id"])
        try:
            st = state(ws)
            ws.send_json({"type": "move", "move": a_move(st), "seq": 0})
            st = until(ws, lambda m: m["type"] == "state" and m["seq"] == 2 and not m["thinking"])
            ws.send_json({"type": "takeback"})  # Black's move and the computer's reply
            st = until(ws, lambda m: m["type"] == "state" and m["seq"] == 3)
            assert st["last"]["count"] == 2 and st["turn"] == "b"
            ws.send_json({"type": "move", "move": a_move(st), "seq": 3})
            st = until(ws, lambda m: m["type"] == "state" and m["seq"] == 5, limit=40)
            assert st["last"]["kind"] == "move" and st["last"]["side"] == "g"
        finally:
            close_all()
