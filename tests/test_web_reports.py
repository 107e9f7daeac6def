"""Game reports over HTTP (docs/web.md, "Game reports"): asked for once,
made by the server's workers in slices, stored, read; a rated game's made
when it ends; an unfinished game's refused.  A real server (Starlette's
test client) with a process pool of one worker and its database."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from starlette.testclient import TestClient

from kamisado.rules import record
from kamisado.rules.match import Match
from kamisado.web.site.server import create_app
from kamisado.web.store.schema import GameRow, reports
from kamisado.web.store.storage import Store, new_id
from tests.test_web_controls import (
    a_move,
    browser,
    close_all,
    online_pair,
    open_ws,
    sign_up,
    state,
)

#: Gold to move wins in 3; g8-a2 throws the win away and Black wins (tests/test_engine_report.py).
WON = "obu1yrgn/8/8/P7/8/3p3U/8/NGRY2BO g g 1 0 0"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(str(tmp_path / "games.db"), workers=1)) as c:
        reporter = c.app.state.hub.reporter  # type: ignore[attr-defined]
        reporter.nodes, reporter.solve_nodes = 2_000, 20_000  # small budgets: quick
        c.get("/")
        try:
            yield c
        finally:
            close_all()


def upload(client: TestClient, tokens: list[str], start: str = WON) -> str:
    """A finished game from a record; its id."""
    m = Match(1, start=start)
    for token in tokens:
        m.apply(token)
    text = record.write(record.Record.new(m, black="Ann", gold="Bo"))
    r = client.post("/api/records", content=text.encode())
    assert r.status_code == 200, r.text
    game_id: str = r.json()["id"]
    return game_id


def until_made(client: TestClient, game_id: str, limit: int = 600) -> dict[str, Any]:
    """The report once its state is ``done`` (asked every 0.1 s: the state, not a time budget)."""
    seen: list[tuple[str, int, int]] = []
    for _ in range(limit):
        got: dict[str, Any] = client.get(f"/api/games/{game_id}/report").json()
        seen.append((got["state"], got["done"], got["total"]))
        if got["state"] in ("done", "failed"):
            return got
        time.sleep(0.1)
    raise AssertionError(f"the report was never made: {seen[-3:]}")


def stored(client: TestClient, game_id: str) -> list[dict[str, Any]]:
    engine = client.app.state.hub.store.engine  # type: ignore[attr-defined]
    with engine.connect() as conn:
        return [dict(r) for r in conn.execute(sa.select(reports).where(reports.c.game_id == game_id)).mappings()]


def test_a_report_is_asked_made_stored_and_read(client: TestClient) -> None:
    game_id = upload(client, ["g8-a2", "h3-d7", "d7-d8"])
    assert client.get(f"/api/games/{game_id}/report").json()["state"] == "none"
    assert client.get(f"/api/games/{game_id}/steps").json()["over"] is True
    r = client.post(f"/api/games/{game_id}/report")
    assert r.status_code == 202
    asked = r.json()
    assert asked["queued"] is True and asked["state"] in ("queued", "running", "done")
    assert asked["total"] == 4  # the start and the position after each move
    got = until_made(client, game_id)
    assert (got["state"], got["done"], got["total"], got["auto"]) == ("done", 4, 4, False)
    rep = got["report"]
    black, gold = rep["sides"]
    assert (gold["side"], gold["moves"], gold["blunders"], gold["mistakes"], gold["accuracy"]) == ("g", 1, 1, 0, 0.0)
    assert (black["side"], black["moves"], black["blunders"], black["accuracy"]) == ("b", 2, 0, 100.0)
    first = rep["entries"][0]
    assert (first["ply"], first["step"], first["move"], first["side"], first["kind"], first["mark"], first["lost"]) == (
        1, 1, "g8-a2", "g", "blunder", "??", 3)
    # a marked move is worded as the move list words it; the others carry no words
    assert [(e["long"], e["kind"], e["move"]) for e in first["entries"]] == [("Green Right 6 Purple", "move", "g8-a2")]
    assert all("entries" not in e for e in rep["entries"][1:])
    assert rep["nodes"] == {"solve": 20_000, "search": 2_000}
    # stored in the database, the looks let go once done
    (row,) = stored(client, game_id)
    assert row["state"] == "done" and row["looks"] is None and row["owner"] is None
    assert '"blunders": 1' in row["report"]


def test_a_second_ask_does_not_make_it_twice(client: TestClient) -> None:
    game_id = upload(client, ["g8-a2", "h3-d7", "d7-d8"])
    reporter = client.app.state.hub.reporter  # type: ignore[attr-defined]
    assert client.post(f"/api/games/{game_id}/report").status_code == 202
    again = client.post(f"/api/games/{game_id}/report")  # while queued or running
    assert again.status_code == 200 and again.json()["queued"] is False
    first = until_made(client, game_id)
    # the reporter counts the report once its store call returned, which may
    # come after the page read "done" (a busy machine): wait for the count
    for _ in range(600):
        if reporter.made:
            break
        time.sleep(0.1)
    made, slices = reporter.made, reporter.slices
    assert made == 1
    late = client.post(f"/api/games/{game_id}/report")  # once done
    assert late.status_code == 200 and late.json()["queued"] is False
    assert late.json()["report"] == first["report"]
    # nothing more runs: the reporter looks again and finds nothing to make
    assert client.portal.call(reporter.make_one) is False  # type: ignore[union-attr]
    assert (reporter.made, reporter.slices) == (made, slices)
    assert len(stored(client, game_id)) == 1


def test_an_unfinished_game_is_refused_clearly_and_nothing_is_stored(client: TestClient) -> None:
    g = client.post("/api/games", json={"black": "human", "gold": "human"}).json()
    r = client.post(f"/api/games/{g['id']}/report")
    assert r.status_code == 409
    assert r.json()["error"] == "the game is not over: a report is made of a finished game"
    assert stored(client, g["id"]) == []
    assert client.get(f"/api/games/{g['id']}/report").json()["state"] == "none"
    assert client.get(f"/api/games/{g['id']}/steps").json()["over"] is False  # the review offers no report
    missing = client.post("/api/games/nosuchgame/report")
    assert missing.status_code == 404 and "nosuchgame" in missing.json()["error"]


def test_a_finished_rated_game_gets_its_report_when_the_worker_is_free(client: TestClient) -> None:
    bob = browser(client)
    sign_up(client, "ann")
    sign_up(bob, "bob")
    game_id, wb, wg, st = online_pair(client, bob, rated=True, clock={"initial": 180, "increment": 2})
    for ws in (wb, wg, wb, wg):
        ws.send_json({"type": "move", "move": a_move(st), "seq": st["seq"]})
        st = state(ws)
        st = state(wg if ws is wb else wb)
    wb.send_json({"type": "resign"})
    assert state(wb)["state"] == "over"
    got = until_made(client, game_id)
    assert got["state"] == "done" and got["auto"] is True
    assert got["total"] == 5 and sum(s["moves"] for s in got["report"]["sides"]) == 4
    # an unrated game's end asks for nothing
    casual, wb2, _, st2 = online_pair(client, bob)
    wb2.send_json({"type": "move", "move": a_move(st2), "seq": st2["seq"]})
    state(wb2)
    wb2.send_json({"type": "resign"})
    assert state(wb2)["state"] == "over"
    assert client.get(f"/api/games/{casual}/report").json()["state"] == "none"


def test_a_rated_games_report_is_queued_by_the_first_page_that_asks(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    # the page that reads the report before the game's end queued it follows it too
    # (it was left on "Analyse this game"): the read queues it, once
    reporter = client.app.state.hub.reporter  # type: ignore[attr-defined]
    monkeypatch.setattr(reporter, "auto", lambda game: None)  # the end's queueing not done yet
    bob = browser(client)
    sign_up(client, "ann")
    sign_up(bob, "bob")
    game_id, wb, wg, st = online_pair(client, bob, rated=True, clock={"initial": 180, "increment": 2})
    wb.send_json({"type": "move", "move": a_move(st), "seq": st["seq"]})
    state(wb)
    wb.send_json({"type": "resign"})
    assert state(wb)["state"] == "over"
    first = client.get(f"/api/games/{game_id}/report").json()
    assert first["state"] in ("queued", "running", "done") and first["auto"] is True
    assert bob.get(f"/api/games/{game_id}/report").json()["auto"] is True
    assert len(stored(client, game_id)) == 1
    assert until_made(bob, game_id)["state"] == "done"


def test_a_game_without_moves_has_no_report(client: TestClient) -> None:
    bob = browser(client)
    sign_up(client, "ann")
    sign_up(bob, "bob")
    game_id, wb, _, _ = online_pair(client, bob, rated=True, clock={"initial": 180, "increment": 2})
    wb.send_json({"type": "abort"})
    assert state(wb)["state"] == "over"
    assert client.get(f"/api/games/{game_id}/report").json()["state"] == "empty"
    r = client.post(f"/api/games/{game_id}/report")
    assert r.status_code == 409 and r.json()["error"] == "the game has no moves: there is nothing to report"
    assert stored(client, game_id) == []


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    url = str(tmp_path / "games.sqlite3") if request.param == "sqlite" else request.getfixturevalue("pg_url")
    s = Store(url)
    yield s
    s.close()


def taken(store: Store, owner: str, until: int, now: int) -> list[str]:
    """Every report ``owner`` takes at ``now`` (one call a report, until none is left)."""
    ids: list[str] = []
    while (row := store.take_report(owner, until, now)) is not None:
        ids.append(row["game_id"])
    return ids


def test_one_process_makes_a_report_and_another_takes_over_where_it_stopped(store: Store) -> None:
    game = new_id()
    store.create(GameRow(id=game))
    assert store.ask_report(game, 4, True, -1.0) is True
    assert store.ask_report(game, 4, False, 0.0) is False  # asked already: nothing more queued
    row = store.take_report("procA", 1_000, 0)
    assert row is not None and (row["game_id"], row["state"], row["owner"]) == (game, "running", "procA")
    assert game not in taken(store, "procB", 2_000, 500)  # A's lease still runs
    looks = "[[1, 3, null, null], [0, 2, null, null]]"
    assert store.report_progress(game, "procA", 2, looks, 1_000) is True
    assert store.report_progress(game, "procB", 2, looks, 2_000) is False  # not B's
    # A falls silent: once its lease ran out, B takes the report with what A had done
    assert game in taken(store, "procB", 9_000, 1_500)
    row = store.report_of(game)
    assert row is not None and (row["owner"], row["done"], row["looks"]) == ("procB", 2, looks)
    assert store.finish_report(game, "procA", "{}", None, 2.0) is False  # A lost it
    assert store.finish_report(game, "procB", '{"sides": []}', None, 2.0) is True
    row = store.report_of(game)
    assert row is not None and (row["state"], row["report"], row["looks"], row["owner"]) == (
        "done", '{"sides": []}', None, None)
    assert store.ask_report(game, 4, False, 3.0) is False  # done: kept as it is


def test_a_failed_report_says_why_and_can_be_asked_again(store: Store) -> None:
    game = new_id()
    store.create(GameRow(id=game))
    assert store.ask_report(game, 3, False, -1.0)
    assert game in taken(store, "procA", 1_000, 0)
    assert store.finish_report(game, "procA", None, "the engine is unavailable", 1.0)
    row = store.report_of(game)
    assert row is not None and (row["state"], row["error"]) == ("failed", "the engine is unavailable")
    assert store.ask_report(game, 3, False, 2.0) is True
    row = store.report_of(game)
    assert row is not None and (row["state"], row["error"], row["done"]) == ("queued", None, 0)
    assert game in taken(store, "procB", 1_000, 0)
    assert store.finish_report(game, "procB", "{}", None, 3.0)


def test_a_report_waits_while_the_computer_thinks_about_a_move(client: TestClient) -> None:
    # Black is the computer, pausing 3 s before each move (as a game's delay does):
    # it is thinking from the moment Gold joins until its move is stored
    g = client.post("/api/games", json={"black": "beginner", "gold": "human", "delay": 3}).json()
    ws = open_ws(client, g["id"], g["tokens"]["g"])
    assert state(ws)["seq"] == 0
    finished = upload(client, ["g8-a2", "h3-d7", "d7-d8"])
    assert client.post(f"/api/games/{finished}/report").status_code == 202
    got = until_made(client, finished)  # one slice: a fraction of a second on its own
    assert got["state"] == "done"
    # it was made only once the computer's move was stored, not during the 3 s
    steps = client.get(f"/api/games/{g['id']}/steps").json()["steps"]
    assert len(steps) >= 2 and steps[1]["move"] is not None
