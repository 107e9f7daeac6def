"""Text no store can hold (issue 25, item 6): a lone surrogate (``"\\ud800"``
in JSON) or a NUL character in any field is bad input, refused with the
field named (400 over HTTP, a ``malformed`` error frame on the websocket,
which stays open), never a 500 or a 503 "try again", and nothing is stored.
On SQLite and, when ``KAMISADO_TEST_PG`` is set, on PostgreSQL (whose text
refuses NUL too)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from starlette.testclient import TestClient

from kamisado.rules import record
from kamisado.rules.match import Match
from kamisado.web.basics.text import check_storable, unstorable
from kamisado.web.site.server import create_app
from kamisado.web.store.storage import Store, players

SURROGATE = "\ud800"
NUL = "\x00"


@pytest.fixture(params=["sqlite", "postgresql"])
def client(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[TestClient]:
    if request.param == "sqlite":
        url = str(tmp_path / "games.db")
    else:
        url = request.getfixturevalue("pg_url")
    store = Store(url)
    with TestClient(create_app(store, workers=0, limits={})) as c:
        c.get("/")  # a browser: a player and its cookie
        yield c


def post_json(client: TestClient, path: str, body: dict[str, Any]) -> Any:
    # json.dumps writes a lone surrogate as the escape \ud800, as a browser's JSON.stringify does
    return client.post(path, content=json.dumps(body), headers={"Content-Type": "application/json"})


def count(client: TestClient, table: str) -> int:
    store: Store = client.app.state.hub.store  # type: ignore[attr-defined]
    with store.engine.connect() as conn:
        return int(conn.execute(sa.text(f"SELECT count(*) FROM {table}")).scalar_one())


def accounts(client: TestClient) -> int:
    store: Store = client.app.state.hub.store  # type: ignore[attr-defined]
    with store.engine.connect() as conn:
        return int(conn.execute(sa.select(sa.func.count()).where(players.c.account.is_not(None))).scalar_one())


def test_the_field_is_found_anywhere_in_the_json() -> None:
    assert unstorable({"a": "fine", "b": {"c": [1, "x", "y" + NUL]}}) == "b.c[2]"
    assert unstorable({"emoji": "🐉 \U0001f40d", "accents": "Áé"}) is None  # pairs and plain text are text
    assert unstorable({"n": 1, "t": True, "none": None}) is None
    with pytest.raises(ValueError, match=r"^create: gold_name holds a NUL character$"):
        check_storable({"gold_name": "B" + NUL}, "create")
    with pytest.raises(ValueError, match=r"lone surrogate \(\\udfff\)"):
        check_storable({"k": "\udfff"}, "x")


#: (path, the field named, the body with ``{bad}`` where the bad text goes)
HTTP_CASES: list[tuple[str, str, dict[str, Any]]] = [
    ("/api/signup", "account", {"account": "{bad}", "password": "a long password"}),
    ("/api/signup", "password", {"account": "ann_1", "password": "a long password{bad}"}),
    ("/api/signup", "name", {"account": "ann_1", "password": "a long password", "name": "A{bad}"}),
    ("/api/signin", "account", {"account": "ann{bad}", "password": "a long password"}),
    ("/api/signin", "password", {"account": "ann_1", "password": "{bad}"}),
    ("/api/me", "name", {"name": "{bad}"}),
    ("/api/games", "black_name", {"black_name": "An{bad}n"}),
    ("/api/games", "gold_name", {"online": True, "gold_name": "{bad}"}),
    ("/api/games", "black", {"black": "{bad}"}),
    ("/api/games", "clock.days", {"clock": {"days": "{bad}"}}),
]


def test_http_bodies_with_unstorable_text_are_400_naming_the_field(client: TestClient) -> None:
    games, before = count(client, "games"), accounts(client)
    me = client.get("/api/me").json()
    for path, field, body in HTTP_CASES:
        for bad in (SURROGATE, NUL, "x" + SURROGATE + "y"):
            filled = json.loads(json.dumps(body).replace("{bad}", json.dumps(bad)[1:-1]))
            r = post_json(client, path, filled)
            assert r.status_code == 400, (path, filled, r.text)
            error = r.json()["error"]
            what = path.rsplit("/", 1)[-1].replace("games", "create")
            assert error.startswith(f"{what}: {field} holds "), error
            assert ("NUL character" in error) == (bad == NUL), error
    # nothing changed: no game, no account, the same player with the same name
    assert count(client, "games") == games and accounts(client) == before
    assert client.get("/api/me").json() == me


def test_a_record_with_a_nul_is_400_at_its_line_and_column(client: TestClient) -> None:
    m = Match(1)
    m.apply("a1-a4")
    text = record.write(record.Record.new(m, black="An" + NUL + "n", gold="Bo"))
    games = count(client, "games")
    r = client.post("/api/records", content=text.encode())
    assert r.status_code == 400
    assert r.json()["error"] == "record: line 3, column 10 holds a NUL character"
    # a lone surrogate cannot even be sent as UTF-8: bytes that would encode it are not UTF-8
    r = client.post("/api/records", content=text.replace(NUL, "").encode().replace(b"Ann", b"A\xed\xa0\x80n"))
    assert r.status_code == 400 and r.json()["error"] == "expected a UTF-8 text record"
    assert count(client, "games") == games
    assert client.post("/api/records", content=text.replace(NUL, "").encode()).status_code == 200


def test_ids_in_the_path_with_unstorable_text_are_404(client: TestClient) -> None:
    for path in ("/api/games/ab%00cd/record", "/api/games/ab%00cd/steps", "/game/ab%00cd",
                 "/api/players/ab%00cd"):
        r = client.get(path)
        assert r.status_code == 404, (path, r.text)


@pytest.mark.parametrize("bad", [SURROGATE, NUL])
def test_websocket_frames_with_unstorable_text_are_malformed_and_the_connection_stays(
    client: TestClient, bad: str
) -> None:
    made = post_json(client, "/api/games", {"online": True}).json()
    games = count(client, "games")
    frames = [
        ({"type": "create", "black_name": "A" + bad}, "create: black_name"),
        ({"type": "create", "gold": bad}, "create: gold"),
        ({"type": "join", "game": made["id"], "token": bad}, "join: token"),
        ({"type": "join", "game": made["id"] + bad}, "join: game"),
        ({"type": "move", "move": "c1-c5" + bad}, "move: move"),
        ({"type": "challenge", "color": bad}, "challenge: color"),
        ({"type": "accept", "challenge": bad}, "accept: challenge"),
        ({"type": "takeback", "action": bad}, "takeback: action"),
        ({"type": bad}, "frame: type"),
        ({"type": "ping", bad: 1}, "ping: \\u"),
    ]
    with client.websocket_connect("/ws") as ws:
        for frame, named in frames:
            ws.send_text(json.dumps(frame))
            answer = ws.receive_json()
            assert answer["type"] == "error" and answer["code"] == "malformed", (frame, answer)
            assert answer["message"].startswith(named), (frame, answer)
            ws.send_json({"type": "ping"})  # the connection stays
            assert ws.receive_json() == {"type": "pong"}
        ws.send_json({"type": "join", "game": made["id"], "token": made["tokens"]["b"]})
        assert ws.receive_json()["type"] == "state"  # and still plays
    assert count(client, "games") == games
