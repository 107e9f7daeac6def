"""A game held in memory: one object with its lock, its connections and its actions.

A :class:`Game` is the game's stored state (:class:`kamisado.web.play.state.GameState`)
plus what only a live game has: the connections on it (:class:`Conn`), the
seats they hold and who is away, whether its computer thinks, and the lock
that lets one change of the game happen at a time.  Its actions are its
own methods: joining and leaving (the seats a connection holds:
:mod:`kamisado.web.play.seats`), moves and fills (:meth:`Game.act`),
resigning and aborting (:meth:`Game.end`), claiming the win
(:meth:`Game.claim`) and the offers (:meth:`Game.takeback`,
:meth:`Game.rematch`, worked out in :mod:`kamisado.web.play.offers`).  The
:class:`kamisado.web.play.games.Hub` holds the games in memory and the jobs
they share (the computer, the clocks, presence, news from other processes).

Every action is stored (committed) before anyone hears of it: it is tried
on a copy of the game (:meth:`GameState.fork`), stored, and only then taken
by the game (:meth:`Game.play`), so nothing ever shows an action the store
does not hold.  When an action cannot be stored the game stays as the
store has it and the mover gets a ``storage`` error; when the store cannot
even be read the game is marked ``unsure`` and read again before its next
action.  A connection whose game cannot be read when it joins gets a
``storage`` error and is closed (code :data:`REJOIN`): it rejoins later.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, cast

from kamisado.rules.board import SIDE_LETTERS, KamisadoError
from kamisado.rules.match import FILL, OVER, PLAYING
from kamisado.web.basics import clocks
from kamisado.web.basics.messages import (
    AbortMsg,
    ClaimMsg,
    ComputerMoveMsg,
    ErrorFrame,
    FillMsg,
    MoveMsg,
    RematchMsg,
    ResignMsg,
    StateFrame,
    TakebackMsg,
)
from kamisado.web.basics.ratings import Rating, computer_rating, speed_of
from kamisado.web.basics.views import ClockView, SeatView, frame_position
from kamisado.web.play.seats import seats_for
from kamisado.web.play.state import GameError, GameState
from kamisado.web.store.database import StoreErrors
from kamisado.web.store.storage import SequenceError, Store

if TYPE_CHECKING:
    import random

    from kamisado.web.basics.metrics import Metrics
    from kamisado.web.basics.noise import Repeats

__all__ = ["PRESENCE_TTL_MS", "REJOIN", "Conn", "Game", "GameHub", "HubFace", "load_ratings", "rate", "send",
           "send_error"]

log = logging.getLogger("kamisado.web")

#: What storing an action raises when it was not stored (or its answer was
#: lost): the database's errors, or another action stored first; anything
#: else is a bug, which reaches the connection as an error ``server``.
_NOT_STORED: tuple[type[BaseException], ...] = (SequenceError, *StoreErrors)

SendFn = Callable[[str], Awaitable[None]]
CloseFn = Callable[[int, str], Awaitable[None]]

#: Several processes on one database: a seat held through another process
#: counts as connected while that process renewed its presence within
#: ``PRESENCE_TTL_MS`` (:mod:`kamisado.web.play.presence` renews it every
#: ``PRESENCE_RENEW_S``).
PRESENCE_TTL_MS = 30_000

#: The close code of a connection whose game had to be reloaded from the
#: store and could not be (1013, "try again later"): the client rejoins.
REJOIN = 1013


@dataclass(eq=False)
class Conn:
    """One websocket connection: how to send to it and which seats it holds."""

    send_text: SendFn
    close: CloseFn | None = None
    game: Game | None = None
    seats: tuple[int, ...] = ()
    #: the player the connection's browser is (its cookie); ``None`` for a
    #: client without one, which holds only unclaimed seats by their tokens
    player: str | None = None
    #: the player's display name (an online seat it claims takes it when unnamed)
    name: str = ""
    #: whether the player has an account (only those claim a rated game's seat)
    registered: bool = False
    #: whether the player is a bot account (never paired by quick pairing; shown BOT)
    bot: bool = False
    #: whether the connection follows the lobby (:mod:`kamisado.web.community.lobby`)
    lobby: bool = False
    #: whether the page runs the engine: it sends the computer's moves of
    #: the game against the computer it holds the person's seat of
    #: (:meth:`Game.computer_act`; its join said ``thinks``)
    thinks: bool = False
    #: whether it is a game stream of the bot API (``GET /api/bot/game/stream/{id}``,
    #: :mod:`kamisado.web.bots.games`) rather than a websocket
    stream: bool = False


async def send(conn: Conn, frame: str) -> None:
    """Send a frame to one connection (a connection gone meanwhile is let be)."""
    with contextlib.suppress(Exception):
        await conn.send_text(frame)


async def send_error(conn: Conn, code: str, message: str) -> None:
    """Send an error frame to one connection."""
    await send(conn, ErrorFrame(code, message).to_json())


async def close_to_rejoin(conn: Conn, error: GameError) -> None:
    """Send an error to a connection and close it (:data:`REJOIN`)."""
    await send_error(conn, error.code, str(error))
    if conn.close is not None:
        with contextlib.suppress(Exception):
            await conn.close(REJOIN, "rejoin: the game is reloaded from the store")


class HubFace(Protocol):
    """What a game and the services around it use of the hub that holds the
    games (:class:`kamisado.web.play.games.Hub`): its store, its tasks, its
    log of repeated failures and the games it holds.  They take this narrow
    face, not the hub's class, so no import runs back up to the hub.

    >>> sorted(name for name in dir(HubFace) if not name.startswith("_"))
    ['evict', 'load', 'spawn']
    """

    store: Store
    repeats: Repeats
    games: dict[str, Game]

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` as a task of the hub's."""

    async def load(self, game_id: str) -> Game | None:
        """The game, in memory or read from the store, without holding it."""

    def evict(self, game: Game) -> None:
        """Let the game leave memory when nothing holds it."""


class _Presence(Protocol):
    def share(self, game: Game) -> None: ...
    async def load_elsewhere(self, game: Game) -> bool: ...


class _Computer(Protocol):
    def kick(self, game: Game, *, page: bool = True) -> None: ...


class _Flags(Protocol):
    async def ensure_live(self) -> None: ...
    def store_failed(self) -> None: ...
    async def pause(self, game: Game) -> None: ...


class _Reporter(Protocol):
    def auto(self, game: Game) -> None: ...


class _Unwritten(Protocol):
    def __contains__(self, game_id: object) -> bool: ...
    def discard(self, game_id: str) -> None: ...


class GameHub(HubFace, Protocol):
    """What a game's actions use of its hub: :class:`HubFace`, the services
    it tells of a change (presence, the computer, the flags, reports), and
    the offers' two actions, which live above the game
    (:mod:`kamisado.web.play.offers`)."""

    draining: bool
    claim_after_s: float
    metrics: Metrics
    #: told of each game that ended (:attr:`kamisado.web.play.games.Hub.on_finish`)
    on_finish: Callable[[Game], Coroutine[Any, Any, None]] | None
    #: told of each rematch made (:attr:`kamisado.web.play.games.Hub.on_rematch`)
    on_rematch: Callable[[str, str | None, str | None], Coroutine[Any, Any, None]] | None
    #: told of every game that ends here (an action stored ended it: the
    #: tournaments count it, :mod:`kamisado.web.community.tournaments`)
    ended_hooks: list[Callable[[Game], None]]

    @property
    def rng(self) -> random.Random: ...
    @property
    def presence(self) -> _Presence: ...
    @property
    def computer(self) -> _Computer: ...
    @property
    def flags(self) -> _Flags: ...
    @property
    def reporter(self) -> _Reporter: ...
    @property
    def unwritten(self) -> _Unwritten: ...

    async def takeback(self, game: Game, conn: Conn, msg: TakebackMsg) -> None:
        """A takeback asked for (:func:`kamisado.web.play.offers.takeback`)."""

    async def rematch(self, game: Game, conn: Conn, msg: RematchMsg) -> None:
        """A rematch asked for (:func:`kamisado.web.play.offers.rematch`)."""


@dataclass(eq=False)
class Game(GameState):
    """A game in memory: its stored state, its connections, its lock and its actions."""

    #: the hub the game is of (its store, its jobs; ``None`` only for a game
    #: built outside a server); it holds the game in memory
    #: (:attr:`kamisado.web.play.games.Hub.games`) while a connection is on it or
    #: its computer thinks, and reads it for a request without holding it
    hub: GameHub | None = field(default=None, repr=False)
    conns: set[Conn] = field(default_factory=set, repr=False)
    thinking: bool = False
    #: the action this process holds the computer's turn for (shown thinking
    #: once held: with other processes on the database, once its lease is)
    leased_seq: int = -1
    task: asyncio.Task[None] | None = field(default=None, repr=False)
    failures: int = 0  # writes refused by the store in a row
    #: per side, since when (ms) no connection holds the seat (``None``: held)
    away_since: list[int | None] = field(default_factory=lambda: [None, None])
    #: per side letter, when (ms) the seat was last seen held through another
    #: process (several processes on one database)
    elsewhere: dict[str, int] = field(default_factory=dict)
    #: per side, the rating beside the name, its change by this game and
    #: whether it is provisional (shown with "?")
    ratings: list[tuple[int | None, int | None, bool]] = field(
        default_factory=lambda: [(None, None, False), (None, None, False)])
    #: per side, whether its player is a bot account (read with the ratings)
    bots: list[bool] = field(default_factory=lambda: [False, False])
    #: held by whatever changes the game (an action, a refresh from the
    #: store): one change at a time, each stored before the next begins
    lock: asyncio.Lock = field(default_factory=asyncio.Lock, repr=False)
    #: the store could not answer whether the last action was stored: the
    #: game is read again from the store before its next action
    unsure: bool = False
    #: joins under way (the game is not let go of meanwhile)
    joining: int = 0
    #: the ids of the chat messages its connections here were sent (:mod:`kamisado.web.play.chat`)
    chat_seen: set[int] = field(default_factory=set, repr=False)
    #: each room's last messages this process read, stored or heard of
    #: since the game came into memory (oldest first, at most
    #: :data:`kamisado.web.play.chat.HISTORY`): a join is sent these
    chat_log: dict[str, list[dict[str, Any]]] = field(default_factory=dict, repr=False)
    #: the rooms whose :attr:`chat_log` is whole: read from the store once
    #: since the game came into memory, and kept up since (a join of such a
    #: room reads nothing)
    chat_read: set[str] = field(default_factory=set, repr=False)

    @property
    def served_by(self) -> GameHub:
        """The hub the game is of (a game's actions need it)."""
        if self.hub is None:
            raise RuntimeError(f"game {self.row.id} is of no server")
        return self.hub

    @property
    def store(self) -> Store:
        """The store of the hub holding the game."""
        return self.served_by.store

    def spawn_locked(self, fn: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Run ``fn()`` in a task of the hub's, holding the game's lock."""
        async def run() -> None:
            async with self.lock:
                await fn()
        self.served_by.spawn(run())

    # -- who is here --------------------------------------------------------------

    def held_here(self) -> tuple[bool, bool]:
        """Whether a connection to this process holds each seat."""
        held = {s for c in self.conns for s in c.seats}
        return (0 in held, 1 in held)

    def online_seats(self) -> tuple[bool, bool]:
        """Whether someone holding each seat is connected (to this process,
        or to another one that still lives: :attr:`elsewhere`)."""
        here = self.held_here()
        fresh = clocks.now_ms() - PRESENCE_TTL_MS
        return (here[0] or self.elsewhere.get("b", 0) > fresh,
                here[1] or self.elsewhere.get("g", 0) > fresh)

    def mark_presence(self, now: int) -> None:
        """Note since when each person's seat has had no connection holding it
        (for a seat last held through another process: when it was last seen)."""
        online = self.online_seats()
        for side, kind in enumerate(self.kinds()):
            if kind != "human" or online[side]:
                self.away_since[side] = None
            elif self.away_since[side] is None:
                self.away_since[side] = min(now, self.elsewhere.get(SIDE_LETTERS[side], now))

    # -- what the connections see ---------------------------------------------------

    def view(self, claim_after_ms: int) -> StateFrame:
        """The game's state frame (each connection's ``you`` is added as it is sent)."""
        match = self.match
        online = self.online_seats()
        names = self.seat_names()
        now = clocks.now_ms()
        seats: dict[str, SeatView] = {}
        for side, kind in enumerate(self.kinds()):
            away = self.away_since[side]
            rating, change, provisional = self.ratings[side]
            seats[SIDE_LETTERS[side]] = {
                "kind": kind,
                "name": names[side],
                "online": online[side] if kind == "human" else True,
                "away_ms": None if kind != "human" or online[side] or away is None else max(0, now - away),
                "player": self.row.owners[side] if kind == "human" else None,
                "rating": rating,
                "rating_change": change,
                "provisional": provisional,
                "bot": self.bots[side],
            }
        offer, declined = self.offer(), self.declined()
        position, fill = frame_position(match, self.ended is not None)
        act = self.to_act()
        return StateFrame(
            game=self.row.id,
            seq=self.seq,
            name=match.name,
            target=match.target,
            series=match.series,
            online_game=self.row.online,
            points=list(match.points),
            state=self.state,
            winner=None if self.winner() is None else SIDE_LETTERS[self.winner() or 0],
            round=len(match.rounds),
            to_act=None if act is None else SIDE_LETTERS[act],
            seats=seats,
            thinking=(self.thinking and self.leased_seq == self.seq) or self.thinking_elsewhere(),
            last=self.last,
            rounds=self.rounds,
            fill=fill,
            position=position,
            clock=None if self.clock is None else cast(ClockView, self.clock.view(now)),
            ended=None if self.ended is None else {
                "reason": self.ended[0],
                "winner": None if self.ended[1] is None else SIDE_LETTERS[self.ended[1]],
            },
            rated=self.row.rated,
            offer=None if offer is None else {"kind": offer[0], "by": SIDE_LETTERS[offer[1]]},
            declined=None if declined is None else {"kind": declined[0], "by": SIDE_LETTERS[declined[1]]},
            rematch=self.row.rematch,
            claim_after_ms=claim_after_ms if self.claimable() else None,
            takeback={SIDE_LETTERS[side]: self.takeback_count(side) for side in (0, 1)},
            seed=None if act is None or self.kinds()[act] == "human" else self.row.seed + self.seq,
        )

    def frame(self) -> StateFrame:
        """The state frame with the claim time of the hub holding the game."""
        return self.view(int(self.served_by.claim_after_s * 1000))

    @staticmethod
    async def send(conn: Conn, frame: str) -> None:
        """Send a frame to one connection (:func:`send`)."""
        await send(conn, frame)

    async def send_state(self, conn: Conn) -> None:
        """Send the game's state to one connection."""
        await send(conn, self.frame().to_json([SIDE_LETTERS[s] for s in conn.seats]))

    async def broadcast(self) -> None:
        """Send the game's state to every connection, each with its own seats."""
        if not self.conns:
            return
        view = self.frame()  # written once: only each connection's seats differ
        frames: dict[tuple[int, ...], str] = {}
        sends = []
        for conn in list(self.conns):
            text = frames.get(conn.seats)
            if text is None:
                text = frames[conn.seats] = view.to_json([SIDE_LETTERS[s] for s in conn.seats])
            sends.append(send(conn, text))
        await asyncio.gather(*sends)

    # -- joining and leaving -----------------------------------------------------------

    async def join(self, conn: Conn, token: str | None) -> tuple[str, str] | None:
        """Attach a connection (the caller holds the game in memory: it is
        counted in ``joining``), holding the seats
        :func:`kamisado.web.play.seats.seats_for` gives it; returns the
        informational error to send after the state."""
        hub = self.served_by
        async with self.lock:
            owners = self.row.owners
            seats, note = await seats_for(self, conn, token)
            if self.row.owners != owners:  # a seat was claimed: its rating goes beside its name
                await load_ratings(self)
            if conn.game is self:
                self.conns.discard(conn)  # joining again: the join's own frame says it all
            elif conn.game is not None:
                conn.game.leave(conn)
            before = self.held_here()
            conn.game, conn.seats = self, seats
            self.conns.add(conn)
            if self.held_here() != before:
                hub.presence.share(self)
            self.mark_presence(clocks.now_ms())
            hub.computer.kick(self)  # before the join's frame, which then shows it thinking
            if seats:
                await self.broadcast()  # the others see the seat come online
            else:
                await self.send_state(conn)
        return note

    def leave(self, conn: Conn) -> None:
        """Detach a connection; when it held a seat the others hear of it."""
        hub = self.served_by
        self.conns.discard(conn)
        held = conn.seats
        conn.game, conn.seats = None, ()
        if held:
            hub.presence.share(self)
        self.mark_presence(clocks.now_ms())
        if not self.conns:
            self.spawn_locked(lambda: hub.flags.pause(self))  # a computer-against-computer game nobody watches
        hub.evict(self)
        if held:
            hub.spawn(self.broadcast())

    # -- the actions ----------------------------------------------------------------------

    async def _locked(
        self, conn: Conn, fn: Callable[[Conn, Any], Awaitable[None]], msg: Any
    ) -> None:
        """Handle a message of a connection on the game (``fn(conn, msg)``)
        holding the game's lock: one change of a game at a time, each
        checked against the game as the store has it."""
        async with self.lock:
            if conn.game is not self:
                raise GameError("not_joined", "join a game first")
            await self.ready()
            await fn(conn, msg)

    async def ready(self) -> None:
        """Before an action (lock held): a timed game's clocks as the store
        has them, moved forward over an outage if there was one
        (:meth:`kamisado.web.play.flags.Flags.ensure_live`), and the game read
        again when the store could not say whether its last action was
        stored (``unsure``).  :class:`GameError` ``storage`` while the
        store cannot be reached."""
        if self.clock is not None:
            await self.served_by.flags.ensure_live()
        if self.unsure:
            await self.resync()

    def seat_holder(self, conn: Conn, what: str) -> None:
        """Refuse an action of a connection that holds no seat (a spectator)."""
        if not conn.seats:
            raise GameError("not_your_turn", f"{what}: a spectator holds no seat")

    async def act(self, conn: Conn, msg: MoveMsg | FillMsg) -> None:
        """A move or fill from a connection: checked, stored, then broadcast."""
        await self._locked(conn, self._act, msg)

    async def _act(self, conn: Conn, msg: MoveMsg | FillMsg) -> None:
        what = msg.move if isinstance(msg, MoveMsg) else msg.direction
        self.seat_holder(conn, what)
        # a move sent against an old position is stale, whoever's turn it is now
        if msg.seq is not None and msg.seq != self.seq:
            raise GameError("stale", f"{what}: the game is at action {self.seq}, not {msg.seq}")
        side = self.to_act()
        if side is None:
            raise GameError("over", f"{what}: the match is over")
        if side not in conn.seats:
            raise GameError(
                "not_your_turn",
                f"{what}: it is {('Black', 'Gold')[side]}'s turn and you do not hold that seat",
            )
        if isinstance(msg, MoveMsg) and self.match.state != PLAYING:
            raise GameError("illegal", f"{what}: the round is over; choose to fill left or right")
        if isinstance(msg, FillMsg) and self.match.state != FILL:
            raise GameError("illegal", f"{what}: a fill is chosen only after a round ends")
        await self.play(what)
        await self.broadcast()

    def person_seat(self) -> int | None:
        """The person's seat of a game between a person and the computer (else ``None``)."""
        people = [side for side, kind in enumerate(self.kinds()) if kind == "human"]
        return people[0] if len(people) == 1 else None

    def page_thinker(self) -> Conn | None:
        """A connection here that thinks for the computer: its page runs the
        engine and holds the person's seat of this game against the computer."""
        person = self.person_seat()
        if person is None:
            return None
        return next((c for c in self.conns if c.thinks and c.seats == (person,)), None)

    async def computer_act(self, conn: Conn, msg: ComputerMoveMsg) -> None:
        """The computer's action found by the page's engine: checked as any
        action (the seat, ``seq``, the rules), stored, then broadcast (the
        state frame is its acknowledgement)."""
        await self._locked(conn, self._computer_act, msg)

    async def _computer_act(self, conn: Conn, msg: ComputerMoveMsg) -> None:
        what = f"computer_move {msg.action}"
        person = self.person_seat()
        if person is None:
            raise GameError("not_allowed", f"{what}: only in a game between a person and the computer")
        if conn.seats != (person,):
            raise GameError("not_allowed", f"{what}: only the page holding the person's seat plays"
                            " the computer's moves")
        if msg.seq != self.seq:
            raise GameError("stale", f"{what}: the game is at action {self.seq}, not {msg.seq}")
        side = self.to_act()
        if side is None:
            raise GameError("over", f"{what}: the match is over")
        if side == person:
            raise GameError("not_your_turn", f"{what}: it is the person's turn, not the computer's")
        fill = msg.action in ("left", "right")
        if not fill and self.match.state != PLAYING:
            raise GameError("illegal", f"{what}: the round is over; the computer chooses to fill left or right")
        if fill and self.match.state != FILL:
            raise GameError("illegal", f"{what}: a fill is chosen only after a round ends")
        self.stop_thinking()  # the server's own thought (its fallback) is not needed
        await self.play(msg.action)
        await self.broadcast()

    async def end(self, conn: Conn, msg: ResignMsg | AbortMsg) -> None:
        """A resignation or an abort from a seat holder: stored, then broadcast."""
        await self._locked(conn, self._end_action, msg)

    async def _end_action(self, conn: Conn, msg: ResignMsg | AbortMsg) -> None:
        what = "resign" if isinstance(msg, ResignMsg) else "abort"
        self.seat_holder(conn, what)
        if msg.seq is not None and msg.seq != self.seq:
            raise GameError("stale", f"{what}: the game is at action {self.seq}, not {msg.seq}")
        if self.state == OVER:
            raise GameError("over", f"{what}: the match is over")
        if isinstance(msg, AbortMsg):
            token = "abort"
        else:
            # holding both seats (hotseat): the side whose action the game awaits resigns
            act = self.to_act()
            side = conn.seats[0] if len(conn.seats) == 1 or act is None else act
            token = f"resign-{SIDE_LETTERS[side]}"
        await self.play(token)
        await self.broadcast()

    async def takeback(self, conn: Conn, msg: TakebackMsg) -> None:
        """Take back moves of the round being played: at once when the
        connection holds both seats or plays the computer, else by an offer
        the opponent accepts (docs/web.md, "Game controls";
        :func:`kamisado.web.play.offers.takeback`)."""
        await self._locked(conn, lambda c, m: self.served_by.takeback(self, c, m), msg)

    async def rematch(self, conn: Conn, msg: RematchMsg) -> None:
        """Once the match is over, the same game again with the colours
        swapped: at once alone (hotseat, the computer), else by offer and
        acceptance (:func:`kamisado.web.play.offers.rematch`).  Every connection
        holding a seat is sent the new game."""
        await self._locked(conn, lambda c, m: self.served_by.rematch(self, c, m), msg)

    async def claim(self, conn: Conn, msg: ClaimMsg) -> None:
        """Claim the win of a real-time game between people whose opponent
        has been away (no connection on their seat) ``claim_after_s``."""
        await self._locked(conn, self._claim, msg)

    async def _claim(self, conn: Conn, msg: ClaimMsg) -> None:
        hub = self.served_by
        self.seat_holder(conn, "claim")
        if self.state == OVER:
            raise GameError("over", "claim: the match is over")
        if not self.claimable() or len(conn.seats) != 1:
            raise GameError("not_allowed", "claim: only in an online real-time game between two people")
        other = 1 - conn.seats[0]
        if await hub.presence.load_elsewhere(self) or self.store.shared:
            self.mark_presence(clocks.now_ms())  # as the store has it now
        away = self.away_since[other]
        if self.online_seats()[other] or away is None:
            raise GameError("not_allowed", "claim: your opponent is connected")
        now = clocks.now_ms()
        left = hub.claim_after_s * 1000 - (now - away)
        if left > 0:
            raise GameError("not_allowed", f"claim: your opponent left {(now - away) / 1000:.0f} s ago; "
                            f"you can claim the win in {left / 1000:.0f} s")
        await self.play(f"abandon-{SIDE_LETTERS[other]}")
        await self.broadcast()

    def stop_thinking(self) -> None:
        """Cancel the computer's move being thought about (the game moved
        past it: a takeback, a flag that fell)."""
        if self.task is not None and not self.task.done():
            self.task.cancel()
            self.thinking = False

    async def play(self, token: str) -> None:
        """Check an action with the rules and store it; only then does the
        game take it (its lock held: tried on a :meth:`GameState.fork`, so
        nothing reads an action the store does not hold).  When the store
        refuses it the game stays as the store has it (:meth:`_recover`)
        and ``storage`` (or ``stale``, when the store had moved on) is
        raised."""
        hub = self.served_by
        if hub.draining:
            raise GameError("restarting", f"{token}: the server is restarting and stores nothing more;"
                            " play it again once reconnected")
        seq = self.seq
        now = clocks.now_ms()
        clock = self.clock
        if clock is not None and not token.startswith("time-"):
            flag = clock.flagged(now)
            if flag is not None:  # too late: the flag fell first, and that is what is stored
                await self.play(f"time-{flag}")
                await self.broadcast()
                raise GameError("time", f"{token}: {('Black', 'Gold')[SIDE_LETTERS.index(flag)]}'s time ran out")
        trial = self.fork()
        try:
            trial.apply(token)  # the rules check it before anything changes
        except KamisadoError as exc:
            raise GameError("illegal", str(exc)) from None
        if clock is not None:
            act = trial.to_act()
            if token.startswith("undo-"):
                # a takeback earns no increment; back at the match's very
                # start the clocks wait for the first move again
                stopped = clock.stop(now)
                fresh = len(trial.match.rounds) == 1 and not trial.moves_made()
                trial.clock = stopped if act is None or fresh else stopped.begin(SIDE_LETTERS[act], now)
            else:
                # the clocks start with the first move (Black's first move is
                # not timed); then the clock of the side the game waits for runs
                trial.clock = clock.stop(now) if act is None else clock.switch(SIDE_LETTERS[act], now)
        store = self.store
        try:
            await store.append_async(
                self.row.id, seq, token, state=trial.state,
                points=(trial.match.points[0], trial.match.points[1]),
                clock=trial.clock, ended=None if trial.ended is None else trial.ended[0],
                to_act=trial.to_act_letter(),
            )
        except asyncio.CancelledError:
            self.unsure = True  # the server stops: whether it was stored is not known here
            raise
        except _NOT_STORED as exc:
            self.served_by.repeats.failed("could not store an action", self.row.id, exc)
            self.failures += 1
            await self._recover(seq, token)  # raises, unless it was stored
        else:
            self.adopt(trial)
        hub.metrics.acted(token)
        self.failures = 0
        self.row.offer = None  # stored: every action ends the offer pending (or declined)
        if self.state == OVER and hub.on_finish is not None:  # the event streams: a task of its own
            hub.spawn(hub.on_finish(self))
        if self.state == OVER:
            for hook in hub.ended_hooks:
                hook(self)
        if self.state == OVER and self.row.rated:
            try:
                await rate(self)
            except Exception as exc:  # the game is stored: it is rated when next loaded
                self.served_by.repeats.failed("could not rate a game", self.row.id, exc)
            await load_ratings(self)
            hub.reporter.auto(self)  # a rated game's report, when a worker is free
        self.served_by.computer.kick(self)

    async def _recover(self, seq: int, token: str) -> None:
        """After action ``seq`` (``token``) failed to store: read the game
        again from the store (it may have been stored after all, the commit
        done but its answer lost, or another process may have stored
        another action first).  Returns when it was stored; otherwise
        raises the refusal.  When the store cannot even be read the game
        stays as it was, marked ``unsure``: it is read again before its
        next action (:meth:`resync`)."""
        store = self.store
        try:
            loaded = await store.load_async(self.row.id)
            fresh = None if loaded is None else GameState.build(*loaded)
        except StoreErrors as exc:
            self.served_by.repeats.failed("could not reload a game", self.row.id, exc)
            self.served_by.flags.store_failed()
            fresh = None
        if fresh is None:
            self.unsure = True
            raise GameError("storage", f"{token}: the move could not be saved (the database cannot be "
                            "reached); try again in a moment")
        self.unsure = False
        self.adopt(fresh)
        if self.seq > seq and self.tokens[seq] == token:
            return  # stored after all: the caller announces it
        if self.seq > seq:  # another writer was first: everyone catches up
            self.served_by.computer.kick(self)
            await self.broadcast()
            raise GameError("stale", f"{token}: the game has moved on (at action {self.seq})")
        raise GameError("storage", f"{token}: the move could not be saved; try again")

    async def resync(self) -> None:
        """Read the game again from the store after the store could not say
        whether its last action was stored, or its clock was moved forward
        over an outage (``unsure``); the others hear of any change.
        :class:`GameError` ``storage`` while the store cannot be read (lock
        held)."""
        store = self.store
        try:
            loaded = await store.load_async(self.row.id)
        except StoreErrors as exc:
            self.served_by.repeats.failed("could not reload a game", self.row.id, exc)
            self.served_by.flags.store_failed()
            loaded = None
        if loaded is None:
            raise GameError("storage", "the game's database cannot be reached; try again in a moment")
        seq, clock = self.seq, self.clock
        self.adopt(GameState.build(*loaded))
        self.unsure = False
        if self.seq != seq:
            self.served_by.computer.kick(self)
        if self.seq != seq or self.clock != clock:  # a clock moved forward over an outage too
            await self.broadcast()


# -- ratings -----------------------------------------------------------------------------


async def load_ratings(game: Game) -> None:
    """The ratings beside a game's names: a computer level's fixed rating;
    in a rated game each player's for its speed and, once it is over,
    the change it made (a rated game over but not yet rated, because
    the store failed then, is rated now); in a casual game with a clock
    each player's for its speed too, when it has one (a rated game played)."""
    row, store = game.row, game.store
    got: list[tuple[int | None, int | None, bool]] = [(None, None, False), (None, None, False)]
    for side, kind in enumerate(game.kinds()):
        if kind != "human":
            got[side] = (computer_rating(kind), None, False)
    speed = speed_of(row.clock_days, row.clock_initial)
    players = [p for p in row.owners if p is not None]
    if players:
        try:
            bots = await store.call(store.bots_among, players)
        except Exception as exc:
            game.served_by.repeats.failed("could not read the ratings of a game", row.id, exc)
        else:
            game.bots = [owner in bots for owner in row.owners]
    if speed is not None and players:
        try:
            if row.rated and game.state == OVER:
                await rate(game)
                changes = await store.call(store.rating_changes, row.id)
            else:
                changes = {}
            now = await store.call(store.ratings_of, players, speed)
        except Exception as exc:
            game.served_by.repeats.failed("could not read the ratings of a game", row.id, exc)
            return
        for side, player in enumerate(row.owners):
            if player is None:
                continue
            if not row.rated and player not in now:
                continue  # a casual game: no rating to show yet
            current = now.get(player, Rating())
            if player in changes:
                after, change = changes[player]
                got[side] = (round(after), round(change), current.provisional)
            else:
                got[side] = (round(current.rating), None, current.provisional)
    game.ratings = got


async def rate(game: Game) -> bool:
    """Update the players' ratings for a rated game that ended with a
    winner (at most once: :meth:`Store.rate`)."""
    row, store = game.row, game.store
    winner = game.winner()
    speed = speed_of(row.clock_days, row.clock_initial)
    if not row.rated or speed is None or winner is None or game.state != OVER:
        return False
    won, lost = row.owners[winner], row.owners[1 - winner]
    if won is None or lost is None or won == lost:
        return False
    return await store.call(store.rate, row.id, speed, won, lost)
