"""A record's move comments in the web app (issue 28, item 4): an uploaded
record keeps them, its download and its steps give them back, a taken-back
move loses its comment, and a malformed comment is refused and stores nothing."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from kamisado.rules import record
from kamisado.rules.match import Match
from kamisado.web.site.server import create_app


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(tmp_path / "games.db")


@pytest.fixture
def client(db: str) -> Iterator[TestClient]:
    with TestClient(create_app(db, workers=0)) as c:
        yield c


def commented_record(seed: int = 3) -> record.Record:
    """A Standard match into its second round (a fill between), every third
    move commented, the last two moves of round 2 too."""
    rng = random.Random(seed)
    m = Match(3)
    while len(m.rounds) < 2 or len(m.current.moves) < 4 or m.state != "playing":
        if m.state == "fill":
            m.choose_fill(rng.choice(["left", "right"]))
        elif m.state == "over":  # pragma: no cover - a 3-point match lasts two rounds
            raise AssertionError("over too soon")
        else:
            m.push_move(rng.choice(m.legal_moves()))
    rec = record.Record.new(m, "Ann", "Bob", "2026-11-22")
    moves = [(n, p) for n, rnd in enumerate(m.rounds, 1) for p in range(1, len(rnd.moves) + 1)]
    for i, key in enumerate(moves):
        if i % 3 == 0 or key[0] == 2 and key[1] >= len(m.rounds[1].moves) - 1:
            rec.comments[key] = record.Comment(("cp", 17 * i - 40), i % 9, 1000 + i,
                                               (60_000 - i, 59_000 + i) if i % 2 else None)
    return rec


def upload(client: TestClient, rec: record.Record) -> dict[str, Any]:
    r = client.post("/api/records", content=record.write(rec))
    assert r.status_code == 200, r.text
    g: dict[str, Any] = r.json()
    return g


def served(client: TestClient, game: str) -> tuple[dict[tuple[int, int], record.Comment],
                                                    dict[tuple[int, int], dict[str, str]]]:
    """The comments in the game's record download and in its steps."""
    rec = record.read(client.get(f"/api/games/{game}/record").text)
    steps = client.get(f"/api/games/{game}/steps").json()["steps"]
    assert all(s["comment"] is None for s in steps if s["ply"] == 0)
    return rec.comments, {(s["round"], s["ply"]): s["comment"] for s in steps if s["comment"]}


def games_stored(db: str) -> int:
    with sqlite3.connect(db) as conn:
        count: int = conn.execute("SELECT count(*) FROM games").fetchone()[0]
    return count


def test_an_uploaded_records_comments_come_back_in_its_record_and_steps(
    client: TestClient, db: str
) -> None:
    rec = commented_record()
    assert len(rec.match.rounds) == 2 and rec.match.rounds[1].fill is not None
    g = upload(client, rec)
    in_record, in_steps = served(client, g["id"])
    assert in_record == rec.comments
    assert in_steps == {k: {"text": c.text(), "words": c.describe()} for k, c in rec.comments.items()}
    # the record downloaded writes them exactly as the upload did
    text = client.get(f"/api/games/{g['id']}/record").text
    for c in rec.comments.values():
        assert "{" + c.text() + "}" in text
    # kept in the store: a server started afresh on the same database serves them
    with TestClient(create_app(db, workers=0)) as again:
        assert served(again, g["id"])[0] == rec.comments
    # a record without comments stores none
    plain = record.Record.new(rec.match, "Ann", "Bob", "2026-11-22")
    assert served(client, upload(client, plain)["id"]) == ({}, {})


def test_a_taken_back_move_loses_its_comment_for_good(client: TestClient, db: str) -> None:
    rec = commented_record()
    g = upload(client, rec)
    last = (2, len(rec.match.rounds[1].moves))
    move = str(rec.match.rounds[1].moves[-1])
    assert last in rec.comments and (last[0], last[1] - 1) in rec.comments
    with client.websocket_connect("/ws") as ws:
        ws.send_json({"type": "join", "game": g["id"], "token": g["tokens"]["b"]})
        assert ws.receive_json()["type"] == "state"
        ws.send_json({"type": "takeback"})
        st = ws.receive_json()
        assert st["last"]["kind"] == "takeback", st
        want = {k: c for k, c in rec.comments.items() if k != last}
        assert served(client, g["id"])[0] == want
        # the same move played again is a new move: no comment comes back
        ws.send_json({"type": "move", "move": move})
        st = ws.receive_json()
        assert st["last"]["move"] == move
        assert served(client, g["id"])[0] == want
    with TestClient(create_app(db, workers=0)) as again:  # rebuilt from the actions
        assert served(again, g["id"])[0] == want


@pytest.mark.parametrize(
    ("bad", "where"),
    [("{+0.35/12 1.2s}", "column 35: a move's comment: expected the time used"),
     ("{+0.35", "expected '}' closing the comment opened at column 25"),
     ("{}", "column 26: a move's comment: expected a score"),
     ("}", "column 25: expected '{' before '}'")],
)
def test_a_malformed_comment_is_refused_with_its_line_and_column_and_stores_nothing(
    client: TestClient, db: str, bad: str, where: str
) -> None:
    m = Match(3)
    for t in ("c1-c5", "b8-b3"):
        m.push_move(t)
    text = record.write(record.Record.new(m, "Ann", "Bob", "2026-11-22"))
    line = "  1. Red Forward 4 Blue       Blue Forward 5 Yellow"
    assert line in text
    before = games_stored(db)
    r = client.post("/api/records", content=text.replace(line, line.replace(
        "Red Forward 4 Blue      ", "Red Forward 4 Blue " + bad)))
    assert r.status_code == 400
    assert r.json()["error"].startswith("line 10, column "), r.json()
    assert where in r.json()["error"], r.json()
    assert games_stored(db) == before
