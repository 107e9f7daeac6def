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
from kamisado.web.basics.text import check_storable, unseeable, unstorable
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


# -- text a person can see (issue 40, item 4) ----------------------------------

#: Ordinary text of several scripts: each passes.
SEEN = [
    "Ann Smith", "Zoe\u0308 and re\u0301sume\u0301",  # Latin, é as e + one combining mark
    "Vie\u0323\u0302t",  # Vietnamese ệ decomposed: two marks
    "\u0645\u064e\u0631\u0652\u062d\u064e\u0628\u064b\u0627",  # Arabic with its vowel marks
    "\u05e9\u05b8\u05c1\u05dc\u05d5\u05b9\u05dd",  # Hebrew with points
    "\u0928\u092e\u0938\u094d\u0924\u0947", "\u0915\u094d\u0937\u093f",  # Devanagari
    "\u6c49\u5b57 \u304b\u306a \ud55c\uad6d\uc5b4",  # CJK
    "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",  # Persian with a zero-width non-joiner
    "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466",  # a family: ZWJ sequence
    "\U0001f44d\U0001f3fd \U0001f469\U0001f3ff\u200d\U0001f4bb",  # skin tones
    "\U0001f1ef\U0001f1f5 \U0001f3f3\ufe0f\u200d\U0001f308",  # flags
    "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",  # Scotland: tags
    "1\ufe0f\u20e3 \u2764\ufe0f",  # a keycap (two marks), a heart with its selector
    "\u05e2\u05d1\u05e8\u05d9\u05ea\u200f 42",  # a right-to-left mark
    "hi\u200b",  # an invisible character beside visible ones
]


@pytest.mark.parametrize("text", SEEN)
def test_ordinary_text_of_every_script_can_be_seen(text: str) -> None:
    assert unseeable(text) is None


@pytest.mark.parametrize(("text", "rule"), [
    ("\u200b", "a chat line needs a visible character"),
    ("\ufeff", "a chat line needs a visible character"),
    ("\u200d\u2060\u00ad", "a chat line needs a visible character"),
    (" \u3000\u00a0", "a chat line needs a visible character"),
    ("\u0301", "a chat line needs a visible character"),  # a lone mark
    ("\u3164\u2800", "a chat line needs a visible character"),  # a Hangul filler, blank braille
    ("\u200e", "a chat line needs a visible character"),  # a mark alone shows nothing
    ("abc\u202edef", "no bidi controls (U+202E found)"),
    ("\u202a", "no bidi controls (U+202A found)"),
    ("x\u2066y\u2069", "no bidi controls (U+2066 found)"),
    ("ok \u2069", "no bidi controls (U+2069 found)"),
    ("a" + "\u0301" * 139, "at most 3 combining marks on one character (U+0061 carries 139)"),
    ("e\u0301\u0302\u0303\u0304", "at most 3 combining marks on one character (U+0065 carries 4)"),
    ("a\u0301\u0301\u200d\u0301\u0301", "at most 3 combining marks on one character (U+0061 carries 4)"),
    ("fine, then o\u20dd\u20dd\u20dd\u20dd", "at most 3 combining marks on one character (U+006F carries 4)"),
    ("\u0301\u0301\u0301\u0301x", "at most 3 combining marks on one character (4 at the start)"),
])
def test_each_rule_is_named(text: str, rule: str) -> None:
    assert unseeable(text, "a chat line") == rule


def test_three_marks_pass_and_each_character_counts_its_own() -> None:
    assert unseeable("a\u0301\u0302\u0303") is None
    assert unseeable("a\u0301\u0302\u0303b\u0301\u0302\u0303 \u0301\u0302\u0303") is None
