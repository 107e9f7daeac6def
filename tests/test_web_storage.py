"""The game store on SQLite and on a real PostgreSQL server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kamisado.rules.match import Match
from kamisado.web.game import Game
from kamisado.web.storage import GameRow, SequenceError, Store, database_url, new_id

MOVES = ["c1-c5", "b8-b3", "d1-g4", "c8-d7", "b1-e4", "a8-a3"]


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "sqlite":
        url = str(tmp_path / "games.sqlite3")
    else:
        url = request.getfixturevalue("pg_url")
    s = Store(url)
    yield s
    s.close()


def test_database_urls() -> None:
    assert database_url("postgresql://u:p@h:5/db") == "postgresql+psycopg://u:p@h:5/db"
    assert database_url("postgres://h/db") == "postgresql+psycopg://h/db"
    assert database_url("sqlite:///x.db") == "sqlite:///x.db"
    assert database_url("games.db").startswith("sqlite:////")


def test_postgresql_url_uses_psycopg3(pg_url: str) -> None:
    s = Store(pg_url)
    try:
        assert s.engine.dialect.driver == "psycopg"
    finally:
        s.close()


def test_actions_round_trip_and_rebuild_the_match(store: Store) -> None:
    gid = new_id()
    store.create(GameRow.new(gid, target=3, black="human", gold="club", black_name="Ann"))
    m = Match(3)
    for seq, mv in enumerate(MOVES):
        m.push_move(mv)
        store.append(gid, seq, mv, state=m.state, points=(0, 0))
    loaded = store.load(gid)
    assert loaded is not None
    row, tokens = loaded
    assert tokens == MOVES and row.actions == 6 and row.gold == "club" and row.black_name == "Ann"
    game = Game.build(row, tokens)
    assert game.match.position.kpn() == m.position.kpn()
    assert [r.id for r in store.list(1000)].count(gid) == 1
    assert store.load("no-such-game") is None


def test_a_sequence_number_is_stored_once(store: Store) -> None:
    gid = new_id()
    store.create(GameRow.new(gid))
    store.append(gid, 0, "c1-c5", state="playing", points=(0, 0))
    with pytest.raises(SequenceError, match="has 1 actions"):
        store.append(gid, 0, "d1-d5", state="playing", points=(0, 0))
    loaded = store.load(gid)
    assert loaded is not None and loaded[1] == ["c1-c5"] and loaded[0].actions == 1


def test_an_action_after_a_gap_is_refused(store: Store) -> None:
    gid = new_id()
    store.create(GameRow.new(gid))
    for seq, mv in enumerate(MOVES[:3]):
        store.append(gid, seq, mv, state="playing", points=(0, 0))
    with pytest.raises(SequenceError, match="action 4 .* has 3 actions"):
        store.append(gid, 4, MOVES[4], state="playing", points=(0, 0))
    loaded = store.load(gid)
    assert loaded is not None and loaded[1] == MOVES[:3] and loaded[0].actions == 3
    store.append(gid, 3, MOVES[3], state="playing", points=(0, 0))  # the next one is welcome
    loaded = store.load(gid)
    assert loaded is not None and loaded[1] == MOVES[:4] and loaded[0].actions == 4


def test_actions_of_an_unknown_game_are_refused(store: Store) -> None:
    with pytest.raises(SequenceError, match="no such game"):
        store.append("missing-" + new_id(), 0, "c1-c5", state="playing", points=(0, 0))


def test_sqlite_syncs_every_commit(tmp_path: Path) -> None:
    s = Store(str(tmp_path / "games.sqlite3"))
    try:
        with s.engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 2  # FULL
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
    finally:
        s.close()


def test_fills_and_whole_matches_replay(store: Store) -> None:
    gid = new_id()
    start = "2b3n1/4U3/5u1B/3o4/1pN2Or1/4y1P1/g7/1G1R3Y g u 3 0 0"
    store.create(GameRow.new(gid, target=3, start_kpn=start), ["f6-a1", "left"])
    loaded = store.load(gid)
    assert loaded is not None
    game = Game.build(*loaded)
    assert game.match.position.kpn() == "u+gyprobn/8/8/8/8/8/8/GRYPNOBU b - 3 0 1"
    assert len(game.rounds) == 2 and game.rounds[0]["result"]["winner"] == "g"


def test_server_restart_resumes_games_on_either_database(store: Store) -> None:
    from starlette.testclient import TestClient

    from kamisado.web.server import create_app

    url = store.url
    with TestClient(create_app(url, workers=0)) as client:
        g = client.post("/api/games", json={"target": 3, "online": True}).json()
        with client.websocket_connect("/ws") as ws:
            ws.send_json({"type": "join", "game": g["id"], "token": g["tokens"]["b"]})
            ws.receive_json()
            ws.send_json({"type": "move", "move": "c1-c5"})
            assert ws.receive_json()["seq"] == 1
    with TestClient(create_app(url, workers=0)) as client:  # a new server
        with client.websocket_connect("/ws") as ws:
            ws.send_json({"type": "join", "game": g["id"], "token": g["tokens"]["g"]})
            st = ws.receive_json()
            assert st["seq"] == 1 and st["you"] == ["g"] and st["must"] == "blue"
            ws.send_json({"type": "move", "move": "b8-b3"})
            assert ws.receive_json()["seq"] == 2
        assert "Blue Forward 5 Yellow" in client.get(f"/api/games/{g['id']}/record").text
