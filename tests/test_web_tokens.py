"""Personal API tokens (issue 42, item 2): made, listed and revoked by an
account's page; ``Authorization: Bearer`` in place of the cookie on the API
and the websocket, as far as the token's scopes go; a revoked token or a
closed account's is refused at once, on every process."""

from __future__ import annotations

import contextlib
import hashlib
import json
import secrets
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from kamisado.web.accounts import admin
from kamisado.web.edge.guard import Limit
from kamisado.web.site.server import create_app
from kamisado.web.store.schema import tokens
from tests.test_web_controls import browser, close_all, me, sign_up
from tests.test_web_processes import servers


@contextlib.contextmanager
def served(db: Path, limits: Any = None) -> Iterator[TestClient]:
    with TestClient(create_app(str(db), workers=0, limits={} if limits is None else limits)) as c:
        c.get("/")
        try:
            yield c
        finally:
            close_all()


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "games.db"


@pytest.fixture
def site(db: Path) -> Iterator[TestClient]:
    with served(db) as c:
        yield c


def account(first: TestClient, name: str) -> TestClient:
    c = browser(first)
    sign_up(c, name)
    return c


def program(first: TestClient, token: str) -> TestClient:
    """A client with no cookie that sends ``token`` (a bot, a script)."""
    other = TestClient(first.app, headers={"Authorization": f"Bearer {token}"})
    other.portal = first.portal
    return other


def new_token(c: TestClient, scopes: list[str], name: str = "my bot") -> dict[str, Any]:
    r = c.post("/api/tokens", json={"name": name, "scopes": scopes})
    assert r.status_code == 201, r.text
    made: dict[str, Any] = r.json()
    return made


def test_a_token_is_made_shown_once_listed_without_it_stored_hashed_and_revoked(site: TestClient) -> None:
    ann = account(site, "ann")
    made = new_token(ann, ["read", "play"])
    assert made["token"].startswith("kam_") and len(made["token"]) > 40
    assert made["scopes"] == ["play", "read"] and made["name"] == "my bot"
    listed = ann.get("/api/tokens").json()
    assert listed == [{k: v for k, v in made.items() if k != "token"}]
    assert made["token"] not in json.dumps(listed)
    engine = site.app.state.hub.store.engine  # type: ignore[attr-defined]
    with engine.connect() as conn:
        rows = [dict(r) for r in conn.execute(sa.select(tokens)).mappings()]
    assert [r["hash"] for r in rows] == [hashlib.sha256(made["token"].encode()).hexdigest()]
    assert made["token"] not in json.dumps(rows)
    bob = account(site, "bob")
    assert bob.get("/api/tokens").json() == []
    assert bob.delete(f"/api/tokens/{made['id']}").json()["code"] == "no_token"  # not bob's
    assert ann.delete(f"/api/tokens/{made['id']}").json() == {"revoked": made["id"]}
    assert ann.get("/api/tokens").json() == []


def test_bad_requests_for_tokens_are_clear_and_change_nothing(site: TestClient) -> None:
    anon = browser(site)
    r = anon.post("/api/tokens", json={"name": "x", "scopes": ["read"]})
    assert (r.status_code, r.json()["code"]) == (403, "account_needed")
    ann = account(site, "ann")
    r = ann.post("/api/tokens", json={"name": "x", "scopes": ["read", "admin", "fly"]})
    assert r.status_code == 400
    assert r.json()["error"] == "unknown token scopes: admin, fly (known: read, play, challenge, bot)"
    assert r.json()["code"] == "token_scopes"
    assert ann.post("/api/tokens", json={"name": "", "scopes": ["read"]}).json()["code"] == "token_name"
    assert ann.post("/api/tokens", json={"name": "x", "scopes": []}).json()["code"] == "token_scopes"
    assert ann.get("/api/tokens").json() == []


def test_a_bearer_token_is_its_account_on_me_a_get_and_a_post_without_origin(site: TestClient) -> None:
    ann = account(site, "ann")
    bot = program(site, new_token(ann, ["read", "play"])["token"])
    mine = bot.get("/api/me").json()
    assert mine == ann.get("/api/me").json() and mine["account"] == "ann"
    assert "set-cookie" not in bot.get("/api/me").headers  # no anonymous player made for it
    assert bot.get("/api/sessions").json()["code"] == "token_refused"  # the page's, by cookie only
    r = bot.post("/api/games", json={"target": 1, "online": True, "seat": "b"},
                 headers={"Origin": "http://evil.example"})  # no cookie: no Origin rule
    assert r.status_code == 200, r.text
    assert bot.get(f"/api/games/{r.json()['id']}/steps").status_code == 200
    assert ann.get("/api/tokens").json()[0]["last_used"] is not None
    assert bot.post("/api/tokens", json={"name": "x", "scopes": ["read"]}).json()["code"] == "token_refused"


def test_a_token_without_the_scope_is_refused_with_its_code(site: TestClient) -> None:
    ann = account(site, "ann")
    reader = program(site, new_token(ann, ["read"])["token"])
    assert reader.get("/api/me").status_code == 200
    r = reader.post("/api/games", json={"target": 1, "online": True, "seat": "b"})
    assert r.status_code == 403
    assert r.json() == {"error": "this token lacks the scope play", "code": "token_scope", "args": {"scope": "play"}}
    player = program(site, new_token(ann, ["play"])["token"])
    assert player.get("/api/me").json()["code"] == "token_scope"


def test_bad_revoked_and_closed_accounts_tokens_get_401(site: TestClient, db: Path) -> None:
    for header in ("Bearer kam_" + secrets.token_urlsafe(32), "Bearer nonsense", "Bearer"):
        r = site.get("/api/me", headers={"Authorization": header})
        assert r.status_code == 401 and r.json()["code"] == "bad_token", header
        assert r.headers["www-authenticate"].startswith("Bearer")
    ann = account(site, "ann")
    made = new_token(ann, ["read"])
    bot = program(site, made["token"])
    assert bot.get("/api/me").status_code == 200
    ann.delete(f"/api/tokens/{made['id']}")
    assert bot.get("/api/me").status_code == 401  # at once
    bob = account(site, "bob")
    bobs = program(site, new_token(bob, ["read"])["token"])
    mia = account(site, "mia")
    assert admin.main(["grant", "mia", "moderator", "--db", str(db)]) == 0
    assert mia.post(f"/api/mod/players/{me(bob)}/close", json={}).status_code == 200
    assert bobs.get("/api/me").json()["code"] == "bad_token"


def test_cookie_requests_keep_the_origin_rule(site: TestClient) -> None:
    ann = account(site, "ann")
    token = new_token(ann, ["read", "play"])["token"]
    evil = {"Origin": "http://evil.example"}
    assert ann.post("/api/games", json={"target": 1}, headers=evil).status_code == 403
    # a token with a cookie beside it is a browser's request: the Origin rule holds
    both = {**evil, "Authorization": f"Bearer {token}"}
    assert ann.post("/api/games", json={"target": 1}, headers=both).status_code == 403
    assert ann.post("/api/tokens", json={"name": "x", "scopes": ["read"]}, headers=evil).status_code == 403


def test_the_websocket_takes_a_bearer_token_and_checks_each_frames_scope(site: TestClient) -> None:
    ann = account(site, "ann")
    game = ann.post("/api/games", json={"target": 1, "online": True, "seat": "b"}).json()
    reader = program(site, new_token(ann, ["read"])["token"])
    with reader.websocket_connect("/ws", headers={"Authorization": reader.headers["authorization"]}) as ws:
        ws.send_json({"type": "join", "game": game["id"]})
        state = ws.receive_json()
        assert state["type"] == "state" and state["you"] == ["b"]  # ann's seat, by the token
        ws.send_json({"type": "resign", "seq": 0})
        refused = ws.receive_json()
        while refused["type"] != "error":
            refused = ws.receive_json()
        assert refused["code"] == "token_scope"
    with pytest.raises(WebSocketDisconnect), site.websocket_connect(
            "/ws", headers={"Authorization": "Bearer kam_nothing"}) as ws:
        ws.receive_json()


def test_each_token_is_rate_limited_on_its_own(db: Path) -> None:
    with served(db, limits={"token": Limit("token", 1 / 60, 3, "requests with this token")}) as site:
        ann = account(site, "ann")
        one = program(site, new_token(ann, ["read"])["token"])
        two = program(site, new_token(ann, ["read"])["token"])
        codes = [one.get("/api/me").status_code for _ in range(4)]
        assert codes == [200, 200, 200, 429]
        assert one.get("/api/me").json()["limit"] == "token"
        assert two.get("/api/me").status_code == 200  # another token of the same account
        assert ann.get("/api/me").status_code == 200  # and its cookie


def test_a_tokens_websocket_closes_when_the_token_is_revoked(site: TestClient) -> None:
    ann = account(site, "ann")
    made = new_token(ann, ["read"])
    with site.websocket_connect("/ws", headers={"Authorization": f"Bearer {made['token']}"}) as ws:
        ws.send_json({"type": "ping"})
        assert ws.receive_json()["type"] == "pong"
        assert ann.delete(f"/api/tokens/{made['id']}").status_code == 200
        with pytest.raises(WebSocketDisconnect):
            while True:
                ws.receive_json()


def _call(addr: str, path: str, token: str) -> int:
    req = urllib.request.Request(f"http://{addr}{path}", headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return int(r.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


def _json(addr: str, path: str, body: Any = None, method: str = "GET",
          cookie: str | None = None) -> tuple[Any, str | None]:
    req = urllib.request.Request(f"http://{addr}{path}", method=method,
                                 data=None if body is None else json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json", **({"Cookie": cookie} if cookie else {})})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read()), r.headers.get("Set-Cookie")


def test_a_token_revoked_on_one_process_is_refused_at_once_on_the_other(pg_url: str) -> None:
    name = f"tok_{secrets.token_hex(4)}"  # the PostgreSQL database outlives the test
    with servers(pg_url, 2) as (a, b):
        _, set_cookie = _json(a, "/api/me")
        assert set_cookie is not None
        cookie = set_cookie.split(";")[0]
        _, set_cookie = _json(a, "/api/signup", {"account": name, "password": "a long password"}, "POST", cookie)
        assert set_cookie is not None
        cookie = set_cookie.split(";")[0]
        made, _ = _json(a, "/api/tokens", {"name": "bot", "scopes": ["read"]}, "POST", cookie)
        assert _call(b, "/api/me", made["token"]) == 200
        _json(a, f"/api/tokens/{made['id']}", method="DELETE", cookie=cookie)
        assert _call(b, "/api/me", made["token"]) == 401
        assert _call(a, "/api/me", made["token"]) == 401
