"""The games in memory: the :class:`Hub` that holds them and the jobs they share.

The :class:`Hub` owns every game in play.  It creates games, reads them
from the store, and holds a game in memory (:attr:`Hub.games`) while a
connection is on it, a join of it is under way or its computer thinks
(:meth:`Hub.in_use`): the store is the truth and
the games in memory a cache of it, never ahead of it.  Each game held is
one object, :class:`kamisado.web.play.game.Game`, with its lock, its
connections and its actions (moves, fills, offers, resign, abort, claim);
the jobs the games share are each a module of their own, one object each
in the hub:

- :attr:`Hub.computer` (:mod:`kamisado.web.play.computer`): the computer's
  moves, in a process pool or on a job queue, and their leases;
- :attr:`Hub.flags` (:mod:`kamisado.web.play.flags`): the clocks and the flags
  that fall;
- :attr:`Hub.presence` (:mod:`kamisado.web.play.presence`): who is connected to
  each seat, over every process;
- :attr:`Hub.news` (:mod:`kamisado.web.play.news`): the changes other processes
  make (PostgreSQL ``LISTEN``).

All game logic runs on the event loop; every action is stored (committed)
before anyone hears of it; the computer thinks in a process pool (or on a
job queue's workers) and the database is called from the store's threads
(:meth:`Store.call`), so the loop never waits for either.  Frames sent to
the page are described in ``docs/web.md``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Awaitable, Callable, Coroutine
from concurrent.futures import Executor
from typing import Any

from kamisado.rules.board import SIDE_LETTERS
from kamisado.rules.match import OVER
from kamisado.rules.record import Record
from kamisado.web.basics.clocks import ClockState
from kamisado.web.basics.messages import CreateMsg, JoinMsg, RematchMsg, TakebackMsg
from kamisado.web.basics.metrics import Metrics
from kamisado.web.basics.noise import Repeats
from kamisado.web.play import chat, offers
from kamisado.web.play.computer import Computer, JobRunner
from kamisado.web.play.flags import Flags
from kamisado.web.play.game import Conn, Game, close_to_rejoin, load_ratings, send_error
from kamisado.web.play.news import News
from kamisado.web.play.presence import Presence
from kamisado.web.play.reports import Reporter
from kamisado.web.play.state import GameError
from kamisado.web.play.uploads import Built, built_from_record
from kamisado.web.store.database import StoreErrors
from kamisado.web.store.storage import GameRow, Store, new_id

__all__ = ["CLAIM_AFTER_S", "Hub"]

log = logging.getLogger("kamisado.web")

#: A real-time opponent away this long (no connection holding their seat)
#: lets the player claim the win (:meth:`kamisado.web.play.game.Game.claim`);
#: ``Hub.claim_after_s``.
CLAIM_AFTER_S = 60.0


class Hub:
    """Every live game, the connections to them, and the store behind them.

    The engine's work (computer moves, analysis) runs in ``pool``, a process
    pool of this process, or, given ``jobs``, on a job queue's workers
    (:class:`kamisado.web.play.computer.Computer`)."""

    def __init__(
        self, store: Store, pool_factory: Callable[[], Executor] | None, jobs: JobRunner | None = None
    ) -> None:
        self.store = store
        #: the games held in memory, by id
        self.games: dict[str, Game] = {}
        self.rng = random.SystemRandom()
        self._tasks: set[asyncio.Task[None]] = set()
        #: the lobby's handler of other processes' lobby changes
        #: (:meth:`kamisado.web.community.lobby.Lobby.bind`): ``(origin, what)``
        self.on_lobby: Callable[[str, str], Awaitable[None]] | None = None
        #: told of each game that ended through this process (the event
        #: streams' ``gameFinish``: :mod:`kamisado.web.bots`)
        self.on_finish: Callable[[Game], Coroutine[Any, Any, None]] | None = None
        #: told of each rematch made through this process, ``(game, black,
        #: gold)`` player ids (the event streams' ``gameStart``)
        self.on_rematch: Callable[[str, str | None, str | None], Coroutine[Any, Any, None]] | None = None
        #: told of every game that ends on this process (its last action stored here)
        self.ended_hooks: list[Callable[[Game], None]] = []
        #: how long a real-time opponent must be away before a claim (seconds)
        self.claim_after_s = CLAIM_AFTER_S
        #: every websocket open on this process (the page's, whatever it is on)
        self.open_conns: set[Conn] = set()
        #: the server is stopping (SIGTERM): no action is stored any more
        #: (:func:`kamisado.web.site.ops.drain`)
        self.draining = False
        #: this process's metrics (``GET /metrics``); the store tells it its calls' times
        self.metrics = Metrics()
        store.on_call = self.metrics.stored
        self.computer = Computer(self, pool_factory, jobs)
        self.flags = Flags(self)
        self.presence = Presence(self)
        self.news = News(self)
        #: failures that repeat (the store down: every game each second),
        #: logged once a minute with a count (:mod:`kamisado.web.basics.noise`)
        self.repeats = Repeats(log)
        #: the game reports this process makes (:mod:`kamisado.web.play.reports`)
        self.reporter = Reporter(self)
        #: the games created here whose chat nobody wrote in yet (their first join reads none)
        self.unwritten = chat.Unwritten()

    async def takeback(self, game: Game, conn: Conn, msg: TakebackMsg) -> None:
        """A takeback asked for in ``game`` (lock held): the offers' rule
        (:func:`kamisado.web.play.offers.takeback`), which lives above the game."""
        await offers.takeback(game, conn, msg)

    async def rematch(self, game: Game, conn: Conn, msg: RematchMsg) -> None:
        """A rematch asked for in ``game`` (lock held):
        :func:`kamisado.web.play.offers.rematch`."""
        await offers.rematch(game, conn, msg)

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` as a task of the hub's (kept until done, cancelled by :meth:`close`)."""
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def start(self) -> None:
        """Start watching the clocks (the server calls it once it runs), the
        other processes when they share the database, and the computer in
        every game where a person waits for its move (it was thinking when
        the server stopped)."""
        self.spawn(self.flags.run())
        if self.store.shared:  # other processes serve these games too: hear of their changes
            self.spawn(self.presence.run())
            self.spawn(self.news.run())
            self.spawn(self.computer.run())  # the leases on computer moves: renewed, taken over
        if self.computer.can_think:
            self.spawn(self.computer.answer_waiting())
            self.spawn(self.reporter.run())  # game reports, behind the computer's moves

    async def close(self) -> None:
        """Stop watching the clocks and the other processes, every computer
        that is thinking, and the process pool; say one last time that a
        server reached the store (a restart is given back from here)."""
        self.computer.close()
        for task in list(self._tasks):
            task.cancel()
        with contextlib.suppress(Exception):
            await self.flags.beat()

    # -- games -----------------------------------------------------------------

    async def create(
        self, msg: CreateMsg, player: str | None = None, registered: bool = False, name: str = ""
    ) -> tuple[Game, dict[str, str]]:
        """Create and store a new game; returns it and the seats' secret
        tokens (the row as :meth:`new_row` makes it)."""
        row, tokens = self.new_row(msg, player, registered, name)
        await self._store_new(row)
        self.unwritten.add(row.id)
        return self._build(row, []), tokens  # kept in memory once someone joins it

    def new_row(
        self, msg: CreateMsg, player: str | None = None, registered: bool = False, name: str = "",
        rng: random.Random | None = None,
    ) -> tuple[GameRow, dict[str, str]]:
        """A new game's row, not stored yet, and the seats' secret tokens
        (``rng``: the seed's source, the hub's when not given).

        A game created by a player gives it the seats it takes: both of a
        hotseat game, its own against the computer, and in an online game
        the seat ``msg.seat`` names (none when not named: the player claims
        one by joining with its token, as the page of before players did).
        A rated game is created only by a player with an account
        (``registered``), who names its seat.  The seat an online game's
        creator takes is shown under the player's ``name`` unless the
        message names it."""
        if msg.rated and (player is None or not registered):
            raise GameError("account_needed", "create: a rated game needs an account; sign up or sign in")
        if msg.rated and msg.seat is None:
            raise GameError("malformed", "create: a rated game needs the creator's seat ('seat': 'b' or 'g')")
        tokens: dict[str, str] = {}
        seat_tokens: list[str | None] = [None, None]
        shared = new_id(18)
        for side, kind in enumerate((msg.black, msg.gold)):
            if kind == "human":
                seat_tokens[side] = new_id(18) if msg.online else shared
                tokens[SIDE_LETTERS[side]] = seat_tokens[side] or ""
        row = GameRow.new(
            new_id(),
            target=msg.target,
            series=msg.series,
            black=msg.black,
            gold=msg.gold,
            black_name=msg.black_name,
            gold_name=msg.gold_name,
            black_token=seat_tokens[0],
            gold_token=seat_tokens[1],
            online=msg.online,
            seed=(rng or self.rng).randrange(1 << 30),
            delay=msg.delay,
            to_act="b",
            rated=msg.rated,
        )
        if player is not None:
            owners = [player if k == "human" else None for k in (msg.black, msg.gold)]
            if msg.online:
                mine = None if msg.seat is None else SIDE_LETTERS.index(msg.seat)
                owners = [o if side == mine else None for side, o in enumerate(owners)]
                if name and mine == 0 and not row.black_name:
                    row.black_name = name[:40]
                elif name and mine == 1 and not row.gold_name:
                    row.gold_name = name[:40]
            row.black_player, row.gold_player = owners
        if msg.clock is not None:
            row.clock_initial = None if msg.clock.days else msg.clock.initial
            row.clock_increment = None if msg.clock.days else msg.clock.increment
            row.clock_days = msg.clock.days or None
            row.set_clock(ClockState.start(msg.clock))
        return row, tokens

    async def create_from_record(self, rec: Record, player: str | None = None) -> tuple[Game, dict[str, str]]:
        """Store an uploaded record as a local (hotseat) game that can go on
        (both seats the uploading player's).  The site builds it away from
        the event loop and stores it with :meth:`create_built`."""
        return await self.create_built(built_from_record(rec, player))

    async def create_built(self, built: Built) -> tuple[Game, dict[str, str]]:
        """Store a game an uploaded record made (:func:`kamisado.web.play.uploads.read_upload`,
        replayed already): the game, and its seats' token."""
        game = Game(built.row, built.state.match)
        game.adopt(built.state)
        game.hub = self
        await self._store_new(built.row, built.tokens)
        token = built.row.black_token or ""  # both seats' (built_from_record gives one)
        return game, {"b": token, "g": token}

    async def _store_new(self, row: GameRow, tokens: list[str] | None = None) -> None:
        try:
            await self.store.create_async(row, tokens)
        except StoreErrors as exc:
            self.repeats.failed("could not store a new game", row.id, exc)
            raise GameError("storage", "the game could not be saved; try again") from None

    def _build(self, row: GameRow, tokens: list[str]) -> Game:
        """A game of this hub's, rebuilt from its stored row and actions."""
        game = Game.build(row, tokens)
        game.hub = self
        return game

    async def load(self, game_id: str) -> Game | None:
        """A game by id: the one in memory, else rebuilt from the store (and
        not kept: see :meth:`hold`).  ``None`` when there is no such game;
        :class:`GameError` ``storage`` when the store cannot be read."""
        game = self.games.get(game_id)
        if game is not None:
            return game
        try:
            loaded = await self.store.load_async(game_id)
        except StoreErrors as exc:
            self.repeats.failed("could not load a game", game_id, exc)
            raise GameError("storage", f"game {game_id}: the store cannot be read; try again") from None
        return None if loaded is None else self._build(*loaded)

    async def hold(self, game_id: str) -> Game | None:
        """The game in memory (read from the store when it is not), counted
        as joining (``game.joining``) so it is not let go of until the
        caller is done: the caller counts it down and calls :meth:`evict`.
        A game coming into memory reads the ratings beside its names (and,
        with other processes on the database, who is connected through
        them).  ``None``: no such game."""
        game = self.games.get(game_id)
        if game is None:
            loaded = await self.load(game_id)
            if loaded is None:
                return None
            game = self.games.setdefault(game_id, loaded)
            if game is loaded:
                game.joining += 1
                try:
                    await load_ratings(game)
                    await self.presence.load_elsewhere(game)
                except BaseException:
                    game.joining -= 1
                    self.evict(game)
                    raise
                return game
        game.joining += 1
        return game

    @staticmethod
    def in_use(game: Game) -> bool:
        """Whether a game must stay in memory: a connection is on it, a join
        of it is under way (``game.joining``, counted by :meth:`hold`) or
        its computer thinks.  The one rule of when a game may leave memory
        (:meth:`evict`): a join that waits (for the store, for the game's
        lock) keeps the game, so every join of one id meets one object."""
        return bool(game.conns) or game.joining > 0 or game.thinking

    def evict(self, game: Game) -> None:
        """Forget a game nobody uses any more (:meth:`in_use`; it is all in
        the store).  Whatever stops using a game (a connection leaving, a
        join done, the computer done thinking) calls it."""
        if not self.in_use(game) and self.games.get(game.row.id) is game:
            del self.games[game.row.id]

    def moved_games(self, old: str, new: str) -> None:
        """The store gave every seat of player ``old`` to ``new`` (a sign-in):
        the games in memory follow."""
        for game in self.games.values():
            if game.row.black_player == old:
                game.row.black_player = new
            if game.row.gold_player == old:
                game.row.gold_player = new

    # -- connections --------------------------------------------------------------

    async def join(self, conn: Conn, msg: JoinMsg) -> None:
        """Attach a connection to a game, holding the seats its player holds
        and, with a token, the seat(s) the token claims
        (:func:`kamisado.web.play.seats.seats_for`).

        A token that gives the connection nothing of what it names is not an
        error that loses anything: the connection gets the state (with the
        seats its player holds, if any) and then an informational error
        (``seat_taken``, ``seat_kept``, ``bad_token``).  A client without a
        player that names no seat of the game gets ``bad_token`` alone, as
        before players.  When the store cannot be read the connection gets a
        ``storage`` error and is closed (:data:`REJOIN`): the client tries
        again later."""
        try:
            game = await self.hold(msg.game)
        except GameError as exc:
            self.leave(conn)
            await close_to_rejoin(conn, exc)
            return
        if game is None:
            raise GameError("no_game", f"join: no game {msg.game!r}")
        conn.thinks = msg.thinks  # its page plays the computer's moves (Game.computer_act)
        try:
            note = await game.join(conn, msg.token)
        finally:
            game.joining -= 1
            self.evict(game)
        if note is not None:
            await send_error(conn, *note)

    def leave(self, conn: Conn) -> None:
        """Detach a connection from its game (if any)."""
        if conn.game is not None:
            conn.game.leave(conn)

    @staticmethod
    def game_of(conn: Conn) -> Game:
        """The game a connection is on (:class:`GameError` ``not_joined``
        when none): its actions are the game's methods."""
        if conn.game is None:
            raise GameError("not_joined", "join a game first")
        return conn.game

    # -- lists -----------------------------------------------------------------------

    @staticmethod
    def summary(row: GameRow) -> dict[str, Any]:
        """A game as the lists show it: no token, no player id."""
        return {
            "id": row.id,
            "created": row.created,
            "updated": row.updated,
            "target": row.target,
            "series": row.series,
            "black": row.black,
            "gold": row.gold,
            "black_name": row.black_name,
            "gold_name": row.gold_name,
            "online": row.online,
            "state": row.state,
            "points": [row.black_points, row.gold_points],
            "actions": row.actions,
            "to_act": row.to_act if row.state != OVER else None,
            "ended": row.ended,
            "watch": f"/game/{row.id}",  # the share page: its link preview shows the board
        }

    async def my_games(self, player: str, limit: int = 200) -> list[dict[str, Any]]:
        """A player's games (``GET /api/games``): the games waiting for the
        player first, then the other ongoing ones, then the finished ones,
        each group most recently played first.  Each says the seats the
        player holds (``you``) and, for an online game whose other seat is
        still unclaimed, its invite (``{"seat", "token", "link"}``): only its
        players ever see it."""
        out: list[tuple[int, dict[str, Any]]] = []
        for row in await self.store.call(self.store.games_of, player, limit):  # the store is the truth
            you = [SIDE_LETTERS[s] for s, owner in enumerate(row.owners) if owner == player]
            to_act = row.to_act
            if row.state != OVER and to_act is None:  # stored before revision 0003: replay it
                with contextlib.suppress(Exception):
                    game = await self.load(row.id)
                    to_act = None if game is None else game.to_act_letter()
            item = self.summary(row)
            item["to_act"] = to_act if row.state != OVER else None
            item["you"] = you
            item["my_turn"] = row.state != OVER and to_act in you
            item["invite"] = None
            if row.online and len(you) == 1:
                other = 1 - SIDE_LETTERS.index(you[0])
                token = (row.black_token, row.gold_token)[other]
                if token is not None and row.owners[other] is None and row.state != OVER:
                    letter = SIDE_LETTERS[other]
                    item["invite"] = {"seat": letter, "token": token,
                                      "link": f"/#/game/{row.id}?t={token}"}
            group = 0 if item["my_turn"] else 1 if row.state != OVER else 2
            out.append((group, item))
        out.sort(key=lambda gi: (gi[0], -gi[1]["updated"]))
        return [item for _, item in out]

    async def live_games(self, limit: int = 50) -> list[dict[str, Any]]:
        """Ongoing games anyone may watch (``GET /api/games/live``): no token,
        no player id."""
        return [self.summary(row) for row in await self.store.call(self.store.live, limit)]
