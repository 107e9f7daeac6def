"""The frames the server sends: one type each, and one vocabulary on the wire
(a square by name, a side by letter, a colour by name; docs/web.md)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from kamisado.rules import record
from kamisado.rules.board import (
    COLOUR_NAMES,
    SIDE_LETTERS,
    SQUARE_NAMES,
    IllegalMoveError,
    Move,
)
from kamisado.rules.match import Match
from kamisado.rules.position import Position
from kamisado.web.basics.messages import CreatedFrame, ErrorFrame, PongFrame
from kamisado.web.basics.views import move_view, position_view, towers
from kamisado.web.site.server import create_app

FIG7A = "2b3n1/4U3/5u1B/3o4/1pN2Or1/4y1P1/g7/1G1R3Y g u 3 0 0"

STATE_KEYS = [
    "type", "game", "seq", "name", "target", "series", "online_game", "points", "state",
    "winner", "round", "to_act", "seats", "thinking", "last", "rounds", "fill", "clock", "ended",
    "rated", "offer", "declined", "rematch", "claim_after_ms", "takeback", "seed",
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


# -- moves as the page shows them: mover, pushed towers, entries ------------------

#: Figure 9 of the rulebook: Black's Double (green, d4) pushes gold blue (d5)
#: and gold yellow Sumo (d6) back one square each.
FIG9 = "1ng1r+o+1u/8/3y+4/3b2P+1/3G++4/7p/8/N+RY1UB1O b g 7 5 3"


def test_move_view_of_a_plain_move() -> None:
    pos = Position()
    v = move_view(pos, Move.from_str("c1-c5"))
    assert v == {
        "move": "c1-c5",
        "mover": {"side": "b", "colour": "red", "rings": 0},
        "push": False,
        "pushed": [],
        "entries": [
            {"side": "b", "long": "Red Forward 4 Blue", "short": "rF4", "kind": "move",
             "move": "c1-c5"},
        ],
    }
    assert pos.kpn() == Position().kpn() and not pos._stack


def test_move_view_of_a_push_names_each_pushed_tower() -> None:
    pos = Position(FIG9)
    v = move_view(pos, Move.from_str("d4-d5"))
    assert pos.kpn() == Position(FIG9).kpn()  # worked out on the position before
    assert v["mover"] == {"side": "b", "colour": "green", "rings": 2} and v["push"] is True
    assert v["pushed"] == [
        {"side": "g", "colour": "blue", "rings": 0, "from": "d5", "to": "d6"},
        {"side": "g", "colour": "yellow", "rings": 1, "from": "d6", "to": "d7"},
    ]
    assert v["entries"] == [
        {"side": "b", "long": "Green Forward 1 Orange", "short": "gF1", "kind": "move",
         "move": "d4-d5"},
        {"side": "g", "long": "Yellow Back 1 Green", "short": "yB1", "kind": "back",
         "move": None},
    ]
    # the pushed towers stand where the view says once the move is made
    after = towers(pos.copy())
    pos.push_move("d4-d5")
    now = {(t[1], t[2]): t[0] for t in towers(pos)}
    for p in v["pushed"]:
        assert now[(p["side"], p["colour"])] == p["to"]
        assert [p["from"], p["side"], p["colour"], p["rings"]] in after


def test_move_view_of_a_single_sumo_push_and_its_passes() -> None:
    pos = Position("1ngrpboy/8/u+7/R7/8/8/8/NGYPUO1B b o 3 0 1")
    pos.push_move("f1-d3")
    v = move_view(pos, Move.from_str("a6-a5"))
    assert v["mover"] == {"side": "g", "colour": "purple", "rings": 1}
    assert v["pushed"] == [{"side": "b", "colour": "red", "rings": 0, "from": "a5", "to": "a4"}]
    assert [(e["long"], e["kind"], e["move"]) for e in v["entries"]] == [
        ("Purple Forward 1 Pink", "move", "a6-a5"),
        ("Red Back 1 Yellow", "back", None),
    ]


def test_move_view_refuses_an_illegal_move() -> None:
    with pytest.raises(IllegalMoveError):
        move_view(Position(), Move.from_str("c1-c1"))


def _fig9_game(client: TestClient) -> dict[str, Any]:
    text = record.write(record.Record.new(Match(7, start=FIG9), black="Ann", gold="Bo"))
    r = client.post("/api/records", content=text)
    assert r.status_code == 200, r.text
    g: dict[str, Any] = r.json()
    return g


def test_the_last_frame_of_a_push_names_mover_pushed_and_entries(client: TestClient) -> None:
    g = _fig9_game(client)
    with client.websocket_connect("/ws") as ws:
        ws.send_json({"type": "join", "game": g["id"], "token": g["tokens"]["b"]})
        assert ws.receive_json()["last"] is None
        ws.send_json({"type": "move", "move": "d4-d5"})
        st = ws.receive_json()
        last = st["last"]
        assert list(last) == [
            "kind", "side", "move", "push", "mover", "pushed", "entries", "passes", "outcome",
        ]
        assert last["move"] == "d4-d5" and last["push"] is True and last["side"] == "b"
        assert last["mover"] == {"side": "b", "colour": "green", "rings": 2}
        assert [(p["colour"], p["from"], p["to"]) for p in last["pushed"]] == [
            ("blue", "d5", "d6"), ("yellow", "d6", "d7"),
        ]
        assert [e["long"] for e in last["entries"]] == [
            "Green Forward 1 Orange", "Yellow Back 1 Green",
        ]
        assert st["turn"] == "b"  # Gold misses a turn
        check_position(st)
        ws.send_json({"type": "move", "move": "d5-a8"})  # the Double itself wins
        last = ws.receive_json()["last"]
        assert last["push"] is False and last["pushed"] == []
        assert last["mover"] == {"side": "b", "colour": "green", "rings": 2}
        assert [(e["long"], e["move"]) for e in last["entries"]] == [
            ("Green Left 3 Orange", "d5-a8"),
        ]
        assert last["outcome"]["winner"] == "b"


def test_steps_carry_entries_mover_pushed_and_the_match(client: TestClient) -> None:
    g = _fig9_game(client)
    with client.websocket_connect("/ws") as ws:
        ws.send_json({"type": "join", "game": g["id"], "token": g["tokens"]["b"]})
        ws.receive_json()
        for mv in ["d4-d5", "d5-d6"]:
            ws.send_json({"type": "move", "move": mv})
            ws.receive_json()
    data = client.get(f"/api/games/{g['id']}/steps").json()
    assert data["seats"] == {"b": "Ann", "g": "Bo"}
    assert data["target"] == 7 and data["series"] is False and data["points"] == [5, 3]
    assert [e["long"] for e in data["rounds"][0]["entries"]] == [
        "Green Forward 1 Orange", "Yellow Back 1 Green", "Green Forward 1 Red", "Yellow Back 1 Pink",
    ]
    start, first, second = data["steps"]
    assert start["move"] is None and start["mover"] is None and start["push"] is False
    assert start["pushed"] == [] and start["entries"] == []
    assert first["move"] == "d4-d5" and first["push"] is True
    assert first["mover"] == {"side": "b", "colour": "green", "rings": 2}
    assert first["pushed"] == move_view(Position(FIG9), Move.from_str("d4-d5"))["pushed"]
    assert first["entries"] == [
        {"side": "b", "long": "Green Forward 1 Orange", "short": "gF1", "kind": "move",
         "move": "d4-d5"},
        {"side": "g", "long": "Yellow Back 1 Green", "short": "yB1", "kind": "back",
         "move": None},
    ]
    assert [(p["colour"], p["from"], p["to"]) for p in second["pushed"]] == [
        ("blue", "d6", "d7"), ("yellow", "d7", "d8"),
    ]
    for step in data["steps"]:
        check_position(step)


def test_position_answer_gives_the_moves_view(client: TestClient) -> None:
    v = client.get("/api/position", params={"kpn": FIG9, "move": "d4-d5"}).json()
    assert v["push"] is True and v["turn"] == "b"
    assert v["last"] == move_view(Position(FIG9), Move.from_str("d4-d5"))
    assert v["last"]["entries"][1]["long"] == "Yellow Back 1 Green"
    v = client.get("/api/position", params={"kpn": FIG9, "move": "d4-a7"}).json()
    assert v["push"] is False and v["last"]["pushed"] == [] and v["outcome"] is None
    assert v["last"]["entries"][0]["long"].startswith("Green Left 3 ")
    v = client.get("/api/position", params={"kpn": FIG9}).json()
    assert v["push"] is False and "last" not in v
    assert client.get("/api/position", params={"kpn": FIG9, "move": "d4-d6"}).status_code == 400


def test_levels_answer_names_descriptions_and_elo(client: TestClient) -> None:
    levels = client.get("/api/levels").json()
    assert [(lv["name"], lv["elo"]) for lv in levels] == [
        ("beginner", 0), ("novice", 471), ("casual", 680), ("club", 902),
        ("strong", 1209), ("expert", 1300), ("perfect", 1319),
    ]
    assert all(set(lv) == {"name", "description", "elo", "rating"} and lv["description"] for lv in levels)
    # the fixed published ratings beside a computer's name: the Elo + 800
    assert [lv["rating"] for lv in levels] == [lv["elo"] + 800 for lv in levels]
