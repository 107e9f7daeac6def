"""The game store on SQLite and on a real PostgreSQL server."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from kamisado.rules.match import Match
from kamisado.web.play.game import Game
from kamisado.web.store.sharing import CHANNEL
from kamisado.web.store.storage import (
    GameRow,
    SequenceError,
    Store,
    database_url,
    new_id,
    settings,
)
from tests.waiting import until_async

psycopg = pytest.importorskip("psycopg")

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

    from kamisado.web.site.server import create_app

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


# -- the calls of the hot path from the event loop (PostgreSQL: on its own connections) --


def test_the_event_loops_calls_store_what_the_threads_calls_store(store: Store) -> None:
    gid = new_id()

    async def play() -> None:
        await store.create_async(GameRow.new(gid, target=3, black_name="Ann"))
        for seq, mv in enumerate(MOVES):
            await store.append_async(gid, seq, mv, state="playing", points=(0, 0), to_act="bg"[(seq + 1) % 2])
        with pytest.raises(SequenceError, match="action 5 .* has 6 actions"):
            await store.append_async(gid, 5, "x", state="playing", points=(0, 0))
        with pytest.raises(SequenceError, match="no such game"):
            await store.append_async("missing-" + new_id(), 0, "c1-c5", state="playing", points=(0, 0))
        loaded = await store.load_async(gid)
        assert loaded is not None and loaded[1] == MOVES and loaded[0].black_name == "Ann"
        assert loaded[0].actions == 6 and loaded[0].to_act == "b"
        since = await store.load_async(gid, since=4)
        assert since is not None and since[1] == MOVES[4:]
        assert await store.load_async("no-such-game") is None

    asyncio.run(play())
    thread = store.load(gid)  # the threads' path reads the same
    assert thread is not None and thread[1] == MOVES and thread[0].actions == 6


def test_a_new_game_is_stored_once_from_the_event_loop(pg_url: str) -> None:
    store = Store(pg_url)
    gid = new_id()
    try:
        asyncio.run(store.create_async(GameRow.new(gid)))
        with pytest.raises(psycopg.IntegrityError):  # not tried again, not stored twice
            asyncio.run(store.create_async(GameRow.new(gid)))
        assert [r.id for r in store.list(1000)].count(gid) == 1
    finally:
        store.close()


def _backend_pids(store: Store) -> list[int]:
    assert store._pg is not None
    return [c.info.backend_pid for c in store._pg.async_idle]


def test_a_call_on_a_connection_the_database_dropped_is_made_again(
        pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A connection the database ended while it was kept (restarted
    meanwhile) is found so when taken, and the call is sent on a new one, a
    new game too (nothing was sent); a statement that is safe to run twice
    (a move, a load) is tried once more on a new connection when it fails on
    one that looked alive; a new game is not, and fails once."""
    store, killer = Store(pg_url), psycopg.connect(pg_url, autocommit=True)
    gid = new_id()

    def drop_all() -> int:
        pids = _backend_pids(store)
        for pid in pids:  # (waits until the server process is gone: its last words are sent)
            killer.execute("SELECT pg_terminate_backend(%s, 10000)", [pid])
        return len(pids)

    async def run() -> None:
        await store.create_async(GameRow.new(gid))
        assert drop_all() >= 1
        await store.create_async(GameRow.new(new_id()))  # the ended connection is not used
        assert drop_all() >= 1
        assert store._pg is not None
        monkeypatch.setattr(store._pg, "stale", lambda conn: conn.closed)  # an end not seen before use
        await store.append_async(gid, 0, "c1-c5", state="playing", points=(0, 0))  # tried again: stored
        assert drop_all() >= 1
        loaded = await store.load_async(gid)
        assert loaded is not None and loaded[1] == ["c1-c5"]
        assert drop_all() >= 1
        with pytest.raises(psycopg.OperationalError):
            await store.create_async(GameRow.new(new_id()))
        await store.append_async(gid, 1, "b8-b3", state="playing", points=(0, 0))  # the next call is served

    try:
        asyncio.run(run())
        loaded = store.load(gid)
        assert loaded is not None and loaded[1] == ["c1-c5", "b8-b3"]
    finally:
        killer.close()
        store.close()


def test_a_call_cancelled_mid_statement_leaves_no_busy_connection_behind(pg_url: str) -> None:
    store = Store(pg_url)
    gid = new_id()

    def running_on_the_server() -> bool:
        with psycopg.connect(pg_url, autocommit=True) as conn:
            row = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE state = 'active'"
                               " AND query = 'SELECT pg_sleep(5)' AND datname = current_database()").fetchone()
        return row is not None and row[0] > 0

    async def run() -> None:
        assert store._pg is not None
        await store.create_async(GameRow.new(gid))
        slow = asyncio.ensure_future(store._pg.rows_async(sa.text("SELECT pg_sleep(5)"), {}))
        await until_async(running_on_the_server, "the slow statement runs on the server")  # mid-statement
        slow.cancel()
        with pytest.raises(asyncio.CancelledError):
            await slow
        for seq, mv in enumerate(MOVES[:3]):  # every connection lent after it is ready for its statement
            await store.append_async(gid, seq, mv, state="playing", points=(0, 0))
        assert all(not c.closed for c in store._pg.async_idle)

    try:
        asyncio.run(run())
        loaded = store.load(gid)
        assert loaded is not None and loaded[1] == MOVES[:3]
    finally:
        store.close()


def test_the_event_loops_connections_are_bounded(pg_url: str) -> None:
    store = Store(pg_url)
    games = [new_id() for _ in range(30)]

    async def run() -> None:
        assert store._pg is not None
        await asyncio.gather(*(store.create_async(GameRow.new(g)) for g in games))
        await asyncio.gather(*(store.append_async(g, 0, "c1-c5", state="playing", points=(0, 0)) for g in games))
        assert 1 <= len(store._pg.async_idle) <= store._pg.async_limit

    try:
        asyncio.run(run())
        assert all(store.load(g) is not None for g in games)
    finally:
        store.close()


def test_presence_in_one_statement_is_what_the_other_processes_read(pg_url: str) -> None:
    """``set_presence_async`` (one statement) puts the seats held, drops the
    others of the games named, and announces each game, as ``set_presence``."""
    here, there = Store(pg_url), Store(pg_url)
    g1, g2 = new_id(), new_id()
    listener = psycopg.connect(pg_url, autocommit=True)
    listener.execute(f"LISTEN {CHANNEL}")

    def heard() -> list[str]:
        return sorted(n.payload for n in listener.notifies(timeout=0.5, stop_after=2))

    try:
        asyncio.run(here.set_presence_async({g1: (True, False), g2: (True, True)}, 1000))
        assert heard() == sorted([f"{here.origin} {g1} presence", f"{here.origin} {g2} presence"])
        assert there.presence_elsewhere(g1) == {"b": 1000}
        assert there.presence_elsewhere(g2) == {"b": 1000, "g": 1000}
        assert here.presence_elsewhere(g1) == {}  # its own seats are not elsewhere
        asyncio.run(here.set_presence_async({g1: (False, True), g2: (False, False)}, 2000))
        assert heard() == sorted([f"{here.origin} {g1} presence", f"{here.origin} {g2} presence"])
        assert asyncio.run(there.presence_elsewhere_async(g1)) == {"g": 2000}
        assert asyncio.run(there.presence_elsewhere_async(g2)) == {}
        there.set_presence({g1: (True, False)}, 3000)  # the threads' path, beside it
        assert asyncio.run(here.presence_elsewhere_async(g1)) == {"b": 3000}
        assert there.presence_elsewhere(g1) == {"g": 2000}
    finally:
        listener.close()
        here.close()
        there.close()


def test_renewal_and_many_games_presence_from_the_event_loop(pg_url: str) -> None:
    here, there = Store(pg_url), Store(pg_url)
    games = [new_id() for _ in range(5)]
    try:
        asyncio.run(here.set_presence_async({g: (True, i % 2 == 0) for i, g in enumerate(games)}, 1000))
        here.add_challenge({"id": new_id(), "player": "p", "name": "Ann", "target": 1, "series": False,
                            "rated": False, "color": "random", "created": 1.0, "seen": 1000})
        asyncio.run(here.renew_presence_async(5000))  # its rows and challenges, one statement
        seen = asyncio.run(there.presence_elsewhere_of_async(games + ["no-such-game"]))
        assert seen == there.presence_elsewhere_of(games)
        assert seen == {g: {"b": 5000, **({"g": 5000} if i % 2 == 0 else {})} for i, g in enumerate(games)}
        assert asyncio.run(here.presence_elsewhere_of_async(games)) == {}  # none of them elsewhere for it
        with psycopg.connect(pg_url) as conn:
            assert conn.execute("SELECT seen FROM challenges WHERE origin = %s", [here.origin]).fetchall() == [(5000,)]
    finally:
        here.close()
        there.close()


# -- the computer's leases (several processes), and the clocks over an outage ----------


def test_a_lease_is_renewed_while_its_holder_thinks_and_taken_over_once_it_is_silent(pg_url: str) -> None:
    # two processes' stores, an injected time: the holder renews its lease,
    # so it is not taken while renewed; once its holder falls silent it is
    # taken THINK_LEASE_MS after the last renewal; a store that closes
    # (a process stopping) lets go of its leases at once
    from kamisado.web.play.computer import THINK_LEASE_MS

    a, b = Store(pg_url), Store(pg_url)
    try:
        gid = new_id()
        a.create(GameRow.new(gid, target=1, black="human", gold="novice"))
        a.append(gid, 0, "c1-c5", state="playing", points=(0, 0))
        now = 1_000_000
        assert a.take_turn(gid, 1, now + THINK_LEASE_MS, now)
        assert not a.take_turn(gid, 0, now + THINK_LEASE_MS, now)  # not an action the game is at
        assert not b.take_turn(gid, 1, now + 2_000 + THINK_LEASE_MS, now + 2_000)  # held
        renewed = now + 2_500
        assert asyncio.run(a.renew_turns_async([gid, "no-such-game"], renewed + THINK_LEASE_MS)) == {gid}
        # without the renewal it would have run out at now + THINK_LEASE_MS
        assert not b.take_turn(gid, 1, now + THINK_LEASE_MS + 1 + THINK_LEASE_MS, now + THINK_LEASE_MS + 1)
        assert asyncio.run(b.leases_async([gid])) == {gid: (1, a.origin, renewed + THINK_LEASE_MS)}
        taken = renewed + THINK_LEASE_MS + 1  # a was silent since its renewal
        assert b.take_turn(gid, 1, taken + THINK_LEASE_MS, taken)
        assert asyncio.run(a.renew_turns_async([gid], taken + 1_000)) == set()  # a learns it lost it
        assert not a.take_turn(gid, 1, taken + 2 * THINK_LEASE_MS, taken + 1)
        b.close()  # b stops: a takes the move over at once
        assert a.take_turn(gid, 1, taken + 1 + THINK_LEASE_MS, taken + 1)
    finally:
        a.close()
        b.close()


def clock_row(store: Store, gid: str) -> tuple[int | None, int | None, int | None]:
    found = store.load(gid)
    assert found is not None
    row = found[0]
    return row.clock_since, row.clock_deadline, row.black_ms


def test_the_time_nobody_reached_the_store_is_given_back_once(store: Store) -> None:
    # (the PostgreSQL database is the test worker's: other tests' servers said
    # they were alive in it, at the real time; this test's times are its own)
    forget_alive(store)
    try:
        given_back_once(store)
    finally:
        forget_alive(store)


def forget_alive(store: Store) -> None:
    """No server was ever alive in the store (the rows of ``keep_alive`` gone)."""
    with store.engine.begin() as conn:
        conn.execute(sa.delete(settings).where(settings.c.name.in_(["alive", "clocks_moved"])))


def given_back_once(store: Store) -> None:
    from kamisado.web.basics.clocks import ClockState, TimeControl

    t = 1_700_000_000_000
    moved = 0
    assert store.keep_alive(t, 0) == (0, 0)  # the first server ever: nothing to give back
    running = new_id()  # Black's clock runs since t - 2 s (58 s left then)
    row = GameRow.new(running, target=1)
    clock = ClockState.start(TimeControl(60, 0)).begin("b", t - 2_000)
    row.clock_initial, row.clock_increment = 60.0, 0.0
    row.set_clock(clock)
    store.create(row)
    fell = new_id()  # a clock whose flag fell before the outage began: left to fall
    row = GameRow.new(fell, target=1)
    row.clock_initial, row.clock_increment = 60.0, 0.0
    row.set_clock(ClockState.start(TimeControl(60, 0)).begin("b", t - 61_000))
    store.create(row)
    assert store.keep_alive(t + 1_000, None) == (moved, 0)  # alive every second
    assert store.keep_alive(t + 2_000, 3_000) == (moved, 0)  # a process saw a failure: but 1 s is no outage
    # nobody reaches the store from t + 2 s to t + 12 s: the process that
    # finds it back gives the 10 s back, once
    assert store.keep_alive(t + 12_000, 3_000) == (t + 12_000, 10_000)
    assert clock_row(store, running) == (t + 8_000, t + 8_000 + 60_000, 60_000)
    assert clock_row(store, fell) == (t - 61_000, t - 1_000, 60_000)
    assert store.keep_alive(t + 12_500, 3_000) == (t + 12_000, 0)  # another process, just after: nothing more
    assert clock_row(store, running) == (t + 8_000, t + 8_000 + 60_000, 60_000)
    # a clock started during the outage (a move stored as the store came
    # back) is given back only the time since its own start
    later = new_id()
    row = GameRow.new(later, target=1)
    row.clock_initial, row.clock_increment = 60.0, 0.0
    row.set_clock(ClockState.start(TimeControl(60, 0)).begin("g", t + 20_000))
    store.create(row)
    assert store.keep_alive(t + 30_000, 3_000) == (t + 30_000, 17_500)
    assert clock_row(store, later)[:2] == (t + 30_000, t + 90_000)
    assert clock_row(store, running)[:2] == (t + 25_500, t + 85_500)
