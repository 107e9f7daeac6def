"""The event stream (docs/web-bots.md, ``GET /api/stream/event``): each
account's challenges, their end, and its games' start and finish, as lines
of NDJSON, across processes.

The lobby (:attr:`kamisado.web.community.lobby.Lobby.on_event`) and the
hub (:attr:`kamisado.web.play.games.Hub.on_finish`) tell :class:`Events`
of each change where it happens; it sends the event to this process's
streams of the players concerned and, when several processes share the
database, says it on the lobby's channel (``event PLAYER JSON``) for the
other processes' streams (:meth:`Events.heard`).

A stream keeps its account online (a connection of the lobby's
:meth:`~kamisado.web.community.lobby.Lobby.arrive`), so a person can
challenge a bot from the page while its program listens, and a
tournament's pairing pass finds the bot present on any process.  Each
game a tournament pairs is a ``gameStart`` (with ``"tournament": ID``)
on the streams of its players on every process: the tournaments'
:attr:`~kamisado.web.community.tournaments.Tournaments.paired_hooks` tell
each process of the games paired there or heard of (:meth:`Events.paired`).
A stream says each game's ``gameStart`` once (:class:`Listening`).

>>> color_word("b"), color_word("random")
('black', 'random')
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable
from typing import Any

import sqlalchemy as sa

from kamisado.rules.board import SIDE_LETTERS
from kamisado.web.basics.clocks import now_ms
from kamisado.web.basics.ratings import speed_of
from kamisado.web.community.lobby import CHALLENGE_TTL_MS, Lobby
from kamisado.web.play.game import Conn, Game
from kamisado.web.play.games import Hub
from kamisado.web.store.schema import games, players, ratings

__all__ = ["Events", "Listening", "color_word", "player_objects"]

log = logging.getLogger("kamisado.web")

#: A lobby colour as the API says it.
COLORS = {"b": "black", "g": "gold", "random": "random"}
#: The most bytes of one event said on the lobby's channel (PostgreSQL's
#: ``NOTIFY`` payload is at most 8000 bytes).
MAX_NOTE = 7000


def color_word(color: str) -> str:
    """The API's word for a lobby colour (``b``, ``g``, ``random``)."""
    return COLORS.get(color, color)


def whole_numbers(clock: dict[str, Any]) -> dict[str, Any]:
    """A clock's seconds as the API writes them: whole ones as whole numbers
    (the lobby and the game rows keep floats).

    >>> whole_numbers({"initial": 180.0, "increment": 2.5, "days": None})
    {'initial': 180, 'increment': 2.5, 'days': None}
    """
    return {k: int(v) if isinstance(v, float) and v.is_integer() else v for k, v in clock.items()}


def player_objects(engine: sa.Engine, ids: list[str], speed: str | None) -> dict[str, dict[str, Any]]:
    """The API's player object (``{"id", "name", "rating", "bot"}``) of
    each known id (the rating at ``speed``; ``None`` when none or untimed)."""
    wanted = sorted({i for i in ids if i})
    if not wanted:
        return {}
    with engine.connect() as conn:
        rows = conn.execute(sa.select(players.c.id, players.c.name, players.c.bot)
                            .where(players.c.id.in_(wanted))).all()
        rated: dict[str, float] = {}
        if speed is not None:
            rated = {r.player: r.rating for r in conn.execute(
                sa.select(ratings.c.player, ratings.c.rating)
                .where(ratings.c.player.in_(wanted), ratings.c.speed == speed)).all()}
    return {r.id: {"id": r.id, "name": r.name,
                   "rating": round(rated[r.id]) if r.id in rated else None, "bot": bool(r.bot)}
            for r in rows}


def _games_in_progress(engine: sa.Engine, player: str) -> list[str]:
    """The ids of the online games ``player`` holds a seat of that are not over."""
    with engine.connect() as conn:
        rows = conn.execute(
            sa.select(games.c.id).where(
                sa.or_(games.c.black_player == player, games.c.gold_player == player),
                games.c.online.is_(True), games.c.state != "over")
            .order_by(games.c.created)).all()
    return [r.id for r in rows]


async def _drop(_frame: str) -> None:
    """A stream's lobby connection is sent nothing (the events say it all)."""


class Events:
    """This process's event streams, by player, and the events told to them."""

    def __init__(self, hub: Hub, lobby: Lobby) -> None:
        self.hub = hub
        self.lobby = lobby
        #: the queues of this process's open streams, by player (``None``: the stream ends)
        self.streams: dict[str, set[asyncio.Queue[dict[str, Any] | None]]] = {}
        lobby.on_event = self.lobby_event
        lobby.on_heard = self.heard
        hub.on_finish = self.finished
        hub.on_rematch = self.rematch
        lobby.tournaments.paired_hooks.append(self.paired)

    # -- telling -------------------------------------------------------------------------

    async def publish(self, player: str, event: dict[str, Any]) -> None:
        """Send ``event`` to every stream of ``player``: this process's now,
        the other processes' through the lobby's channel."""
        self._deliver(player, event)
        store = self.hub.store
        if store.shared:
            note = json.dumps(event, separators=(",", ":"))
            if len(note) > MAX_NOTE:
                log.warning("an event for %s is too long to share (%d bytes)", player, len(note))
                return
            try:
                await store.call(store.tell_lobby, f"event {player} {note}")
            except Exception as exc:
                self.hub.repeats.failed("could not share an event", None, exc)

    def _deliver(self, player: str, event: dict[str, Any]) -> None:
        for queue in list(self.streams.get(player, ())):
            queue.put_nowait(event)

    async def heard(self, rest: str) -> None:
        """Another process said ``PLAYER JSON`` (:meth:`publish`)."""
        player, _, note = rest.partition(" ")
        if player not in self.streams:
            return
        try:
            event = json.loads(note)
        except ValueError:
            log.warning("a bad event heard on the lobby's channel: %.80s", rest)
            return
        if isinstance(event, dict):
            self._deliver(player, event)

    def paired(self, new: list[tuple[str, str, str]]) -> None:
        """A tournament paired games ``(game, black, gold)``, on this process
        or (heard on the lobby's channel) another: a ``gameStart`` to this
        process's streams of their players (each process tells its own)."""
        wanted = [(g, [p for p in (b, w) if p in self.streams]) for g, b, w in new]
        wanted = [(g, ps) for g, ps in wanted if ps]
        if wanted:
            self.hub.spawn(self._tell_paired(wanted))

    async def _tell_paired(self, wanted: list[tuple[str, list[str]]]) -> None:
        store = self.hub.store
        try:
            events = await store.call(store.tournaments_of_games, [g for g, _ in wanted])
            for game_id, players in wanted:
                game = await self.hub.load(game_id)
                if game is None or game.state == "over":
                    continue
                for player in players:
                    view = await self.game(game, player, tournament=events.get(game_id))
                    self._deliver(player, {"type": "gameStart", "game": view})
        except Exception:
            log.exception("could not tell the event streams of a tournament's games")

    async def challenge(self, view: dict[str, Any], status: str) -> dict[str, Any]:
        """The API's CHALLENGE of a lobby challenge's view."""
        clock = view.get("clock")
        if clock is not None:
            clock = whole_numbers(clock)
        speed = None if clock is None else speed_of(clock.get("days"), clock.get("initial"))
        by, to = view["by"], view.get("to")
        store = self.hub.store
        found = await store.call(player_objects, store.engine, [by["player"], to or ""], speed)
        challenger = found.get(by["player"]) or {"id": by["player"], "name": by["name"],
                                                 "rating": by.get("rating"), "bot": bool(by.get("bot"))}
        return {"id": view["id"], "challenger": challenger, "destUser": found.get(to or ""),
                "rated": view["rated"], "clock": clock, "target": view["target"], "series": view["series"],
                "color": color_word(view["color"]), "status": status}

    async def lobby_event(self, kind: str, data: dict[str, Any]) -> None:
        """The lobby's change (:attr:`~kamisado.web.community.lobby.Lobby.on_event`),
        told to both players' streams."""
        if kind == "gameStart":
            game = await self.hub.load(data["game"])
            if game is None:
                return
            for player in (data["black"], data["gold"]):
                if player is not None:
                    await self.publish(player, {"type": "gameStart", "game": await self.game(game, player)})
            return
        status = {"challenge": "created", "challengeCanceled": "canceled",
                  "challengeDeclined": "declined"}[kind]
        event = {"type": kind, "challenge": await self.challenge(data, status)}
        for player in {data["by"]["player"], data.get("to")}:
            if player is not None:
                await self.publish(player, event)

    async def game(self, game: Game, player: str, finished: bool = False,
                   tournament: str | None = None) -> dict[str, Any]:
        """The API's GAME of ``game`` for ``player``'s side (``tournament``:
        the id of the event it is a game of, said as ``"tournament"``)."""
        row = game.row
        owners = list(row.owners)
        side = owners.index(player) if player in owners else 0
        other = owners[1 - side]
        speed = speed_of(row.clock_days, row.clock_initial)
        store = self.hub.store
        found = await store.call(player_objects, store.engine, [other or ""], speed)
        names = (row.black_name, row.gold_name)
        opponent = found.get(other or "") or {"id": other, "name": names[1 - side], "rating": None, "bot": False}
        clock: dict[str, Any] | None = None
        if row.clock_days:
            clock = {"days": row.clock_days}
        elif row.clock_initial is not None:
            clock = whole_numbers({"initial": row.clock_initial, "increment": row.clock_increment or 0})
        view: dict[str, Any] = {"id": row.id, "seat": SIDE_LETTERS[side], "opponent": opponent,
                                "rated": bool(row.rated), "target": row.target, "clock": clock}
        if tournament is not None:
            view["tournament"] = tournament
        if finished:
            winner = game.winner()
            view["winner"] = None if winner is None else SIDE_LETTERS[winner]
            view["reason"] = game.ended[0] if game.ended else "points"
        return view

    async def rematch(self, game_id: str, black: str | None, gold: str | None) -> None:
        """A rematch was made through this process (:attr:`~kamisado.web.play.games.Hub.on_rematch`):
        ``gameStart`` to both players' streams when it is an online game, as
        a challenge's game."""
        game = await self.hub.load(game_id)
        if game is None or not game.row.online:
            return
        for player in {p for p in (black, gold) if p is not None}:
            await self.publish(player, {"type": "gameStart", "game": await self.game(game, player)})

    async def finished(self, game: Game) -> None:
        """A game ended through this process (:attr:`~kamisado.web.play.games.Hub.on_finish`):
        ``gameFinish`` to both players' streams."""
        try:
            for player in {p for p in game.row.owners if p is not None}:
                await self.publish(player, {"type": "gameFinish", "game": await self.game(game, player, True)})
        except Exception:
            log.exception("could not tell the event streams of a game's end")

    # -- a stream ------------------------------------------------------------------------

    async def opening(self, player: str) -> list[dict[str, Any]]:
        """What a stream says first: a ``gameStart`` for each game of
        ``player`` in progress, a ``challenge`` for each open direct
        challenge to or from it."""
        hub, lobby, store = self.hub, self.lobby, self.hub.store
        said: list[dict[str, Any]] = []
        running = await store.call(_games_in_progress, store.engine, player)
        events = await store.call(store.tournaments_of_games, running) if running else {}
        for game_id in running:
            game = await hub.load(game_id)
            if game is not None and game.state != "over":
                said.append({"type": "gameStart", "game": await self.game(game, player,
                                                                         tournament=events.get(game_id))})
        viewer = Conn(_drop, player=player)
        if store.shared:
            rows = await store.call(store.open_challenges, now_ms() - CHALLENGE_TTL_MS)
            views = [lobby.row_view(r, viewer) for r in rows if r.get("to_player") is not None]
        else:
            views = [c.view(viewer) for c in lobby.challenges.values() if c.msg.to is not None and not c.hidden]
        views = [v for v in views if player in (v["by"]["player"], v["to"])]
        # a challenge to the account from a player it blocked since is not shown
        blocked = await store.call(store.blocking, [(player, v["by"]["player"]) for v in views if v["to"] == player])
        for view in views:
            if view["to"] != player or (player, view["by"]["player"]) not in blocked:
                said.append({"type": "challenge", "challenge": await self.challenge(view, "created")})
        return said

    async def listen(self, player: str, name: str, bot: bool) -> Listening:
        """Open a stream of ``player``'s events: subscribed, and its account
        online, when this returns; it says :meth:`opening` first, then each
        event as it comes, until it is closed or the server stops
        (:meth:`close`, from :func:`kamisado.web.site.ops.drain`)."""
        listening = Listening(self, player, name, bot)
        self.streams.setdefault(player, set()).add(listening.queue)
        try:
            await self.lobby.arrive(self.hub, listening.conn)  # online while it listens
            for event in await self.opening(player):
                listening.queue.put_nowait(event)
        except BaseException:
            await listening.aclose()
            raise
        return listening

    def close(self) -> None:
        """End every stream of this process (the server stops)."""
        for queues in self.streams.values():
            for queue in queues:
                queue.put_nowait(None)


class Listening:
    """One open event stream: an async iterator of its events, closed by
    :meth:`aclose` (the NDJSON answer closes it when the client leaves).
    It says each game's ``gameStart`` once (a tournament's game paired
    while :meth:`Events.opening` read the games in progress comes both
    ways: the second is dropped)."""

    def __init__(self, events: Events, player: str, name: str, bot: bool) -> None:
        self.events = events
        self.player = player
        self.queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self.conn = Conn(_drop, player=player, name=name, registered=True, bot=bot)
        self.closed = False
        #: the games this stream said ``gameStart`` of
        self.started: set[str] = set()
        #: called once it is closed (the route stops watching its token or session)
        self.on_close: Callable[[], None] | None = None

    def end(self) -> None:
        """End the stream after what it was told (its token revoked, its session over)."""
        self.queue.put_nowait(None)

    def __aiter__(self) -> Listening:
        return self

    async def __anext__(self) -> dict[str, Any]:
        while True:
            got = None if self.closed else await self.queue.get()
            if got is None:
                await self.aclose()
                raise StopAsyncIteration
            if got.get("type") != "gameStart":
                return got
            game_id = str(got.get("game", {}).get("id"))
            if game_id not in self.started:
                self.started.add(game_id)
                return got

    async def aclose(self) -> None:
        """Stop listening: the account is offline once its last stream closed."""
        if self.closed:
            return
        self.closed = True
        if self.on_close is not None:
            self.on_close()
        events = self.events
        mine = events.streams.get(self.player)
        if mine is not None:
            mine.discard(self.queue)
            if not mine:
                del events.streams[self.player]
        with contextlib.suppress(Exception):
            await events.lobby.gone(self.conn)
