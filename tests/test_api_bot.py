"""``kamisado bot`` against a site played by the test (issue 42, item 5):
which challenges it accepts, how it plays a game (the engine on the game's
clock, fills, one engine per game), how it reconnects (backoff through an
injected sleep: nothing waits), and what one and two SIGTERMs do.  The end
to end games against real servers are in tests/test_api_e2e.py."""

from __future__ import annotations

import os
import queue
import signal
import threading
from collections.abc import Iterator
from typing import Any, cast

import pytest

from kamisado.api.bot import (
    STOPPED_AT_ONCE,
    Backoff,
    Bot,
    Filters,
    filters_of,
    main,
    parse_args,
)
from kamisado.api.client import ApiError, Client
from kamisado.protocol.client import Clock, PlayResult
from kamisado.protocol.client.messages import Info
from kamisado.rules.match import FILL, Match

END = object()
WAIT = 10.0  # seconds the test waits for the bot's next request (it comes in milliseconds)


def player(pid: str, bot: bool = False) -> dict[str, Any]:
    return {"id": pid, "name": pid.upper(), "rating": 1500, "bot": bot}


def challenge(cid: str, **kw: Any) -> dict[str, Any]:
    c = {"id": cid, "challenger": player("ann"), "destUser": player("me", True), "rated": False,
         "clock": {"initial": 180, "increment": 2}, "target": 1, "series": False, "color": "random",
         "status": "created"}
    c.update(kw)
    return c


def state(match: Match, seq: int, **kw: Any) -> dict[str, Any]:
    s = {"seq": seq, "round": len(match.rounds), "points": match.points[:], "kpn": match.position.kpn(),
         "start": match.current.start.kpn(), "moves": [str(m) for m in match.current.moves],
         "to_act": "b" if match.position.turn == 0 else "g",
         "awaiting": "fill" if match.state == FILL else "move", "legal": [str(m) for m in match.legal_moves()],
         "btime": 170000, "gtime": 175000, "binc": 2000, "ginc": 2000, "status": "started",
         "winner": None, "reason": None, "offer": None}
    if match.state == FILL:
        s["to_act"] = "b" if match.position.outcome.winner == 0 else "g"  # type: ignore[union-attr]
    s.update(kw)
    return s


def full(game_id: str, match: Match, seq: int, seat: str = "b", **kw: Any) -> dict[str, Any]:
    return {"type": "gameFull", "id": game_id, "rated": False, "target": match.target, "series": False,
            "clock": {"initial": 180, "increment": 2}, "black": player("me", True) if seat == "b" else player("ann"),
            "gold": player("ann") if seat == "b" else player("me", True), "seat": seat,
            "state": state(match, seq, **kw)}


class FakeStream:
    """A stream the test feeds: dicts, an exception to raise, END to end it."""

    def __init__(self) -> None:
        self.q: queue.Queue[Any] = queue.Queue()
        self.opened = 0

    def __call__(self) -> Iterator[dict[str, Any]]:
        self.opened += 1
        while True:
            try:
                item = self.q.get(timeout=WAIT)
            except queue.Empty:  # a stream the test left (the bot stopped): it ends
                return
            if item is END:
                return
            if isinstance(item, Exception):
                raise item
            yield item


class FakeSite:
    """The site as the bot's client sees it: each request the bot makes goes
    into ``calls`` (the test reads them in order)."""

    def __init__(self) -> None:
        self.url = "http://site.test"
        self.calls: queue.Queue[tuple[Any, ...]] = queue.Queue()
        self.events = FakeStream()
        self.games: dict[str, FakeStream] = {}
        self.account = self
        self.bots = self
        self.challenges = self
        self.refuse: dict[str, ApiError] = {}
        self.opened_events = 0

    def game(self, game_id: str) -> FakeStream:
        return self.games.setdefault(game_id, FakeStream())

    def next_call(self) -> tuple[Any, ...]:
        return self.calls.get(timeout=WAIT)

    def _call(self, *call: Any) -> None:
        self.calls.put(call)
        if call[0] in self.refuse:
            raise self.refuse.pop(call[0])

    # the Client's methods the bot uses
    def get(self) -> dict[str, Any]:
        return {"id": "me", "name": "ME"}

    def stream_incoming_events(self) -> Iterator[dict[str, Any]]:
        return self.events()

    def stream_game_state(self, game_id: str) -> Iterator[dict[str, Any]]:
        self.calls.put(("stream", game_id))
        return self.game(game_id)()

    def accept(self, cid: str) -> str:
        self._call("accept", cid)
        return f"game-{cid}"

    def decline(self, cid: str) -> None:
        self._call("decline", cid)

    def make_move(self, game_id: str, move: str, seq: int | None = None) -> None:
        assert seq is not None  # the bot says which state it answers
        self._call("move", game_id, move)

    def fill(self, game_id: str, side: str, seq: int | None = None) -> None:
        assert seq is not None
        self._call("fill", game_id, side)

    def resign_game(self, game_id: str) -> None:
        self._call("resign", game_id)


class FakeEngine:
    """Plays the first legal move, fills left; notes what it was asked."""

    started: list[FakeEngine] = []

    def __init__(self) -> None:
        self.asked: list[tuple[str, Any]] = []
        self.quit_ = False
        FakeEngine.started.append(self)

    def newgame(self) -> None:
        self.asked.append(("newgame", None))

    def play(self, game: Match, limit: Any = None, *, clock: Clock | None = None) -> PlayResult:
        self.asked.append(("play", clock))
        return PlayResult(game.legal_moves()[0], Info(), [])

    def fill(self, match: Match) -> str:
        self.asked.append(("fill", match.current.start.kpn()))
        return "left"

    def quit(self) -> None:
        self.quit_ = True


@pytest.fixture
def site() -> Iterator[FakeSite]:
    FakeEngine.started = []
    yield FakeSite()


def start_bot(site: FakeSite, filters: Filters | None = None) -> tuple[Bot, list[str], list[float], threading.Thread]:
    log: list[str] = []
    slept: list[float] = []

    def note(line: str) -> None:  # each (re)opening of the event stream is a line of its own
        if line != "the event stream is open: waiting for challenges":
            log.append(line)
        else:
            site.opened_events += 1

    bot = Bot(cast(Client, site), cast(Any, FakeEngine), filters, log=note, sleep=slept.append)
    box: dict[str, int] = {}
    thread = threading.Thread(target=lambda: box.setdefault("status", bot.run()), daemon=True)
    thread.start()
    bot.status = box  # type: ignore[attr-defined]
    return bot, log, slept, thread


def finish(bot: Bot, thread: threading.Thread) -> int:
    thread.join(WAIT)
    assert not thread.is_alive(), "the bot did not end"
    return int(bot.status["status"])  # type: ignore[attr-defined]


def test_filters_accept_and_decline_as_the_options_say() -> None:
    args = parse_args(["--server", "http://x", "--token", "t", "--engine", "e", "--accept", "casual",
                       "--target", "1,3", "--min-initial", "1m", "--max-initial", "600",
                       "--max-increment", "5", "--no-series", "--timed-only", "--max-games", "2"])
    f = filters_of(args)
    assert (f.modes, f.targets, f.min_initial, f.max_initial, f.max_games) == (
        frozenset({"casual"}), frozenset({1, 3}), 60.0, 600.0, 2)
    ok = challenge("c", target=3, clock={"initial": 300, "increment": 5})
    assert f.refusal(ok) is None
    assert f.refusal({**ok, "rated": True}) == "rated games are not accepted (--accept casual)"
    assert f.refusal({**ok, "target": 7}) == "matches to 7 are not accepted (--target 1,3)"
    assert f.refusal({**ok, "series": True}) == "series are not accepted (--no-series)"
    assert f.refusal({**ok, "clock": None}) == "games without a clock are not accepted (--timed-only)"
    assert f.refusal({**ok, "clock": {"days": 3}}) == "games without a clock are not accepted (--timed-only)"
    assert f.refusal({**ok, "clock": {"initial": 30, "increment": 0}}) == (
        "the clock 30+0 is outside --min-initial 60 --max-initial 600")
    assert f.refusal({**ok, "clock": {"initial": 300, "increment": 6}}) == (
        "the increment 6 is above --max-increment 5")
    assert Filters().refusal({**ok, "rated": True, "target": 15, "clock": None}) is None


@pytest.mark.parametrize("argv, message", [
    (["--accept", "blitz"], "--accept: expected modes from casual,rated, found 'blitz'"),
    (["--target", "2"], "--target: expected targets from 1,15,3,7, found '2'"),
    (["--option", "Level"], "--option: expected NAME=VALUE, found 'Level'"),
    (["--min-initial", "10", "--max-initial", "5"], "--min-initial 10 is above --max-initial 5"),
])
def test_bad_options_are_one_clear_line(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(["--server", "http://x", "--token", "t", "--engine", "e", *argv])
    assert e.value.code == 2
    assert message in capsys.readouterr().err


def test_a_bad_engine_command_ends_before_going_online(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--server", "http://127.0.0.1:9", "--token", "t", "--engine", "/no/such/engine"]) == 2
    assert "bot: --engine '/no/such/engine'" in capsys.readouterr().err


def test_it_accepts_what_the_filters_allow_up_to_max_games_and_declines_the_rest(site: FakeSite) -> None:
    bot, log, _, thread = start_bot(site, Filters(modes=frozenset({"casual"}), max_games=1))
    site.events.q.put({"type": "challenge", "challenge": challenge("c1", rated=True)})
    assert site.next_call() == ("decline", "c1")
    site.events.q.put({"type": "challenge", "challenge": challenge("mine", challenger=player("me", True),
                                                                   destUser=player("ann"))})  # its own: left alone
    site.events.q.put({"type": "challenge", "challenge": challenge("old", status="canceled")})
    site.events.q.put({"type": "challenge", "challenge": challenge("c2")})
    assert site.next_call() == ("accept", "c2")
    assert site.next_call() == ("stream", "game-c2")
    site.events.q.put({"type": "challenge", "challenge": challenge("c3")})
    assert site.next_call() == ("decline", "c3")  # one game at once
    assert "challenge c3 from ANN: declined: already playing 1 games (--max-games 1)" in log
    assert "challenge c1 from ANN: declined: rated games are not accepted (--accept casual)" in log
    m = Match(1)
    site.game("game-c2").q.put(full("game-c2", m, 1, status="finished", winner="g", reason="resignation",
                                    to_act=None, awaiting=None))
    bot.stop()
    assert finish(bot, thread) == 0
    assert site.calls.empty()
    assert "game game-c2: lost 0-0 (resignation)" in log


def test_it_plays_its_seat_on_the_games_clock_fills_and_logs_the_end(site: FakeSite) -> None:
    bot, log, _, thread = start_bot(site)
    site.events.q.put({"type": "gameStart", "game": {"id": "g1", "seat": "b"}})
    assert site.next_call() == ("stream", "g1")
    m = Match(3)
    stream = site.game("g1").q
    stream.put(full("g1", m, 1))
    call = site.next_call()
    assert call == ("move", "g1", str(m.legal_moves()[0]))
    engine = FakeEngine.started[0]
    assert engine.asked[:2] == [("newgame", None), ("play", Clock(170000, 175000, 2000, 2000))]
    m.push_move(call[2])
    stream.put({"type": "gameState", **state(m, 2)})  # gold's turn: the bot waits
    while m.state != FILL:
        if m.position.turn == 1:
            m.push_move(m.legal_moves()[0])
            continue
        stream.put({"type": "gameState", **state(m, len(m.current.moves) + 1)})
        call = site.next_call()
        assert call[:2] == ("move", "g1")
        m.push_move(call[2])
    stream.put({"type": "gameState", **state(m, 99)})
    assert site.next_call() == ("fill", "g1", "left")
    assert engine.asked[-1] == ("fill", m.current.start.kpn())
    stream.put({"type": "gameState", **state(m, 100, status="finished", winner="b", reason="resignation",
                                             points=[1, 0], to_act=None, awaiting=None)})
    bot.stop()
    assert finish(bot, thread) == 0
    assert len(FakeEngine.started) == 1 and engine.quit_
    assert log[0] == "game g1: started: ME (black) against ANN, Standard, 180+2, casual"
    assert "game g1: won 1-0 (resignation)" in log


def test_it_reconnects_with_backoff_and_goes_on_where_the_game_was(site: FakeSite) -> None:
    bot, log, slept, thread = start_bot(site)
    site.events.q.put(ApiError(0, "network", "connection reset"))
    site.events.q.put(END)  # reopened, then the server stopped
    site.events.q.put({"type": "gameStart", "game": {"id": "g1", "seat": "g"}})
    assert site.next_call() == ("stream", "g1")
    assert slept == [1.0, 2.0] and site.opened_events == 3
    assert log[:2] == ["the event stream broke: 0 network: connection reset; reconnecting in 1 s",
                       "the event stream ended; reconnecting in 2 s"]
    site.events.q.put({"type": "gameStart", "game": {"id": "g1", "seat": "g"}})  # again after a reconnect
    m = Match(1)
    m.push_move(m.legal_moves()[0])
    stream = site.game("g1").q
    stream.put(full("g1", m, 2, seat="g"))
    move = site.next_call()
    assert move[:2] == ("move", "g1")
    stream.put(ApiError(0, "network", "read timeout"))  # before the move's state came
    assert site.next_call() == ("stream", "g1")
    stream.put(full("g1", m, 2, seat="g"))  # the same state again: already answered
    m.push_move(move[2])
    m.push_move(m.legal_moves()[0])
    stream.put({"type": "gameState", **state(m, 4)})
    assert site.next_call()[:2] == ("move", "g1")
    assert len(FakeEngine.started) == 1  # one engine for the game, across reconnections
    stream.put({"type": "gameState", **state(m, 5, status="finished", winner=None, reason="abort")})
    bot.stop()
    assert finish(bot, thread) == 0
    assert "game g1: its stream broke: 0 network: read timeout; reconnecting in 1 s" in log
    assert list(bot.games) == [] and site.calls.empty()


def test_a_refused_move_is_logged_and_a_refused_stream_ends_the_game(site: FakeSite) -> None:
    bot, log, _, thread = start_bot(site)
    site.refuse["move"] = ApiError(400, "illegal", "illegal move", {"legal": []})
    site.events.q.put({"type": "gameStart", "game": {"id": "g1", "seat": "b"}})
    assert site.next_call() == ("stream", "g1")
    site.game("g1").q.put(full("g1", Match(1), 1))
    assert site.next_call()[:2] == ("move", "g1")
    site.game("g1").q.put(ApiError(404, "no_such_game", "no such game"))
    bot.stop()
    assert finish(bot, thread) == 0
    assert any(line.startswith("game g1: the move was refused: 400 illegal") for line in log)
    assert "game g1: left: 404 no_such_game: no such game" in log


def test_sigterm_once_finishes_the_games_declining_challenges_twice_resigns(site: FakeSite) -> None:
    bot, log, _, thread = start_bot(site)
    restore = bot.install_signals()
    try:
        for gid in ("g1", "g2"):
            site.events.q.put({"type": "gameStart", "game": {"id": gid, "seat": "g"}})
            assert site.next_call() == ("stream", gid)
        os.kill(os.getpid(), signal.SIGTERM)
        site.events.q.put({"type": "challenge", "challenge": challenge("c1")})
        assert site.next_call() == ("decline", "c1")
        assert "challenge c1 from ANN: declined: the bot is stopping" in log
        assert log[0] == "stopping: no new games; finishing 2 (a second stop resigns them)"
        site.game("g1").q.put(full("g1", Match(1), 9, seat="g", status="finished", winner="b",
                                   reason="points", to_act=None, awaiting=None))
        _until(lambda: "game g1: lost 0-0 (points)" in log)
        assert thread.is_alive()  # g2 still plays
        os.kill(os.getpid(), signal.SIGTERM)
        assert finish(bot, thread) == STOPPED_AT_ONCE
        assert site.next_call() == ("resign", "g2")
    finally:
        restore()
    assert "game g2: resigned (a second stop)" in log


def test_a_stop_without_games_ends_at_once(site: FakeSite) -> None:
    bot, log, _, thread = start_bot(site)
    site.events.q.put({"type": "challenge", "challenge": challenge("c0", target=15, rated=True)})
    assert site.next_call() == ("accept", "c0")
    assert site.next_call() == ("stream", "game-c0")
    site.game("game-c0").q.put(ApiError(403, "not_your_game", "not your game"))
    _until(lambda: not bot.games)
    bot.stop()
    assert finish(bot, thread) == 0


def test_backoff_doubles_to_its_cap_and_resets() -> None:
    b = Backoff(first=0.5, most=3)
    assert b.delays(5) == [0.5, 1.0, 2.0, 3, 3]
    b.reset()
    assert b.next() == 0.5


def _until(holds: Any, timeout: float = WAIT) -> bool:
    """Poll ``holds()`` until it is true (a deadline, not a sleep to synchronise)."""
    done = threading.Event()
    deadline = threading.Timer(timeout, done.set)
    deadline.start()
    try:
        while not holds():
            if done.wait(0.01):
                raise AssertionError(f"the condition never held: {holds.__doc__ or holds}")
        return True
    finally:
        deadline.cancel()
