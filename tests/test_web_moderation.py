"""Moderation in the server (issue 40, item 3; docs/web-moderation.md):
blocks keep a player's direct challenges, chat and quick pairing away from
the blocker, without telling them; reports reach the moderators; a
moderator mutes, closes and reopens accounts, and every action is one row
of the audit log.  Each :class:`TestClient` is a browser with its own
cookie; roles are granted with ``kamisado admin`` on the server's database."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from kamisado.web.accounts import admin
from kamisado.web.site.server import create_app
from kamisado.web.store.schema import rating_history, ratings
from tests import test_web_chat as chat_kit
from tests.test_web_chat import history, joined, online_pair, said
from tests.test_web_controls import browser, close_all, connect, me, sign_up, until
from tests.test_web_seeks import lobby_of, match, seek, seek_rows, started


@contextlib.contextmanager
def served(db: Path, limits: Any = None) -> Iterator[TestClient]:
    with TestClient(create_app(str(db), workers=0, limits={} if limits is None else limits)) as c:
        c.get("/")
        try:
            yield c
        finally:
            close_all()
            chat_kit.close_all()


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "games.db"


@pytest.fixture
def client(db: Path) -> Iterator[TestClient]:
    with served(db) as c:
        yield c


def account(first: TestClient, name: str) -> tuple[TestClient, str]:
    """Another browser, signed up as ``name``: it and its player's id."""
    c = browser(first)
    sign_up(c, name)
    return c, me(c)


def moderator(first: TestClient, db: Path, name: str = "mia") -> TestClient:
    """A browser of an account granted the moderator role (kamisado admin)."""
    c, _ = account(first, name)
    assert admin.main(["grant", name, "moderator", "--db", str(db)]) == 0
    assert c.get("/api/me").json()["moderator"] is True
    return c


def frames(ws: Any, kind: str, limit: int = 20) -> dict[str, Any]:
    return until(ws, lambda m: m["type"] == kind, limit)


def test_a_block_is_made_listed_shown_on_the_player_page_and_undone(client: TestClient) -> None:
    ann, ann_id = account(client, "ann")
    _, bob_id = account(client, "bob")
    assert client.post(f"/api/players/{bob_id}/block").status_code == 403  # not signed in
    assert ann.post(f"/api/players/{ann_id}/block").json()["error"] == "block: you cannot block yourself"
    assert ann.post("/api/players/nobody/block").status_code == 404
    assert ann.get(f"/api/players/{bob_id}").json()["blocked"] is False
    r = ann.post(f"/api/players/{bob_id}/block")
    assert r.status_code == 200 and r.json() == {"player": bob_id, "blocked": True, "new": True}
    assert ann.post(f"/api/players/{bob_id}/block").json()["new"] is False
    assert [(b["player"], b["name"]) for b in ann.get("/api/me/blocks").json()] == [(bob_id, "Bob")]
    assert ann.get(f"/api/players/{bob_id}").json()["blocked"] is True
    assert client.get(f"/api/players/{bob_id}").json()["blocked"] is False  # for Ann alone
    r = ann.delete(f"/api/players/{bob_id}/block")
    assert r.json() == {"player": bob_id, "blocked": False, "was": True}
    assert ann.get("/api/me/blocks").json() == []
    assert ann.get(f"/api/players/{bob_id}").json()["blocked"] is False


def test_a_blocked_players_direct_challenges_never_reach_the_blocker(client: TestClient) -> None:
    ann, ann_id = account(client, "ann")
    bob, bob_id = account(client, "bob")
    wa, wb = connect(ann), connect(bob)
    wa.send_json({"type": "notices"})
    assert frames(wa, "notices")["challenges"] == []
    wb.send_json({"type": "notices"})
    frames(wb, "notices")
    assert ann.post(f"/api/players/{bob_id}/block").status_code == 200
    wb.send_json({"type": "challenge", "to": ann_id})
    hidden = frames(wb, "challenging")["challenge"]  # Bob is answered as ever
    assert hidden["to"] == ann_id
    wb.send_json({"type": "notices"})  # (Bob's challenge is wholly handled once this is answered)
    frames(wb, "notices")
    wa.send_json({"type": "notices"})
    first = wa.receive_json()  # no "challenged" came first
    assert first == {"type": "notices", "challenges": []}
    wa.send_json({"type": "accept", "challenge": hidden["id"]})
    assert frames(wa, "error")["code"] == "no_challenge"
    wa.send_json({"type": "decline", "challenge": hidden["id"]})
    assert frames(wa, "error")["code"] == "no_challenge"
    # unblocked: Bob's next challenge reaches Ann
    assert ann.delete(f"/api/players/{bob_id}/block").status_code == 200
    wb.send_json({"type": "challenge", "to": ann_id})
    sent = frames(wb, "challenging")["challenge"]
    assert frames(wa, "challenged")["challenge"]["id"] == sent["id"]


def test_a_blocked_players_chat_never_reaches_the_blocker(client: TestClient) -> None:
    ann, _ = account(client, "ann")
    bob, bob_id = account(client, "bob")
    gid, wb, wg = online_pair(ann, bob)  # Ann is Black, Bob Gold
    wg.send_json({"type": "chat", "text": "before"})
    assert said(wg) == [("g", "before", None)] and said(wb) == [("g", "before", None)]
    assert ann.post(f"/api/players/{bob_id}/block").status_code == 200
    wg.send_json({"type": "chat", "text": "blocked"})
    assert said(wg) == [("g", "blocked", None)]  # Bob sees his own line: he is not told
    wb.send_json({"type": "chat", "text": "mine"})
    assert said(wb) == [("b", "mine", None)]  # Ann's next chat frame is her own: Bob's never came
    assert said(wg) == [("b", "mine", None)]  # (Bob still reads Ann)
    shown = history(ann, gid)  # a reload leaves every line of his out
    assert [m["text"] for m in shown["messages"]] == ["mine"]
    assert [m["text"] for m in history(bob, gid)["messages"]] == ["before", "blocked", "mine"]
    assert ann.delete(f"/api/players/{bob_id}/block").status_code == 200
    wg.send_json({"type": "chat", "text": "after"})
    assert said(wg) == [("g", "after", None)] and said(wb) == [("g", "after", None)]


def test_quick_pairing_never_pairs_a_blocker_with_the_blocked(client: TestClient) -> None:
    ann, _ = account(client, "ann")
    bob, bob_id = account(client, "bob")
    assert ann.post(f"/api/players/{bob_id}/block").status_code == 200
    wa = seek(ann, "3+2")
    wb = seek(bob, "3+2")
    assert match(client) == 0  # either way round (by this pass or the ones the seeks ran)
    assert lobby_of(client).seeks.paired == 0
    assert [r["game"] for r in seek_rows(client)] == [None, None]
    assert ann.delete(f"/api/players/{bob_id}/block").status_code == 200
    assert match(client) == 1
    assert started(wa) == started(wb)
    assert lobby_of(client).seeks.paired == 1


def test_reports_are_checked_merged_and_listed_for_moderators(client: TestClient, db: Path) -> None:
    ann, ann_id = account(client, "ann")
    bob, bob_id = account(client, "bob")
    gid, wb, wg = online_pair(ann, bob)
    wg.send_json({"type": "chat", "text": "you are bad"})
    said(wb)

    def report(c: TestClient, who: str, body: Any, status: int) -> dict[str, Any]:
        r = c.post(f"/api/players/{who}/report", json=body)
        assert r.status_code == status, r.text
        got: dict[str, Any] = r.json()
        return got

    assert "sign in" in report(client, bob_id, {"reason": "abuse", "text": "x"}, 403)["error"]
    assert "expected reason abuse, cheat, spam, other" in report(ann, bob_id, {"reason": "rude"}, 400)["error"]
    assert "at most 500" in report(ann, bob_id, {"reason": "other", "text": "x" * 501}, 400)["error"]
    assert "bidi" in report(ann, bob_id, {"reason": "other", "text": "a\u202eb"}, 400)["error"]
    assert report(ann, ann_id, {"reason": "spam", "text": "me"}, 400)["error"] == "report: you cannot report yourself"
    assert report(ann, "nobody", {"reason": "spam", "text": "x"}, 404)
    assert report(ann, bob_id, {"reason": "spam", "text": "x", "game": "nogame"}, 404)
    assert report(ann, bob_id, {"reason": "abuse", "text": "insults", "game": gid}, 200) == {"id": 1, "merged": False}
    assert report(ann, bob_id, {"reason": "spam", "text": "and links"}, 200) == {"id": 1, "merged": True}
    assert ann.get("/api/mod/reports").status_code == 403  # moderators only
    assert client.get("/api/mod/audit").status_code == 403
    mia = moderator(client, db)
    [open_one] = mia.get("/api/mod/reports").json()
    assert open_one["reason"] == "abuse" and open_one["text"] == "insults\n[spam] and links"
    assert open_one["game"] == gid and open_one["reporter"] == {"player": ann_id, "name": "Ann"}
    assert open_one["reported"]["player"] == bob_id and open_one["reported"]["account"] == "bob"
    assert [(c["game"], c["text"]) for c in open_one["chat"]] == [(gid, "you are bad")]
    assert [g["id"] for g in open_one["games"]] == [gid]
    assert mia.post("/api/mod/reports/1/resolve", json={"note": "warned"}).json() == {"id": 1, "state": "resolved"}
    assert mia.post("/api/mod/reports/1/resolve", json={}).status_code == 409
    assert mia.post("/api/mod/reports/9/resolve", json={}).status_code == 404
    assert mia.get("/api/mod/reports").json() == []
    # resolved: a new report opens a new one
    assert report(ann, bob_id, {"reason": "cheat", "text": "engine"}, 200) == {"id": 2, "merged": False}
    assert [(a["action"], a["actor"], a["target"], a["reason"], a["detail"])
            for a in mia.get("/api/mod/audit").json()] == [
        ("resolve", "mia", bob_id, "warned", "report 1"), ("grant", admin.Actor.cli().name, me(mia), None, "moderator")]


def test_reports_are_rate_limited(db: Path) -> None:
    from kamisado.web.edge.guard import LIMITS

    with served(db, limits=dict(LIMITS)) as client:
        ann, _ = account(client, "ann")
        bob_id = me(browser(client))
        codes = [ann.post(f"/api/players/{bob_id}/report", json={"reason": "spam", "text": "x"}).status_code
                 for _ in range(6)]
        assert codes == [200] * 5 + [429]


def test_a_muted_players_chat_is_refused_with_its_end_and_reaches_nobody(client: TestClient, db: Path) -> None:
    ann, _ = account(client, "ann")
    bob, bob_id = account(client, "bob")
    gid, wb, wg = online_pair(ann, bob)
    mia = moderator(client, db)
    assert ann.post(f"/api/mod/players/{bob_id}/mute", json={"hours": 1}).status_code == 403
    assert mia.post(f"/api/mod/players/{bob_id}/mute", json={"hours": 0}).status_code == 400
    assert mia.post(f"/api/mod/players/{bob_id}/shout", json={}).status_code == 404
    before = time.time()
    r = mia.post(f"/api/mod/players/{bob_id}/mute", json={"hours": 2, "reason": "insults"})
    until_s = r.json()["muted_until"]
    assert before + 7200 <= until_s <= time.time() + 7200
    assert bob.get("/api/me").json()["muted_until"] == until_s
    wg.send_json({"type": "chat", "text": "still here"})
    refused = frames(wg, "error")
    assert refused["code"] == "muted" and "UTC" in refused["message"] and "reach nobody" in refused["message"]
    wb.send_json({"type": "chat", "text": "quiet"})
    assert said(wb) == [("b", "quiet", None)]  # Ann's next chat is her own: Bob's was never sent
    assert "still here" not in [m["text"] for m in history(ann, gid)["messages"]]
    assert mia.post(f"/api/mod/players/{bob_id}/unmute", json={"reason": "sorry"}).status_code == 200
    assert bob.get("/api/me").json()["muted_until"] is None
    wg.send_json({"type": "chat", "text": "back"})
    assert said(wb) == [("g", "back", None)]
    assert [(a["action"], a["reason"], a["detail"]) for a in mia.get("/api/mod/audit").json()[:2]] == [
        ("unmute", "sorry", None), ("mute", "insults", "2 h")]


def _rated(client: TestClient, player: str) -> None:
    """Put a player on the realtime leaderboard (a settled rating, a recent rated game)."""
    engine = client.app.state.hub.store.engine  # type: ignore[attr-defined]
    now = time.time()
    with engine.begin() as conn:
        conn.execute(ratings.insert().values(player=player, speed="realtime", rating=1700.0, rd=60.0,
                                             vol=0.06, games=20, updated=now))
        conn.execute(rating_history.insert().values(player=player, game_id="g1", speed="realtime", at=now,
                                                    rating=1700.0, rd=60.0, change=5.0))


def board(client: TestClient) -> list[str]:
    return [p["player"] for p in client.get("/api/leaderboard?speed=realtime").json()["players"]]


def test_a_closed_account_is_signed_out_refused_and_off_the_leaderboard_until_reopened(
        client: TestClient, db: Path) -> None:
    bob, bob_id = account(client, "bob")
    _rated(client, bob_id)
    assert board(client) == [bob_id]
    mia = moderator(client, db)
    assert mia.post(f"/api/mod/players/{me(mia)}/close", json={}).json()["error"] == \
        "you cannot close your own account"
    r = mia.post(f"/api/mod/players/{bob_id}/close", json={"reason": "cheating"})
    assert r.status_code == 200 and r.json()["sessions_ended"] == 1
    again = bob.get("/api/me").json()  # the open session's next request: signed out
    assert again["signed_in"] is False and again["id"] != bob_id
    refused = bob.post("/api/signin", json={"account": "bob", "password": "a long password"})
    assert refused.status_code == 403 and refused.json()["error"] == "this account was closed by a moderator"
    wrong = bob.post("/api/signin", json={"account": "bob", "password": "a wrong password"})
    assert wrong.status_code == 401  # (the closing is told only to the password's holder)
    assert board(client) == []
    assert client.get(f"/api/players/{bob_id}").status_code == 200  # games and page stay
    assert mia.post(f"/api/mod/players/{bob_id}/reopen", json={}).status_code == 200
    assert mia.post(f"/api/mod/players/{bob_id}/reopen", json={}).status_code == 409
    assert bob.post("/api/signin", json={"account": "bob", "password": "a long password"}).status_code == 200
    assert bob.get("/api/me").json()["id"] == bob_id
    assert board(client) == [bob_id]
    assert [(a["action"], a["target"], a["reason"]) for a in mia.get("/api/mod/audit").json()[:2]] == [
        ("reopen", bob_id, None), ("close", bob_id, "cheating")]


def test_a_closed_players_challenges_and_seeks_go(client: TestClient, db: Path) -> None:
    bob, bob_id = account(client, "bob")
    wb = seek(bob, "5+3")
    assert len(seek_rows(client)) == 1
    mia = moderator(client, db)
    assert mia.post(f"/api/mod/players/{bob_id}/close", json={}).status_code == 200
    assert seek_rows(client) == []
    with contextlib.suppress(Exception):
        wb.close()


def test_a_non_moderator_gets_403_on_every_moderator_route(client: TestClient) -> None:
    ann, _ = account(client, "ann")
    _, bob_id = account(client, "bob")
    for c in (client, ann):
        assert c.get("/api/mod/reports").status_code == 403
        assert c.get("/api/mod/audit").status_code == 403
        assert c.post("/api/mod/reports/1/resolve", json={}).status_code == 403
        for action in ("mute", "unmute", "close", "reopen"):
            r = c.post(f"/api/mod/players/{bob_id}/{action}", json={"hours": 1})
            assert r.status_code == 403 and r.json() == {"error": "moderators only", "code": "moderators_only"}
    assert joined  # (the chat kit's helpers are shared with the chat's tests)


def test_a_websocket_open_when_its_account_closed_elsewhere_neither_chats_nor_pairs(
        client: TestClient, db: Path) -> None:
    ann, _ = account(client, "ann")
    bob, _ = account(client, "bob")
    cy, _ = account(client, "cyril")
    gid, wb, wg = online_pair(ann, bob)
    wseek = connect(bob)  # Bob's pages stay open: closed through another process (the command line)
    assert admin.main(["close", "bob", "--db", str(db)]) == 0
    wg.send_json({"type": "chat", "text": "still here"})
    refused = frames(wg, "error")
    assert refused["code"] == "closed" and refused["message"] == "chat: this account was closed by a moderator"
    wseek.send_json({"type": "seek", "speed": "3+2", "rated": False})
    frames(wseek, "seeking")
    seek(cy, "3+2")
    assert match(client) == 0  # Bob's seek is never paired (by this pass or the one the seek ran)
    assert lobby_of(client).seeks.paired == 0
    assert gid and wb
