"""Clocks derived from stored state, driven by an injected time source
(issue 11, item 4): increments, correspondence days, a flag decided with no
message, and a restart in the middle of a move that keeps the time."""

from __future__ import annotations

import asyncio
import threading
import time as _time
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from kamisado.web.basics import clocks as web_clocks
from kamisado.web.basics.clocks import DAY_MS, ClockState, TimeControl, parse_control
from kamisado.web.play import flags as web_flags
from kamisado.web.site.server import create_app


def test_increment_is_added_after_each_move_and_only_the_running_side_loses_time() -> None:
    c = ClockState.start(TimeControl(180, 2)).begin("b", now=0)
    c = c.switch("g", now=5_000)  # Black took 5 s
    assert (c.left("b", now=10_000), c.left("g", now=10_000)) == (177_000, 175_000)
    c = c.switch("b", now=20_000)  # Gold took 15 s
    assert (c.b, c.g, c.running) == (177_000, 167_000, "b")
    c = c.stop(now=30_000)  # no increment for the move never made
    assert (c.b, c.g, c.running, c.deadline()) == (167_000, 167_000, None, None)


def test_a_flag_falls_at_the_deadline_with_no_message() -> None:
    c = ClockState.start(TimeControl(60, 0)).begin("b", now=1_000)
    assert c.deadline() == 61_000
    assert c.flagged(now=61_000) is None
    assert c.flagged(now=61_001) == "b"
    assert c.left("b", now=90_000) == 0  # never below zero


def test_a_restart_mid_move_keeps_the_time() -> None:
    """The state is stored as (left as of the last action, since): a server
    that stops and starts again works the same time out from it."""
    c = ClockState.start(TimeControl(300, 3)).begin("b", now=0).switch("g", now=4_000)
    stored = (c.b, c.g, c.running, c.since)
    # ... the server is down from 10 s to 70 s; a new process loads the row
    again = ClockState(TimeControl(300, 3), *stored)
    assert again.left("g", now=70_000) == c.left("g", now=70_000) == 300_000 - 66_000
    assert again.deadline() == c.deadline() == 4_000 + 300_000


def test_correspondence_gives_each_move_its_full_allowance() -> None:
    c = ClockState.start(TimeControl(days=2)).begin("b", now=0)
    c = c.switch("g", now=DAY_MS)  # Black used a day
    assert c.left("g", now=DAY_MS) == 2 * DAY_MS
    c = c.switch("b", now=DAY_MS + 10)
    assert c.left("b", now=DAY_MS + 10) == 2 * DAY_MS  # nothing banked, nothing lost
    assert c.deadline() == DAY_MS + 10 + 2 * DAY_MS


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"initial": 5, "increment": 0}, "initial time of 15 s to 3 h"),
        ({"initial": 60, "increment": -1}, "increment of 0 to 180 s"),
        ({"days": 4}, "1, 2, 3 or 7 days"),
        ({"days": True}, "whole number of days"),
        ({"initial": 60, "bonus": 2}, "initial and increment"),
        ([60, 2], "expected an object"),
    ],
)
def test_bad_controls_are_refused_clearly(given: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_control(given)


def test_the_frame_view_and_names() -> None:
    tc = parse_control({"initial": 600, "increment": 5})
    assert tc is not None and tc.name == "10+5"
    c = ClockState.start(tc).begin("g", now=0)
    assert c.view(now=1_500) == {
        "b": 600_000, "g": 598_500, "running": "g", "control": {"initial": 600.0, "increment": 5.0}
    }


# -- in the server: clocks stored with every action, flags, resign, abort --------------



class FakeTime:
    """The clocks' time source, moved by hand (ms)."""

    def __init__(self) -> None:
        self.ms = 1_700_000_000_000

    def __call__(self) -> int:
        return self.ms


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeTime:
    fake = FakeTime()
    monkeypatch.setattr(web_clocks, "now_ms", fake)
    return fake


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(tmp_path / "games.db")


@pytest.fixture
def client(db: str) -> Iterator[TestClient]:
    with TestClient(create_app(db, workers=0)) as c:
        yield c


def hotseat(client: TestClient, **clock: Any) -> tuple[str, str]:
    body: dict[str, Any] = {"target": 1, **({"clock": clock} if clock else {})}
    r = client.post("/api/games", json=body)
    assert r.status_code == 200, r.text
    return r.json()["id"], r.json()["tokens"]["b"]


def frame(ws: Any) -> dict[str, Any]:
    msg: dict[str, Any] = ws.receive_json()
    assert msg["type"] == "state", msg
    return msg


def test_clocks_run_for_the_side_awaited_with_increments(client: TestClient, clock: FakeTime) -> None:
    gid, tok = hotseat(client, initial=60, increment=2)
    with client.websocket_connect("/ws") as ws:
        ws.send_json({"type": "join", "game": gid, "token": tok})
        st = frame(ws)
        assert st["clock"] == {"b": 60_000, "g": 60_000, "running": None,
                               "control": {"initial": 60.0, "increment": 2.0}}
        clock.ms += 7_000  # Black's first move is not timed (and earns no increment)
        ws.send_json({"type": "move", "move": "c1-c5"})
        st = frame(ws)
        assert (st["clock"]["b"], st["clock"]["g"], st["clock"]["running"]) == (60_000, 60_000, "g")
        clock.ms += 10_000  # Gold's 10 s, then +2 s
        ws.send_json({"type": "move", "move": "b8-b5"})
        st = frame(ws)
        assert (st["clock"]["b"], st["clock"]["g"], st["clock"]["running"]) == (60_000, 52_000, "b")
        clock.ms += 3_000
        ws.send_json({"type": "ping"})
        assert ws.receive_json()["type"] == "pong"
        ws.send_json({"type": "join", "game": gid, "token": tok})
        assert frame(ws)["clock"]["b"] == 57_000  # the frame says the time left when it was made


def test_a_flag_is_decided_by_the_server_with_no_message(client: TestClient, clock: FakeTime) -> None:
    gid, tok = hotseat(client, initial=30, increment=0)
    with client.websocket_connect("/ws") as ws:
        ws.send_json({"type": "join", "game": gid, "token": tok})
        frame(ws)
        ws.send_json({"type": "move", "move": "c1-c5"})
        assert frame(ws)["clock"]["running"] == "g"
        clock.ms += 30_001  # Gold's 30 s are gone; nobody sends anything
        st = frame(ws)  # the server's flag loop ends the game
        assert st["state"] == "over" and st["winner"] == "b"
        assert st["ended"] == {"reason": "time", "winner": "b"}
        assert st["last"] == {"kind": "end", "side": "g", "reason": "time"}
        assert st["clock"]["g"] == 0 and st["clock"]["running"] is None
        ws.send_json({"type": "move", "move": "b8-b5"})
        assert ws.receive_json()["code"] == "over"
    text = client.get(f"/api/games/{gid}/record").text
    assert "(time" in text and "Black" in text


def test_a_move_after_the_flag_fell_is_refused_and_the_flag_stored(db: str, clock: FakeTime,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(web_flags, "FLAG_TICK_S", 3600.0)  # the loop sleeps: the move comes first
    with TestClient(create_app(db, workers=0)) as client:
        gid, tok = hotseat(client, initial=30, increment=0)
        with client.websocket_connect("/ws") as ws:
            ws.send_json({"type": "join", "game": gid, "token": tok})
            frame(ws)
            ws.send_json({"type": "move", "move": "c1-c5"})
            frame(ws)
            clock.ms += 31_000
            ws.send_json({"type": "move", "move": "b8-b5"})
            st = frame(ws)  # everyone hears of the flag ...
            assert st["ended"] == {"reason": "time", "winner": "b"}
            err = ws.receive_json()  # ... and the late mover why the move was not taken
            assert err["type"] == "error" and err["code"] == "time"


def test_a_restart_is_not_charged_and_games_nobody_has_open_still_flag(db: str, clock: FakeTime) -> None:
    with TestClient(create_app(db, workers=0)) as client:
        gid, tok = hotseat(client, initial=60, increment=0)
        with client.websocket_connect("/ws") as ws:
            ws.send_json({"type": "join", "game": gid, "token": tok})
            frame(ws)
            ws.send_json({"type": "move", "move": "c1-c5"})
            frame(ws)
            clock.ms += 5_000
            ws.send_json({"type": "move", "move": "b8-b5"})
            assert frame(ws)["clock"]["g"] == 55_000
        clock.ms += 2_000  # Black thinks 2 s; then the server stops
    clock.ms += 20_000  # down for 20 s: nobody could move
    with TestClient(create_app(db, workers=0)) as client, client.websocket_connect("/ws") as ws:
        ws.send_json({"type": "join", "game": gid})
        st = frame(ws)  # Black was charged the 2 s it could move, not the 20 s it could not
        assert (st["clock"]["b"], st["clock"]["g"], st["clock"]["running"]) == (58_000, 55_000, "b")
        clock.ms += 3_000  # and its clock runs again from the start-up
        ws.send_json({"type": "join", "game": gid})
        assert frame(ws)["clock"]["b"] == 55_000
    # a server runs (no time away: a restart at once) while Black's time runs
    # out with nobody connected: the flag falls all the same
    with TestClient(create_app(db, workers=0)) as client:
        clock.ms += 55_001
        deadline = _time.monotonic() + 10
        while client.app.state.hub.store.load(gid)[0].state != "over":  # type: ignore[attr-defined]
            assert _time.monotonic() < deadline, "the overdue game was never flagged"
            _time.sleep(0.1)
        with client.websocket_connect("/ws") as ws:
            ws.send_json({"type": "join", "game": gid})
            assert frame(ws)["ended"] == {"reason": "time", "winner": "g"}


def test_resign_and_abort(client: TestClient, clock: FakeTime) -> None:
    gid, tok = hotseat(client)
    with client.websocket_connect("/ws") as ws:
        ws.send_json({"type": "join", "game": gid, "token": tok})
        frame(ws)
        ws.send_json({"type": "move", "move": "c1-c5"})
        frame(ws)
        ws.send_json({"type": "move", "move": "b8-b5"})
        frame(ws)
        ws.send_json({"type": "abort"})  # both sides have moved: too late to abort
        err = ws.receive_json()
        assert err["code"] == "illegal" and "resign instead" in err["message"]
        ws.send_json({"type": "resign", "seq": 2})  # hotseat: the side to move (Black) resigns
        st = frame(ws)
        assert st["state"] == "over" and st["ended"] == {"reason": "resignation", "winner": "g"}
        assert st["to_act"] is None and st["legal"] == {}
    assert "resign" in client.get(f"/api/games/{gid}/record").text
    gid2, tok2 = hotseat(client)
    with client.websocket_connect("/ws") as ws:
        ws.send_json({"type": "join", "game": gid2})
        frame(ws)
        ws.send_json({"type": "abort"})
        assert ws.receive_json()["code"] == "not_your_turn"  # a spectator cannot
        ws.send_json({"type": "join", "game": gid2, "token": tok2})
        frame(ws)
        ws.send_json({"type": "abort"})
        st = frame(ws)
        assert st["state"] == "over" and st["ended"] == {"reason": "abort", "winner": None}


# -- outages: a player's time runs only while a server can take the move -------------


def legal_move(st: dict[str, Any]) -> str:
    """A legal move of a state frame."""
    frm = sorted(st["legal"])[0]
    return f"{frm}-{st['legal'][frm][0]}"


def setting(store: Any, name: str) -> str | None:
    """A ``settings`` row of the store (``None``: not there)."""
    value: str | None = store.setting(name, lambda: "missing")
    return None if value == "missing" else value


def until(pred: Any, what: str) -> None:
    """Wait for the server's own loop (real time, bounded) to get somewhere."""
    deadline = _time.monotonic() + 10
    while not pred():
        assert _time.monotonic() < deadline, what
        _time.sleep(0.02)


def test_a_store_outage_is_given_back_and_no_flag_falls_meanwhile(db: str, clock: FakeTime) -> None:
    # Black has 58 s left when the store goes down for 70 s: nothing is
    # charged meanwhile, no flag falls (in memory or once it is back), and
    # Black's clock goes on from 58 s once the store answers again
    from tests.test_web_outage import FlakyStore

    store = FlakyStore(db)
    with TestClient(create_app(store, workers=0)) as client:
        hub = client.app.state.hub  # type: ignore[attr-defined]
        gid, tok = hotseat(client, initial=60, increment=0)
        with client.websocket_connect("/ws") as ws:
            ws.send_json({"type": "join", "game": gid, "token": tok})
            frame(ws)
            ws.send_json({"type": "move", "move": "c1-c5"})
            frame(ws)
            clock.ms += 5_000
            ws.send_json({"type": "move", "move": "b8-b5"})
            st = frame(ws)
            assert st["clock"]["g"] == 55_000
            black = legal_move(st)
            clock.ms += 2_000  # Black thinks 2 s, and a server says so in the store
            until(lambda: setting(store, "alive") == str(clock.ms), "no server said it was alive")
            store.down = True
            until(lambda: not hub.flags.live, "the server never saw the store fail")
            clock.ms += 70_000  # longer than Black's time left
            ws.send_json({"type": "move", "move": black})
            err = ws.receive_json()
            assert (err["type"], err["code"]) == ("error", "storage")
            _time.sleep(0.5)  # several rounds of the flag loop, in memory: none falls
            ws.send_json({"type": "ping"})
            assert ws.receive_json()["type"] == "pong"  # no state frame came before it
            store.down = False
            st = frame(ws)  # back: the clocks as they were when the store went down
            assert (st["state"], st["clock"]["b"], st["clock"]["g"], st["clock"]["running"]) == (
                "playing", 58_000, 55_000, "b")
            stored = store.load(gid)
            assert stored is not None and stored[0].clock_deadline == clock.ms + 58_000
            clock.ms += 1_000
            ws.send_json({"type": "move", "move": black, "seq": 2})
            st = frame(ws)
            assert (st["seq"], st["clock"]["b"], st["clock"]["running"]) == (3, 57_000, "g")
        assert setting(store, "clocks_moved") == str(clock.ms - 1_000)  # when it was given back


def test_a_move_as_the_store_comes_back_is_charged_only_its_own_time(db: str, clock: FakeTime,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # the flag loop sleeps (no beat of its own): the first move after the
    # outage finds the store back, has the outage given back first, then is
    # charged only the time Black could move (a server said it reached the
    # store every second until it went down: here, when it went down)
    from tests.test_web_outage import FlakyStore

    store = FlakyStore(db)
    with TestClient(create_app(store, workers=0)) as client:
        hub = client.app.state.hub  # type: ignore[attr-defined]
        gid, tok = hotseat(client, initial=60, increment=0)
        with client.websocket_connect("/ws") as ws:
            ws.send_json({"type": "join", "game": gid, "token": tok})
            frame(ws)
            ws.send_json({"type": "move", "move": "c1-c5"})
            frame(ws)
            clock.ms += 5_000
            ws.send_json({"type": "move", "move": "b8-b5"})
            black = legal_move(frame(ws))
            clock.ms += 2_000  # Black thinks 2 s, and a server says so in the store
            until(lambda: setting(store, "alive") == str(clock.ms), "no server said it was alive")
            # from its next round on the loop sleeps for good: wait until it does
            asleep = threading.Event()
            real_sleep = asyncio.sleep

            async def for_good(delay: float, *args: Any) -> Any:
                asleep.set()
                return await real_sleep(3600.0, *args)

            looped = types.SimpleNamespace(**{**vars(asyncio), "sleep": for_good})
            monkeypatch.setattr(web_flags, "asyncio", looped)
            assert asleep.wait(60), "the flag loop did not start its next round"
            store.down = True
            ws.send_json({"type": "move", "move": black, "seq": 2})  # refused: the store is down
            assert ws.receive_json()["code"] == "storage"
            assert not hub.flags.live
            clock.ms += 30_000
            store.down = False  # back, and Black's move comes at once
            ws.send_json({"type": "move", "move": black, "seq": 2})
            st = frame(ws)
            while st["seq"] < 3:  # (the clock given back may be shown first)
                st = frame(ws)
            # Black was charged its 2 s up to the store's last answer, not
            # the 30 s it could not move (without the beat first: 28 s)
            assert (st["clock"]["b"], st["clock"]["g"], st["clock"]["running"]) == (58_000, 55_000, "g")
