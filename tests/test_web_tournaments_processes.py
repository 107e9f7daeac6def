"""Tournaments across ``kamisado web`` processes on one PostgreSQL
(docs/web-tournaments.md): a Swiss of four whose players are on two
processes, each told of their games wherever they are; an Arena that
goes on when one of its two processes is killed mid-event, no game and no
score lost.  Real server processes on loopback, real websockets."""

from __future__ import annotations

import contextlib
import json
import subprocess
import threading
import time
import urllib.request
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from websockets.sync.client import connect

from kamisado.api import Client
from kamisado.api.bot import Bot
from kamisado.protocol.client import PlayResult
from kamisado.protocol.client.messages import Info
from kamisado.rules.match import Match
from kamisado.rules.position import Position
from tests.test_api_e2e import new_bot
from tests.test_web_processes import frame, start_server, visit
from tests.test_web_tournaments import arena_scores


@contextlib.contextmanager
def two_servers(db: str) -> Iterator[list[tuple[subprocess.Popen[str], str]]]:
    procs: list[tuple[subprocess.Popen[str], str]] = []
    try:
        procs = [start_server(db), start_server(db)]
        yield procs
    finally:
        for proc, _ in procs:
            if proc.poll() is None:
                proc.terminate()
        for proc, _ in procs:
            with contextlib.suppress(Exception):
                proc.communicate(timeout=10)


def call(addr: str, path: str, cookie: str, body: dict[str, Any] | None = None,
         method: str | None = None) -> tuple[int, Any, str]:
    """An HTTP call with a player's cookie: status, JSON answer, the cookie (renewed when set)."""
    req = urllib.request.Request(
        f"http://{addr}{path}", data=None if body is None else json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Cookie": cookie},
        method=method or ("GET" if body is None else "POST"))
    try:
        with urllib.request.urlopen(req, timeout=20) as r:
            got = r.headers.get("set-cookie")
            return r.status, json.loads(r.read()), got.split(";")[0] if got else cookie
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read()), cookie


def maker(addr: str) -> str:
    """A signed-in account's cookie (an event is made by an account)."""
    status, _, cookie = call(addr, "/api/signup", visit(addr),
                             {"account": f"org{uuid.uuid4().hex[:12]}", "password": "a long password", "name": "Organiser"})
    assert status == 200
    return cookie


class Player:
    """A player with a page open on one process."""

    def __init__(self, addr: str, name: str | None = None) -> None:
        self.addr = addr
        self.cookie = visit(addr)
        if name is not None:
            assert call(addr, "/api/me", self.cookie, {"name": name})[0] == 200
        self.id = call(addr, "/api/me", self.cookie)[1]["id"]
        self.ws = connect(f"ws://{addr}/ws", additional_headers={"Cookie": self.cookie}).__enter__()

    def move_to(self, addr: str) -> None:
        """The page reconnects through another process."""
        with contextlib.suppress(Exception):
            self.ws.close()
        self.addr = addr
        self.ws = connect(f"ws://{addr}/ws", additional_headers={"Cookie": self.cookie}).__enter__()

    def started(self) -> str:
        game: str = frame(self.ws, "started", timeout=20)["game"]
        return game

    def resign(self, game: str) -> None:
        with connect(f"ws://{self.addr}/ws", additional_headers={"Cookie": self.cookie}) as ws:
            ws.send(json.dumps({"type": "join", "game": game}))
            assert frame(ws)["you"]
            ws.send(json.dumps({"type": "resign"}))
            deadline = time.monotonic() + 20
            while frame(ws, timeout=max(0.01, deadline - time.monotonic()))["state"] != "over":
                pass


def event_of(addr: str, tid: str) -> dict[str, Any]:
    status, got, _ = call(addr, f"/api/tournaments/{tid}", "")
    assert status == 200
    return dict(got)


def wait_for(addr: str, tid: str, holds: Any, timeout: float = 30) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        got = event_of(addr, tid)
        if holds(got):
            return got
        assert time.monotonic() < deadline, got
        time.sleep(0.05)


def start_now(db: str, tid: str) -> None:
    """Move an event's start to now (the time injected through the database)."""
    import psycopg

    with psycopg.connect(db, autocommit=True) as conn:
        conn.execute("UPDATE tournaments SET starts = %s WHERE id = %s", (int(time.time() * 1000), tid))


def loser_of(g: dict[str, Any], players: dict[str, Player]) -> Player:
    return players[max(g["black"]["player"], g["gold"]["player"])]


@pytest.mark.timeout(240)
def test_a_swiss_across_two_processes(pg_url: str) -> None:
    with two_servers(pg_url) as ((_, a), (_, b)):
        seats = [Player(a), Player(a), Player(b), Player(b)]
        players = {p.id: p for p in seats}
        status, ev, _ = call(a, "/api/tournaments", maker(a), {
            "kind": "swiss", "name": "Two processes", "clock": {"initial": 300, "increment": 3}, "rounds": 2,
            "starts_in": 600, "rated": False})
        assert status == 201
        tid = ev["id"]
        for p in seats:
            assert call(p.addr, f"/api/tournaments/{tid}/join", p.cookie, {})[0] == 200
        start_now(pg_url, tid)  # the time to start came: the next pass of either process pairs round 1
        for rnd in (1, 2):
            games = {p.id: p.started() for p in seats}  # told on their own process, whichever paired
            got = wait_for(b, tid, lambda e, rnd=rnd: e["round"] == rnd)
            assert {g["id"] for g in got["games"] if g["round"] == rnd} == set(games.values())
            for g in [g for g in got["games"] if g["round"] == rnd]:
                assert games[g["black"]["player"]] == games[g["gold"]["player"]] == g["id"]
                loser_of(g, players).resign(g["id"])
        final = wait_for(a, tid, lambda e: e["status"] == "finished")
        assert len(final["games"]) == 4
        pairs = [frozenset((g["black"]["player"], g["gold"]["player"])) for g in final["games"]]
        assert len(set(pairs)) == 4  # no pair twice
        wins: dict[str, int] = {}
        for g in final["games"]:
            won = g["black" if g["winner"] == "b" else "gold"]["player"]
            wins[won] = wins.get(won, 0) + 1
        assert {s["player"]: s["score"] for s in final["standings"] if s["score"]} == wins
        for p in seats:
            p.ws.close()


@pytest.mark.timeout(240)
def test_an_arena_goes_on_when_a_process_is_killed_mid_event(pg_url: str) -> None:
    import psycopg

    with two_servers(pg_url) as ((proc_a, a), (_, b)):
        seats = [Player(a), Player(a), Player(b), Player(b)]
        players = {p.id: p for p in seats}
        status, ev, _ = call(b, "/api/tournaments", maker(b), {
            "kind": "arena", "name": "Killed", "clock": {"initial": 300, "increment": 3}, "minutes": 30,
            "starts_in": 0, "rated": False})
        assert status == 201
        tid = ev["id"]
        for p in seats:
            assert call(p.addr, f"/api/tournaments/{tid}/join", p.cookie, {})[0] == 200
        for p in seats:
            p.started()
        first = wait_for(b, tid, lambda e: len(e["games"]) == 2)
        g1, g2 = first["games"]
        loser_of(g1, players).resign(g1["id"])
        counted = wait_for(b, tid, lambda e: sum(not g["running"] for g in e["games"]) == 1)
        proc_a.kill()  # mid-event: a game running, a result counted
        proc_a.wait(timeout=10)
        for p in seats[:2]:
            p.move_to(b)
        after = event_of(b, tid)
        assert [g["id"] for g in after["games"]] == [g["id"] for g in counted["games"]]
        assert after["standings"] == counted["standings"]  # no score lost
        loser_of(g2, players).resign(g2["id"])  # the game that ran on: played on through b
        for p in seats:
            p.started()  # all four paired again, through b
        second = wait_for(b, tid, lambda e: len(e["games"]) == 4)
        with psycopg.connect(pg_url, autocommit=True) as conn:  # the Arena's minutes are over
            conn.execute("UPDATE tournaments SET ends = %s WHERE id = %s", (int(time.time() * 1000), tid))
        for g in [g for g in second["games"] if g["running"]]:
            loser_of(g, players).resign(g["id"])
        final = wait_for(b, tid, lambda e: e["status"] == "finished")
        assert len(final["games"]) == 4 and not any(g["running"] for g in final["games"])
        assert {s["player"]: s["score"] for s in final["standings"] if s["score"]} == arena_scores(final["games"])
        assert all(s["games"] == 2 for s in final["standings"])
        for p in seats:
            p.ws.close()


class FirstMove:
    """The bots' engine: the first legal move (a KEI engine process a game
    would cost more than the whole event's moves)."""

    def newgame(self) -> None:
        pass

    def play(self, game: Match, limit: Any = None, **_: Any) -> PlayResult:
        return PlayResult(game.legal_moves()[0], Info(), [])

    def fill(self, match: Match, **_: Any) -> str:
        return "left"

    def quit(self) -> None:
        pass


class EventBot(Bot):
    """``kamisado bot``'s :class:`Bot` in a thread, noting each ``gameStart`` of its event stream."""

    def __init__(self, addr: str, token: str) -> None:
        self.lines: list[str] = []
        super().__init__(Client(f"http://{addr}", token), FirstMove, log=self.lines.append)
        self.starts: list[dict[str, Any]] = []
        self.thread = threading.Thread(target=self.run, daemon=True)

    def on_event(self, event: dict[str, Any]) -> None:  # type: ignore[override]
        if event.get("type") == "gameStart":
            self.starts.append(event["game"])
        super().on_event(event)  # type: ignore[arg-type]


class Person:
    """A person with an account and a page open on one process, who plays
    each game it is told of through the game's websocket: the first legal
    move each turn, resigning after two moves against a bot (and, ``yielding``,
    against a person), so that the bots' streaks grow."""

    def __init__(self, addr: str, name: str, yielding: bool) -> None:
        self.addr, self.yielding = addr, yielding
        status, _, self.cookie = call(addr, "/api/signup", visit(addr),
                                      {"account": name, "password": "a long password", "name": name.title()})
        assert status == 200
        self.id = call(addr, "/api/me", self.cookie)[1]["id"]
        self.ws = connect(f"ws://{addr}/ws", additional_headers={"Cookie": self.cookie}).__enter__()
        self.games: list[str] = []
        self.moves = 0

    def play(self, stop: threading.Event, errors: list[BaseException]) -> None:
        try:
            while not stop.is_set():
                try:
                    game = frame(self.ws, "started", timeout=0.5)["game"]
                except TimeoutError:
                    continue
                self.games.append(game)
                self.play_game(game)
        except BaseException as exc:
            errors.append(exc)

    def play_game(self, game: str) -> None:
        with connect(f"ws://{self.addr}/ws", additional_headers={"Cookie": self.cookie}) as ws:
            ws.send(json.dumps({"type": "join", "game": game}))
            mine, acted = 0, -1
            while True:
                st = frame(ws, timeout=60)
                if st["state"] == "over":
                    return
                side = 0 if "b" in st["you"] else 1
                other = st["seats"]["gb"[side]]
                pos = Position(st["kpn"])
                if pos.turn != side or pos.outcome is not None or st["seq"] == acted:
                    continue
                acted = st["seq"]
                if mine >= 2 and (other["bot"] or self.yielding):
                    ws.send(json.dumps({"type": "resign"}))
                    continue
                ws.send(json.dumps({"type": "move", "move": str(next(iter(pos.legal_moves))), "seq": st["seq"]}))
                mine += 1
                self.moves += 1


@pytest.mark.timeout(300)
def test_an_arena_of_two_bots_and_two_people_across_two_processes(pg_url: str) -> None:
    """Issue 43's Arena with bots: two ``Bot``s (the event stream tells them
    of their games, the game stream plays them) and two people (websockets)
    on two processes, rated, played to the end; the standings and the
    ratings checked against the stored games."""
    import psycopg

    run = uuid.uuid4().hex[:8]
    stop = threading.Event()
    errors: list[BaseException] = []
    with two_servers(pg_url) as ((_, a), (_, b)):
        bots = [EventBot(addr, new_bot(addr, f"bot{i}{run}")[0]) for i, addr in enumerate((a, b))]
        people = [Person(a, f"ann{run}", yielding=False), Person(b, f"bob{run}", yielding=True)]
        status, ev, _ = call(a, "/api/tournaments", maker(a), {
            "kind": "arena", "name": "Bots and people", "clock": {"initial": 180, "increment": 2}, "minutes": 5,
            "starts_in": 600, "rated": True, "bots": True})
        assert status == 201
        tid = ev["id"]
        threads = [threading.Thread(target=p.play, args=(stop, errors), daemon=True) for p in people]
        try:
            for p in people:
                assert call(p.addr, f"/api/tournaments/{tid}/join", p.cookie, {})[0] == 200
            for bot in bots:
                assert bot.client.tournaments.join(tid)["active"] is True  # the bot's token joins
                bot.thread.start()
            for t in threads:
                t.start()
            deadline = time.monotonic() + 30
            while any(not bot.lines for bot in bots):  # both event streams open: present
                assert time.monotonic() < deadline
                time.sleep(0.05)
            start_now(pg_url, tid)

            def busy_with_a_streak(e: dict[str, Any]) -> bool:
                done = [g for g in e["games"] if not g["running"]]
                doubled = any(max(g["black_score"], g["gold_score"]) == 4 for g in done)
                return len(done) >= 6 and doubled and any(g["running"] for g in e["games"])

            wait_for(b, tid, busy_with_a_streak, timeout=180)
            with psycopg.connect(pg_url, autocommit=True) as conn:  # the Arena's minutes are over
                conn.execute("UPDATE tournaments SET ends = %s WHERE id = %s", (int(time.time() * 1000), tid))
            at_end = {g["id"] for g in event_of(a, tid)["games"] if g["running"]}
            assert at_end  # paired before the end, played on after it
            final = wait_for(a, tid, lambda e: e["status"] == "finished", timeout=120)
        finally:
            stop.set()
            for bot in bots:
                bot.stop()
            for t in threads:
                t.join(timeout=30)
            for bot in bots:
                bot.thread.join(timeout=30)
                bot.client.close()
            for p in people:
                p.ws.close()
        assert not errors, errors
        games = final["games"]
        assert not any(g["running"] for g in games) and at_end <= {g["id"] for g in games}
        assert all(g["winner"] in ("b", "g") for g in games)
        scores = {s["player"]: s["score"] for s in final["standings"]}
        assert {p: s for p, s in scores.items() if s} == arena_scores(games)  # the running ones at the end too
        assert any(max(g["black_score"], g["gold_score"]) == 4 for g in games)  # a streak doubled
        assert final["podium"] == [s["player"] for s in final["standings"][:3]]
        mine = {pid: [g for g in games if pid in (g["black"]["player"], g["gold"]["player"])]
                for pid in scores}
        assert all(s["games"] == len(mine[s["player"]]) for s in final["standings"])
        for bot in bots:  # each game told once on its stream, as the event's, and played to its end
            assert bot.me is not None
            told = [s["id"] for s in bot.starts]
            assert sorted(told) == sorted(g["id"] for g in mine[bot.me])
            assert all(s["tournament"] == tid and s["clock"] == {"initial": 180, "increment": 2}
                       and s["rated"] for s in bot.starts)
            assert set(bot.results) == set(told)
            for g in mine[bot.me]:
                assert bot.results[g["id"]]["winner"] == g["winner"]
        for p in people:
            assert sorted(p.games) == sorted(g["id"] for g in mine[p.id]) and p.moves > 0
        # rated as any rated game: each game moved both players' ratings once, the winner's up
        with psycopg.connect(pg_url, autocommit=True) as conn:
            history = conn.execute("SELECT player, game_id, change, rating, at FROM rating_history"
                                   " WHERE game_id = ANY(%s) ORDER BY at", ([g["id"] for g in games],)).fetchall()
            stored = {r[0]: (r[1], r[2]) for r in conn.execute(
                "SELECT player, rating, games FROM ratings WHERE player = ANY(%s)", (list(scores),)).fetchall()}
        assert len(history) == 2 * len(games)
        for g in games:
            won = g["black" if g["winner"] == "b" else "gold"]["player"]
            changes = {r[0]: r[2] for r in history if r[1] == g["id"]}
            assert set(changes) == {g["black"]["player"], g["gold"]["player"]} and changes[won] > 0
            assert min(changes.values()) < 0
        for pid, (rating, count) in stored.items():
            assert count == len(mine[pid])
            assert rating == pytest.approx([r[3] for r in history if r[0] == pid][-1])
