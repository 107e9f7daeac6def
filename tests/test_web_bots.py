"""Bot accounts, challenges over HTTP and the event stream (issue 42, items
3 and 4; docs/web-bots.md): a token's account becomes a bot once, before
any game; bots are marked, never quick-paired; a challenge made through the
API reaches a person's page and a page's reaches a bot's stream; declines,
withdrawals, expiry, game starts and ends reach the other side, across
processes too."""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import secrets
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from websockets.sync.client import connect as ws_connect

from kamisado.web.bots.challenges import API_CHALLENGE_S
from kamisado.web.bots.events import Listening
from kamisado.web.edge.guard import Limit
from kamisado.web.site.server import create_app
from tests.test_web_controls import browser, close_all, connect, me, sign_up, until
from tests.test_web_processes import frame, servers, start_server
from tests.test_web_tokens import new_token, program

ALL = ["bot", "challenge", "play", "read"]


class Clock:
    """The sessions' and challenges' wall clock, moved by the test."""

    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def site(tmp_path: Path, clock: Clock) -> Iterator[TestClient]:
    with TestClient(create_app(str(tmp_path / "games.db"), workers=0, limits={}, clock=clock)) as c:
        c.get("/")
        try:
            yield c
        finally:
            close_all()


def account(first: TestClient, name: str) -> TestClient:
    c = browser(first)
    sign_up(c, name)
    return c


def make_bot(site: TestClient, name: str = "robo") -> tuple[TestClient, str]:
    """A bot account: its program's client (a token with every scope) and its id."""
    owner = account(site, name)
    bot = program(site, new_token(owner, ALL)["token"])
    r = bot.post("/api/bot/upgrade")
    assert r.status_code == 200, r.text
    assert r.json() == {"id": me(owner), "name": name.title(), "bot": True}
    return bot, me(owner)


class Stream:
    """An account's event stream read in the server's loop (the test
    client cannot read an endless HTTP answer: the HTTP stream is read in
    :func:`test_the_event_stream_across_two_processes`)."""

    def __init__(self, site: TestClient, player: str, name: str, bot: bool = True) -> None:
        self.site = site
        events = site.app.state.events  # type: ignore[attr-defined]
        self.gen: Listening = site.portal.call(events.listen, player, name, bot)  # type: ignore[union-attr]

    def next(self) -> dict[str, Any]:
        async def one() -> dict[str, Any]:
            return await asyncio.wait_for(anext(self.gen), 10)

        got: dict[str, Any] = self.site.portal.call(one)  # type: ignore[union-attr]
        return got

    def close(self) -> None:
        self.site.portal.call(self.gen.aclose)  # type: ignore[union-attr]


@contextlib.contextmanager
def stream(site: TestClient, player: str, name: str, bot: bool = True) -> Iterator[Stream]:
    s = Stream(site, player, name, bot)
    try:
        yield s
    finally:
        s.close()


def notices(ws: Any) -> dict[str, Any]:
    ws.send_json({"type": "notices"})
    return until(ws, lambda m: m["type"] == "notices")


def bot_with_token(site: TestClient, name: str = "robo") -> tuple[TestClient, str, str]:
    owner = account(site, name)
    token = new_token(owner, ALL)["token"]
    bot = program(site, token)
    assert bot.post("/api/bot/upgrade").status_code == 200
    return bot, me(owner), token


# -- bot accounts --------------------------------------------------------------------------


def test_upgrade_once_before_any_game_with_a_bot_token_only(site: TestClient) -> None:
    bot, bot_id = make_bot(site)
    again = bot.post("/api/bot/upgrade")
    assert again.status_code == 400 and again.json()["code"] == "already_bot"
    assert bot.get("/api/me").json()["bot"] is True
    # a read-only token, and the page's cookie, may not upgrade
    ann = account(site, "ann")
    reader = program(site, new_token(ann, ["read"])["token"])
    r = reader.post("/api/bot/upgrade")
    assert r.status_code == 403 and r.json()["code"] == "token_scope"
    r = ann.post("/api/bot/upgrade", headers={"Origin": "http://testserver"})
    assert r.status_code == 403 and r.json()["code"] == "token_needed"
    assert ann.get("/api/me").json()["bot"] is False
    # an account that has played is refused, and stays a person
    r = ann.post("/api/games", json={"black": "human", "gold": "human", "online": True})
    assert r.status_code == 200, r.text
    game = r.json()["id"]
    ws = connect(ann)
    ws.send_json({"type": "join", "game": game, "token": r.json()["tokens"]["b"]})
    until(ws, lambda m: m["type"] == "state")
    hers = program(site, new_token(ann, ["bot"])["token"])
    r = hers.post("/api/bot/upgrade")
    assert r.status_code == 400 and r.json()["code"] == "bot_has_games", r.text
    assert ann.get("/api/me").json()["bot"] is False


def test_a_bots_seek_is_refused_and_its_challenges_say_bot(site: TestClient) -> None:
    bot, bot_id, _ = bot_with_token(site)
    ws = connect(bot)  # the bot's websocket, by its token
    ws.send_json({"type": "seek", "speed": "5+3"})
    err = until(ws, lambda m: m["type"] == "error")
    assert err["code"] == "bot_seek"
    ann = account(site, "ann")
    wa = connect(ann)
    notices(wa)
    ws.send_json({"type": "challenge", "to": me(ann)})
    got = until(wa, lambda m: m["type"] == "challenged")
    assert got["challenge"]["by"]["bot"] is True and got["challenge"]["by"]["player"] == bot_id


# -- challenges over HTTP and the event stream -----------------------------------------------


def test_a_bot_challenges_a_person_who_accepts_on_the_page(site: TestClient) -> None:
    bot, bot_id, _ = bot_with_token(site)
    ann = account(site, "ann")
    ann_id = me(ann)
    wa = connect(ann)
    notices(wa)
    with stream(site, bot_id, "Robo") as events:
        r = bot.post(f"/api/challenge/{ann_id}", json={"target": 3, "clock": {"initial": 180, "increment": 2},
                                                       "color": "black"})
        assert r.status_code == 200, r.text
        made = r.json()
        assert made["challenger"] == {"id": bot_id, "name": "Robo", "rating": None, "bot": True}
        assert made["destUser"]["id"] == ann_id and made["destUser"]["bot"] is False
        assert (made["color"], made["target"], made["status"]) == ("black", 3, "created")
        assert made["clock"] == {"initial": 180, "increment": 2}
        assert isinstance(made["clock"]["initial"], int)  # 180, not 180.0
        seen = events.next()
        assert seen == {"type": "challenge", "challenge": made}
        got = until(wa, lambda m: m["type"] == "challenged")["challenge"]
        assert got["id"] == made["id"] and got["by"]["bot"] is True
        wa.send_json({"type": "accept", "challenge": made["id"]})
        game = until(wa, lambda m: m["type"] == "started")["game"]
        start = events.next()
        assert start["type"] == "gameStart" and start["game"]["id"] == game
        assert start["game"]["seat"] == "b" and start["game"]["opponent"]["id"] == ann_id
        assert start["game"]["clock"] == {"initial": 180, "increment": 2}
        assert isinstance(start["game"]["clock"]["increment"], int)
    # a stream opened again says the game in progress first
    with stream(site, bot_id, "Robo") as again:
        first = again.next()
        assert first["type"] == "gameStart" and first["game"]["id"] == game


def test_a_persons_challenge_reaches_the_bot_which_accepts_by_api(site: TestClient) -> None:
    bot, bot_id, _ = bot_with_token(site)
    ann = account(site, "ann")
    wa = connect(ann)
    wa.send_json({"type": "challenge", "to": bot_id})  # the bot is offline: no stream open
    assert until(wa, lambda m: m["type"] in ("error", "challenging"))["code"] == "offline"
    with stream(site, bot_id, "Robo") as events:
        assert [b["id"] for b in site.get("/api/bots").json()] == [bot_id]
        wa.send_json({"type": "challenge", "to": bot_id, "target": 1, "color": "g"})
        mine = until(wa, lambda m: m["type"] == "challenging")["challenge"]
        seen = events.next()
        assert seen["type"] == "challenge" and seen["challenge"]["id"] == mine["id"]
        assert seen["challenge"]["color"] == "gold" and seen["challenge"]["destUser"]["bot"] is True
        r = bot.post(f"/api/challenge/{mine['id']}/accept")
        assert r.status_code == 200, r.text
        game = r.json()["game"]
        assert until(wa, lambda m: m["type"] == "started")["game"] == game
        start = events.next()
        assert start["type"] == "gameStart" and start["game"]["id"] == game and start["game"]["seat"] == "b"
        # the person resigns: the bot hears gameFinish
        ws = connect(ann)
        ws.send_json({"type": "join", "game": game})
        seats = until(ws, lambda m: m["type"] == "state")["seats"]
        assert (seats["b"]["player"], seats["b"]["bot"], seats["g"]["bot"]) == (bot_id, True, False)
        with bot.stream("GET", f"/api/bot/game/stream/{game}") as answer:  # the game stream marks the bot too
            full = json.loads(next(line for line in answer.iter_lines() if line))
        assert (full["black"]["bot"], full["gold"]["bot"]) == (True, False)
        ws.send_json({"type": "resign"})
        end = events.next()
        assert end["type"] == "gameFinish" and end["game"]["id"] == game
        assert (end["game"]["winner"], end["game"]["reason"]) == ("b", "resignation")
    assert site.get("/api/bots").json() == []  # its stream closed: offline
    assert site.get(f"/api/players/{bot_id}").json()["bot"] is True
    assert site.get(f"/api/players/{me(ann)}").json()["bot"] is False


def test_decline_cancel_and_expiry_reach_the_other_side(site: TestClient, clock: Clock) -> None:
    bot, bot_id, _ = bot_with_token(site)
    ann = account(site, "ann")
    ann_id = me(ann)
    wa = connect(ann)
    notices(wa)
    with stream(site, bot_id, "Robo") as events:
        # the person declines on the page: the bot hears it
        made = bot.post(f"/api/challenge/{ann_id}", json={}).json()
        assert events.next()["type"] == "challenge"
        until(wa, lambda m: m["type"] == "challenged")
        wa.send_json({"type": "decline", "challenge": made["id"]})
        declined = events.next()
        assert declined["type"] == "challengeDeclined" and declined["challenge"]["id"] == made["id"]
        assert declined["challenge"]["status"] == "declined"
        # the bot withdraws: the page takes it down
        made = bot.post(f"/api/challenge/{ann_id}", json={}).json()
        events.next()
        until(wa, lambda m: m["type"] == "challenged")
        r = bot.post(f"/api/challenge/{made['id']}/cancel")
        assert r.json() == {"ok": True}
        assert until(wa, lambda m: m["type"] == "withdrawn")["challenge"] == made["id"]
        assert events.next()["type"] == "challengeCanceled"
        r = bot.post(f"/api/challenge/{made['id']}/cancel")
        assert r.status_code == 404 and r.json()["code"] == "no_challenge"
        # unanswered for 10 minutes: withdrawn (the clock is the test's)
        made = bot.post(f"/api/challenge/{ann_id}", json={}).json()
        events.next()
        until(wa, lambda m: m["type"] == "challenged")
        api = site.app.state.api_challenges  # type: ignore[attr-defined]
        clock.now += API_CHALLENGE_S - 1
        assert site.portal.call(api.expire) == []  # type: ignore[union-attr]
        clock.now += 1
        assert site.portal.call(api.expire) == [made["id"]]  # type: ignore[union-attr]
        assert until(wa, lambda m: m["type"] == "withdrawn")["challenge"] == made["id"]
        gone = events.next()
        assert gone["type"] == "challengeCanceled" and gone["challenge"]["id"] == made["id"]
        # and the bot declines a person's challenge
        wa.send_json({"type": "challenge", "to": bot_id})
        mine = until(wa, lambda m: m["type"] == "challenging")["challenge"]
        events.next()
        r = bot.post(f"/api/challenge/{mine['id']}/decline")
        assert r.json() == {"ok": True}
        assert until(wa, lambda m: m["type"] == "declined")["challenge"] == mine["id"]
        assert events.next()["type"] == "challengeDeclined"


def test_bad_challenges_change_nothing(site: TestClient) -> None:
    bot, bot_id, _ = bot_with_token(site)
    r = bot.post(f"/api/challenge/{bot_id}", json={"color": "purple"})
    assert r.status_code == 400 and "color" in r.json()["error"]
    r = bot.post("/api/challenge/nobody", json={"target": 2})
    assert r.status_code == 400 and "target" in r.json()["error"]
    r = bot.post("/api/challenge/nobody", json={})
    assert r.status_code == 409 and r.json()["code"] == "offline"
    r = bot.post("/api/challenge/nothing/accept")
    assert r.status_code == 404 and r.json()["code"] == "no_challenge"
    assert site.get("/api/stream/event").status_code == 403  # the page without an account


# -- across processes ------------------------------------------------------------------------


def _post(addr: str, path: str, token: str, body: Any = None) -> Any:
    req = urllib.request.Request(f"http://{addr}{path}", data=json.dumps(body or {}).encode(), method="POST",
                                 headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"})
    return json.loads(urllib.request.urlopen(req, timeout=10).read())


def _account_token(addr: str, name: str) -> tuple[str, str, urllib.request.OpenerDirector]:
    """Sign up on ``addr`` and make a token with every scope: the token, its
    id and the account's browser."""
    jar = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
    origin = {"Content-Type": "application/json", "Origin": f"http://{addr}"}
    jar.open(f"http://{addr}/api/me", timeout=10).read()
    body = json.dumps({"account": name, "password": "a long password", "name": name.title()}).encode()
    jar.open(urllib.request.Request(f"http://{addr}/api/signup", data=body, headers=origin), timeout=10).read()
    body = json.dumps({"name": "t", "scopes": ALL}).encode()
    made = json.loads(jar.open(urllib.request.Request(f"http://{addr}/api/tokens", data=body, headers=origin),
                               timeout=10).read())
    return made["token"], made["id"], jar


class HttpStream:
    """``GET /api/stream/event`` over HTTP, line by line."""

    def __init__(self, addr: str, token: str) -> None:
        host, port = addr.split(":")
        self.conn = http.client.HTTPConnection(host, int(port), timeout=15)
        self.conn.request("GET", "/api/stream/event", headers={"Authorization": f"Bearer {token}"})
        self.answer = self.conn.getresponse()
        assert self.answer.status == 200 and self.answer.getheader("content-type") == "application/x-ndjson"

    def next(self) -> dict[str, Any]:
        while True:
            line = self.answer.readline()
            assert line, "the stream ended"
            if line.strip():
                got: dict[str, Any] = json.loads(line)
                return got

    def close(self) -> None:
        self.conn.close()


def test_the_event_stream_across_two_processes(pg_url: str) -> None:
    with servers(pg_url, 2) as (a, b):
        run = secrets.token_hex(3)  # the database outlives the test: names of this run
        bot_token, bot_token_id, bot_browser = _account_token(a, f"robo{run}")
        ann_token, _, _ = _account_token(b, f"ann{run}")
        bot = _post(a, "/api/bot/upgrade", bot_token)
        ann_me = json.loads(urllib.request.urlopen(urllib.request.Request(
            f"http://{b}/api/me", headers={"Authorization": f"Bearer {ann_token}"}), timeout=10).read())
        bot_events = HttpStream(a, bot_token)  # the bot listens on one process
        ann_events = HttpStream(b, ann_token)  # the person's program on the other
        try:
            deadline = time.monotonic() + 10
            while not any(x["id"] == bot["id"] for x in json.loads(
                    urllib.request.urlopen(f"http://{b}/api/bots", timeout=10).read())):
                assert time.monotonic() < deadline, "the bot is not online on the other process"
                time.sleep(0.05)
            made = _post(b, f"/api/challenge/{bot['id']}", ann_token, {"target": 1})
            seen = bot_events.next()
            assert seen["type"] == "challenge" and seen["challenge"]["id"] == made["id"]
            assert ann_events.next()["challenge"]["id"] == made["id"]
            game = _post(a, f"/api/challenge/{made['id']}/accept", bot_token)["game"]
            start = bot_events.next()
            assert start["type"] == "gameStart" and start["game"]["id"] == game
            theirs = ann_events.next()
            assert theirs["type"] == "gameStart" and theirs["game"]["opponent"]["bot"] is True
            assert theirs["game"]["opponent"]["id"] == bot["id"] and ann_me["bot"] is False
            # Ann resigns on her process: the bot's stream on the other hears gameFinish
            with ws_connect(f"ws://{b}/ws", additional_headers={"Authorization": f"Bearer {ann_token}"}) as ws:
                ws.send(json.dumps({"type": "join", "game": game}))
                frame(ws)
                ws.send(json.dumps({"type": "resign"}))
                end = bot_events.next()
            assert end["type"] == "gameFinish" and end["game"]["id"] == game
            assert end["game"]["winner"] == start["game"]["seat"] and end["game"]["reason"] == "resignation"
            assert ann_events.next()["type"] == "gameFinish"
            # the bot challenges Ann through one process and withdraws it through the other
            made = _post(a, f"/api/challenge/{ann_me['id']}", bot_token, {"target": 3})
            assert bot_events.next()["challenge"]["id"] == made["id"]
            assert ann_events.next()["challenge"]["id"] == made["id"]
            assert _post(b, f"/api/challenge/{made['id']}/cancel", bot_token) == {"ok": True}
            for events in (bot_events, ann_events):
                gone = events.next()
                assert gone["type"] == "challengeCanceled" and gone["challenge"]["id"] == made["id"]
            with pytest.raises(urllib.error.HTTPError) as refused:  # gone on both processes
                _post(a, f"/api/challenge/{made['id']}/cancel", bot_token)
            assert refused.value.code == 404
            # the bot's token revoked through the other process: its stream ends
            revoke = urllib.request.Request(f"http://{b}/api/tokens/{bot_token_id}", method="DELETE",
                                            headers={"Origin": f"http://{b}"})
            bot_browser.open(revoke, timeout=10).read()
            with pytest.raises(AssertionError, match="the stream ended"):
                bot_events.next()
        finally:
            bot_events.close()
            ann_events.close()


def test_blocks_keep_applying_to_challenges_over_http(site: TestClient) -> None:
    bot, bot_id, _ = bot_with_token(site)
    ann = account(site, "ann")
    ann_id = me(ann)
    wa = connect(ann)
    notices(wa)
    with stream(site, bot_id, "Robo") as events:
        # Ann challenges the bot; the bot blocks her: a stream opened again leaves it out
        wa.send_json({"type": "challenge", "to": bot_id})
        mine = until(wa, lambda m: m["type"] == "challenging")["challenge"]
        assert events.next()["challenge"]["id"] == mine["id"]
        assert bot.post(f"/api/players/{ann_id}/block").status_code == 200
        with stream(site, bot_id, "Robo") as again:
            assert site.portal.call(again.gen.queue.qsize) == 0  # type: ignore[union-attr]
        # Ann blocks the bot: its challenge is answered as any other, and never reaches her
        assert ann.post(f"/api/players/{bot_id}/block", headers={"Origin": "http://testserver"}).status_code == 200
        made = bot.post(f"/api/challenge/{ann_id}", json={})
        assert made.status_code == 200 and made.json()["destUser"]["id"] == ann_id
        assert notices(wa)["challenges"] == []


def test_challenges_over_http_take_from_the_create_limit(tmp_path: Path) -> None:
    limits = {"create": Limit("create", 1 / 60, 1, "games created")}
    with TestClient(create_app(str(tmp_path / "games.db"), workers=0, limits=limits)) as site:
        site.get("/")
        try:
            bot, _, _ = bot_with_token(site)
            assert bot.post("/api/challenge/nobody", json={}).json()["code"] == "offline"
            r = bot.post("/api/challenge/nobody", json={})
            assert r.status_code == 429 and "Retry-After" in r.headers
        finally:
            close_all()


def test_a_server_stopping_ends_its_event_streams(tmp_path: Path) -> None:
    """SIGTERM: every event stream ends (the client reconnects elsewhere and
    is told everything again), so the server is not held open by them."""
    proc, addr = start_server(str(tmp_path / "games.db"))
    try:
        token, _, _ = _account_token(addr, "robo")
        events = HttpStream(addr, token)
        proc.terminate()
        while (line := events.answer.readline()) == b"\n":  # keep-alive lines, until the end
            pass
        assert line == b""
        proc.communicate(timeout=60)
        assert proc.returncode is not None
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


# -- tournaments and rematches (issue 43) ----------------------------------------------------


def test_a_bot_joins_only_events_for_bots_hears_each_pairing_once_and_its_rematch(site: TestClient) -> None:
    bot, bot_id, _ = bot_with_token(site)
    ann = account(site, "ann")
    ann_id = me(ann)
    wa = connect(ann)  # Ann's page: present to the pairing pass
    arena = {"kind": "arena", "name": "Bots welcome", "clock": {"initial": 180, "increment": 2}, "minutes": 5,
             "starts_in": 600}
    people_only = ann.post("/api/tournaments", json={**arena, "name": "People"}).json()["id"]
    r = bot.post(f"/api/tournaments/{people_only}/join")
    assert r.status_code == 403 and r.json()["code"] == "no_bots" and "people only" in r.json()["error"]
    assert bot.get(f"/api/tournaments/{people_only}").json()["standings"] == []  # nothing changed
    tid = ann.post("/api/tournaments", json={**arena, "bots": True}).json()["id"]
    assert [t["id"] for t in bot.get("/api/tournaments").json()] == [people_only, tid]  # a bot token reads them
    assert ann.post(f"/api/tournaments/{tid}/join").status_code == 200
    with stream(site, bot_id, "Robo") as events:  # the stream makes the bot present
        r = bot.post(f"/api/tournaments/{tid}/join")
        assert r.status_code == 200 and r.json() == {"tournament": tid, "player": bot_id, "active": True}
        tournaments = site.app.state.lobby.tournaments  # type: ignore[attr-defined]
        starts = bot.get(f"/api/tournaments/{tid}").json()["starts"]
        tournaments.clock = lambda: starts + 1000  # the start came
        assert site.portal.call(tournaments.pass_now) == 1  # type: ignore[union-attr]
        start = events.next()
        game = until(wa, lambda m: m["type"] == "started")["game"]
        assert start["type"] == "gameStart" and start["game"]["id"] == game and start["game"]["tournament"] == tid
        assert start["game"]["clock"] == {"initial": 180, "increment": 2} and start["game"]["rated"] is True
        assert start["game"]["opponent"]["id"] == ann_id
        # heard again (another process's tstarted): the stream does not say it twice
        site.portal.call(tournaments.heard, "tstarted", f"{game} {ann_id} {bot_id}")  # type: ignore[union-attr]
    with stream(site, bot_id, "Robo") as events:  # a reconnecting bot is told of its game once
        again = events.next()
        assert again == {**start, "game": {**start["game"], "seat": again["game"]["seat"]}}
        site.portal.call(tournaments.heard, "tstarted", f"{game} {ann_id} {bot_id}")  # type: ignore[union-attr]
        ws = connect(ann)
        ws.send_json({"type": "join", "game": game})
        until(ws, lambda m: m["type"] == "state")
        ws.send_json({"type": "resign"})
        assert events.next()["type"] == "gameFinish"  # not a second gameStart
        # a rematch accepted on the bot's websocket (its token) reaches its stream
        wbot = connect(bot)
        wbot.send_json({"type": "join", "game": game})
        until(wbot, lambda m: m["type"] == "state" and m["state"] == "over")
        ws.send_json({"type": "rematch"})
        until(wbot, lambda m: m["type"] == "state" and m.get("offer") is not None)
        wbot.send_json({"type": "rematch", "action": "accept"})
        new = until(wbot, lambda m: m["type"] == "started")["game"]
        rematch = events.next()
        assert rematch["type"] == "gameStart" and rematch["game"]["id"] == new != game
        assert rematch["game"]["seat"] != start["game"]["seat"] and "tournament" not in rematch["game"]
