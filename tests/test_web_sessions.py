"""Accounts that resist guessing, and server-side sessions (issue 25, item 1).

Sign-ins are limited per account name, whatever the address; an unknown
name and a wrong password look alike; a signed-in browser's cookie is a
session in the database, which sign-out, "sign out everywhere", a password
change and idleness end.  Each :class:`TestClient` is a browser with its
own cookies (and, where it matters, its own address); the time of the
sessions and of the lockout is the test's own :class:`Clock`."""

from __future__ import annotations

import base64
import json
import secrets
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import itsdangerous
import pytest
import sqlalchemy as sa
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from kamisado.web.accounts.players import COOKIE, PasswordHasher, PlayerError, Players
from kamisado.web.accounts.sessions import (
    FREE_FAILURES,
    SESSION_IDLE_S,
    AccountLocked,
    Sessions,
    SignInLocks,
    digest,
)
from kamisado.web.site.server import create_app
from kamisado.web.store.migrations import upgrade
from kamisado.web.store.schema import sessions, sign_in_failures
from kamisado.web.store.storage import database_url

RIGHT = "correct horse battery"
DAY = 24 * 3600.0


class Clock:
    """A wall clock the test moves."""

    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def site(tmp_path: Path, clock: Clock) -> Iterator[TestClient]:
    """The server (no rate limits per address: these tests are about the
    limit per account name), and a first browser that visited it."""
    app = create_app(str(tmp_path / "games.db"), workers=0, limits={}, secret="test-key", clock=clock)
    with TestClient(app) as c:
        c.get("/")
        yield c


def browser(first: TestClient, address: str = "testclient", visit: bool = True) -> TestClient:
    """Another browser on the same server, from ``address``."""
    other = TestClient(first.app, client=(address, 50000))
    other.portal = first.portal  # the server's event loop
    if visit:
        other.get("/")
    return other


def me(client: TestClient) -> dict[str, Any]:
    r = client.get("/api/me")
    assert r.status_code == 200, r.text
    data: dict[str, Any] = r.json()
    return data


def post(client: TestClient, path: str, body: dict[str, Any], status: int = 200) -> dict[str, Any]:
    r = client.post(path, json=body)
    assert r.status_code == status, r.text
    data: dict[str, Any] = r.json()
    return data


def sign_up(site: TestClient, account: str) -> TestClient:
    b = browser(site)
    post(b, "/api/signup", {"account": account, "password": RIGHT})
    return b


def sign_in(site: TestClient, account: str, password: str = RIGHT, address: str = "testclient") -> TestClient:
    b = browser(site, address)
    post(b, "/api/signin", {"account": account, "password": password})
    return b


def copy_of(client: TestClient) -> TestClient:
    """A browser holding a copy of ``client``'s cookie (a stolen one)."""
    thief = browser(client, visit=False)
    thief.cookies.set(COOKIE, client.cookies[COOKIE], domain="testserver.local")
    return thief


def session_rows(client: TestClient) -> list[dict[str, Any]]:
    engine = client.app.state.hub.store.engine  # type: ignore[attr-defined]
    with engine.connect() as conn:
        return [dict(r) for r in conn.execute(sa.select(sessions)).mappings()]


# -- the lockout per account name -------------------------------------------------


def test_guesses_from_many_addresses_lock_the_account_name_and_the_lock_grows(
    site: TestClient, clock: Clock
) -> None:
    sign_up(site, "victim")
    answers = []
    for i in range(FREE_FAILURES + 3):  # each guess from another address
        r = browser(site, f"10.0.0.{i}", visit=False).post(
            "/api/signin", json={"account": "victim", "password": f"guess {i}"})
        answers.append((r.status_code, r.headers.get("retry-after")))
    assert answers == [(401, None)] * FREE_FAILURES + [(429, "60")] * 3
    # while locked, even the right password is refused, and says how long to wait
    r = browser(site, "198.51.100.1", visit=False).post(
        "/api/signin", json={"account": "VICTIM", "password": RIGHT})
    assert r.status_code == 429 and r.headers["retry-after"] == "60"
    assert r.json() == {"error": "too many failed sign-ins to this account; try again in 60 s", "code": "rate_limited",
                        "limit": "signin", "retry_after": 60}
    clock.now += 30
    r = browser(site, "10.0.1.1", visit=False).post("/api/signin", json={"account": "victim", "password": "x" * 8})
    assert (r.status_code, r.headers["retry-after"]) == (429, "30")
    # once the lock ends: one more guess, and the lock doubles
    clock.now += 30
    assert browser(site, "10.0.1.2", visit=False).post(
        "/api/signin", json={"account": "victim", "password": "guess again"}).status_code == 401
    r = browser(site, "10.0.1.3", visit=False).post("/api/signin", json={"account": "victim", "password": RIGHT})
    assert (r.status_code, r.headers["retry-after"]) == (429, "120")
    # after it the owner gets in, and the failures are forgotten
    clock.now += 120
    owner = sign_in(site, "victim", address="198.51.100.2")
    assert me(owner)["account"] == "victim"
    codes = [browser(site, f"10.0.2.{i}", visit=False).post(
        "/api/signin", json={"account": "victim", "password": f"again {i}"}).status_code
        for i in range(FREE_FAILURES + 1)]
    assert codes == [401] * FREE_FAILURES + [429]
    # another account is not locked by any of this
    sign_up(site, "bystander")
    assert me(sign_in(site, "bystander", address="10.0.0.1"))["account"] == "bystander"


def test_an_unknown_name_is_locked_like_a_real_one(site: TestClient) -> None:
    sign_up(site, "real_one")
    for account in ("real_one", "no_such_one"):
        seen = [browser(site, f"10.9.0.{i}", visit=False).post(
            "/api/signin", json={"account": account, "password": f"guess {i}"}) for i in range(FREE_FAILURES + 1)]
        assert [(r.status_code, r.json()) for r in seen] == (
            [(401, {"error": "wrong account name or password", "code": "wrong_password"})] * FREE_FAILURES
            + [(429, {"error": "too many failed sign-ins to this account; try again in 60 s", "code": "rate_limited",
                      "limit": "signin", "retry_after": 60})])


def test_a_wrong_current_password_counts_against_the_account(site: TestClient) -> None:
    owner = sign_up(site, "changer")
    for i in range(FREE_FAILURES):
        assert post(owner, "/api/password", {"current": f"guess {i}", "password": "new password"}, 403) == {
            "error": "wrong current password", "code": "wrong_current"}
    r = owner.post("/api/password", json={"current": RIGHT, "password": "new password"})
    assert r.status_code == 429 and r.headers["retry-after"] == "60"
    r = browser(site, visit=False).post("/api/signin", json={"account": "changer", "password": RIGHT})
    assert r.status_code == 429  # the same lock as signing in


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "shared.db")
    return str(request.getfixturevalue("pg_url"))


def test_the_lock_is_shared_by_every_process_on_the_database(database: str, clock: Clock) -> None:
    name = f"shared_{secrets.token_hex(4)}"  # the PostgreSQL database outlives the test
    one = create_app(database, workers=0, limits={}, clock=clock)
    two = create_app(database, workers=0, limits={}, clock=clock)
    with TestClient(one) as a, TestClient(two) as b:
        a.get("/")
        post(a, "/api/signup", {"account": name, "password": RIGHT})
        codes = [(a if i % 2 else b).post("/api/signin", json={"account": name, "password": f"no {i}"}).status_code
                 for i in range(FREE_FAILURES + 2)]
        assert codes == [401] * FREE_FAILURES + [429, 429]


def test_attempts_made_at_once_are_each_counted(database: str, clock: Clock) -> None:
    """Twenty attempts at the same moment from twenty threads (as many
    processes would make them): exactly the free ones get to check a
    password; every other one is refused."""
    engine = sa.create_engine(database_url(database), pool_size=20)
    upgrade(engine)
    locks = SignInLocks(engine, clock)
    name = f"crowd_{secrets.token_hex(4)}"
    start = threading.Barrier(20)
    allowed: list[int] = []
    refused: list[int] = []

    def attempt(i: int) -> None:
        start.wait()
        try:
            locks.attempt(name)
        except AccountLocked:
            refused.append(i)
        else:
            allowed.append(i)

    threads = [threading.Thread(target=attempt, args=(i,)) for i in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert (len(allowed), len(refused)) == (FREE_FAILURES, 20 - FREE_FAILURES)
        with engine.connect() as conn:
            row = conn.execute(sa.select(sign_in_failures).where(sign_in_failures.c.account == name)).one()
        assert row.failures == FREE_FAILURES and row.locked_until == pytest.approx(clock.now + 60)
    finally:
        engine.dispose()


# -- an unknown name and a wrong password look alike ---------------------------------


class CountingHasher(PasswordHasher):
    """argon2id as the server uses it (cheaper parameters), noting the
    parameters of every hash it checks a password against."""

    def __init__(self) -> None:
        super().__init__(time_cost=2, memory_cost=1024, parallelism=1)
        self.checked: list[str] = []

    def verify(self, hash: str | bytes, password: str | bytes) -> bool:
        text = hash.decode() if isinstance(hash, bytes) else hash
        self.checked.append(text.rsplit("$", 2)[0])  # $argon2id$v=19$m=...,t=...,p=...
        return super().verify(hash, password)


def test_an_unknown_name_costs_the_same_hashing_as_a_wrong_password(tmp_path: Path) -> None:
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'p.db'}")
    upgrade(engine)
    hasher = CountingHasher()
    book = Players(engine, hasher)
    ann = book.new()
    book.sign_up(ann.id, "ann", RIGHT)
    answers = {}
    for label, account in (("unknown", "nobody"), ("wrong", "ann")):
        hasher.checked.clear()
        with pytest.raises(PlayerError) as err:
            book.sign_in(account, "not the password")
        answers[label] = (str(err.value), err.value.status, list(hasher.checked))
    assert answers["unknown"][:2] == answers["wrong"][:2] == ("wrong account name or password", 401)
    # one argon2id check each, against a hash of the very same parameters
    assert len(answers["unknown"][2]) == len(answers["wrong"][2]) == 1
    assert answers["unknown"][2] == answers["wrong"][2]
    assert answers["wrong"][2][0].startswith("$argon2id$")
    # a password that is no text (a lone surrogate) is wrong, after the same work
    hasher.checked.clear()
    with pytest.raises(PlayerError, match="wrong account name or password"):
        book.sign_in("ann", "\ud800" * 10)
    assert hasher.checked == answers["wrong"][2]
    engine.dispose()


def test_a_lone_surrogate_in_a_password_is_a_clear_400(site: TestClient) -> None:
    b = browser(site)
    r = b.post("/api/signup", content=b'{"account": "surrogate", "password": "\\ud800 and more"}',
               headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and "lone surrogate" in r.json()["error"]
    assert me(b)["signed_in"] is False
    r = b.post("/api/signin", content=b'{"account": "surrogate", "password": "\\ud800 and more"}',
               headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and "password" in r.json()["error"]  # named, before any check


# -- sessions: sign-out, everywhere, password change, idleness ------------------------


def test_a_cookie_copied_before_sign_out_is_signed_out_after_it(site: TestClient) -> None:
    sign_up(site, "ann")
    laptop = sign_in(site, "ann")
    stolen = copy_of(laptop)
    assert me(stolen)["account"] == "ann"  # before: the copy is as good as the cookie
    assert len(session_rows(site)) == 2
    out = post(laptop, "/api/signout", {})
    assert out["signed_in"] is False
    after = me(stolen)
    assert after["signed_in"] is False and after["account"] is None
    assert len(session_rows(site)) == 1  # the sign-up's session only
    # the copy's websocket is no player either: it holds none of ann's seats
    game = post(site, "/api/games", {"target": 1, "online": True, "seat": "b"})
    ann = sign_in(site, "ann")
    with ann.websocket_connect("/ws") as ws:
        ws.send_json({"type": "join", "game": game["id"]})
        assert ws.receive_json()["you"] == []  # (a game of someone else)
    mine = post(ann, "/api/games", {"target": 1, "online": True, "seat": "b"})
    with stolen.websocket_connect("/ws") as ws:
        ws.send_json({"type": "join", "game": mine["id"]})
        assert ws.receive_json()["you"] == []


def test_sign_out_everywhere_ends_every_session_and_closes_their_websockets(site: TestClient) -> None:
    owner = sign_up(site, "ann")
    phone, tablet = sign_in(site, "ann"), sign_in(site, "ann")
    stolen = copy_of(phone)
    game = post(phone, "/api/games", {"target": 1, "online": True, "seat": "b"})
    with tablet.websocket_connect("/ws") as ws:
        ws.send_json({"type": "join", "game": game["id"]})
        assert ws.receive_json()["you"] == ["b"]
        assert post(owner, "/api/signout", {"everywhere": True})["signed_in"] is False
        with pytest.raises(WebSocketDisconnect) as closed:
            while True:
                ws.receive_json()
        assert closed.value.code == 1008
    for b in (owner, phone, tablet, stolen):
        assert me(b)["signed_in"] is False
    assert session_rows(site) == []
    # the account and its game are there: signing in again brings them back
    again = sign_in(site, "ann")
    assert [g["id"] for g in again.get("/api/games").json()] == [game["id"]]
    assert post(again, "/api/signout", {"everywhere": "yes"}, 400) == {
        "error": "expected everywhere as true or false"}


def test_a_password_change_ends_every_other_session(site: TestClient) -> None:
    owner = sign_up(site, "ann")
    old_copy, old_cookie_value = copy_of(owner), owner.cookies[COOKIE]
    phone = sign_in(site, "ann")
    assert post(owner, "/api/password", {"current": "wrong one", "password": "new password"}, 403) == {
        "error": "wrong current password", "code": "wrong_current"}
    assert "at least 8" in post(owner, "/api/password", {"current": RIGHT, "password": "short"}, 400)["error"]
    assert me(phone)["signed_in"] is True  # refused changes end nothing
    done = post(owner, "/api/password", {"current": RIGHT, "password": "new password"})
    assert done["account"] == "ann"
    assert me(owner)["account"] == "ann"  # this browser goes on, in a new session
    assert me(phone)["signed_in"] is False and me(old_copy)["signed_in"] is False
    rows = session_rows(site)
    assert len(rows) == 1 and rows[0]["id"] != digest(json.loads(base64.b64decode(
        old_cookie_value.split(".")[0]))["session"])
    assert post(browser(site), "/api/signin", {"account": "ann", "password": RIGHT}, 401)
    assert me(sign_in(site, "ann", "new password"))["account"] == "ann"
    # an anonymous browser has no password to change
    assert "sign in first" in post(browser(site), "/api/password", {"current": RIGHT, "password": "new one!"},
                                   403)["error"]


def test_a_password_change_keeps_this_browsers_websockets_and_closes_the_others(site: TestClient) -> None:
    owner = sign_up(site, "ann")
    phone = sign_in(site, "ann")
    game = post(owner, "/api/games", {"target": 1, "online": True, "seat": "b"})
    with owner.websocket_connect("/ws") as mine, phone.websocket_connect("/ws") as theirs:
        for ws in (mine, theirs):
            ws.send_json({"type": "join", "game": game["id"]})
            assert ws.receive_json()["you"] == ["b"]
        post(owner, "/api/password", {"current": RIGHT, "password": "new password"})
        with pytest.raises(WebSocketDisconnect) as closed:
            while True:
                theirs.receive_json()
        assert closed.value.code == 1008  # the other device's session ended
        # this browser goes on in its new session: its websocket was not told
        # that its session ended (the page would ask who it is before it had
        # the new cookie): it still answers (frames sent before, such as the
        # other device's leaving, come first)
        mine.send_json({"type": "ping"})
        while (frame := mine.receive_json())["type"] != "pong":
            assert frame["type"] == "state" and frame["you"] == ["b"]


def test_an_idle_session_expires_and_a_used_one_lives_on(tmp_path: Path, clock: Clock) -> None:
    app = create_app(str(tmp_path / "g.db"), workers=0, limits={}, clock=clock, session_idle=10 * DAY)
    with TestClient(app) as site:
        site.get("/")
        post(site, "/api/signup", {"account": "ann", "password": RIGHT})
        idle = sign_in(site, "ann")
        clock.now += 9 * DAY
        assert me(site)["signed_in"] is True  # used: seen again
        clock.now += 9 * DAY
        assert me(site)["signed_in"] is True  # 18 days on, 9 since it was last used
        assert me(idle)["signed_in"] is False  # 18 days unused: over, and gone
        assert len(session_rows(site)) == 1
        clock.now += 10 * DAY + 1
        assert me(site)["signed_in"] is False
    assert SESSION_IDLE_S == 30 * DAY


def test_sessions_are_listed_with_their_user_agents(site: TestClient) -> None:
    owner = sign_up(site, "ann")
    phone = sign_in(site, "ann")
    phone.headers["user-agent"] = "Phone\x01Browser/1.0"
    assert me(phone)["signed_in"] is True
    listed = phone.get("/api/sessions").json()
    assert len(listed) == 2 and sum(s["current"] for s in listed) == 1
    assert {s["user_agent"] for s in listed} == {"testclient"}  # as at sign-in
    assert set(listed[0]) == {"created", "last_seen", "user_agent", "current"}  # no session id
    assert browser(site).get("/api/sessions").json() == []
    post(owner, "/api/signout", {})
    assert len(phone.get("/api/sessions").json()) == 1


def test_a_session_ended_through_another_process_closes_its_websockets(tmp_path: Path) -> None:
    db = str(tmp_path / "two.db")
    with TestClient(create_app(db, workers=0, limits={})) as a, \
            TestClient(create_app(db, workers=0, limits={})) as b:
        a.get("/")
        post(a, "/api/signup", {"account": "ann", "password": RIGHT})
        b.cookies.set(COOKIE, a.cookies[COOKIE])  # the same browser, on the other process
        game = post(b, "/api/games", {"target": 1, "online": True, "seat": "b"})
        with b.websocket_connect("/ws") as ws:
            ws.send_json({"type": "join", "game": game["id"]})
            assert ws.receive_json()["you"] == ["b"]
            post(a, "/api/signout", {})  # through process a
            app_b: Any = b.app
            assert b.portal is not None
            closed = b.portal.call(app_b.state.session_sockets.check, app_b.state.hub.store,
                                   app_b.state.players.sessions)
            assert closed == 1
            with pytest.raises(WebSocketDisconnect):
                while True:
                    ws.receive_json()


# -- cookies from before sessions ------------------------------------------------------


def old_cookie(secret: str, player: str) -> str:
    """A cookie as the server signed it before sessions: ``{"player": ID}``."""
    payload = base64.b64encode(json.dumps({"player": player}).encode())
    return itsdangerous.TimestampSigner(secret).sign(payload).decode()


def test_cookies_from_before_sessions_keep_anonymous_players_and_sign_accounts_out(site: TestClient) -> None:
    anon = browser(site)
    anon_id = me(anon)["id"]
    ann = sign_up(site, "ann")
    ann_id = me(ann)["id"]
    # an anonymous player's cookie of before works as it did
    returning = browser(site, visit=False)
    returning.cookies.set(COOKIE, old_cookie("test-key", anon_id))
    assert me(returning)["id"] == anon_id
    # an account's cookie of before (no session) fails safe: signed out,
    # a new anonymous player; signing in again brings the account back
    stale = browser(site, visit=False)
    stale.cookies.set(COOKIE, old_cookie("test-key", ann_id))
    got = me(stale)
    assert got["id"] != ann_id and got["signed_in"] is False
    assert post(stale, "/api/signin", {"account": "ann", "password": RIGHT})["id"] == ann_id
    # and the anonymous cookie a player had before signing up is no key to the account
    before = browser(site)
    kept = before.cookies[COOKIE]
    post(before, "/api/signup", {"account": "bob", "password": RIGHT})
    thief = browser(site, visit=False)
    thief.cookies.set(COOKIE, kept)
    assert me(thief)["signed_in"] is False


def test_the_session_cookie_names_a_session_the_database_keeps_as_a_digest(site: TestClient) -> None:
    ann = sign_up(site, "ann")
    payload = json.loads(base64.b64decode(ann.cookies[COOKIE].split(".")[0]))
    assert set(payload) == {"player", "session"} and payload["player"] == me(ann)["id"]
    rows = session_rows(site)
    assert [r["id"] for r in rows] == [digest(payload["session"])]
    assert payload["session"] not in json.dumps(rows)
    assert rows[0]["player"] == payload["player"] and rows[0]["user_agent"] == "testclient"
    assert rows[0]["created"] == rows[0]["last_seen"]


def test_the_session_store_on_its_own(tmp_path: Path, clock: Clock) -> None:
    engine = sa.create_engine(f"sqlite:///{tmp_path / 's.db'}")
    upgrade(engine)
    book = Sessions(engine, idle_s=100.0, clock=clock)
    one, two, other = book.start("p1", "A"), book.start("p1", "B"), book.start("p2", "\x00C" * 300)
    assert [s.user_agent for s in book.of_player("p2")] == ["C" * 200]
    assert book.end_all("p1", but=two) == 1 and book.player(one) is None and book.player(two) == "p1"
    assert book.live([digest(two), digest(other), digest(one)]) == {digest(two), digest(other)}
    clock.now += 101
    assert book.live([digest(two)]) == set() and book.sweep(force=True) == 2
    with pytest.raises(ValueError):
        Sessions(engine, idle_s=0)
    engine.dispose()
