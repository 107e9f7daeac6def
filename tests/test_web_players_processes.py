"""Direct challenges and who is online over two server processes on one
PostgreSQL (docs/web.md, "Direct challenges", "Several processes on one
PostgreSQL"): a player connected to one process is online on the other's
player page, and a challenge made on one process is seen live, declined and
accepted on the other."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest
from websockets.sync.client import connect

from tests.test_web_processes import frame, two, visit  # noqa: F401 (two: the fixture)


def player_page(addr: str, player: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"http://{addr}/api/players/{player}", timeout=10) as r:
        page: dict[str, Any] = json.loads(r.read())
    return page


def me(addr: str, cookie: str) -> str:
    req = urllib.request.Request(f"http://{addr}/api/me", headers={"Cookie": cookie})
    with urllib.request.urlopen(req, timeout=10) as r:
        player: str = json.loads(r.read())["id"]
    return player


def test_a_direct_challenge_across_processes(request: pytest.FixtureRequest) -> None:
    a, b = request.getfixturevalue("two")
    ann, bob = visit(a), visit(b)
    ann_id, bob_id = me(a, ann), me(b, bob)
    assert player_page(a, bob_id)["online"] is False
    with connect(f"ws://{a}/ws", additional_headers={"Cookie": ann}) as wa:
        wa.send(json.dumps({"type": "notices"}))
        frame(wa, "notices")
        wa.send(json.dumps({"type": "challenge", "to": bob_id}))
        assert frame(wa, "error")["code"] == "offline"  # Bob has no page open anywhere
        with connect(f"ws://{b}/ws", additional_headers={"Cookie": bob}) as wb:
            wb.send(json.dumps({"type": "notices"}))
            assert frame(wb, "notices")["challenges"] == []
            # Bob's websocket is on process B: process A's player page says he is online
            assert player_page(a, bob_id)["online"] is True
            wa.send(json.dumps({"type": "challenge", "to": bob_id, "clock": {"initial": 300, "increment": 3}}))
            sent = frame(wa, "challenging")["challenge"]
            got = frame(wb, "challenged")["challenge"]  # made on A, shown on B
            assert got["id"] == sent["id"] and got["by"]["player"] == ann_id and got["to"] == bob_id
            wb.send(json.dumps({"type": "decline", "challenge": got["id"]}))
            assert frame(wa, "declined")["challenge"] == got["id"]  # told by process A
            assert frame(wb, "withdrawn")["challenge"] == got["id"]
            wa.send(json.dumps({"type": "challenge", "to": bob_id, "color": "g"}))
            got = frame(wb, "challenged")["challenge"]
            wb.send(json.dumps({"type": "accept", "challenge": got["id"]}))
            game = frame(wb, "started")["game"]
            assert frame(wa, "started")["game"] == game
        with connect(f"ws://{b}/ws", additional_headers={"Cookie": ann}) as ws:
            ws.send(json.dumps({"type": "join", "game": game}))
            assert frame(ws)["you"] == ["g"]
