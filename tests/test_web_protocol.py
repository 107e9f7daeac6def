"""The web app's protocol and JSON API, through Starlette's test client."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from kamisado.rules import record
from kamisado.rules.match import Match
from kamisado.rules.position import Position
from kamisado.web.basics.messages import (
    CreateMsg,
    FillMsg,
    JoinMsg,
    MoveMsg,
    ProtocolError,
    parse,
)
from kamisado.web.site.server import create_app

FIG7A = "2b3n1/4U3/5u1B/3o4/1pN2Or1/4y1P1/g7/1G1R3Y g u 3 0 0"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(str(tmp_path / "games.db"), workers=0)) as c:
        yield c


def stored(client: TestClient) -> list[Any]:
    """Every game in the server's store (rows), newest first."""
    rows: list[Any] = client.app.state.hub.store.list(1000)  # type: ignore[attr-defined]
    return rows


def new_game(client: TestClient, **body: Any) -> dict[str, Any]:
    r = client.post("/api/games", json=body)
    assert r.status_code == 200, r.text
    data: dict[str, Any] = r.json()
    return data


def recv(ws: Any, kind: str = "state") -> dict[str, Any]:
    msg: dict[str, Any] = ws.receive_json()
    assert msg["type"] == kind, msg
    return msg


def _short_move(st: dict[str, Any]) -> str:
    """A legal move of Black's that advances least (it never ends the round)."""
    return min(
        (f"{frm}-{to}" for frm, tos in st["legal"].items() for to in tos),
        key=lambda m: int(m[-1]) - int(m[1]),
    )


# -- parse ---------------------------------------------------------------------


def test_parse_reads_every_message_type() -> None:
    assert parse('{"type":"join","game":"abc","token":"t"}') == JoinMsg("abc", "t")
    assert parse('{"type":"move","move":"c1-c5"}') == MoveMsg("c1-c5", None)
    assert parse(b'{"type":"fill","direction":"right","seq":4}') == FillMsg("right", 4)
    msg = parse('{"type":"create","gold":"club","target":3}')
    assert msg == CreateMsg(gold="club", target=3)


@pytest.mark.parametrize(
    ("frame", "needle"),
    [
        ("not json", "invalid JSON"),
        ("[1, 2]", "found list"),
        ('{"move": "c1-c5"}', "'type'"),
        ('{"type": "teleport"}', "unknown message type"),
        ('{"type": "move"}', "missing field 'move'"),
        ('{"type": "move", "move": "c1c5"}', "square form"),
        ('{"type": "move", "move": "c1-c5", "seq": true}', "integer"),
        ('{"type": "move", "move": "c1-c5", "seq": -1}', "seq >= 0"),
        ('{"type": "join", "game": "../etc"}', "game id"),
        ('{"type": "create", "gold": "grandmaster"}', "one of human"),
        ('{"type": "create", "target": 5}', "target 1, 3, 7 or 15"),
        ('{"type": "create", "black": "club", "gold": "club", "online": true}', "human seat"),
    ],
)
def test_parse_refuses_with_a_reason(frame: str, needle: str) -> None:
    with pytest.raises(ProtocolError, match=None) as exc:
        parse(frame)
    assert needle in str(exc.value)


# -- the websocket ------------------------------------------------------------------


def test_hotseat_moves_and_errors_keep_the_connection(client: TestClient) -> None:
    g = new_game(client, target=1)
    assert g["tokens"]["b"] == g["tokens"]["g"]  # one token holds both seats
    with client.websocket_connect("/ws") as ws:
        ws.send_json({"type": "join", "game": g["id"], "token": g["tokens"]["b"]})
        st = recv(ws)
        assert st["seq"] == 0 and st["you"] == ["b", "g"] and st["turn"] == "b"
        assert st["must"] is None and {"c2", "c7", "a3", "h6"} <= set(st["legal"]["c1"])
        assert sum(len(v) for v in st["legal"].values()) == 102
        for frame in ["nonsense", '{"type":"move","move":"a1-b3"}', '{"type":"x"}']:
            ws.send_text(frame)
            err = recv(ws, "error")
            assert err["message"]
        ws.send_bytes(b'{"type":"ping"}')
        recv(ws, "pong")
        ws.send_json({"type": "move", "move": "c1-c5", "seq": 0})
        st = recv(ws)
        assert st["seq"] == 1 and st["turn"] == "g" and st["must"] == "blue"
        assert st["last"]["move"] == "c1-c5" and list(st["legal"]) == ["b8"]
        assert st["rounds"][0]["entries"][0]["long"] == "Red Forward 4 Blue"
        ws.send_json({"type": "move", "move": "b8-b3", "seq": 0})  # stale
        assert recv(ws, "error")["code"] == "stale"
        ws.send_json({"type": "move", "move": "a8-a7", "seq": 1})  # illegal
        err = recv(ws, "error")
        assert err["code"] == "illegal" and "blue tower must move" in err["message"]
        ws.send_json({"type": "move", "move": "b8-b3", "seq": 1})
        assert recv(ws)["kpn"] == "o1upyrgn/8/8/2R5/8/1b6/8/NG1YPUBO b y 1 0 0"


def test_forged_moves_for_the_other_seat_are_refused(client: TestClient) -> None:
    g = new_game(client, target=1, online=True)
    tb, tg = g["tokens"]["b"], g["tokens"]["g"]
    assert tb != tg
    with (
        client.websocket_connect("/ws") as black,
        client.websocket_connect("/ws") as gold,
        client.websocket_connect("/ws") as watcher,
    ):
        black.send_json({"type": "join", "game": g["id"], "token": tb})
        assert recv(black)["you"] == ["b"]
        gold.send_json({"type": "join", "game": g["id"], "token": tg})
        assert recv(gold)["you"] == ["g"]
        st = recv(black)  # black hears that gold is here
        assert st["seats"]["g"]["online"] and st["seats"]["b"]["online"]
        watcher.send_json({"type": "join", "game": g["id"]})
        assert recv(watcher)["you"] == []
        gold.send_json({"type": "move", "move": "c1-c5"})  # Black's tower, Black's turn
        assert recv(gold, "error")["code"] == "not_your_turn"
        watcher.send_json({"type": "move", "move": "c1-c5"})
        assert recv(watcher, "error")["code"] == "not_your_turn"
        watcher.send_json({"type": "join", "game": g["id"], "token": "forged-token"})
        assert recv(watcher, "error")["code"] == "bad_token"
        black.send_json({"type": "move", "move": "c1-c5"})
        for ws in (black, gold):
            assert recv(ws)["seq"] == 1
        black.send_json({"type": "move", "move": "b8-b3"})  # now Gold's turn
        assert recv(black, "error")["code"] == "not_your_turn"
    # nothing but the one real move was stored
    assert client.get(f"/api/games/{g['id']}/steps").json()["steps"][-1]["ply"] == 1


def test_leaving_player_is_shown_away_and_can_come_back(client: TestClient) -> None:
    g = new_game(client, target=1, online=True)
    with client.websocket_connect("/ws") as black:
        black.send_json({"type": "join", "game": g["id"], "token": g["tokens"]["b"]})
        recv(black)
        with client.websocket_connect("/ws") as gold:
            gold.send_json({"type": "join", "game": g["id"], "token": g["tokens"]["g"]})
            recv(gold)
            assert recv(black)["seats"]["g"]["online"] is True
        assert recv(black)["seats"]["g"]["online"] is False
        black.send_json({"type": "move", "move": "d1-d4"})
        assert recv(black)["seq"] == 1
        with client.websocket_connect("/ws") as gold:
            gold.send_json({"type": "join", "game": g["id"], "token": g["tokens"]["g"]})
            st = recv(gold)
            assert st["seq"] == 1 and st["last"]["move"] == "d1-d4" and st["you"] == ["g"]


def _record_at_fill() -> str:
    m = Match(3, start=FIG7A)
    m.push_move("f6-a1")
    return record.write(record.Record.new(m, black="Johan", gold="Alain", date="2026-11-22"))


def test_upload_record_then_fill_choice(client: TestClient) -> None:
    r = client.post("/api/records", content=_record_at_fill())
    assert r.status_code == 200, r.text
    g = r.json()
    with client.websocket_connect("/ws") as ws:
        ws.send_json({"type": "join", "game": g["id"], "token": g["tokens"]["b"]})
        st = recv(ws)
        assert st["state"] == "fill" and st["fill"]["chooser"] == "g"
        assert st["legal"] == {}
        assert st["fill"]["left"]["kpn"] == "u+gyprobn/8/8/8/8/8/8/GRYPNOBU b - 3 0 1"
        assert st["fill"]["right"]["kpn"] == "bnoprygu+/8/8/8/8/8/8/UBNOPGRY b - 3 0 1"
        ws.send_json({"type": "move", "move": "a1-a2"})
        assert recv(ws, "error")["code"] == "illegal"
        ws.send_json({"type": "fill", "direction": "left"})
        st = recv(ws)
        assert st["state"] == "playing" and st["round"] == 2 and st["points"] == [0, 1]
        assert st["kpn"] == "u+gyprobn/8/8/8/8/8/8/GRYPNOBU b - 3 0 1"
        assert st["last"] == {"kind": "fill", "side": "g", "fill": "left"}
    text = client.get(f"/api/games/{g['id']}/record").text
    rec = record.read(text)
    assert rec.match.rounds[1].fill == "left" and rec.headers["Black"] == "Johan"


def test_record_download_reads_back(client: TestClient) -> None:
    g = new_game(client, target=3)
    with client.websocket_connect("/ws") as ws:
        ws.send_json({"type": "join", "game": g["id"], "token": g["tokens"]["b"]})
        recv(ws)
        for mv in ["c1-c5", "b8-b3", "d1-g4"]:
            ws.send_json({"type": "move", "move": mv})
            recv(ws)
    r = client.get(f"/api/games/{g['id']}/record")
    assert "attachment" in r.headers["content-disposition"]
    rec = record.read(r.text)
    assert rec.match.target == 3
    assert [str(m) for m in rec.match.current.moves] == ["c1-c5", "b8-b3", "d1-g4"]
    assert "Red Forward 4 Blue" in r.text


def test_bad_uploads_and_requests_change_nothing(client: TestClient) -> None:
    before = stored(client)
    bad = _record_at_fill().replace("Purple", "Mauve")
    r = client.post("/api/records", content=bad)
    assert r.status_code == 400 and "line" in r.json()["error"]
    assert client.post("/api/records", content=b"\xff\xfe").status_code == 400
    assert client.post("/api/games", json={"target": 4}).status_code == 400
    assert client.post("/api/games", content=b"[").status_code == 400
    assert stored(client) == before
    assert client.get("/api/games/nope/record").status_code == 404
    with client.websocket_connect("/ws") as ws:
        ws.send_json({"type": "join", "game": "nope"})
        assert recv(ws, "error")["code"] == "no_game"
        ws.send_json({"type": "move", "move": "c1-c5"})
        assert recv(ws, "error")["code"] == "not_joined"


def test_position_api_applies_the_rules(client: TestClient) -> None:
    start = Position().kpn()
    v = client.get("/api/position", params={"kpn": start, "move": "c1-c5"}).json()
    assert v["kpn"] == "obupyrgn/8/8/2R5/8/8/8/NG1YPUBO g b 1 0 0"
    assert v["must"] == "blue" and list(v["legal"]) == ["b8"]
    r = client.get("/api/position", params={"kpn": start, "move": "a1-a1"})
    assert r.status_code == 400
    r = client.get("/api/position", params={"kpn": "xyz"})
    assert r.status_code == 400 and "KPN" in r.json()["error"]


def test_game_list_and_steps(client: TestClient) -> None:
    client.get("/")  # a player: /api/games lists its games
    g = new_game(client, target=7, black_name="Ann")
    games = client.get("/api/games").json()
    assert games[0]["id"] == g["id"] and games[0]["target"] == 7
    assert games[0]["black_name"] == "Ann" and games[0]["state"] == "playing"
    data = client.get(f"/api/games/{g['id']}/steps").json()
    steps = data["steps"]
    assert len(steps) == 1 and steps[0]["kpn"] == Position(
        "obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 7 0 0"
    ).kpn()
    assert steps[0]["entries"] == [] and steps[0]["mover"] is None and steps[0]["pushed"] == []
    assert data["seats"] == {"b": "Ann", "g": "Gold"} and data["rounds"][0]["entries"] == []
    assert (data["target"], data["series"], data["points"]) == (7, False, [0, 0])


def test_lessons_endpoints_answer_lists(client: TestClient) -> None:
    for lang in ("en", "de", "hu", "xx"):
        data = client.get("/api/lessons", params={"lang": lang}).json()
        assert isinstance(data, list)
        for item in data:
            assert "id" in item and "kpn" in json.dumps(item)
    # the puzzle trainer's list (tests/test_puzzles_trainer.py has the rest)
    puzzles = client.get("/api/puzzles").json()
    assert puzzles["total"] >= len(puzzles["puzzles"]) > 0
    assert all("id" in p and "kind" in p for p in puzzles["puzzles"])


def test_page_and_static_files(client: TestClient) -> None:
    """The page loads its ES modules natively; every module it imports is
    served, and every text key the page and the modules name is in en.json."""
    import posixpath
    import re

    page = client.get("/")
    assert page.status_code == 200 and 'type="module" src="/static/js/main.js"' in page.text
    en = client.get("/static/i18n/en.json").json()
    assert en["side.b"] == "Black"
    texts, todo = [page.text], ["/static/js/main.js"]
    seen: set[str] = set()
    while todo:
        url = todo.pop()
        if url in seen:
            continue
        seen.add(url)
        r = client.get(url)
        assert r.status_code == 200, url
        assert "javascript" in r.headers["content-type"], (url, r.headers["content-type"])
        texts.append(r.text)
        for rel in re.findall(r'^import .* from "(\.[^"]+)";$', r.text, re.M):
            todo.append(posixpath.normpath(posixpath.join(posixpath.dirname(url), rel)))
    assert {"/static/js/board.js", "/static/js/socket.js", "/static/js/views/game.js"} <= seen
    text = "\n".join(texts)
    keys = set(re.findall(r'data-i18n="([\w.]+)"', text)) | set(
        re.findall(r'\bt[n]?\("([\w]+\.[\w]+)"', text)
    )
    assert len(keys) > 100 and not (keys - set(en)), keys - set(en)


def test_computer_answers_without_blocking_other_games(tmp_path: Path) -> None:
    with TestClient(create_app(str(tmp_path / "games.db"), workers=1)) as client:
        g = new_game(client, target=1, gold="casual")
        assert list(g["tokens"]) == ["b"]
        other = new_game(client, target=1)
        with client.websocket_connect("/ws") as ws, client.websocket_connect("/ws") as ws2:
            ws.send_json({"type": "join", "game": g["id"], "token": g["tokens"]["b"]})
            assert recv(ws)["you"] == ["b"]
            ws.send_json({"type": "move", "move": "c1-c5"})
            st = recv(ws)
            assert st["seq"] == 1 and st["thinking"] is True and st["to_act"] == "g"
            ws.send_json({"type": "move", "move": "b8-b3"})  # the computer's seat
            assert recv(ws, "error")["code"] == "not_your_turn"
            # another game is served while the computer thinks
            ws2.send_json({"type": "join", "game": other["id"], "token": other["tokens"]["b"]})
            assert recv(ws2)["seq"] == 0
            st = recv(ws)
            assert st["seq"] == 2 and st["last"]["side"] == "g" and st["thinking"] is False
            assert st["last"]["move"].startswith("b8-")  # the blue tower had to move
            # a worker process dies: the next computer move comes from a new pool
            hub = client.app.state.hub  # type: ignore[attr-defined]
            old_pool = hub.computer.pool
            for proc in list(old_pool._processes.values()):
                os.kill(proc.pid, signal.SIGKILL)
                proc.join(10)
            ws.send_json({"type": "move", "move": _short_move(st)})
            assert recv(ws)["seq"] == 3
            st = recv(ws)
            assert st["seq"] == 4 and st["last"]["side"] == "g" and hub.computer.pool is not old_pool
        # the puzzle defence and the analysis run in the same pool
        fig3 = "o1upyrgn/8/8/1P5b/6B1/7O/8/NGRY1U2 b n 1 0 0"
        after = client.get("/api/position", params={"kpn": fig3, "move": "a1-a3"}).json()
        assert client.get("/api/reply", params={"kpn": after["kpn"]}).json() == {"move": "h5-h4"}
        a = client.get("/api/analyse", params={"kpn": fig3, "ms": 300}).json()
        assert a["solved"] == {"winner": "b", "distance": 3, "pv": ["a1-a3", "h5-h4", "b5-b8"]}
        assert a["best"] == "a1-a3" and a["side"] == "b"
        assert a["best_entries"] == [
            {"side": "b", "long": "Brown Forward 2 Blue", "short": "nF2", "kind": "move",
             "move": "a1-a3"},
        ]


def test_command_line_refuses_bad_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    from kamisado.web import main

    with pytest.raises(SystemExit) as exc:
        main(["--port", "70000"])
    assert exc.value.code == 2 and "port 0-65535" in capsys.readouterr().err
    assert main(["--db", "postgresql://nobody@127.0.0.1:1/none", "--no-browser"]) == 2
    assert "cannot open database" in capsys.readouterr().err


def _upload_start(client: TestClient, target: int, kpn: str) -> dict[str, Any]:
    rec = record.Record.new(Match(target, start=kpn), date="2026-11-22")
    r = client.post("/api/records", content=record.write(rec))
    assert r.status_code == 200, r.text
    data: dict[str, Any] = r.json()
    return data


def test_passes_and_deadlock_are_announced(client: TestClient) -> None:
    # figure 5: Daniel's move blocks both sides' next towers (two passes)
    g = _upload_start(client, 1, "o2pgr1n/4Yu2/1b6/8/8/4y3/3B4/NGR1PU1O b b 1 0 0")
    with client.websocket_connect("/ws") as ws:
        ws.send_json({"type": "join", "game": g["id"], "token": g["tokens"]["b"]})
        recv(ws)
        ws.send_json({"type": "move", "move": "d2-d7"})
        st = recv(ws)
        assert st["last"]["passes"] == [
            {"side": "g", "colour": "green", "square": "e8"},
            {"side": "b", "colour": "yellow", "square": "e7"},
        ]
        assert [e["kind"] for e in st["rounds"][0]["entries"]] == ["move", "pass", "pass"]
        assert st["turn"] == "g" and st["must"] == "blue"
    # figure 6: Ralf's move leaves nobody a move: deadlock, Wolfgang wins
    g = _upload_start(client, 3, "2u3g1/b1Ryo3/1pY5/2G2r2/4PnU1/8/8/N5BO g b 3 0 0")
    with client.websocket_connect("/ws") as ws:
        ws.send_json({"type": "join", "game": g["id"], "token": g["tokens"]["b"]})
        recv(ws)
        ws.send_json({"type": "move", "move": "a7-a6"})
        recv(ws)
        ws.send_json({"type": "move", "move": "c5-d6"})
        st = recv(ws)
        assert st["last"]["outcome"] == {
            "winner": "g", "colour": "red", "reason": "deadlock", "rings": 0, "points": 1
        }
        assert st["state"] == "fill" and st["points"] == [0, 1] and st["to_act"] == "g"


def test_a_move_that_cannot_be_stored_is_refused_and_undone(client: TestClient) -> None:
    g = new_game(client, target=1)
    hub = client.app.state.hub  # type: ignore[attr-defined]
    real_append = hub.store.append

    def broken(*args: Any, **kwargs: Any) -> None:
        raise OSError("disk full")

    with client.websocket_connect("/ws") as ws:
        ws.send_json({"type": "join", "game": g["id"], "token": g["tokens"]["b"]})
        recv(ws)
        hub.store.append = broken
        ws.send_json({"type": "move", "move": "c1-c5"})
        err = recv(ws, "error")
        assert err["code"] == "storage"
        hub.store.append = real_append
        ws.send_json({"type": "join", "game": g["id"], "token": g["tokens"]["b"]})
        st = recv(ws)
        assert st["seq"] == 0 and st["last"] is None and st["turn"] == "b"
        ws.send_json({"type": "move", "move": "d1-d5"})
        assert recv(ws)["last"]["move"] == "d1-d5"


def test_board_colours_come_from_the_rules_core(client: TestClient) -> None:
    rows = client.get("/api/board").json()["rows"]
    assert len(rows) == 8 and all(len(r) == 8 for r in rows)
    # RULES.md: rank 1 brown ... orange from a to h, rank 8 the reverse
    assert rows[0] == ["brown", "green", "red", "yellow", "pink", "purple", "blue", "orange"]
    assert rows[7] == rows[0][::-1]
    assert all(sorted(r) == sorted(rows[0]) for r in rows)  # each colour once a rank
    # the page gets the same table, written in by the server
    page = client.get("/").text
    assert '<script id="board-data" type="application/json">' in page
    assert json.dumps({"rows": rows}) in page


def test_a_move_sent_against_an_old_position_is_stale(client: TestClient) -> None:
    g = new_game(client, target=1, online=True)
    with client.websocket_connect("/ws") as black, client.websocket_connect("/ws") as watcher:
        black.send_json({"type": "join", "game": g["id"], "token": g["tokens"]["b"]})
        recv(black)
        watcher.send_json({"type": "join", "game": g["id"]})
        recv(watcher)
        black.send_json({"type": "move", "move": "c1-c5", "seq": 0})
        assert recv(black)["to_act"] == "g"
        recv(watcher)
        black.send_json({"type": "move", "move": "c5-c6", "seq": 0})  # sent twice, say
        err = recv(black, "error")
        assert err["code"] == "stale" and "at action 1, not 0" in err["message"]
        black.send_json({"type": "move", "move": "c5-c6", "seq": 1})  # now: Gold's turn
        assert recv(black, "error")["code"] == "not_your_turn"
        watcher.send_json({"type": "move", "move": "b8-b3", "seq": 0})  # a spectator never moves
        assert recv(watcher, "error")["code"] == "not_your_turn"


def test_deeply_nested_json_is_malformed(client: TestClient) -> None:
    deep = "[" * 5000 + "]" * 5000
    with pytest.raises(ProtocolError, match="nested too deep"):
        parse(deep)
    with pytest.raises(ProtocolError, match="nested too deep"):
        parse('{"type": "join", "game": "abc", "token": ' + deep + "}")
    with client.websocket_connect("/ws") as ws:
        ws.send_text(deep)
        assert recv(ws, "error")["code"] == "malformed"
        ws.send_json({"type": "ping"})  # the connection stays
        recv(ws, "pong")
    r = client.post("/api/games", content=deep, headers={"Content-Type": "application/json"})
    assert r.status_code == 400


def test_bodies_over_the_limit_are_refused(client: TestClient) -> None:
    from kamisado.web.site.pages import MAX_JSON_BODY, MAX_RECORD_BODY

    before = stored(client)
    too_long = b" " * (MAX_JSON_BODY + 1)
    r = client.post("/api/games", content=too_long, headers={"Content-Type": "application/json"})
    assert r.status_code == 413 and str(MAX_JSON_BODY) in r.json()["error"]
    r = client.post("/api/records", content=b"\n" * (MAX_RECORD_BODY + 1))
    assert r.status_code == 413 and str(MAX_RECORD_BODY) in r.json()["error"]

    def chunks(size: int, n: int) -> Iterator[bytes]:  # no Content-Length: chunked
        for _ in range(n):
            yield b" " * size

    r = client.post("/api/games", content=chunks(4096, 100))
    assert r.status_code == 413
    r = client.post("/api/records", content=chunks(65536, 100))
    assert r.status_code == 413
    assert stored(client) == before
    # just under the limits: read (and refused for what they hold, not their size)
    r = client.post("/api/games", content=b" " * (MAX_JSON_BODY - 2) + b"{}")
    assert r.status_code == 200
    r = client.post("/api/records", content=_record_at_fill() + " " * (MAX_RECORD_BODY // 2))
    assert r.status_code == 200, r.text
    r = client.post("/api/records", content=b"1.", headers={"Content-Length": "x"})
    assert r.status_code == 400


def test_games_read_over_http_or_refused_leave_nothing_in_memory(client: TestClient) -> None:
    hub = client.app.state.hub  # type: ignore[attr-defined]
    ids = [new_game(client, target=3, online=True)["id"] for _ in range(20)]
    ids.append(client.post("/api/records", content=_record_at_fill()).json()["id"])
    assert not hub.games  # nobody is on them
    with client.websocket_connect("/ws") as ws:
        for gid in ids:
            assert client.get(f"/api/games/{gid}/record").status_code == 200
            assert client.get(f"/api/games/{gid}/steps").status_code == 200
            ws.send_json({"type": "join", "game": gid, "token": "a-wrong-token"})
            assert recv(ws, "error")["code"] == "bad_token"
        assert not hub.games
        ws.send_json({"type": "join", "game": ids[0]})  # a spectator keeps one in memory
        recv(ws)
        assert list(hub.games) == [ids[0]]
        ws.send_json({"type": "join", "game": ids[1]})  # ... and moves on
        recv(ws)
        assert list(hub.games) == [ids[1]]
    assert not hub.games  # left: forgotten


def test_the_computer_answers_a_person_who_left(tmp_path: Path) -> None:
    """A computer facing a person finishes its move after the person left
    (pausing is only for computer-against-computer games nobody watches)."""
    import time

    with TestClient(create_app(str(tmp_path / "games.db"), workers=1)) as client:
        g = new_game(client, target=1, gold="beginner")
        with client.websocket_connect("/ws") as ws:
            ws.send_json({"type": "join", "game": g["id"], "token": g["tokens"]["b"]})
            recv(ws)
            ws.send_json({"type": "move", "move": "c1-c5"})
            assert recv(ws)["thinking"] is True
        # nobody is connected now; an HTTP read does not wake the computer up
        deadline = time.monotonic() + 20
        while len(client.get(f"/api/games/{g['id']}/steps").json()["steps"]) < 3:
            assert time.monotonic() < deadline, "the computer never answered"
            time.sleep(0.1)
