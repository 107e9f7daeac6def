"""Uploaded records are read away from the event loop, within a budget
(issue 40, item 2: :mod:`kamisado.web.play.uploads`, ``pages.upload_record``)."""

from __future__ import annotations

import asyncio
import functools
import multiprocessing
import os
import random
import threading
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from kamisado.rules import record
from kamisado.rules.match import FILL, Match
from kamisado.web.play import uploads
from kamisado.web.play.uploads import ParseBudget
from kamisado.web.site import pages
from kamisado.web.site.server import create_app
from tests.waiting import until

ACTIONS = {"target": 1, "actions": ["a1-a4", "e8-e5"], "black": "Ann", "gold": "Bob"}


def text_record() -> str:
    m = Match(1)
    m.apply("a1-a4")
    return record.write(record.Record.new(m, black="Ann", gold="Bob", date="2026-12-03"))


@pytest.fixture
def app(tmp_path: Path) -> Any:
    return create_app(str(tmp_path / "g.db"), workers=0)


@pytest.fixture
def held(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    """``read_upload`` held until ``release`` is set; ``seen`` has, for each
    call, whether an event loop ran in its thread."""
    state: dict[str, Any] = {"release": threading.Event(), "seen": []}

    def read(raw: bytes, is_json: bool, player: str | None) -> Any:
        try:
            asyncio.get_running_loop()
            state["seen"].append("on a loop")
        except RuntimeError:
            state["seen"].append(threading.current_thread().name)
        assert state["release"].wait(60)
        return uploads.read_upload(raw, is_json, player)

    monkeypatch.setattr(pages, "read_upload", read)
    yield state
    state["release"].set()


def post_in_thread(client: TestClient, out: list[Any], content: str) -> threading.Thread:
    t = threading.Thread(target=lambda: out.append(client.post("/api/records", content=content)))
    t.start()
    return t


def test_upload_text_and_json_and_their_errors(app: Any) -> None:
    with TestClient(app) as client:
        r = client.post("/api/records", content=text_record())
        assert r.status_code == 200, r.text
        steps = client.get(f"/api/games/{r.json()['id']}/steps").json()
        assert steps["seats"] == {"b": "Ann", "g": "Bob"} and steps["steps"][-1]["move"] == "a1-a4"
        r = client.post("/api/records", json=ACTIONS)
        assert r.status_code == 200, r.text
        assert client.get(f"/api/games/{r.json()['id']}/steps").json()["steps"][-1]["move"] == "e8-e5"
        for content, json_body, error in (
            ("not a record", None, "line 1, column 1: expected the title 'Kamisado match record',"
                                   " found 'not a record'"),
            (text_record().replace("Ann", "A\x00nn"), None, "record: line 3, column 9 holds a NUL character"),
            (None, {**ACTIONS, "actions": ["a1-a4", "e8-e1"]}, "record: action 2, e8-e1: "),
            (None, {**ACTIONS, "actions": "a1-a4"}, "record: expected actions to be a list"),
        ):
            r = client.post("/api/records", content=content, json=json_body)
            assert r.status_code == 400 and r.json()["error"].startswith(error), r.text
            # the page says it in its language around the rules' own words
            assert r.json()["code"] == "record_unreadable" and r.json()["args"] == {"detail": r.json()["error"]}
        r = client.post("/api/records", content=b"\xff")
        assert (r.status_code, r.json()["error"]) == (400, "expected a UTF-8 text record")
        assert len(app.state.parses) == 0  # every place given back


def test_one_upload_at_a_time_per_address_and_a_cap_for_all(app: Any, held: dict[str, Any]) -> None:
    with TestClient(app, client=("198.51.100.1", 4000)) as first:
        budget: ParseBudget = app.state.parses
        budget.most = 2
        second = TestClient(app, client=("198.51.100.2", 4000))
        third = TestClient(app, client=("198.51.100.3", 4000))
        second.portal = third.portal = first.portal  # one event loop, as in the server
        answers: list[Any] = []
        a = post_in_thread(first, answers, text_record())
        until(lambda: len(budget) == 1 and held["seen"], "the first upload is being read")
        r = first.post("/api/records", content=text_record())  # the same address again: refused at once
        assert r.status_code == 429 and r.headers["Retry-After"] == "2"
        assert r.json()["error"].startswith("one record at a time from one address or player")
        assert r.json()["code"] == "rate_limited"
        b = post_in_thread(second, answers, text_record())  # another address: taken, waits its turn
        until(lambda: len(budget) == 2, "the second address's upload is taken")
        r = third.post("/api/records", content=text_record())  # over the cap for all: refused at once
        assert r.status_code == 503 and r.headers["Retry-After"] == "5"
        assert "too many records at once" in r.json()["error"] and r.json()["code"] == "unavailable"
        assert answers == []  # nothing answered while the parse is held
        held["release"].set()
        a.join(60)
        b.join(60)
        assert sorted(r.status_code for r in answers) == [200, 200]
        assert len(budget) == 0 and budget.keys == set()
        assert first.post("/api/records", content=text_record()).status_code == 200  # its place is back


def test_the_parse_runs_in_a_thread_without_a_loop_when_there_is_no_pool(
        app: Any, held: dict[str, Any]) -> None:
    held["release"].set()
    with TestClient(app) as client:
        assert client.post("/api/records", content=text_record()).status_code == 200
        assert client.post("/api/records", json=ACTIONS).status_code == 200
    assert len(held["seen"]) == 2 and "on a loop" not in held["seen"]
    assert threading.main_thread().name not in held["seen"]


def test_work_off_the_loop_runs_in_the_pool_when_there_is_one(tmp_path: Path) -> None:
    async def pid(request: Request) -> JSONResponse:
        return JSONResponse({"pid": await pages.off_loop(request, os.getpid)})

    app = create_app(str(tmp_path / "g.db"), workers=1)
    app.router.routes.insert(0, Route("/test/pid", pid))
    with TestClient(app) as client:
        assert app.state.hub.computer.pool is not None
        worker = client.get("/test/pid").json()["pid"]
        assert worker != os.getpid()
        # an upload, read in that process: the game it made comes back and is stored
        r = client.post("/api/records", content=text_record())
        assert r.status_code == 200, r.text
        assert client.get(f"/api/games/{r.json()['id']}/steps").json()["steps"][-1]["move"] == "a1-a4"
        r = client.post("/api/records", json={**ACTIONS, "actions": ["a1-a4", "e8-e1"]})
        assert r.status_code == 400 and r.json()["error"].startswith("record: action 2, e8-e1: ")


def test_a_long_games_steps_and_record_are_worked_out_in_a_thread(
        app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []

    def watched(fn: Any) -> Any:
        def run(*args: Any) -> Any:
            try:
                asyncio.get_running_loop()
                seen.append("on the loop")
            except RuntimeError:
                seen.append("in a thread")
            return fn(*args)
        return run

    monkeypatch.setattr(pages, "steps_view", watched(pages.steps_view))
    monkeypatch.setattr(pages.records, "write", watched(record.write))
    rng = random.Random(7)
    m, actions = Match(15), []
    while len(actions) <= pages.INLINE_ACTIONS:
        action = (rng.choice(["left", "right"]) if m.state == FILL
                  else str(rng.choice(list(m.position.legal_moves))))
        m.apply(action)
        actions.append(action)
    with TestClient(app) as client:
        short = client.post("/api/records", json=ACTIONS).json()["id"]
        long = client.post("/api/records", json={"target": 15, "actions": actions}).json()["id"]
        for game, where in ((short, "on the loop"), (long, "in a thread")):
            seen.clear()
            steps = client.get(f"/api/games/{game}/steps").json()["steps"]
            assert client.get(f"/api/games/{game}/record").status_code == 200
            assert seen == [where, where]
        assert len(steps) > pages.INLINE_ACTIONS and steps[-1]["move"] in actions


def test_without_the_computers_pool_uploads_are_read_one_at_a_time_in_a_process_of_their_own() -> None:
    # a server thinking on a job queue has no pool: the budget's own process reads them
    budget = ParseBudget()
    budget.pool_factory = functools.partial(
        ProcessPoolExecutor, 1, mp_context=multiprocessing.get_context("spawn"))

    async def run() -> tuple[int, Any]:
        try:
            pid = await budget.run_alone(os.getpid)
            built = await budget.run_alone(uploads.read_upload, text_record().encode(), False, "p1")
            return pid, built
        finally:
            budget.close()

    pid, built = asyncio.run(run())
    assert pid != os.getpid() and built.row.black_player == "p1" and built.tokens == ["a1-a4"]
    assert budget.pool is None  # stopped
