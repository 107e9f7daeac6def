"""A failure that repeats is logged once per interval with a count (issue
25, item 6): :class:`kamisado.web.basics.noise.Repeats` with an injected clock,
and the server's own failures while its store is down (one traceback per
kind of failure, not one per game per second)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from kamisado.web.basics.noise import Repeats
from kamisado.web.site.server import create_app
from tests.test_web_outage import FlakyStore
from tests.waiting import until_async

LOG = logging.getLogger("kamisado.web.test-noise")


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def lines(caplog: pytest.LogCaptureFixture, start: str = "") -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name.startswith("kamisado.web") and r.getMessage().startswith(start)]


def boom(text: str = "the database is down") -> OSError:
    try:
        raise OSError(text)
    except OSError as exc:
        return exc


def test_a_repeating_failure_is_one_traceback_then_a_count(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    clock = Clock()
    repeats = Repeats(LOG, 60.0, clock)
    written = []
    for second in range(45):  # 45 s of failures, 20 games each second
        clock.now = 1000.0 + second
        written += [repeats.failed("could not reload a game", f"g{i}", boom()) for i in range(20)]
    assert written.count(True) == 1
    first, = lines(caplog)
    assert first.getMessage() == "could not reload a game (g0)" and first.exc_info is not None
    assert first.levelno == logging.ERROR
    clock.now = 1059.9
    repeats.flush()
    assert len(lines(caplog)) == 1  # the interval has not ended
    clock.now = 1060.0
    repeats.flush()
    count = lines(caplog)[1]
    assert count.getMessage() == (
        "could not reload a game: 899 more times in 60 s (20 different; last: g19: OSError: the database is down)")
    assert count.exc_info is None
    repeats.flush()
    assert len(lines(caplog)) == 2  # said once
    # the streak goes on: one line, no traceback
    clock.now = 1070.0
    assert repeats.failed("could not reload a game", "g3", boom("still down"))
    going_on = lines(caplog)[2]
    assert going_on.getMessage() == "could not reload a game (g3): OSError: still down (failing since 70 s)"
    assert going_on.exc_info is None
    # another kind of failure is counted apart
    assert repeats.failed("checking the clocks failed", None, boom())
    assert lines(caplog)[3].getMessage() == "checking the clocks failed"
    # quiet for longer than the interval: the next failure is a new streak, with its traceback
    clock.now = 1300.0
    repeats.flush()
    assert repeats.failed("could not reload a game", "g1", boom())
    assert lines(caplog)[-1].exc_info is not None and lines(caplog)[-1].getMessage() == "could not reload a game (g1)"


def test_a_refusal_is_one_line_at_its_level(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    repeats = Repeats(LOG, 60.0, Clock())
    repeats.failed("a flag could not be stored", "g1", ValueError("the store refused it"),
                   level=logging.WARNING, traceback=False)
    record, = lines(caplog)
    assert record.levelno == logging.WARNING and record.exc_info is None
    assert record.getMessage() == "a flag could not be stored (g1): ValueError: the store refused it"


def test_on_an_event_loop_the_count_comes_when_the_interval_ends(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    clock = Clock()
    repeats = Repeats(LOG, 0.05, clock)

    async def run() -> None:
        for i in range(3):
            repeats.failed("could not store an action", f"g{i}", boom())
        clock.now += 1.0
        # the interval's timer (0.06 s of the loop's own time) writes the count: no failure needed
        await until_async(lambda: len(lines(caplog)) >= 2, "the count when the interval ends")

    asyncio.run(run())
    assert [r.getMessage() for r in lines(caplog)][1].startswith(
        "could not store an action: 2 more times in 0.05 s (3 different;")


@pytest.fixture
def flaky(tmp_path: Path) -> Iterator[tuple[TestClient, FlakyStore]]:
    store = FlakyStore(str(tmp_path / "games.db"))
    with TestClient(create_app(store, workers=0, limits={})) as client:
        yield client, store


def test_the_store_down_under_many_games_is_one_traceback_per_kind(
    flaky: tuple[TestClient, FlakyStore], caplog: pytest.LogCaptureFixture
) -> None:
    client, store = flaky
    caplog.set_level(logging.INFO)
    hub = client.app.state.hub  # type: ignore[attr-defined]
    clock = Clock()
    hub.repeats.clock = clock
    games: list[Any] = []
    for _ in range(10):
        made = client.post("/api/games", json={"online": True}).json()
        ws = client.websocket_connect("/ws").__enter__()
        ws.send_json({"type": "join", "game": made["id"], "token": made["tokens"]["b"]})
        assert ws.receive_json()["type"] == "state"
        games.append(ws)
    try:
        store.down = True
        for ws in games:  # every game's move fails: stored nowhere, read back from nowhere
            ws.send_json({"type": "move", "move": "c1-c5", "seq": 0})
            assert ws.receive_json()["code"] == "storage"
        stored = lines(caplog, "could not store an action")
        assert len(stored) == 1 and stored[0].exc_info is not None
        reloads = lines(caplog, "could not reload a game")
        assert len(reloads) == 1 and reloads[0].exc_info is not None
        clock.now += 60.0
        hub.repeats.flush()
        count = lines(caplog, "could not store an action")[-1].getMessage()
        assert count.startswith("could not store an action: 9 more times in 60 s (10 different; last: "), count
        assert "OSError: the database is down" in count
        store.down = False
        games[0].send_json({"type": "move", "move": "c1-c5", "seq": 0})
        assert games[0].receive_json()["seq"] == 1  # the store is back: the game goes on
    finally:
        for ws in games:
            ws.__exit__(None, None, None)
    assert all(r.exc_info is None for r in lines(caplog)[2:] if "more time" in r.getMessage())
