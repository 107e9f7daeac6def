"""Caps that hold across processes (docs/web-limits.md, "Rate limits";
docs/web.md, "Direct challenges"): at most :data:`MAX_WAITING` direct
challenges wait for one player (the next is ``busy``), counted in the
database on PostgreSQL so two processes cannot both store the last one; a
flood of challenges stays declinable; and the limits per address and per
player are counted once for every process on one PostgreSQL
(:class:`kamisado.web.store.buckets.SharedBuckets`), with an injected clock."""

from __future__ import annotations

import asyncio
import json
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from starlette.testclient import TestClient

from kamisado.web.community.lobby import MAX_CHALLENGES, MAX_WAITING
from kamisado.web.edge.guard import LIMITS, Limit, RateLimiter
from kamisado.web.site.server import create_app
from kamisado.web.store import buckets
from kamisado.web.store.buckets import SharedBuckets
from kamisado.web.store.schema import rate_buckets
from kamisado.web.store.storage import Store
from tests.test_web_controls import close_all, connect, error, me, until
from tests.test_web_processes import two  # noqa: F401 (the fixture)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def client(tmp_path: Path, clock: Clock) -> Iterator[TestClient]:
    app = create_app(str(tmp_path / "games.db"), workers=0, limits=RateLimiter(LIMITS, clock))
    with TestClient(app) as c:
        c.get("/")  # a player and its cookie
        try:
            yield c
        finally:
            close_all()


def from_address(first: TestClient, n: int) -> TestClient:
    """Another browser, on an address of its own (its own address limits)."""
    other = TestClient(first.app, client=(f"198.51.100.{n}", 4000))
    other.portal = first.portal
    other.get("/")
    return other


def frames_until(ws: Any, kind: str, n: int) -> list[dict[str, Any]]:
    """The next ``n`` frames of a kind (others skipped)."""
    got: list[dict[str, Any]] = []
    while len(got) < n:
        msg: dict[str, Any] = ws.receive_json()
        if msg["type"] == kind:
            got.append(msg)
    return got


def test_the_21st_direct_challenge_is_busy_and_a_flood_stays_declinable(client: TestClient) -> None:
    bob_id = me(client)
    wb = connect(client)
    wb.send_json({"type": "notices"})
    until(wb, lambda m: m["type"] == "notices")
    posters = [from_address(client, i + 1) for i in range(MAX_WAITING // MAX_CHALLENGES + 2)]
    sockets = [connect(p) for p in posters]
    sent = 0
    for ws in sockets:  # at most MAX_CHALLENGES each: from several players
        for _ in range(MAX_CHALLENGES):
            if sent == MAX_WAITING:
                break
            ws.send_json({"type": "challenge", "to": bob_id})
            until(ws, lambda m: m["type"] == "challenging")
            sent += 1
    got = [m["challenge"]["id"] for m in frames_until(wb, "challenged", MAX_WAITING)]
    late = sockets[-1]
    late.send_json({"type": "challenge", "to": bob_id})
    err = until(late, lambda m: m["type"] in ("challenging", "error"))
    assert err["type"] == "error" and err["code"] == "busy"
    assert err["message"] == "challenge: that player has 20 challenges waiting already; try again later"
    page = connect(client)  # Bob's other page: 20 waiting, not 21
    page.send_json({"type": "notices"})
    assert sorted(c["id"] for c in until(page, lambda m: m["type"] == "notices")["challenges"]) == sorted(got)
    # Bob's page spends its websocket frames (the clock stands still: no refill)
    for _ in range(LIMITS["frame"].burst - 2):
        wb.send_json({"type": "ping"})
        until(wb, lambda m: m["type"] == "pong")
    wb.send_json({"type": "ping"})
    assert error(wb)["code"] == "rate_limited"
    # ... and still declines every challenge: declines take from their own limit
    for challenge in got:
        wb.send_json({"type": "decline", "challenge": challenge})
    answers = [until(wb, lambda m: m["type"] in ("withdrawn", "error")) for _ in got]
    assert sorted(m.get("challenge", m.get("code")) for m in answers) == sorted(got)
    late.send_json({"type": "challenge", "to": bob_id})  # room again
    assert until(late, lambda m: m["type"] in ("challenging", "error"))["type"] == "challenging"


# -- PostgreSQL: the cap and the buckets over two stores (two processes' worth) ----------------


def challenge_row(n: int, to: str, seen: int) -> dict[str, Any]:
    return {"id": f"c{n}", "player": f"p{n}", "name": f"P{n}", "rating": None, "provisional": False,
            "target": 1, "series": False, "clock_initial": None, "clock_increment": None, "clock_days": None,
            "rated": False, "color": "random", "created": float(n), "seen": seen, "to_player": to}


def test_two_processes_storing_at_once_cannot_pass_the_cap(pg_url: str) -> None:
    stores = [Store(pg_url), Store(pg_url)]
    try:
        stored: list[bool] = []
        start = threading.Barrier(2)

        def post(store: Store, first: int) -> None:
            start.wait()
            for n in range(first, first + 15):
                stored.append(store.add_challenge(challenge_row(n, "bob", 5000), MAX_WAITING, 1000))

        threads = [threading.Thread(target=post, args=(s, i * 100)) for i, s in enumerate(stores)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert stored.count(True) == MAX_WAITING and stored.count(False) == 10
        rows = stores[0].open_challenges(0)
        assert len([r for r in rows if r["to_player"] == "bob"]) == MAX_WAITING
        # stale rows (their process stopped renewing them) do not count; others' players are apart
        assert stores[1].add_challenge(challenge_row(900, "bob", 9000), MAX_WAITING, 6000)
        assert stores[1].add_challenge(challenge_row(901, "cy", 5000), MAX_WAITING, 1000)
    finally:
        for s in stores:
            s.close()


def shared_limiters(pg_url: str, clock: Clock) -> tuple[list[Store], list[RateLimiter]]:
    stores = [Store(pg_url), Store(pg_url)]
    return stores, [RateLimiter(LIMITS, clock, shared=SharedBuckets(s, clock)) for s in stores]


def test_a_shared_limit_refuses_on_one_process_what_the_other_used_up(pg_url: str, clock: Clock) -> None:
    stores, (a, b) = shared_limiters(pg_url, clock)
    keys = ["addr:203.0.113.5", "player:p-shared"]

    async def run() -> None:
        for _ in range(LIMITS["create"].burst):
            assert await a.take_all_async("create", keys) == 0.0
        assert await b.take_all_async("create", keys) == pytest.approx(6.0)  # 10 a minute
        assert await b.take_all_async("create", ["addr:203.0.113.6"]) == 0.0  # another address
        assert await b.take_all_async("create", ["addr:203.0.113.7", keys[1]]) > 0  # the same player
        assert await b.take_all_async("chat", keys) == 0.0  # another limit
        clock.now += 6.0
        assert await b.take_all_async("create", keys) == 0.0
        assert await a.take_all_async("create", keys) > 0
        # the frame limits stay each process's own: no round trip for a frame
        for _ in range(LIMITS["frame"].burst):
            assert await a.take_all_async("frame", keys) == 0.0
        assert await b.take_all_async("frame", keys) == 0.0

    try:
        asyncio.run(run())
    finally:
        for s in stores:
            s.close()


def test_idle_shared_buckets_are_deleted_and_an_outage_counts_per_process(pg_url: str, clock: Clock) -> None:
    stores, (a, _) = shared_limiters(pg_url, clock)
    count = sa.select(sa.func.count()).select_from(rate_buckets).where(rate_buckets.c.key == "addr:idle")

    def left() -> int:
        with stores[0]._db.read() as tx:
            return int(tx.run(count).scalar())

    async def run() -> None:
        await a.take_all_async("gif", ["addr:idle"])
        assert left() == 1
        clock.now += buckets.IDLE_S + buckets.SWEEP_S
        await a.take_all_async("gif", ["addr:someone-else"])  # sweeps on its way
        assert left() == 0
        # the database away: this process's own buckets count instead, no error
        shared = a.shared
        assert isinstance(shared, SharedBuckets)
        shared.db.conninfo = "postgresql://postgres@127.0.0.1:1/nowhere"
        shared.db._drop_async()
        burst = LIMITS["gif"].burst
        assert [await a.take_all_async("gif", ["addr:away"]) for _ in range(burst)] == [0.0] * burst
        assert await a.take_all_async("gif", ["addr:away"]) == pytest.approx(10.0)

    try:
        asyncio.run(run())
    finally:
        for s in stores:
            s.close()


def test_every_shared_limit_is_full_again_before_its_bucket_is_deleted() -> None:
    assert all(lim.burst / lim.rate < buckets.IDLE_S for lim in LIMITS.values() if lim.shared)
    assert {n for n, lim in LIMITS.items() if not lim.shared} == {"frame", "flood", "answer"}


def post_game(addr: str) -> int:
    req = urllib.request.Request(f"http://{addr}/api/games", data=b'{"target": 1}',
                                 headers={"Content-Type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return int(r.status)
    except urllib.error.HTTPError as exc:
        body = json.loads(exc.read())
        assert body["limit"] == "create"
        return exc.code


def test_two_processes_give_one_address_the_limit_once(two: tuple[str, str]) -> None:  # noqa: F811
    a, b = two
    burst = LIMITS["create"].burst
    assert [post_game(a) for _ in range(burst)] == [200] * burst
    assert post_game(b) == 429  # process B counts what A took


def test_a_limiter_with_no_shared_buckets_keeps_its_own(clock: Clock) -> None:
    limiter = RateLimiter({"c": Limit("c", 1.0, 2, "c")}, clock)

    async def takes() -> list[float]:
        return [await limiter.take_all_async("c", ["addr:x"]) for _ in range(3)]

    assert asyncio.run(takes()) == [0.0, 0.0, 1.0] and len(limiter) == 1
