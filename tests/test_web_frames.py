"""The frames the server sends: one type each, and one vocabulary on the wire
(a square by name, a side by letter, a colour by name; docs/web.md)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from kamisado.core import COLOUR_NAMES, SIDE_LETTERS, SQUARE_NAMES, Position
from kamisado.web.messages import CreatedFrame, ErrorFrame, PongFrame, position_view, towers
from kamisado.web.server import create_app

FIG7A = "2b3n1/4U3/5u1B/3o4/1pN2Or1/4y1P1/g7/1G1R3Y g u 3 0 0"

STATE_KEYS = [
    "type", "game", "seq", "name", "target", "series", "online_game", "points", "state",
    "winner", "round", "to_act", "seats", "thinking", "last", "rounds", "fill",
    "kpn", "towers", "turn", "must", "legal", "outcome", "passes", "you",
]


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(str(tmp_path / "games.db"), workers=0)) as c:
        yield c


def check_position(view: dict[str, Any]) -> None:
    """Every square, side and colour in a position view is named the one way."""
    pos = Position(view["kpn"])
    assert view["turn"] in SIDE_LETTERS
    assert view["must"] is None or view["must"] in COLOUR_NAMES
    assert len(view["towers"]) == 16
    for square, side, colour, rings in view["towers"]:
        assert square in SQUARE_NAMES and side in SIDE_LETTERS and colour in COLOUR_NAMES
        tower = SIDE_LETTERS.index(side) * 8 + COLOUR_NAMES.index(colour)
        assert pos.board[SQUARE_NAMES.index(square)] == tower and pos.rings[tower] == rings
    for frm, tos in view["legal"].items():
        assert frm in SQUARE_NAMES and all(to in SQUARE_NAMES for to in tos)
        if view["must"] is not None:  # only the tower that must move has moves
            assert [frm, view["turn"], view["must"]] == [
                t[:3] for t in view["towers"] if t[0] == frm
            ][0]
    for p in view["passes"]:
        assert p["side"] in SIDE_LETTERS and p["colour"] in COLOUR_NAMES
        assert p["square"] in SQUARE_NAMES


def test_towers_name_square_side_and_colour() -> None:
    start = towers(Position())
    assert start[0] == ["a1", "b", "brown", 0] and start[8] == ["h8", "g", "brown", 0]
    assert json.dumps(start[15]) == '["a8", "g", "orange", 0]'
    check_position(dict(position_view(Position(FIG7A))))


def test_the_state_frame_keys_and_vocabulary(client: TestClient) -> None:
    g = client.post("/api/games", json={"target": 3}).json()
    with client.websocket_connect("/ws") as ws:
        ws.send_json({"type": "join", "game": g["id"], "token": g["tokens"]["b"]})
        raw = ws.receive_text()
        st = json.loads(raw)
        assert list(st) == STATE_KEYS and raw.endswith(',"you":["b","g"]}')
        check_position(st)
        frm = "d1"
        ws.send_json({"type": "move", "move": f"{frm}-{st['legal'][frm][0]}", "seq": 0})
        st = json.loads(ws.receive_text())
        assert list(st) == STATE_KEYS and st["must"] in COLOUR_NAMES
        check_position(st)
        assert st["last"]["side"] == "b" and st["rounds"][0]["entries"][-1]["side"] == "b"


def test_every_frame_is_its_type_to_json(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        ws.send_json({"type": "ping"})
        assert ws.receive_text() == PongFrame().to_json() == '{"type":"pong"}'
        ws.send_json({"type": "teleport"})
        assert ws.receive_text() == ErrorFrame(
            "unknown", "unknown message type 'teleport'"
        ).to_json()
        ws.send_json({"type": "create", "gold": "club"})
        created = json.loads(ws.receive_text())
        assert CreatedFrame(created["game"], created["tokens"]).to_json() == json.dumps(created)


def test_steps_and_position_answers_use_the_same_vocabulary(client: TestClient) -> None:
    check_position(client.get("/api/position", params={"kpn": FIG7A}).json())
    g = client.post("/api/games", json={}).json()
    with client.websocket_connect("/ws") as ws:
        ws.send_json({"type": "join", "game": g["id"], "token": g["tokens"]["b"]})
        ws.receive_json()
        ws.send_json({"type": "move", "move": "a1-a4"})
        ws.receive_json()
    steps = client.get(f"/api/games/{g['id']}/steps").json()["steps"]
    assert len(steps) == 2
    for step in steps:
        check_position(step)
