"""The page offline and the page's engine, in the server (issue 30, items 3
and 4): the manifest and the service worker as served, the cache's version
derived from the files' contents, and the ``computer_move`` frame, by which
a page that runs the engine plays the computer's moves of its own game
against the computer.  Each :class:`TestClient` is a browser with its own
cookie."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from kamisado.web.basics.messages import ComputerMoveMsg, ProtocolError, parse
from kamisado.web.site import offline
from kamisado.web.site.server import create_app
from kamisado.web.store.storage import Store
from tests.test_web_controls import error, state, until

OPEN: list[Any] = []


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    # no process pool: the server never thinks, so every computer move here is the page's
    with TestClient(create_app(str(tmp_path / "games.db"), workers=0)) as c:
        c.get("/")
        try:
            yield c
        finally:
            while OPEN:
                with contextlib.suppress(Exception):
                    OPEN.pop().__exit__(None, None, None)


def browser(first: TestClient) -> TestClient:
    """Another browser on the same server."""
    other = TestClient(first.app)
    other.portal = first.portal
    other.get("/")
    return other




def join(client: TestClient, game: str, thinks: bool = True, token: str | None = None) -> Any:
    ws = client.websocket_connect("/ws").__enter__()
    OPEN.append(ws)
    ws.send_json({"type": "join", "game": game, "thinks": thinks, **({"token": token} if token else {})})
    return ws


def create(client: TestClient, **body: Any) -> str:
    r = client.post("/api/games", json=body)
    assert r.status_code == 200, r.text
    game: str = r.json()["id"]
    return game


def stored(client: TestClient, game: str) -> list[str]:
    """The game's actions as the database holds them (read from it, not from the game in memory)."""
    store: Store = client.app.state.hub.store  # type: ignore[attr-defined]
    found = store.load(game)
    assert found is not None
    return found[1]


# -- the manifest and the service worker ------------------------------------------------


def test_the_manifest_and_the_worker_are_served_with_their_types(client: TestClient) -> None:
    m = client.get("/manifest.webmanifest")
    assert m.headers["content-type"] == "application/manifest+json"
    icons = m.json()["icons"]
    for icon in icons:
        r = client.get(icon["src"])
        assert r.status_code == 200 and r.headers["content-type"] == "image/png"
        size = int(icon["sizes"].split("x")[0])
        assert r.content[16:24] == size.to_bytes(4, "big") * 2  # the PNG's IHDR: width, height
    sw = client.get("/sw.js")
    assert sw.headers["content-type"].startswith("text/javascript")
    assert sw.headers["cache-control"] == "no-cache"
    assert "__VERSION__" not in sw.text and "__PRECACHE__" not in sw.text
    urls = json.loads(sw.text.split("const PRECACHE = ", 1)[1].split(";\n", 1)[0])
    assert urls == list(offline.precached())
    # the page, every module it loads, the languages, the icons, the lessons with their positions
    for must in ("/", "/static/style.css", "/static/js/main.js", "/static/js/views/game.js",
                 "/static/i18n/hu.json", "/static/icons/maskable-512.png", "/api/lessons?lang=de"):
        assert must in urls
    for url in urls:  # each one answers, so the worker's install fills the whole cache
        assert client.get(url).status_code == 200, url
    # the lessons' positions, in one answer, each as its own /api/position URL answers
    found = client.get("/api/offline/positions").json()
    assert len(found) > 50
    lessons = client.get("/api/lessons?lang=en").json()
    step = next(s for lesson in lessons for s in lesson["steps"] if s.get("move"))
    for url in (offline.position_url(step["kpn"]), offline.position_url(step["kpn"], step["move"])):
        assert found[url] == client.get(url).json()


def test_the_cache_version_follows_the_files_contents(tmp_path: Path) -> None:
    from kamisado.web.site.pages import STATIC

    urls = ("/", "/static/style.css", "/static/js/main.js")
    copy = tmp_path / "static"
    for rel in ("style.css", "js/main.js", "sw.js"):
        (copy / rel).parent.mkdir(parents=True, exist_ok=True)
        (copy / rel).write_bytes((STATIC / rel).read_bytes())
    before = offline.version_of(copy, urls)
    assert before == offline.version_of(copy, urls)  # the same files: the same version
    (copy / "js/main.js").write_bytes((copy / "js/main.js").read_bytes() + b"\n// a deploy\n")
    after = offline.version_of(copy, urls)
    assert after != before and len(after) == 16
    assert offline.version_of(STATIC, offline.precached()) == offline.cache_version()


# -- the computer's move from the page ---------------------------------------------------


def test_parse_reads_the_computer_move_frame() -> None:
    assert parse('{"type": "computer_move", "direction": "left", "seq": 9}') == ComputerMoveMsg("left", 9)
    assert parse('{"type": "join", "game": "g1", "thinks": true}').thinks is True  # type: ignore[union-attr]
    for bad, says in [
        ('{"type": "computer_move", "move": "a1-a4"}', "missing field 'seq'"),
        ('{"type": "computer_move", "seq": 1}', "one of the fields 'move'"),
        ('{"type": "computer_move", "move": "a1-a4", "direction": "left", "seq": 1}', "one of the fields"),
        ('{"type": "computer_move", "move": "a1a4", "seq": 1}', "square form"),
        ('{"type": "computer_move", "direction": "up", "seq": 1}', "'left' or 'right'"),
        ('{"type": "computer_move", "move": "a1-a4", "seq": -1}', "seq >= 0"),
        ('{"type": "join", "game": "g1", "thinks": "yes"}', "thinks to be bool"),
    ]:
        with pytest.raises(ProtocolError, match=says):
            parse(bad)


def test_the_page_plays_the_computers_moves_of_its_own_game(client: TestClient) -> None:
    game = create(client, black="human", gold="club")
    ws = join(client, game)
    st = state(ws)
    assert st["you"] == ["b"]
    ws.send_json({"type": "move", "move": "a1-a4", "seq": 0})
    st = state(ws)
    assert st["turn"] == "g" and st["seq"] == 1 and st["thinking"]  # waiting for the page
    ws.send_json({"type": "computer_move", "move": "e8-e5", "seq": 1})
    st = state(ws)  # the acknowledgement: the new state, once stored
    assert st["seq"] == 2 and st["turn"] == "b" and not st["thinking"]
    assert stored(client, game) == ["a1-a4", "e8-e5"]
    ws.send_json({"type": "move", "move": "a4-e8", "seq": 2})  # Black wins the round
    st = state(ws)
    assert st["state"] == "over"


def test_a_fill_of_the_computer_comes_from_the_page_too(client: TestClient) -> None:
    game = create(client, black="club", gold="human", target=3)
    ws = join(client, game)
    state(ws)
    ws.send_json({"type": "computer_move", "move": "a1-a4", "seq": 0})  # the computer opens
    state(ws)
    ws.send_json({"type": "move", "move": "e8-e5", "seq": 1})
    state(ws)
    ws.send_json({"type": "computer_move", "move": "a4-e8", "seq": 2})
    st = state(ws)
    assert st["state"] == "fill" and st["points"] == [1, 0]
    ws.send_json({"type": "computer_move", "move": "a1-a2", "seq": 3})  # a move where a fill is due
    assert "fill left or right" in error(ws)["message"]
    ws.send_json({"type": "computer_move", "direction": "right", "seq": 3})
    st = state(ws)
    assert st["state"] == "playing" and st["seq"] == 4
    assert stored(client, game)[-1] == "right"


def test_the_computer_move_is_refused_everywhere_else(client: TestClient) -> None:
    computer = create(client, black="human", gold="club")
    ws = join(client, computer)
    state(ws)
    # the person's own turn: the frame is no way to move for the person
    ws.send_json({"type": "computer_move", "move": "a1-a4", "seq": 0})
    assert error(ws)["code"] == "not_your_turn"
    ws.send_json({"type": "move", "move": "a1-a4", "seq": 0})
    state(ws)
    for frame, code in [({"move": "e8-e5", "seq": 0}, "stale"),  # an old position
                        ({"move": "e8-e1", "seq": 1}, "illegal")]:  # the rules, as for any move
        ws.send_json({"type": "computer_move", **frame})
        assert error(ws)["code"] == code
    # a spectator of that game (another browser) may not move for its computer
    spectator = join(browser(client), computer)
    state(spectator)
    spectator.send_json({"type": "computer_move", "move": "e8-e5", "seq": 1})
    assert error(spectator)["code"] == "not_allowed"
    # in a hotseat game (both seats people) and between two computers: never
    for body in ({"black": "human", "gold": "human"}, {"black": "club", "gold": "novice"}):
        other = create(client, **body)
        w = join(client, other)
        state(w)
        w.send_json({"type": "computer_move", "move": "a1-a4", "seq": 0})
        assert error(w)["code"] == "not_allowed"
    assert stored(client, computer) == ["a1-a4"]  # nothing refused was stored
    ws.send_json({"type": "computer_move", "move": "e8-e5", "seq": 1})
    assert state(ws)["seq"] == 2


def test_a_move_the_store_refuses_is_never_acknowledged(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    game = create(client, black="human", gold="club")
    ws = join(client, game)
    state(ws)
    ws.send_json({"type": "move", "move": "a1-a4", "seq": 0})
    state(ws)
    store: Store = client.app.state.hub.store  # type: ignore[attr-defined]

    async def refuse(*args: Any, **kw: Any) -> None:
        raise OSError("the disk is full")

    monkeypatch.setattr(store, "append_async", refuse)
    ws.send_json({"type": "computer_move", "move": "e8-e5", "seq": 1})
    assert error(ws)["code"] == "storage"
    monkeypatch.undo()
    assert stored(client, game) == ["a1-a4"]
    ws.send_json({"type": "computer_move", "move": "e8-e5", "seq": 1})  # the page sends it again
    assert state(ws)["seq"] == 2 and stored(client, game) == ["a1-a4", "e8-e5"]


def test_the_server_thinks_when_the_page_sends_nothing(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    hub = client.app.state.hub  # type: ignore[attr-defined]
    computer = hub.computer
    # the server's own thought, run inline (no pool): the level's move, as the pool finds it
    monkeypatch.setattr(computer, "pool", object())

    async def inline(fn: Callable[..., Any], *args: Any, queue: str = "moves") -> Any:
        return fn(*args)

    monkeypatch.setattr(computer, "run_in_pool", inline)
    computer.page_think_s = 0.05
    game = create(client, black="human", gold="beginner")
    ws = join(client, game)
    state(ws)
    ws.send_json({"type": "move", "move": "a1-a4", "seq": 0})
    st = until(ws, lambda m: m["type"] == "state" and m["seq"] == 2)  # no page move came: the server's
    assert st["turn"] == "b" and len(stored(client, game)) == 2
    # a page that does not think (its join said nothing) is not waited for at all
    computer.page_think_s = 3600.0
    other = create(client, black="human", gold="beginner")
    w = join(client, other, thinks=False)
    state(w)
    w.send_json({"type": "move", "move": "a1-a4", "seq": 0})
    assert until(w, lambda m: m["type"] == "state" and m["seq"] == 2)["turn"] == "b"


# -- a game played offline, sent as its actions ------------------------------------------


def test_a_game_played_offline_is_sent_as_a_record_of_its_actions(client: TestClient) -> None:
    data = json.loads((Path(__file__).parent / "data" / "offline_matches.json").read_text())["matches"]
    game = next(g for g in data if g["target"] == 7)  # a Long match: fills, a Sumo tower
    r = client.post("/api/records", json={"target": 7, "series": False, "actions": game["actions"],
                                          "black": "Ann", "gold": "Bob"})
    assert r.status_code == 200, r.text
    sent = r.json()
    assert sent["you"] == ["b", "g"]  # a hotseat game of the sender's
    assert stored(client, sent["id"]) == game["actions"]
    record = client.get(f"/api/games/{sent['id']}/record").text
    assert "Match: Long" in record and "Black: Ann" in record and "Gold: Bob" in record
    assert f"Result: Black {game['points'][0]}, Gold {game['points'][1]} (goal)" in record
    # an unfinished game goes on on the server
    r = client.post("/api/records", json={"target": 3, "actions": ["a1-a4"], "black": "", "gold": ""})
    assert r.status_code == 200 and stored(client, r.json()["id"]) == ["a1-a4"]


@pytest.mark.parametrize(("body", "says"), [
    ({"target": 3, "actions": ["a1-a4", "e8-e1"]}, "record: action 2, e8-e1"),
    ({"target": 3, "actions": ["left"]}, "record: action 1, left"),
    ({"target": 5, "actions": []}, "expected a target of 1, 3, 7 or 15"),
    ({"target": "3", "actions": []}, "expected target to be an integer"),
    ({"target": 3, "actions": "a1-a4"}, "expected actions to be a list"),
    ({"target": 3, "actions": [], "black": "A\nB"}, "names of one line"),
    ([1, 2], "expected a JSON object"),
])
def test_a_bad_offline_game_is_refused_and_nothing_is_stored(client: TestClient, body: Any, says: str) -> None:
    before = client.get("/api/games").json()
    r = client.post("/api/records", json=body)
    assert r.status_code == 400 and says in r.json()["error"]
    assert client.get("/api/games").json() == before


def test_the_offline_puzzle_set_holds_every_puzzle_with_its_answers(client: TestClient) -> None:
    listed = client.get("/api/puzzles?limit=1").json()["total"]
    found = client.get("/api/offline/puzzles?lang=de").json()["puzzles"]
    assert len(found) == listed > 100
    ratings = [p["rating"] for p in found]
    assert ratings == sorted(ratings)  # easiest first, as the list
    one = found[0]
    # as the page gets a puzzle to solve, with what it needs to judge it offline
    shown = client.get(f"/api/puzzles/{one['id']}?lang=de").json()
    assert {k: one[k] for k in shown} == shown
    assert one["accepted"] and one["solution"] and one["solution"][0] in one["accepted"]
    fills = [p for p in found if p["kind"] == "fill"]
    assert fills and all(set(p["accepted"]) <= {"left", "right"} and p["fill"] for p in fills)
    assert "/api/offline/puzzles?lang=hu" in offline.precached()


def test_the_state_frame_gives_the_servers_seed_while_the_computer_is_to_act(client: TestClient) -> None:
    game = create(client, black="human", gold="club")
    ws = join(client, game)
    assert state(ws)["seed"] is None  # the person's turn
    ws.send_json({"type": "move", "move": "a1-a4", "seq": 0})
    st = state(ws)
    row_seed = client.app.state.hub.games[game].row.seed  # type: ignore[attr-defined]
    assert st["seed"] == row_seed + 1  # as worker.computer_action is given it
