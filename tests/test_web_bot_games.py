"""A bot's games over HTTP (issue 42, item 4; docs/web-bots.md): the game
stream (``gameFull``, then a ``gameState`` per change) and the move, fill,
resign and abort endpoints, on a real server (a thread, or ``kamisado web``
processes on one PostgreSQL), read as a bot reads them: newline-delimited
JSON over plain HTTP."""

from __future__ import annotations

import contextlib
import http.cookiejar
import json
import random
import secrets
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.client import connect

from kamisado.rules import record as records
from kamisado.rules.match import Match
from kamisado.web.site.live import LiveServer
from tests.test_web_bots import HttpStream
from tests.test_web_ops import samples, value
from tests.test_web_processes import servers

pytestmark = pytest.mark.xdist_group("bot_games")

SCOPES = ["read", "play", "bot"]


def account(url: str, name: str, scopes: list[str] | None = None) -> str:
    """Sign ``name`` up on the site (a browser's cookie) and make it a token: the token."""
    return account_revocable(url, name, scopes)[0]


def account_revocable(url: str, name: str, scopes: list[str] | None = None) -> tuple[str, Callable[[], None]]:
    """:func:`account`, and a function that revokes its token (as its page does)."""
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    opener.open(url + "/api/me", timeout=20).read()

    def post(path: str, body: dict[str, Any]) -> dict[str, Any]:
        req = urllib.request.Request(url + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json", "Origin": url})
        got: dict[str, Any] = json.loads(opener.open(req, timeout=20).read())
        return got

    post("/api/signup", {"account": name, "password": "a long password", "name": name.title()})
    made = post("/api/tokens", {"name": "bot", "scopes": scopes or SCOPES})

    def revoke() -> None:
        req = urllib.request.Request(f"{url}/api/tokens/{made['id']}", method="DELETE", headers={"Origin": url})
        opener.open(req, timeout=20).read()

    return made["token"], revoke


def call(url: str, token: str | None, path: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
    """A POST with the token: (status, the JSON answer)."""
    head = {"Content-Type": "application/json"}
    if token is not None:
        head["Authorization"] = f"Bearer {token}"
    req = urllib.request.Request(url + path, data=json.dumps(body or {}).encode(), method="POST", headers=head)
    try:
        with urllib.request.urlopen(req, timeout=20) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def new_game(url: str, black: str, gold: str, target: int = 1, clock: dict[str, Any] | None = None) -> str:
    """A game between the accounts of two tokens: ``black`` creates it,
    ``gold`` claims the other seat with its invite (as its link does)."""
    body: dict[str, Any] = {"target": target, "online": True, "seat": "b"}
    if clock is not None:
        body["clock"] = clock
    status, game = call(url, black, "/api/games", body)
    assert status == 200, game
    ws_url = url.replace("http://", "ws://") + "/ws"
    with connect(ws_url, additional_headers={"Authorization": f"Bearer {gold}"}, open_timeout=20) as ws:
        ws.send(json.dumps({"type": "join", "game": game["id"], "token": game["tokens"]["g"]}))
        deadline = time.monotonic() + 20
        while True:
            frame = json.loads(ws.recv(timeout=max(0.01, deadline - time.monotonic())))
            if frame["type"] == "state" and frame["you"] == ["g"]:
                break
    gid: str = game["id"]
    return gid


class Stream:
    """``GET /api/bot/game/stream/{id}`` read line by line (keep-alive lines skipped)."""

    def __init__(self, url: str, token: str, gid: str) -> None:
        req = urllib.request.Request(f"{url}/api/bot/game/stream/{gid}",
                                     headers={"Authorization": f"Bearer {token}"})
        self.resp = urllib.request.urlopen(req, timeout=30)
        assert self.resp.headers["Content-Type"] == "application/x-ndjson"

    def next(self) -> dict[str, Any] | None:
        """The next line (``None``: the stream ended)."""
        while True:
            line = self.resp.readline()
            if not line:
                return None
            if line.strip():
                got: dict[str, Any] = json.loads(line)
                return got

    def until(self, holds: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """The first ``gameState`` (or ``gameFull``'s state) for which ``holds`` is true."""
        while True:
            line = self.next()
            assert line is not None, "the stream ended"
            state = line["state"] if line["type"] == "gameFull" else line
            if holds(state):
                return state

    def close(self) -> None:
        self.resp.close()


@contextlib.contextmanager
def streams(url: str, token_gid: list[tuple[str, str]]) -> Iterator[list[Stream]]:
    opened = [Stream(url, token, gid) for token, gid in token_gid]
    try:
        yield opened
    finally:
        for s in opened:
            s.close()


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveServer]:
    server = LiveServer(tmp_path / "games.sqlite3", workers=0)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def site(live: LiveServer) -> tuple[str, str, str]:
    """The server's URL and two accounts' tokens (ann, bob)."""
    return live.url, account(live.url, "ann"), account(live.url, "bob")


def play_out(url: str, tokens: dict[str, str], gid: str, seen: list[Stream], rng: random.Random,
             until: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """Play random legal actions of whichever side acts, each posted by that
    side's token, until ``until(state)``; every stream in ``seen`` must show
    every state in turn (one ``gameState`` per action).  The last state."""
    state = seen[0].until(lambda s: True)
    for other in seen[1:]:
        assert other.until(lambda s: True)["seq"] == state["seq"]
    while not until(state):
        action = rng.choice(state["legal"])
        kind = "fill" if state["awaiting"] == "fill" else "move"
        status, answer = call(url, tokens[state["to_act"]], f"/api/bot/game/{gid}/{kind}/{action}")
        assert (status, answer) == (200, {"ok": True})
        states = [s.next() for s in seen]
        for got in states:
            assert got is not None and got["type"] == "gameState", got
            assert got["seq"] == state["seq"] + 1
        assert all(s == states[0] | {"btime": s["btime"], "gtime": s["gtime"]} for s in states if s)
        state = states[0] or {}
    return state


def test_a_whole_game_between_two_token_accounts(site: tuple[str, str, str]) -> None:
    url, ann, bob = site
    gid = new_game(url, ann, bob, target=1, clock={"initial": 300, "increment": 2})
    with streams(url, [(ann, gid), (bob, gid)]) as (sa, sb):
        full = sa.next()
        assert full is not None and full["type"] == "gameFull" and full["seat"] == "b"
        assert full["id"] == gid and full["clock"] == {"initial": 300, "increment": 2}
        assert (full["black"]["name"], full["gold"]["name"], full["black"]["bot"]) == ("Ann", "Bob", False)
        start = full["state"]
        assert (start["seq"], start["to_act"], start["awaiting"], start["status"]) == (0, "b", "move", "started")
        assert start["legal"] == [str(m) for m in Match(1).legal_moves()]
        assert (start["btime"], start["binc"], start["ginc"]) == (300_000, 2000, 2000)
        assert start["kpn"] == start["start"] == Match(1).position.kpn()
        full_b = sb.next()
        assert full_b is not None and full_b["seat"] == "g" and full_b["state"]["seq"] == 0
        match = Match(1)
        rng = random.Random(42)
        state = start
        while state["status"] == "started":
            move = rng.choice(state["legal"])
            token = ann if state["to_act"] == "b" else bob
            assert call(url, token, f"/api/bot/game/{gid}/move/{move}") == (200, {"ok": True})
            match.push_move(move)
            got = [sa.next(), sb.next()]
            for line in got:
                assert line is not None and line["type"] == "gameState" and line["seq"] == state["seq"] + 1
                assert line["moves"] == [str(m) for m in match.current.moves]
                assert line["kpn"] == match.position.kpn()
                assert 0 < line["btime"] <= 300_000 + 2000 * len(match.current.moves)
            state = got[0] or {}
        assert (state["winner"], state["reason"], state["to_act"], state["legal"]) == (
            "b" if match.winner == 0 else "g", "points", None, [])
        assert sa.next() is None and sb.next() is None, "the stream ends with the game's end line"
    with urllib.request.urlopen(f"{url}/api/games/{gid}/record", timeout=20) as r:
        record = r.read().decode()
    assert [str(m) for m in records.read(record).match.rounds[0].moves] == state["moves"]


def test_refusals_change_nothing(site: tuple[str, str, str], live: LiveServer) -> None:
    url, ann, bob = site
    cy = account(url, "cyd")
    reader = account(url, "dee", ["read", "play"])
    gid = new_game(url, ann, bob)
    legal = [str(m) for m in Match(1).legal_moves()]
    base = f"/api/bot/game/{gid}"
    status, answer = call(url, ann, f"{base}/move/a1-h8")
    assert status == 400 and answer["code"] == "illegal" and answer["args"] == {"legal": legal}
    assert call(url, ann, f"{base}/move/resign-b")[1]["code"] == "malformed"
    assert call(url, ann, f"{base}/fill/up")[1]["code"] == "malformed"
    assert call(url, ann, f"{base}/move/c1-c5?seq=x")[1]["code"] == "malformed"
    assert call(url, bob, f"{base}/move/a8-a7")[0:1] == (409,)
    assert call(url, bob, f"{base}/move/a8-a7")[1]["code"] == "not_your_turn"
    assert call(url, cy, f"{base}/move/c1-c5")[1]["code"] == "not_your_game"
    assert call(url, cy, f"{base}/move/c1-c5")[0] == 403
    assert call(url, ann, "/api/bot/game/nosuchgame/move/c1-c5")[0:1] == (404,)
    assert call(url, ann, "/api/bot/game/nosuchgame/resign")[1]["code"] == "no_such_game"
    assert call(url, None, f"{base}/move/c1-c5")[0] == 401
    assert call(url, reader, f"{base}/move/c1-c5")[1]["code"] == "token_scope"
    assert call(url, ann, f"{base}/fill/left")[1]["code"] == "illegal"  # no round is over
    with streams(url, [(ann, gid)]) as (sa,):
        assert sa.until(lambda s: True)["seq"] == 0  # nothing of all that was stored
        assert call(url, ann, f"{base}/move/c1-c5?seq=0") == (200, {"ok": True})
        after = sa.next()
        assert after is not None and after["seq"] == 1
        stale = call(url, bob, f"{base}/move/{after['legal'][0]}?seq=0")
        assert stale[0] == 409 and stale[1]["code"] == "stale"
        assert call(url, bob, f"{base}/move/{after['legal'][0]}?seq=1") == (200, {"ok": True})
        assert sa.until(lambda s: True)["seq"] == 2
    with pytest.raises(urllib.error.HTTPError) as got:
        Stream(url, ann, "nosuchgame")
    assert got.value.code == 404


def test_a_fill_after_a_round_of_a_three_point_match(site: tuple[str, str, str]) -> None:
    url, ann, bob = site
    gid = new_game(url, ann, bob, target=3)
    tokens = {"b": ann, "g": bob}
    with streams(url, [(ann, gid), (bob, gid)]) as seen:
        state = play_out(url, tokens, gid, seen, random.Random(7), lambda s: s["awaiting"] == "fill")
        assert state["legal"] == ["left", "right"] and state["round"] == 1 and state["status"] == "started"
        assert sum(state["points"]) >= 1
        loser = "g" if state["to_act"] == "b" else "b"
        refused = call(url, tokens[loser], f"/api/bot/game/{gid}/fill/left")
        assert refused[0] == 409 and refused[1]["code"] == "not_your_turn"
        moved = call(url, tokens[state["to_act"]], f"/api/bot/game/{gid}/move/{'a1-a2'}")
        assert moved[0] == 400 and moved[1]["args"] == {"legal": ["left", "right"]}
        assert call(url, tokens[state["to_act"]], f"/api/bot/game/{gid}/fill/right") == (200, {"ok": True})
        for s in seen:
            line = s.next()
            assert line is not None and line["round"] == 2 and line["moves"] == [] and line["awaiting"] == "move"
            assert line["kpn"] == line["start"] and line["to_act"] == loser  # the loser challenges


def test_resign_and_abort_end_the_game_and_its_streams(site: tuple[str, str, str]) -> None:
    url, ann, bob = site
    gid = new_game(url, ann, bob)
    with streams(url, [(ann, gid), (bob, gid)]) as (sa, sb):
        assert sa.until(lambda s: True)["seq"] == sb.until(lambda s: True)["seq"] == 0
        assert call(url, ann, f"/api/bot/game/{gid}/abort") == (200, {"ok": True})
        for s in (sa, sb):
            end = s.next()
            assert end is not None and (end["status"], end["reason"], end["winner"]) == ("finished", "abort", None)
            assert s.next() is None
    gid = new_game(url, ann, bob)
    with streams(url, [(bob, gid)]) as (sb,):
        assert sb.until(lambda s: True)["seq"] == 0
        assert call(url, ann, f"/api/bot/game/{gid}/move/c1-c5") == (200, {"ok": True})
        reply = sb.next()
        assert reply is not None
        assert call(url, bob, f"/api/bot/game/{gid}/move/{reply['legal'][0]}") == (200, {"ok": True})
        assert sb.next() is not None
        late = call(url, ann, f"/api/bot/game/{gid}/abort")
        assert late[0] == 400 and late[1]["code"] == "illegal"
        assert call(url, bob, f"/api/bot/game/{gid}/resign") == (200, {"ok": True})
        end = sb.next()
        assert end is not None and (end["status"], end["reason"], end["winner"]) == ("finished", "resignation", "b")
        assert sb.next() is None
    over = call(url, ann, f"/api/bot/game/{gid}/resign")
    assert over[0] == 409 and over[1]["code"] == "over"
    with streams(url, [(ann, gid)]) as (sa,):  # a finished game: its whole state, and the end
        full = sa.next()
        assert full is not None and full["type"] == "gameFull" and full["state"]["reason"] == "resignation"
        assert sa.next() is None


def test_a_watcher_holds_no_seat(site: tuple[str, str, str]) -> None:
    url, ann, bob = site
    cy = account(url, "cyd")
    gid = new_game(url, ann, bob)
    with streams(url, [(cy, gid)]) as (sc,):
        full = sc.next()
        assert full is not None and full["seat"] is None
        assert call(url, ann, f"/api/bot/game/{gid}/move/c1-c5") == (200, {"ok": True})
        line = sc.next()
        assert line is not None and line["moves"] == ["c1-c5"]


def test_the_stream_opens_again_with_game_full_after_a_restart(site: tuple[str, str, str],
                                                                live: LiveServer) -> None:
    url, ann, bob = site
    gid = new_game(url, ann, bob, target=3, clock={"initial": 600, "increment": 5})
    with streams(url, [(ann, gid)]) as (sa,):
        sa.until(lambda s: True)
        assert call(url, ann, f"/api/bot/game/{gid}/move/c1-c5") == (200, {"ok": True})
        before = sa.next()
        assert before is not None and before["seq"] == 1
        live.stop()  # as SIGTERM stops kamisado web: the stream ends
        assert sa.next() is None
    assert live.start() == url  # the same port and database
    with streams(url, [(ann, gid), (bob, gid)]) as (sa, sb):
        for s in (sa, sb):
            full = s.next()
            assert full is not None and full["type"] == "gameFull" and full["state"]["seq"] == 1
            assert full["state"]["moves"] == ["c1-c5"] and full["state"]["to_act"] == "g"
        assert call(url, bob, f"/api/bot/game/{gid}/move/{before['legal'][0]}") == (200, {"ok": True})
        assert sa.until(lambda s: True)["seq"] == sb.until(lambda s: True)["seq"] == 2


def test_the_stream_across_two_processes(pg_url: str) -> None:
    with servers(pg_url, 2) as (a, b):
        url_a, url_b = f"http://{a}", f"http://{b}"
        run = secrets.token_hex(4)  # the database outlives the test: new accounts each run
        ann, bob = account(url_a, f"ann{run}"), account(url_a, f"bob{run}")
        gid = new_game(url_a, ann, bob, target=3, clock={"initial": 600, "increment": 5})
        with streams(url_b, [(ann, gid), (bob, gid)]) as seen:  # held on B; moves posted on A
            state = play_out(url_a, {"b": ann, "g": bob}, gid, seen, random.Random(3),
                             lambda s: s["seq"] >= 8)
            assert state["seq"] == 8 and len(state["moves"]) + (state["round"] - 1) >= 1


def test_a_bots_clock_runs_and_its_flag_falls_as_a_persons(site: tuple[str, str, str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The clocks are derived, never ticked: the server's time is moved on
    (``clocks.now_ms``, injected) past Gold's time, and the flag falls."""
    from kamisado.web.basics import clocks

    url, ann, bob = site
    gid = new_game(url, ann, bob, clock={"initial": 20, "increment": 1})
    real = clocks.now_ms
    shift = [0]
    monkeypatch.setattr(clocks, "now_ms", lambda: real() + shift[0])
    with streams(url, [(ann, gid), (bob, gid)]) as (sa, sb):
        assert sa.until(lambda s: True)["gtime"] == 20_000
        sb.until(lambda s: True)
        assert call(url, ann, f"/api/bot/game/{gid}/move/c1-c5") == (200, {"ok": True})
        moved = sb.next()
        assert moved is not None and moved["btime"] == 20_000 and 19_000 < moved["gtime"] <= 20_000
        shift[0] = 60_000  # a minute later: Gold's 20 s ran out
        end = sb.next()  # the flags' watch saw it (Black's first move is not timed: no increment)
        assert end is not None and (end["status"], end["reason"], end["winner"]) == ("finished", "time", "b")
        assert end["gtime"] == 0 and sb.next() is None
        late = call(url, bob, f"/api/bot/game/{gid}/move/{moved['legal'][0]}")
        assert late[0] == 409 and late[1]["code"] == "over"


def test_a_stream_holds_the_bots_seat_while_it_is_open(site: tuple[str, str, str]) -> None:
    """The opponent's page sees the bot online while its stream is open, and
    away once it closed it (the seat is let go of at once)."""
    url, ann, bob = site
    gid = new_game(url, ann, bob)
    ws_url = url.replace("http://", "ws://") + "/ws"
    with connect(ws_url, additional_headers={"Authorization": f"Bearer {bob}"}, open_timeout=20) as ws:
        ws.send(json.dumps({"type": "join", "game": gid}))

        def black_online(online: bool) -> None:
            deadline = time.monotonic() + 20
            while True:
                frame = json.loads(ws.recv(timeout=max(0.01, deadline - time.monotonic())))
                if frame["type"] == "state" and frame["seats"]["b"]["online"] is online:
                    return

        black_online(False)
        deadline = time.monotonic() + 20
        while open_counts(url) != (1, 0, 0):  # bob's websocket (gold's of new_game ends in its own time)
            assert time.monotonic() < deadline
        ea = HttpStream(url.removeprefix("http://"), ann)
        try:
            with streams(url, [(ann, gid)]) as (sa,):
                assert sa.next() is not None and ea.next()["type"] == "gameStart"
                black_online(True)
                assert open_counts(url) == (1, 1, 1)  # the streams are not counted as websockets
        finally:
            ea.close()
        black_online(False)
        assert open_counts(url)[:2] == (1, 0)


def open_counts(url: str) -> tuple[float, float, float]:
    """``/metrics``'s websockets open, game streams open and event streams open."""
    with urllib.request.urlopen(url + "/metrics", timeout=20) as r:
        found = samples(r.read().decode())
    return (value(found, "kamisado_websockets_open"), value(found, "kamisado_streams_open", kind="game"),
            value(found, "kamisado_streams_open", kind="event"))


def test_a_revoked_token_ends_its_stream(site: tuple[str, str, str]) -> None:
    url, ann, bob = site
    token, revoke = account_revocable(url, "cyd")
    gid = new_game(url, ann, bob)
    with streams(url, [(token, gid)]) as (sc,):
        assert sc.next() is not None
        revoke()
        assert sc.next() is None
    assert call(url, token, f"/api/bot/game/{gid}/resign")[0] == 401
