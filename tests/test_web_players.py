"""Players (issue: players and my games, items 1 and 2): the cookie, accounts,
seats that belong to players, invite links claimed once, and the games
lists.  Each :class:`TestClient` is a browser with its own cookies; the
second and third share the first one's server (:func:`browser`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from starlette.testclient import TestClient

from kamisado.web.accounts.players import COOKIE
from kamisado.web.site.server import create_app
from kamisado.web.store.storage import players


@pytest.fixture
def app_client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(str(tmp_path / "games.db"), workers=0)) as c:
        c.get("/")  # the first visit: a player and its cookie
        yield c


def browser(first: TestClient, visit: bool = True) -> TestClient:
    """Another browser on the same server (its own cookies)."""
    other = TestClient(first.app)
    other.portal = first.portal  # the server's event loop, where its games live
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


def join(client: TestClient, game: str, token: str | None = None) -> tuple[Any, dict[str, Any], str | None]:
    """Open a websocket, join; the state and the informational error's code.
    The caller closes the websocket."""
    ws = client.websocket_connect("/ws").__enter__()
    ws.send_json({"type": "join", "game": game, **({"token": token} if token else {})})
    st = ws.receive_json()
    assert st["type"] == "state", st
    ws.send_json({"type": "ping"})
    after = ws.receive_json()
    code = None
    if after["type"] == "error":
        code = after["code"]
        assert ws.receive_json()["type"] == "pong"
    return ws, st, code


def seats(client: TestClient, game: str, token: str | None = None) -> tuple[list[str], str | None]:
    ws, st, code = join(client, game, token)
    ws.__exit__(None, None, None)
    you: list[str] = st["you"]
    return you, code


# -- the cookie ------------------------------------------------------------------


def test_the_first_visit_gets_a_signed_httponly_lax_cookie(tmp_path: Path) -> None:
    with TestClient(create_app(str(tmp_path / "g.db"), workers=0)) as client:
        r = client.get("/")
        cookie = r.headers["set-cookie"]
        assert cookie.startswith(f"{COOKIE}=")
        low = cookie.lower()
        assert "httponly" in low and "samesite=lax" in low and "path=/" in low
        assert int(low.split("max-age=")[1].split(";")[0]) >= 365 * 24 * 3600
        first = me(client)
        assert first["account"] is None and first["signed_in"] is False
        assert me(client)["id"] == first["id"]  # the same browser, the same player
        # tampered with: not ours, so a new anonymous player
        value = client.cookies[COOKIE]
        forged = value[:-3] + ("AAA" if not value.endswith("AAA") else "BBB")
        client.cookies.clear()
        client.cookies.set(COOKIE, forged)
        assert me(client)["id"] != first["id"]
        # a payload naming the first player, signed with another key: refused too
        import base64

        import itsdangerous

        payload = base64.b64encode(json.dumps({"player": first["id"]}).encode())
        client.cookies.clear()
        client.cookies.set(COOKIE, itsdangerous.TimestampSigner("guess").sign(payload).decode())
        assert me(client)["id"] != first["id"]


def test_the_secret_survives_a_restart_and_can_be_given(tmp_path: Path) -> None:
    db = str(tmp_path / "g.db")
    with TestClient(create_app(db, workers=0)) as client:
        ann = me(client)
        cookie = client.cookies[COOKIE]
    with TestClient(create_app(db, workers=0)) as client:  # restarted: the key is in the database
        client.cookies.set(COOKIE, cookie)
        assert me(client)["id"] == ann["id"]
    with TestClient(create_app(db, workers=0, secret="another-key-given")) as client:
        client.cookies.set(COOKIE, cookie)
        assert me(client)["id"] != ann["id"]


def test_a_client_without_the_cookie_is_no_player(tmp_path: Path) -> None:
    with TestClient(create_app(str(tmp_path / "g.db"), workers=0)) as client:
        r = client.post("/api/games", json={"target": 1, "gold": "club"})
        assert r.status_code == 200 and "set-cookie" not in r.headers
        g = r.json()
        # it holds the unclaimed seat by its token, as before players
        assert seats(client, g["id"], g["tokens"]["b"]) == (["b"], None)
        # and the page's browser claims it: the token is a one-time claim
        client.get("/")
        assert seats(client, g["id"], g["tokens"]["b"]) == (["b"], None)
        client.cookies.clear()
        assert seats(client, g["id"], g["tokens"]["b"]) == ([], "seat_taken")
        # a hotseat game's shared token claims both seats at once
        hot = client.post("/api/games", json={"target": 1}).json()
        assert seats(client, hot["id"], hot["tokens"]["b"]) == (["b", "g"], None)
        client.get("/")
        assert seats(client, hot["id"], hot["tokens"]["g"]) == (["b", "g"], None)
        assert seats(client, hot["id"]) == (["b", "g"], None)


# -- accounts --------------------------------------------------------------------


def test_sign_up_sign_in_and_sign_out_with_clear_errors(app_client: TestClient) -> None:
    c = app_client
    anon = me(c)
    short_name = post(c, "/api/signup", {"account": "ab", "password": "long enough"}, 400)
    assert "3 to 30" in short_name["error"] and short_name["code"] == "account_name"
    assert "3 to 30" in post(c, "/api/signup", {"account": "a b c", "password": "long enough"}, 400)["error"]
    short = post(c, "/api/signup", {"account": "ann", "password": "short"}, 400)
    assert "at least 8" in short["error"] and (short["code"], short["args"]) == ("password_short", {"n": 8})
    assert "JSON object" in c.post("/api/signup", content=b"[1]").json()["error"]
    done = post(c, "/api/signup", {"account": "Ann_1", "password": "correct horse"})
    assert done == {"id": anon["id"], "name": "Ann_1", "account": "ann_1", "signed_in": True,
                    "moderator": False, "muted_until": None, "bot": False}
    again = post(c, "/api/signup", {"account": "other", "password": "12345678"}, 409)
    assert "sign out first" in again["error"] and (again["code"], again["args"]) == ("signed_in", {"account": "ann_1"})
    other = browser(c)
    taken = post(other, "/api/signup", {"account": "ANN_1", "password": "12345678"}, 409)
    assert "taken" in taken["error"]  # the same name in other letters
    assert (taken["code"], taken["args"]) == ("name_taken", {"account": "ann_1"})
    wrong_name = post(other, "/api/signin", {"account": "nobody", "password": "correct horse"}, 401)
    wrong_pass = post(other, "/api/signin", {"account": "ann_1", "password": "wrong horse"}, 401)
    assert wrong_name == wrong_pass == {"error": "wrong account name or password", "code": "wrong_password"}
    assert post(other, "/api/signin", {"account": "aNN_1", "password": "correct horse"})["id"] == anon["id"]
    assert me(other)["id"] == anon["id"]
    out = post(other, "/api/signout", {})
    assert out["id"] != anon["id"] and out["signed_in"] is False and me(other)["id"] == out["id"]
    assert me(c)["id"] == anon["id"]  # the first browser is still signed in


def test_display_names_are_checked(app_client: TestClient) -> None:
    assert post(app_client, "/api/me", {"name": "  Ann Smith "})["name"] == "Ann Smith"
    assert me(app_client)["name"] == "Ann Smith"
    for bad in ("x" * 41, "two\nlines", 7):
        assert "error" in post(app_client, "/api/me", {"name": bad}, 400)
    assert me(app_client)["name"] == "Ann Smith"


def test_names_are_text_a_person_can_see(app_client: TestClient) -> None:
    c = app_client
    for name in ("Zoe\u0308", "\u0645\u0631\u064e\u062d", "\u05e9\u05b8\u05dc\u05d5\u05b9\u05dd", "\u0928\u092e\u0938\u094d\u0924\u0947",
                 "\u6c49\u5b57", "\U0001f468\u200d\U0001f469\u200d\U0001f467 \U0001f44d\U0001f3fd \U0001f1ef\U0001f1f5"):
        assert post(c, "/api/me", {"name": name})["name"] == name
    for name, rule in (("\u200b", "display name: a display name needs a visible character"),
                       ("\ufeff", "display name: a display name needs a visible character"),
                       ("Ann\u202e", "display name: no bidi controls (U+202E found)"),
                       ("\u2066Ann\u2069", "display name: no bidi controls (U+2066 found)"),
                       ("a" + "\u0301" * 139, "display name: at most 3 combining marks on one character (U+0061 carries 139)"),
                       ("A\ufeffnn", "display name: no invisible characters (U+FEFF found)")):
        said = {"error": rule, "code": "name_unseeable", "args": {"detail": rule.removeprefix("display name: ")}}
        assert post(c, "/api/me", {"name": name}, 400) == said
        assert post(c, "/api/signup", {"account": "ann_1", "password": "long enough", "name": name}, 400) == said
    assert me(c)["name"] == "\U0001f468\u200d\U0001f469\u200d\U0001f467 \U0001f44d\U0001f3fd \U0001f1ef\U0001f1f5"
    assert me(c)["signed_in"] is False
    for account, rule in (("\u200b", "account name: an account name needs a visible character"),
                          ("ann\u202e", "account name: no bidi controls (U+202E found)"),
                          ("a" + "\u0301" * 139, "account name: at most 3 combining marks on one character (U+0061 carries 139)")):
        assert post(c, "/api/signup", {"account": account, "password": "long enough"}, 400) \
            == {"error": rule, "code": "account_name", "args": {"detail": rule.removeprefix("account name: ")}}
    assert me(c)["signed_in"] is False
    with c.app.state.hub.store.engine.connect() as conn:  # type: ignore[attr-defined]
        assert conn.execute(sa.select(sa.func.count()).where(players.c.account.is_not(None))).scalar_one() == 0
    assert post(c, "/api/signup", {"account": "ann_1", "password": "long enough"})["signed_in"] is True
    for key in ("black_name", "gold_name"):  # a game's seat names are display names too
        r = c.post("/api/games", json={key: "\u202eAnn"})
        assert r.status_code == 400 and r.json()["error"] == f"create: {key}: no bidi controls (U+202E found)"
        r = c.post("/api/games", json={key: "\u200b"})
        assert r.status_code == 400 and r.json()["error"] == f"create: {key}: a name needs a visible character"
    assert c.post("/api/games", json={"black_name": "\u05e9\u05dc\u05d5\u05dd", "gold_name": "Zoe\u0308"}).status_code == 200


def test_an_online_game_shows_its_creator_under_the_players_name(app_client: TestClient) -> None:
    post(app_client, "/api/me", {"name": "Ann"})
    g = post(app_client, "/api/games", {"target": 1, "online": True, "seat": "g"})
    ws, st, _ = join(app_client, g["id"])
    ws.__exit__(None, None, None)
    assert st["you"] == ["g"] and st["seats"]["g"]["name"] == "Ann" and st["seats"]["b"]["name"] == "Black"
    named = post(app_client, "/api/games", {"target": 1, "online": True, "seat": "b", "black_name": "Queen"})
    ws, st, _ = join(app_client, named["id"])
    ws.__exit__(None, None, None)
    assert st["seats"]["b"]["name"] == "Queen"  # a name given in the message stands


def test_passwords_are_stored_as_argon2id_hashes_only(app_client: TestClient) -> None:
    post(app_client, "/api/signup", {"account": "hashme", "password": "never-stored-1"})
    engine = app_client.app.state.hub.store.engine  # type: ignore[attr-defined]
    with engine.connect() as conn:
        rows = [dict(r) for r in conn.execute(sa.select(players)).mappings()]
    hashed = [r["password_hash"] for r in rows if r["account"] == "hashme"]
    assert len(hashed) == 1 and hashed[0].startswith("$argon2id$")
    assert "never-stored-1" not in json.dumps(rows)


# -- seats belong to players ---------------------------------------------------------


def test_seats_follow_the_player_to_another_browser(app_client: TestClient) -> None:
    a = app_client
    post(a, "/api/signup", {"account": "ann", "password": "correct horse"})
    vs = post(a, "/api/games", {"target": 1, "gold": "club"})
    hot = post(a, "/api/games", {"target": 1})
    assert vs["you"] == ["b"] and hot["you"] == ["b", "g"]
    # the same browser holds them with no token at all
    assert seats(a, vs["id"]) == (["b"], None)
    phone = browser(a)
    assert seats(phone, hot["id"]) == ([], None)  # another player: watching
    post(phone, "/api/signin", {"account": "ann", "password": "correct horse"})
    assert seats(phone, vs["id"]) == (["b"], None)
    assert seats(phone, hot["id"]) == (["b", "g"], None)
    # and it plays there: a move from the phone
    ws, st, _ = join(phone, hot["id"])
    ws.send_json({"type": "move", "move": "c1-c5", "seq": 0})
    assert ws.receive_json()["seq"] == 1
    ws.__exit__(None, None, None)
    # the hotseat's shared token in a stranger's browser takes nothing
    stranger = browser(a)
    assert seats(stranger, hot["id"], hot["tokens"]["b"]) == ([], "seat_taken")
    assert seats(a, hot["id"], hot["tokens"]["b"]) == (["b", "g"], None)


def test_invite_links(app_client: TestClient) -> None:
    ann = app_client
    g = post(ann, "/api/games", {"target": 1, "online": True, "seat": "b", "black_name": "Ann"})
    assert g["you"] == ["b"]
    invite = g["tokens"]["g"]
    # the creator's own invite link never moves her to the other seat
    assert seats(ann, g["id"], invite) == (["b"], "seat_kept")
    assert seats(ann, g["id"], g["tokens"]["b"]) == (["b"], None)
    listed = ann.get("/api/games").json()[0]
    assert listed["invite"] == {"seat": "g", "token": invite, "link": f"/#/game/{g['id']}?t={invite}"}
    # a friend takes the empty seat, once
    bo = browser(ann)
    post(bo, "/api/me", {"name": "Bo"})
    assert seats(bo, g["id"], invite) == (["g"], None)
    assert seats(bo, g["id"], invite) == (["g"], None)  # again: still hers
    assert seats(bo, g["id"]) == (["g"], None)  # and without the link
    # a wrong token never loses the seat the browser holds
    assert seats(bo, g["id"], "a-wrong-token") == (["g"], "bad_token")
    assert seats(bo, g["id"], g["tokens"]["b"]) == (["g"], "seat_taken")
    # a second browser with the same link does not get it
    cy = browser(ann)
    assert seats(cy, g["id"], invite) == ([], "seat_taken")
    assert seats(cy, g["id"], "a-wrong-token") == ([], "bad_token")
    # the seat took the friend's name; the invite is gone from the list
    ws, st, _ = join(ann, g["id"])
    assert st["seats"]["g"]["name"] == "Bo" and st["seats"]["b"]["name"] == "Ann"
    ws.__exit__(None, None, None)
    assert ann.get("/api/games").json()[0]["invite"] is None
    # a game created without naming the seat: the creator's first link claims
    g2 = post(ann, "/api/games", {"target": 1, "online": True})
    assert g2["you"] == []
    assert seats(ann, g2["id"], g2["tokens"]["g"]) == (["g"], None)
    assert seats(ann, g2["id"], g2["tokens"]["b"]) == (["g"], "seat_kept")
    assert seats(bo, g2["id"], g2["tokens"]["b"]) == (["b"], None)


def test_sign_in_brings_the_anonymous_games_along(app_client: TestClient) -> None:
    a = app_client
    post(a, "/api/signup", {"account": "ann", "password": "correct horse"})
    mine = post(a, "/api/games", {"target": 1, "gold": "club"})
    laptop = browser(a)
    played = post(laptop, "/api/games", {"target": 1, "black": "club"})  # anonymous, as Gold
    post(laptop, "/api/signin", {"account": "ann", "password": "correct horse"})
    ids = {r["id"] for r in a.get("/api/games").json()}
    assert ids == {mine["id"], played["id"]}
    assert seats(a, played["id"]) == (["g"], None)


# -- the games lists ------------------------------------------------------------------


def test_my_games_are_mine_only_their_turn_first(app_client: TestClient) -> None:
    ann = app_client
    bo = browser(ann)
    waiting_for_bo = post(ann, "/api/games", {"target": 1, "online": True, "seat": "b"})
    waiting_for_ann = post(ann, "/api/games", {"target": 1, "online": True, "seat": "b"})
    over = post(ann, "/api/games", {"target": 1})
    hers = post(bo, "/api/games", {"target": 1})
    ws, st, _ = join(ann, waiting_for_bo["id"])
    ws.send_json({"type": "move", "move": "c1-c5"})
    assert ws.receive_json()["to_act"] == "g"
    ws.__exit__(None, None, None)
    ws, st, _ = join(ann, over["id"])
    ws.send_json({"type": "abort"})
    assert ws.receive_json()["state"] == "over"
    ws.__exit__(None, None, None)
    listed = ann.get("/api/games").json()
    assert [r["id"] for r in listed] == [waiting_for_ann["id"], waiting_for_bo["id"], over["id"]]
    assert [r["my_turn"] for r in listed] == [True, False, False]
    assert listed[0]["you"] == ["b"] and listed[2]["you"] == ["b", "g"]
    assert listed[0]["watch"] == f"/game/{waiting_for_ann['id']}"
    assert all(r["invite"]["seat"] == "g" for r in listed[:2]) and listed[2]["invite"] is None
    # Bo sees only her own game, and none of Ann's tokens
    theirs = bo.get("/api/games").json()
    assert [r["id"] for r in theirs] == [hers["id"]]
    assert theirs[0]["invite"] is None and theirs[0]["you"] == ["b", "g"]
    # the public list: ongoing games to watch, no tokens anywhere
    live = browser(ann, visit=False).get("/api/games/live")
    assert live.status_code == 200
    ids = [r["id"] for r in live.json()]
    assert over["id"] not in ids and {waiting_for_ann["id"], waiting_for_bo["id"], hers["id"]} <= set(ids)
    text = live.text
    for g in (waiting_for_bo, waiting_for_ann, over, hers):
        for token in g["tokens"].values():
            assert token not in text and token not in json.dumps(theirs)
    assert "player" not in text


def test_player_posts_from_another_site_are_refused(app_client: TestClient) -> None:
    # the Origin rule (kamisado.web.edge.guard) covers the player endpoints too
    r = app_client.post("/api/signup", json={"account": "evil", "password": "12345678"},
                        headers={"Origin": "http://evil.example"})
    assert r.status_code == 403
    assert me(app_client)["account"] is None


def test_the_servers_hash_passwords_with_argon2id_at_its_defaults(tmp_path: Path) -> None:
    """What a server hashes passwords with (tests/conftest.py gives the rest
    of the suite a cheap hasher in its place): argon2id with argon2-cffi's
    defaults; a stored hash carries them, and a sign-in with a hash of
    cheaper parameters stores a new one at the defaults."""
    from argon2 import PasswordHasher

    from kamisado.web.accounts.players import Players
    from tests.conftest import PRODUCTION_HASHER

    real, defaults = PRODUCTION_HASHER(), PasswordHasher()
    assert (real.time_cost, real.memory_cost, real.parallelism) == (
        defaults.time_cost, defaults.memory_cost, defaults.parallelism
    )
    app = create_app(str(tmp_path / "games.db"), workers=0)
    with TestClient(app) as c:
        c.get("/")
        assert c.post("/api/signup", json={"account": "ada", "password": "correct horse"}).status_code == 200
        engine = app.state.players.engine
    book = Players(engine, real)
    with engine.connect() as conn:
        cheap = conn.execute(sa.select(players.c.password_hash)).scalars().first()
    assert cheap.startswith("$argon2id$") and real.check_needs_rehash(cheap)
    book.sign_in("ada", "correct horse")
    with engine.connect() as conn:
        stored = conn.execute(sa.select(players.c.password_hash)).scalars().first()
    assert stored.startswith(f"$argon2id$v=19$m={defaults.memory_cost},t={defaults.time_cost},")
    assert not real.check_needs_rehash(stored)
