"""Tournaments on the site: Arena and Swiss events (docs/web-tournaments.md).

An account makes an event (:func:`new_event` checks what it asks for),
players join and withdraw (an Arena player pauses and comes back), and
*pairing passes* run it: each pass (:meth:`Tournaments.pass_now`) is one
transaction under a lock that holds across processes
(:meth:`kamisado.web.store.tournament_calls.TournamentCalls.tournament_pass`):
it starts the events whose time came, counts the games that ended
(the winner read from the game's stored actions, :func:`winner_of`), and
pairs (:func:`kamisado.web.community.arena.plan_arena`,
:func:`kamisado.web.community.swiss.plan_swiss`).  Every process runs a
pass each :data:`PASS_EVERY_S` while it serves, and at once when a game
ends on it (:meth:`Tournaments.game_over`, the hub's ``ended_hooks``), so a
player's next Arena game starts within a fraction of a second of the
last one's end.  The state is the database's: any process may run any
pass, and a process killed mid-event loses no game and no score.

Each new game is made as quick pairing makes its games (both seats bound,
rated when the event is), and both players are sent ``started`` on every
websocket of theirs (the process that paired them tells its own, the
others hear ``tstarted GAME BLACK GOLD`` on the lobby's channel).

>>> row = new_event({"kind": "arena", "name": "Blitz", "clock": {"initial": 180, "increment": 2},
...                  "minutes": 30, "starts_in": 60}, "ann", now=0)
>>> row["kind"], row["starts"], row["ends"], row["target"], row["rated"]
('arena', 60000, 1860000, 1, True)
>>> new_event({"kind": "blitz"}, "ann", now=0)
Traceback (most recent call last):
...
kamisado.web.community.tournaments.TournamentError: kind: expected 'arena' or 'swiss', found 'blitz'
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Callable, Sequence
from typing import Any

from kamisado.rules.board import SIDE_LETTERS
from kamisado.web.basics import clocks
from kamisado.web.basics.clocks import TimeControl, parse_control
from kamisado.web.basics.messages import CreateMsg, StartedFrame
from kamisado.web.basics.ratings import Rating, speed_of
from kamisado.web.community.arena import plan_arena
from kamisado.web.community.pairing import ARENA, KINDS, SWISS, Plan, player_view
from kamisado.web.community.swiss import plan_swiss
from kamisado.web.play.game import Conn, Game
from kamisado.web.play.games import Hub
from kamisado.web.play.state import GameState
from kamisado.web.store.schema import GameRow
from kamisado.web.store.storage import new_id

__all__ = [
    "PASS_EVERY_S",
    "TARGETS",
    "TournamentError",
    "Tournaments",
    "event_view",
    "new_event",
    "winner_of",
]

log = logging.getLogger("kamisado.web")

#: How often each process runs a pairing pass while it serves (s): the
#: events starting, the games another process saw end but could not count.
PASS_EVERY_S = 1.0
#: A page that comes back is told of the player's event games this recent
#: (ms) with nothing played yet.
CATCH_UP_MS = 60_000
#: The match types an event may play (points to win).
TARGETS = (1, 3, 7, 15)
#: An Arena's length (minutes), a Swiss's rounds, the start's delay (s).
MINUTES = (5, 720)
ROUNDS = (1, 20)
STARTS_IN = (0, 7 * 86_400)
#: A real-time event's clock: its initial time and increment (s), or days a move.
INITIAL = (15, 3 * 3600)
INCREMENT = (0, 180)
DAYS = (1, 14)
MAX_NAME = 60


class TournamentError(Exception):
    """A request about an event that cannot be done: ``code`` and the HTTP ``status``."""

    def __init__(self, message: str, code: str = "malformed", status: int = 400) -> None:
        super().__init__(message)
        self.code, self.status = code, status


def _whole(body: dict[str, Any], key: str, bounds: tuple[int, int], default: int | None = None) -> int:
    value = body.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or not bounds[0] <= value <= bounds[1]:
        raise TournamentError(f"{key}: expected a whole number from {bounds[0]} to {bounds[1]}, found {value!r}")
    return value


def _flag(body: dict[str, Any], key: str, default: bool) -> bool:
    value = body.get(key, default)
    if not isinstance(value, bool):
        raise TournamentError(f"{key}: expected true or false, found {value!r}")
    return value


def check_clock(obj: object) -> TimeControl:
    """An event's clock: real time within :data:`INITIAL` and :data:`INCREMENT`,
    or correspondence within :data:`DAYS`; an event always has one.

    >>> check_clock({"days": 3}).days
    3
    >>> check_clock({"initial": 5, "increment": 0})
    Traceback (most recent call last):
    ...
    kamisado.web.community.tournaments.TournamentError: clock: expected an initial time of 15 s to 3 h, found 5 s
    """
    try:
        clock = parse_control(obj)
    except ValueError as exc:
        raise TournamentError(str(exc)) from None
    if clock is None:
        raise TournamentError("clock: an event needs a clock ({'initial', 'increment'} or {'days'})")
    if clock.days:
        if not DAYS[0] <= clock.days <= DAYS[1]:
            raise TournamentError(f"clock: expected {DAYS[0]} to {DAYS[1]} days a move, found {clock.days}")
        return clock
    if not INITIAL[0] <= clock.initial <= INITIAL[1]:
        raise TournamentError(f"clock: expected an initial time from {INITIAL[0]} to {INITIAL[1]} s,"
                              f" found {clock.initial:g}")
    if not INCREMENT[0] <= clock.increment <= INCREMENT[1]:
        raise TournamentError(f"clock: expected an increment from {INCREMENT[0]} to {INCREMENT[1]} s,"
                              f" found {clock.increment:g}")
    return clock


def new_event(body: object, creator: str | None, now: int, schedule: str | None = None) -> dict[str, Any]:
    """The row of a new event from the JSON of ``POST /api/tournaments``
    (``now`` in ms), or a :class:`TournamentError` naming what is wrong."""
    if not isinstance(body, dict):
        raise TournamentError("expected a JSON object")
    unknown = set(body) - {"kind", "name", "clock", "target", "minutes", "rounds", "starts_in", "rated", "bots"}
    if unknown:
        raise TournamentError(f"unknown fields: {', '.join(sorted(unknown))}")
    kind = body.get("kind")
    if kind not in KINDS:
        raise TournamentError(f"kind: expected 'arena' or 'swiss', found {kind!r}")
    name = body.get("name")
    if not isinstance(name, str) or not name.strip() or len(name.strip()) > MAX_NAME or not name.isprintable():
        raise TournamentError(f"name: expected a printable name of 1 to {MAX_NAME} characters")
    clock = check_clock(body.get("clock"))
    target = body.get("target", 1)
    if target not in TARGETS or isinstance(target, bool):
        raise TournamentError(f"target: expected one of {', '.join(map(str, TARGETS))}, found {target!r}")
    other = "rounds" if kind == ARENA else "minutes"
    if other in body:
        raise TournamentError(f"{other}: not for {'an arena' if kind == ARENA else 'a swiss'}")
    minutes = _whole(body, "minutes", MINUTES) if kind == ARENA else None
    rounds = _whole(body, "rounds", ROUNDS) if kind == SWISS else None
    starts = now + 1000 * _whole(body, "starts_in", STARTS_IN, 300)
    return {
        "id": new_id(), "kind": kind, "name": name.strip(),
        "clock_initial": None if clock.days else clock.initial,
        "clock_increment": None if clock.days else clock.increment,
        "clock_days": clock.days or None, "target": target, "minutes": minutes, "rounds": rounds,
        "rated": _flag(body, "rated", True), "bots": _flag(body, "bots", False), "status": "created",
        "starts": starts, "ends": starts + 60_000 * minutes if minutes else None, "round": 0,
        "created": now, "created_by": creator, "schedule": schedule,
    }


def event_clock(event: dict[str, Any]) -> TimeControl:
    """An event's time control."""
    if event["clock_days"]:
        return TimeControl(days=int(event["clock_days"]))
    return TimeControl(float(event["clock_initial"]), float(event["clock_increment"] or 0))


def summary(event: dict[str, Any]) -> dict[str, Any]:
    """An event as ``GET /api/tournaments`` lists it."""
    clock = event_clock(event)
    return {
        "id": event["id"], "kind": event["kind"], "name": event["name"], "status": event["status"],
        "clock": {"days": clock.days} if clock.days else {"initial": clock.initial, "increment": clock.increment},
        "target": event["target"], "minutes": event["minutes"], "rounds": event["rounds"],
        "round": event["round"], "rated": bool(event["rated"]), "bots": bool(event["bots"]),
        "starts": event["starts"], "ends": event["ends"], "players": event.get("players"),
    }


def event_view(event: dict[str, Any], players: list[dict[str, Any]], games: list[dict[str, Any]],
               names: dict[str, str] | None = None) -> dict[str, Any]:
    """An event as ``GET /api/tournaments/{id}`` gives it: its summary, the
    ``standings`` (best first: score, then performance, then rating), the
    ``games`` (``running`` or with their ``winner`` and the points each side
    got), and once finished the ``podium`` (the first three).  Only an
    Arena's streaks are on ``fire`` (its wins double from the third on)."""
    ratings = {p["player"]: int(p["rating"]) for p in players}
    table = [player_view(p, games, ratings) for p in players]
    if event["kind"] != ARENA:  # a Swiss doubles no streak: no flame
        for v in table:
            v["fire"] = False
    table.sort(key=lambda v: (-v["score"], -(v["performance"] or 0), -v["rating"], v["name"]))
    for rank, v in enumerate(table, 1):
        v["rank"] = rank
    who = {p["player"]: p["name"] for p in players} | (names or {})
    listed = [{
        "id": g["game"], "round": g["round"], "black": {"player": g["black"], "name": who.get(g["black"], "")},
        "gold": {"player": g["gold"], "name": who.get(g["gold"], "")}, "started": g["started"],
        "running": g["ended"] is None, "winner": g["winner"], "black_score": g["black_score"],
        "gold_score": g["gold_score"]} for g in games]
    out = {**summary({**event, "players": len(players)}), "standings": table, "games": listed}
    if event["status"] == "finished":
        out["podium"] = [v["player"] for v in table[:3]]
    return out


def winner_of(row: GameRow, tokens: list[str]) -> str | None:
    """The winner (``"b"``, ``"g"``; ``None``: none, an abort) of a game
    that is over, from its stored actions replayed through the rules."""
    winner = GameState.build(row, tokens).winner()
    return None if winner is None else SIDE_LETTERS[winner]


def plan_of(event: dict[str, Any], players: list[dict[str, Any]], games: list[dict[str, Any]],
            ended: dict[str, str | None], present: set[str], now: int) -> Plan:
    """The pass of an event of either kind."""
    planner = plan_arena if event["kind"] == ARENA else plan_swiss
    return planner(event, players, games, ended, present, now)


class Tournaments:
    """This process's side of the events: its passes and the players it tells.

    ``conns``: this process's websockets by player (the lobby's
    :attr:`kamisado.web.community.lobby.Lobby.players`): the players
    present here, and where ``started`` goes."""

    def __init__(self, conns: dict[str, set[Conn]], clock: Callable[[], int] | None = None) -> None:
        #: the time of the passes (ms); tests put their own
        self.clock: Callable[[], int] = clock or clocks.now_ms
        self.conns = conns
        self.hub: Hub | None = None
        self._lock: asyncio.Lock | None = None
        self._again = False
        self._kicked = False
        self._rng = random.Random()
        #: the games this process paired, and when its last pass started (ms)
        self.paired = 0
        #: told of the games each pass made, here or (heard on the lobby's
        #: channel) on another process, ``(game, black, gold)`` (the bots'
        #: event stream: a ``gameStart`` for each)
        self.paired_hooks: list[Callable[[list[tuple[str, str, str]]], None]] = []
        #: the recurring events' rows due at a time (``--tournaments``:
        #: :func:`kamisado.web.community.schedule.event_rows`), made by :meth:`run`
        self.due: Callable[[int], list[dict[str, Any]]] | None = None
        #: until when (ms) a page that comes back is asked about its event
        #: games (:meth:`catch_up`): :data:`CATCH_UP_MS` after the last pass
        #: that found an event running
        self.live_until = 0
        self._scheduled_at: int | None = None

    def bind(self, hub: Hub) -> None:
        """Serve ``hub``'s events: a game that ends there runs a pass."""
        if self.hub is hub:
            return
        self.hub = hub
        hub.ended_hooks.append(self.game_over)

    async def run(self) -> None:
        """A pass every :data:`PASS_EVERY_S` while the server runs (a task
        of the hub's), and the recurring events made once a minute."""
        while True:
            try:
                await self.make_due()
                await asyncio.sleep(PASS_EVERY_S)
                await self.pass_now()
            except asyncio.CancelledError:
                raise
            except Exception:  # the next round tries again
                log.exception("the tournaments' loop failed")

    async def make_due(self, every_ms: int = 60_000) -> int:
        """Make the recurring events due (at most once each ``every_ms``):
        each is made once over every process; the number made here."""
        now = self.clock()
        if self.due is None or self.hub is None or (
                self._scheduled_at is not None and now - self._scheduled_at < every_ms):
            return 0
        self._scheduled_at = now
        made = 0
        for row in self.due(now):
            try:
                made += await self.hub.store.call(self.hub.store.add_tournament, row)
            except Exception as exc:  # another process made it at the same moment, or the store is down
                self.hub.repeats.failed("could not make a recurring tournament", None, exc)
        return made

    def game_over(self, game: Game) -> None:
        """A game ended on this process: a pass runs now (one after the one
        running, if any; the game may be an event's)."""
        if self.hub is None:
            return
        if self._lock is not None and self._lock.locked():
            self._again = True
            return
        if not self._kicked:
            self._kicked = True
            self.hub.spawn(self._kick())

    async def _kick(self) -> None:
        self._kicked = False
        await self.pass_now()

    async def pass_now(self) -> int:
        """A pairing pass now (after the one running); the games it made.
        A pass that fails is logged (once a minute while it repeats) and
        changes nothing: the next one does its work."""
        hub = self.hub
        if hub is None:
            return 0
        if self._lock is None:
            self._lock = asyncio.Lock()
        made_total = 0
        async with self._lock:
            while True:
                self._again = False
                here = {p for p, cs in self.conns.items() if cs}
                try:
                    made = await hub.store.call(hub.store.tournament_pass, self.clock(), here, plan_of,
                                                winner_of, self._games_of)
                except Exception as exc:
                    hub.repeats.failed("a tournament pass failed", None, exc)
                    return made_total
                if made:
                    self.live_until = self.clock() + CATCH_UP_MS
                for _, new in made:
                    if new:
                        made_total += len(new)
                        await self._tell(new)
                if not self._again:
                    break
        return made_total

    async def pass_now_quietly(self) -> None:
        """:meth:`pass_now` as a task (a player joined: paired at once when the event runs)."""
        await self.pass_now()

    def _games_of(self, event: dict[str, Any], pairs: Sequence[tuple[str, str]],
                  rows: dict[str, dict[str, Any]]) -> list[GameRow]:
        """The games of an event's new pairs (run inside the pass's transaction)."""
        assert self.hub is not None
        made = []
        for black, gold in pairs:
            create = CreateMsg(
                black="human", gold="human", target=int(event["target"]), series=False, online=True,
                black_name=rows[black]["name"], gold_name=rows[gold]["name"], clock=event_clock(event),
                seat="b", rated=bool(event["rated"]),
            )
            row, _ = self.hub.new_row(create, black, bool(event["rated"]) or bool(rows[black]["registered"]),
                                      rng=self._rng)
            row.gold_player = gold
            made.append(row)
        return made

    async def _tell(self, new: list[tuple[str, str, str]]) -> None:
        """Send ``started`` to both players of each new game, on every
        websocket of theirs: here, and (told on the lobby's channel) on the
        other processes."""
        assert self.hub is not None
        self.paired += len(new)
        for hook in self.paired_hooks:
            hook(new)
        for game, black, gold in new:
            await self._send_started(game, (black, gold))
        store = self.hub.store
        try:
            if store.shared:
                await store.call(store.seek_news, [f"tstarted {g} {b} {w}" for g, b, w in new])
            await store.call(store.told_tournament_games, [g for g, _, _ in new])
        except Exception as exc:  # a page that comes back is told (catch_up)
            self.hub.repeats.failed("could not announce a tournament's games", None, exc)

    async def _send_started(self, game: str, players: Sequence[str]) -> None:
        frame = StartedFrame(game).to_json()
        sends = [conn.send_text(frame) for p in players for conn in list(self.conns.get(p, ()))]
        for result in await asyncio.gather(*sends, return_exceptions=True):
            if isinstance(result, Exception):
                log.debug("a started frame was not sent: %s", result)

    async def catch_up(self, conn: Conn) -> None:
        """A websocket of a player opened while an event runs: it is sent
        ``started`` for each of the player's event games that began in the
        last :data:`CATCH_UP_MS`, with nothing played yet, whose players were
        not told (the process that paired it died before it told them, or
        before it noted that it had: told twice, never not at all)."""
        if self.hub is None or conn.player is None or self.clock() >= self.live_until:
            return
        try:
            fresh = await self.hub.store.call(self.hub.store.fresh_tournament_games, conn.player,
                                              self.clock() - CATCH_UP_MS)
        except Exception as exc:
            self.hub.repeats.failed("could not read a player's tournament games", None, exc)
            return
        for game in fresh:
            with contextlib.suppress(Exception):
                await conn.send_text(StartedFrame(game).to_json())

    async def heard(self, kind: str, rest: str) -> bool:
        """Another process paired an event's game (``tstarted GAME BLACK
        GOLD``): its players' websockets here are told.  Whether the note
        was the tournaments'."""
        if kind != "tstarted":
            return False
        game, *players = rest.split()
        if len(players) == 2:
            for hook in self.paired_hooks:
                hook([(game, players[0], players[1])])
        await self._send_started(game, players)
        return True

    async def rating_of(self, player: str, event: dict[str, Any]) -> int:
        """A player's rating at the event's speed (1500 before a rated game)."""
        assert self.hub is not None
        clock = event_clock(event)
        speed = speed_of(clock.days or None, None if clock.days else clock.initial)
        if speed is None:
            return 1500
        with contextlib.suppress(Exception):
            got = await self.hub.store.call(self.hub.store.ratings_of, [player], speed)
            return round(got.get(player, Rating()).rating)
        return 1500
