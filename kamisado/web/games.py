"""Live games: seats and tokens, the rules, the computer, who is watching.

The :class:`Hub` owns every game in play.  All game logic runs on the event
loop; every action is stored (committed) before anyone hears of it; the
computer thinks in a process pool (or on a job queue's workers) and the
database is called from the store's threads (:meth:`Store.call`), so the
loop never waits for either.  Frames sent to the page are described in
``docs/web.md``.

The store is the truth and the games in memory a cache of it: a game is
kept only while a connection is on it or its computer thinks, and it is
never ahead of the store.  One change of a game at a time (its ``lock``):
an action is tried on a copy of the game (:meth:`Game.fork`), stored, and
only then taken by the game, so nothing ever shows an action the store
does not hold.  When an action cannot be stored the game stays as the
store has it and the mover gets a ``storage`` error; when the store cannot
even be read the game is marked ``unsure`` and read again before its next
action.  A connection whose game cannot be read when it joins gets a
``storage`` error and is closed (code :data:`REJOIN`): it rejoins later.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import logging
import random
import secrets
import time
from collections.abc import Awaitable, Callable, Coroutine
from concurrent.futures import BrokenExecutor, Executor
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

from kamisado.rules.match import FILL, FILLS, OVER, PLAYING, Match
from kamisado.rules.position import SIDE_LETTERS, KamisadoError, Move
from kamisado.rules.record import GameEnd, Record
from kamisado.web import worker
from kamisado.web.clocks import ClockState
from kamisado.web.messages import (
    AbortMsg,
    ClaimMsg,
    ClockView,
    CreateMsg,
    ErrorFrame,
    FillMsg,
    JoinMsg,
    LastView,
    MoveList,
    MoveMsg,
    PassView,
    RematchMsg,
    ResignMsg,
    RoundView,
    SeatView,
    StartedFrame,
    StateFrame,
    TakebackMsg,
    frame_position,
    move_view,
    outcome_view,
    passes_view,
)
from kamisado.web.ratings import Rating, computer_rating, speed_of
from kamisado.web.storage import CHANNEL, LOBBY_CHANNEL, GameRow, Store, new_id

__all__ = ["Conn", "Game", "GameError", "Hub", "JobRunner"]

log = logging.getLogger("kamisado.web")

SendFn = Callable[[str], Awaitable[None]]
CloseFn = Callable[[int, str], Awaitable[None]]

#: The close code of a connection whose game had to be reloaded from the
#: store and could not be (1013, "try again later"): the client rejoins.
REJOIN = 1013
#: A computer move that could not be stored is tried again after this pause
#: (seconds), doubled at each failure up to :data:`RETRY_MAX_S`.
RETRY_S = 1.0
RETRY_MAX_S = 30.0
#: Listening for other processes' changes: the first pause after a lost
#: connection (seconds), doubled up to the second.
LISTEN_RETRY_S = 0.2
LISTEN_RETRY_MAX_S = 5.0
#: Several processes on one database: a seat held through another process
#: counts as connected while that process renewed its presence within
#: ``PRESENCE_TTL_MS`` (it renews every ``PRESENCE_RENEW_S``); the lease on
#: a computer move lasts ``THINK_LEASE_MS`` (a process that died thinking
#: is taken over after it).
PRESENCE_TTL_MS = 30_000
PRESENCE_RENEW_S = 10.0
THINK_LEASE_MS = 60_000
#: How often the server looks for flags that fell (in memory; the store's
#: overdue games are looked up every ``FLAG_SCAN_S``).
FLAG_TICK_S = 0.2
FLAG_SCAN_S = 1.0
#: Actions that end a match before its points decide it (stored as actions,
#: replayed like moves): ``resign-b`` Black resigns, ``time-g`` Gold's flag
#: fell, ``abort`` the game is called off (before both sides have moved).
ENDINGS = {"resign": "resignation", "time": "time", "abandon": "abandonment"}
#: A real-time opponent away this long (no connection holding their seat)
#: lets the player claim the win (:meth:`Hub.claim`); ``Hub.claim_after_s``.
CLAIM_AFTER_S = 60.0


def now_ms() -> int:
    """Milliseconds since the epoch: the clocks' time source."""
    return int(time.time() * 1000)


class GameError(Exception):
    """An action refused by the server; ``code`` goes into the error frame."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(eq=False, slots=True)
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
    #: whether the connection follows the lobby (:mod:`kamisado.web.lobby`)
    lobby: bool = False


@dataclass(eq=False, slots=True)
class Game:
    """A game in memory: its stored row, the live match and the move list."""

    row: GameRow
    match: Match
    tokens: list[str] = field(default_factory=list)
    last: LastView | None = None
    conns: set[Conn] = field(default_factory=set, repr=False)
    thinking: bool = False
    #: the action this process holds the computer's turn for (shown thinking
    #: once held: with other processes on the database, once its lease is)
    leased_seq: int = -1
    task: asyncio.Task[None] | None = field(default=None, repr=False)
    failures: int = 0  # writes refused by the store in a row
    ended: tuple[str, int | None] | None = None  # (reason, winning side) of an early end
    clock: ClockState | None = None
    #: the moves and fills in effect: the actions less endings, takebacks and
    #: the moves they took back (what the computer and the analysis replay)
    played: list[str] = field(default_factory=list)
    #: who made each of ``played`` (the mover, or the side that filled)
    movers: list[int] = field(default_factory=list)
    #: per side, since when (ms) no connection holds the seat (``None``: held)
    away_since: list[int | None] = field(default_factory=lambda: [None, None])
    #: per side letter, when (ms) the seat was last seen held through another
    #: process (several processes on one database)
    elsewhere: dict[str, int] = field(default_factory=dict)
    #: per side, the rating beside the name and its change by this game
    ratings: list[tuple[int | None, int | None]] = field(
        default_factory=lambda: [(None, None), (None, None)])
    #: the move list, worked out as the match goes on (only what is new)
    _rounds: MoveList = field(default_factory=MoveList, repr=False)
    #: held by whatever changes the game (an action, a refresh from the
    #: store): one change at a time, each stored before the next begins
    lock: asyncio.Lock = field(default_factory=asyncio.Lock, repr=False)
    #: the store could not answer whether the last action was stored: the
    #: game is read again from the store before its next action
    unsure: bool = False
    #: joins under way (the game is not let go of meanwhile)
    joining: int = 0

    @classmethod
    def build(cls, row: GameRow, tokens: list[str]) -> Game:
        """Rebuild a game by replaying its stored actions through the rules."""
        game = cls(row, Match(row.target, series=row.series, start=row.start_kpn))
        for token in tokens:
            game.apply(token)
        game.clock = row.clock  # as stored with the last action
        return game

    def fork(self) -> Game:
        """A copy of the game's rules state to try an action on: the game
        itself changes only once the action is stored (:meth:`adopt`), so
        whatever reads it meanwhile sees only what the store holds."""
        return Game(self.row, self.match.copy(), self.tokens[:], self.last, ended=self.ended,
                    clock=self.clock, played=self.played[:], movers=self.movers[:])

    def adopt(self, other: Game) -> None:
        """Take the stored state of ``other`` (the same game, rebuilt), keeping
        this game's connections."""
        self.row, self.match, self.tokens = other.row, other.match, other.tokens
        self.last = other.last
        self.ended, self.clock = other.ended, other.clock
        self.played, self.movers = other.played, other.movers

    # -- the rules ----------------------------------------------------------

    @property
    def seq(self) -> int:
        """Number of actions so far (the next action's sequence number)."""
        return len(self.tokens)

    def kinds(self) -> tuple[str, str]:
        """Who plays each seat: ``human`` or a computer level."""
        return (self.row.black, self.row.gold)

    @property
    def state(self) -> str:
        """``playing``, ``fill`` or ``over`` (an early end is over too)."""
        return OVER if self.ended else self.match.state

    def winner(self) -> int | None:
        """The match's winner: by points, or by an early end."""
        if self.ended:
            return self.ended[1]
        return self.match.winner

    def moves_made(self) -> int:
        """Moves made in the match so far (fills not counted)."""
        return sum(len(r.moves) for r in self.match.rounds)

    def to_act(self) -> int | None:
        """The side whose action the game waits for (``None`` when over)."""
        if self.ended:
            return None
        if self.match.state == PLAYING:
            return self.match.position.turn
        if self.match.state == FILL:
            return self.match.current_winner()
        return None

    def to_act_letter(self) -> str | None:
        """:meth:`to_act` as a side letter (``None`` when over)."""
        act = self.to_act()
        return None if act is None else SIDE_LETTERS[act]

    @property
    def rounds(self) -> list[RoundView]:
        """The move list, round by round, as the record's walker lists it
        (:func:`kamisado.rules.record.match_entries`); only the moves made
        since it was last worked out are worked out (:class:`MoveList`)."""
        return self._rounds.view(self.match)

    def apply(self, token: str) -> None:
        """Apply a move or fill (checked by the rules; raises ``KamisadoError``)."""
        match = self.match
        rounds_before = len(match.rounds)
        if self.ended:
            raise KamisadoError(f"{token}: the match is over ({self.ended[0]})")
        if token == "abort" or token.partition("-")[0] in ENDINGS:
            self._end(token)
        elif token.startswith("undo-"):
            self._undo(token)
        elif token in FILLS:
            side = match.current_winner()
            match.choose_fill(token)
            self.last = {"kind": "fill", "side": SIDE_LETTERS[side], "fill": token}
            self.played.append(token)
            self.movers.append(side)
        else:
            pos = match.position
            move = pos.parse_move(token) if match.state == PLAYING else Move.from_str(token)
            side = pos.turn
            # worked out on the position before the move; an illegal move
            # raises here or in push_move, before any change
            view = move_view(pos, move) if match.state == PLAYING else None
            match.push_move(move)
            assert view is not None
            outcome = match.rounds[rounds_before - 1].outcome
            self.last = {
                "kind": "move",
                "side": SIDE_LETTERS[side],
                "move": str(move),
                "push": view["push"],
                "mover": view["mover"],
                "pushed": view["pushed"],
                "entries": view["entries"],
                "passes": self._passes_after(rounds_before),
                "outcome": outcome_view(outcome),
            }
            self.played.append(str(move))
            self.movers.append(side)
        self.tokens.append(token)

    def takeback_count(self, side: int | None) -> int:
        """How many moves a takeback by ``side`` undoes: its last move of the
        round being played and every move after it (``side`` ``None``, a
        player holding both seats: the last move).  0 when there is none:
        no round being played, or no move of ``side`` in it."""
        if self.ended or self.match.state != PLAYING:
            return 0
        in_round = len(self.match.rounds[-1].moves)
        movers = self.movers[len(self.movers) - in_round:] if in_round else []
        if side is None:
            return 1 if movers else 0
        for back, mover in enumerate(reversed(movers), 1):
            if mover == side:
                return back
        return 0

    def _undo(self, token: str) -> None:
        """Apply a takeback, ``undo-b-2``: side ``b`` takes back 2 moves (its
        last and the reply); the match is rebuilt from the moves left."""
        _, letter, count = (token.split("-") + ["", ""])[:3]
        if letter not in SIDE_LETTERS or not count.isdigit() or int(count) < 1:
            raise KamisadoError(f"{token}: expected undo-b-N or undo-g-N")
        n = int(count)
        if self.match.state != PLAYING:
            raise KamisadoError(f"{token}: no round is being played (a won round stands)")
        if n > len(self.match.rounds[-1].moves):
            raise KamisadoError(f"{token}: the round has only {len(self.match.rounds[-1].moves)} moves")
        keep, movers = self.played[:-n], self.movers[:-n]
        match = Match(self.row.target, series=self.row.series, start=self.row.start_kpn)
        for t in keep:
            match.apply(t)
        self.match, self.played, self.movers = match, keep, movers
        self.last = {"kind": "takeback", "side": letter, "count": n}

    def _end(self, token: str) -> None:
        """Apply an ending action: ``resign-b``/``resign-g``, ``time-b``/``time-g``, ``abort``."""
        if self.match.state == OVER:
            raise KamisadoError(f"{token}: the match is over")
        if token == "abort":
            if self.moves_made() >= 2:
                raise KamisadoError("abort: both sides have moved; resign instead")
            self.ended = ("abort", None)
            self.last = {"kind": "end", "reason": "abort"}
            return
        kind, _, letter = token.partition("-")
        if letter not in SIDE_LETTERS:
            raise KamisadoError(f"{token}: expected {kind}-b or {kind}-g")
        loser = SIDE_LETTERS.index(letter)
        self.ended = (ENDINGS[kind], 1 - loser)
        self.last = {"kind": "end", "side": letter, "reason": ENDINGS[kind]}

    def _passes_after(self, rounds_before: int) -> list[PassView]:
        if len(self.match.rounds) > rounds_before:
            return []  # a series round ended: the new start has no passes of this move
        return passes_view(self.match.position)

    # -- the views -------------------------------------------------------------

    def seat_names(self) -> tuple[str, str]:
        """Display names: the given name, else the level, else the side."""
        names = []
        for side, (kind, name) in enumerate(
            ((self.row.black, self.row.black_name), (self.row.gold, self.row.gold_name))
        ):
            names.append(name or (f"Computer ({kind})" if kind != "human" else ("Black", "Gold")[side]))
        return names[0], names[1]

    def held_here(self) -> tuple[bool, bool]:
        """Whether a connection to this process holds each seat."""
        held = {s for c in self.conns for s in c.seats}
        return (0 in held, 1 in held)

    def online_seats(self) -> tuple[bool, bool]:
        """Whether someone holding each seat is connected (to this process,
        or to another one that still lives: :attr:`elsewhere`)."""
        here = self.held_here()
        fresh = now_ms() - PRESENCE_TTL_MS
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

    def claimable(self) -> bool:
        """Whether a player may claim the win when the opponent is away: an
        online game between two people with a real-time clock."""
        return bool(self.row.online and self.kinds() == ("human", "human")
                    and self.row.clock_initial is not None and not self.row.clock_days)

    def offer(self) -> tuple[str, int] | None:
        """The offer pending: (``takeback`` or ``rematch``, the side that made it)."""
        offer = self.row.offer
        if not offer:
            return None
        kind, _, letter = offer.partition("-")
        return (kind, SIDE_LETTERS.index(letter)) if letter in SIDE_LETTERS else None

    def view(self, claim_after_ms: int = int(CLAIM_AFTER_S * 1000)) -> StateFrame:
        """The game's state frame (each connection's ``you`` is added as it is sent)."""
        match = self.match
        online = self.online_seats()
        names = self.seat_names()
        now = now_ms()
        seats: dict[str, SeatView] = {}
        for side, kind in enumerate(self.kinds()):
            away = self.away_since[side]
            rating, change = self.ratings[side]
            seats[SIDE_LETTERS[side]] = {
                "kind": kind,
                "name": names[side],
                "online": online[side] if kind == "human" else True,
                "away_ms": None if kind != "human" or online[side] or away is None else max(0, now - away),
                "player": self.row.owners[side] if kind == "human" else None,
                "rating": rating,
                "rating_change": change,
            }
        offer = self.offer()
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
            clock=None if self.clock is None else cast(ClockView, self.clock.view(now_ms())),
            ended=None if self.ended is None else {
                "reason": self.ended[0],
                "winner": None if self.ended[1] is None else SIDE_LETTERS[self.ended[1]],
            },
            rated=self.row.rated,
            offer=None if offer is None else {"kind": offer[0], "by": SIDE_LETTERS[offer[1]]},
            rematch=self.row.rematch,
            claim_after_ms=claim_after_ms if self.claimable() else None,
            takeback={SIDE_LETTERS[side]: self.takeback_count(side) for side in (0, 1)},
        )

    def thinking_elsewhere(self) -> bool:
        """Whether another process holds the lease on the computer's move
        the game waits for (several processes on one database: it thinks
        there, and this process shows it thinking too)."""
        row, act = self.row, self.to_act()
        return (row.thinker is not None and act is not None and self.kinds()[act] != "human"
                and (row.think_until or 0) > now_ms())

    def record(self) -> Record:
        """The game as a match record (``kamisado.rules.record``)."""
        date = datetime.datetime.fromtimestamp(self.row.created, datetime.UTC).date().isoformat()
        black, gold = self.seat_names()
        end = None
        if self.ended is not None and self.ended[1] is not None:  # resignation or time
            loser = ("Black", "Gold")[1 - self.ended[1]]
            detail = {
                "resignation": f"{loser} resigned",
                "time": f"{loser}'s time ran out",
                "abandonment": f"{loser} left the game",
            }[self.ended[0]]
            end = GameEnd(self.ended[1], self.ended[0], detail)
        return Record.new(self.match, black=black, gold=gold, date=date, end=end)


class JobRunner(Protocol):
    """Runs the engine's work somewhere else than this process's pool (a
    job queue: :mod:`kamisado.web.jobs`): ``queue`` is ``moves`` (computer
    moves) or ``analysis``, kept apart so analysis never starves the
    computer opponents."""

    async def run(self, queue: str, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)``, run by a worker; its result."""
        ...

    async def close(self) -> None:
        """Let go of the queue."""
        ...


class Hub:
    """Every live game, the connections to them, and the store behind them.

    The engine's work (computer moves, analysis) runs in ``pool``, a process
    pool of this process, or, given ``jobs``, on a job queue's workers."""

    def __init__(
        self, store: Store, pool_factory: Callable[[], Executor] | None, jobs: JobRunner | None = None
    ) -> None:
        self.store = store
        self.pool_factory = pool_factory
        self.pool: Executor | None = pool_factory() if pool_factory and jobs is None else None
        self.jobs = jobs
        self.games: dict[str, Game] = {}
        self.rng = random.SystemRandom()
        self._tasks: set[asyncio.Task[None]] = set()
        self._flag_task: asyncio.Task[None] | None = None
        self._listen_task: asyncio.Task[None] | None = None
        #: the lobby's handler of other processes' lobby changes
        #: (:meth:`kamisado.web.lobby.Lobby.bind`): ``(origin, what)``
        self.on_lobby: Callable[[str, str], Awaitable[None]] | None = None
        #: how long a real-time opponent must be away before a claim (seconds)
        self.claim_after_s = CLAIM_AFTER_S
        #: games whose held seats changed since the store last heard (several
        #: processes on one database): written by one task, in order
        self._presence_due: set[str] = set()
        self._presence_wake: asyncio.Event | None = None

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` as a task of the hub's (kept until done)."""
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _locked(self, game: Game, fn: Callable[[Game], Awaitable[None]]) -> None:
        """Run ``fn(game)`` in a task of its own, holding the game's lock."""
        async def run() -> None:
            async with game.lock:
                await fn(game)
        self._spawn(run())

    # -- games -----------------------------------------------------------------

    async def create(
        self, msg: CreateMsg, player: str | None = None, registered: bool = False, name: str = ""
    ) -> tuple[Game, dict[str, str]]:
        """Create and store a new game; returns it and the seats' secret tokens.

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
            seed=self.rng.randrange(1 << 30),
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
        await self._store_new(row)
        return Game.build(row, []), tokens  # kept in memory once someone joins it

    async def create_from_record(self, rec: Record, player: str | None = None) -> tuple[Game, dict[str, str]]:
        """Store an uploaded record as a local (hotseat) game that can go on
        (both seats the uploading player's)."""
        match = rec.match
        tokens: list[str] = []
        for i, rnd in enumerate(match.rounds):
            if i and rnd.fill is not None:
                tokens.append(rnd.fill)
            tokens.extend(str(m) for m in rnd.moves)
        token = new_id(18)
        row = GameRow.new(
            new_id(),
            target=match.target,
            series=match.series,
            start_kpn=match.rounds[0].start.kpn(),
            black_name=rec.headers.get("Black", "")[:40],
            gold_name=rec.headers.get("Gold", "")[:40],
            black_token=token,
            gold_token=token,
            black_player=player,
            gold_player=player,
        )
        game = Game.build(row, tokens)  # replays through the rules before storing
        row.state = game.match.state
        act = game.to_act()
        row.to_act = None if act is None else SIDE_LETTERS[act]
        row.black_points, row.gold_points = game.match.points
        row.actions = len(tokens)
        await self._store_new(row, tokens)
        return game, {"b": token, "g": token}

    async def _store_new(self, row: GameRow, tokens: list[str] | None = None) -> None:
        try:
            await self.store.call(self.store.create, row, tokens)
        except Exception:
            log.exception("could not store new game %s", row.id)
            raise GameError("storage", "the game could not be saved; try again") from None

    async def load(self, game_id: str) -> Game | None:
        """A game by id: the one in memory, else rebuilt from the store (and
        not kept: see :meth:`_hold`).  ``None`` when there is no such game;
        :class:`GameError` ``storage`` when the store cannot be read."""
        game = self.games.get(game_id)
        if game is not None:
            return game
        try:
            loaded = await self.store.call(self.store.load, game_id)
        except Exception:
            log.exception("could not load game %s", game_id)
            raise GameError("storage", f"game {game_id}: the store cannot be read; try again") from None
        return None if loaded is None else Game.build(*loaded)

    async def _hold(self, game_id: str) -> Game | None:
        """The game in memory (read from the store when it is not), counted
        as joining (``game.joining``) so it is not let go of until the
        caller is done: the caller counts it down and calls :meth:`_evict`.
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
                    await self._load_ratings(game)
                    await self._load_elsewhere(game)
                except BaseException:
                    game.joining -= 1
                    self._evict(game)
                    raise
                return game
        game.joining += 1
        return game

    async def _load_elsewhere(self, game: Game) -> bool:
        """Read who holds the game's seats through other processes; returns
        whether that changed who counts as connected."""
        if not self.store.shared:
            return False
        before = game.online_seats()
        try:
            game.elsewhere = await self.store.call(self.store.presence_elsewhere, game.row.id)
        except Exception:
            log.exception("could not read who is connected to game %s", game.row.id)
            return False
        return game.online_seats() != before

    def _share_presence(self, game: Game) -> None:
        """Tell the other processes (soon, in order) which seats of the game
        this one holds."""
        if not self.store.shared:
            return
        self._presence_due.add(game.row.id)
        if self._presence_wake is None:
            self._presence_wake = asyncio.Event()
            self._spawn(self._write_presence(self._presence_wake))
        self._presence_wake.set()

    async def _write_presence(self, wake: asyncio.Event) -> None:
        """Write the held seats of the games :meth:`_share_presence` named,
        as they are when written (one task: the last write is the latest)."""
        while True:
            await wake.wait()
            wake.clear()
            due, self._presence_due = self._presence_due, set()
            held: dict[str, tuple[bool, bool]] = {}
            for game_id in due:
                game = self.games.get(game_id)
                held[game_id] = (False, False) if game is None else game.held_here()
            try:
                await self.store.call(self.store.set_presence, held, now_ms())
            except Exception:
                log.exception("could not store who is connected to %d games", len(held))

    def view(self, game: Game) -> StateFrame:
        """The game's state frame, with this server's claim time."""
        return game.view(int(self.claim_after_s * 1000))

    # -- ratings -----------------------------------------------------------------

    async def _load_ratings(self, game: Game) -> None:
        """The ratings beside a game's names: a computer level's fixed rating;
        in a rated game each player's for its speed and, once it is over,
        the change it made (a rated game over but not yet rated, because
        the store failed then, is rated now)."""
        row = game.row
        got: list[tuple[int | None, int | None]] = [(None, None), (None, None)]
        for side, kind in enumerate(game.kinds()):
            if kind != "human":
                got[side] = (computer_rating(kind), None)
        speed = speed_of(row.clock_days, row.clock_initial)
        players = [p for p in row.owners if p is not None]
        if row.rated and speed is not None and players:
            try:
                if game.state == OVER:
                    await self._rate(game)
                    changes = await self.store.call(self.store.rating_changes, row.id)
                else:
                    changes = {}
                now = await self.store.call(self.store.ratings_of, players, speed)
            except Exception:
                log.exception("could not read the ratings of game %s", row.id)
                return
            for side, player in enumerate(row.owners):
                if player is None:
                    continue
                if player in changes:
                    after, change = changes[player]
                    got[side] = (round(after), round(change))
                else:
                    got[side] = (round(now.get(player, Rating()).rating), None)
        game.ratings = got

    async def _rate(self, game: Game) -> bool:
        """Update the players' ratings for a rated game that ended with a
        winner (at most once: :meth:`Store.rate`)."""
        row = game.row
        winner = game.winner()
        speed = speed_of(row.clock_days, row.clock_initial)
        if not row.rated or speed is None or winner is None or game.state != OVER:
            return False
        won, lost = row.owners[winner], row.owners[1 - winner]
        if won is None or lost is None or won == lost:
            return False
        return await self.store.call(self.store.rate, row.id, speed, won, lost)

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

    # -- connections --------------------------------------------------------------

    async def join(self, conn: Conn, msg: JoinMsg) -> None:
        """Attach a connection to a game, holding the seats its player holds
        and, with a token, the seat(s) the token claims (:meth:`seats_for`).

        A token that gives the connection nothing of what it names is not an
        error that loses anything: the connection gets the state (with the
        seats its player holds, if any) and then an informational error
        (``seat_taken``, ``seat_kept``, ``bad_token``).  A client without a
        player that names no seat of the game gets ``bad_token`` alone, as
        before players.  When the store cannot be read the connection gets a
        ``storage`` error and is closed (:data:`REJOIN`): the client tries
        again later."""
        try:
            game = await self._hold(msg.game)
        except GameError as exc:
            self.leave(conn)
            await self._close(conn, exc)
            return
        if game is None:
            raise GameError("no_game", f"join: no game {msg.game!r}")
        try:
            async with game.lock:
                owners = game.row.owners
                seats, note = await self.seats_for(game, conn, msg.token)
                if game.row.owners != owners:  # a seat was claimed: its rating goes beside its name
                    await self._load_ratings(game)
                if conn.game is game:
                    game.conns.discard(conn)  # joining again: the join's own frame says it all
                elif conn.game is not None:
                    self.leave(conn)
                before = game.held_here()
                conn.game, conn.seats = game, seats
                game.conns.add(conn)
                if game.held_here() != before:
                    self._share_presence(game)
                game.mark_presence(now_ms())
                self._kick(game)  # before the join's frame, which then shows it thinking
                if seats:
                    await self.broadcast(game)  # the others see the seat come online
                else:
                    await self.send_state(game, conn)
        finally:
            game.joining -= 1
            self._evict(game)
        if note is not None:
            await self.error(conn, *note)

    async def seats_for(
        self, game: Game, conn: Conn, token: str | None
    ) -> tuple[tuple[int, ...], tuple[str, str] | None]:
        """The seats a joining connection holds, and the informational error
        to send after the state (``None``: all went as asked).

        - The seats its player holds, in any browser.
        - With a token: the token's seat(s) when unclaimed are claimed for
          the player (once: :meth:`Store.claim`) and held; a client without
          a player holds them unclaimed.  A seat already the player's is
          held.  A seat another player holds is not (``seat_taken``).  In an
          online game, a player holding one seat never claims the other one
          with its invite token (``seat_kept``): a link to the game never
          moves anyone off their seat.  A token of no seat: ``bad_token``.
        """
        row = game.row
        player = conn.player
        mine = {s for s, owner in enumerate(row.owners) if player is not None and owner == player}
        if token is None:
            return tuple(sorted(mine)), None
        named = {
            s
            for s, t in enumerate((row.black_token, row.gold_token))
            if t is not None and secrets.compare_digest(t, token)
        }
        if not named:
            if player is None:
                raise GameError("bad_token", "join: this token holds no seat of this game")
            return tuple(sorted(mine)), ("bad_token", "join: this token holds no seat of this game")
        free = {s for s in named if row.owners[s] is None}
        held = set(mine)
        note: tuple[str, str] | None = None
        if free and row.rated and not conn.registered:
            return tuple(sorted(mine)), ("account_needed",
                                         "join: a rated game's seat needs an account; sign up or sign in, then open the link again")
        if free and row.online and mine and not (free & mine):
            note = ("seat_kept", "join: you hold a seat of this game already; this invite is for your opponent")
            free = set()
        for side in sorted(free):
            if player is None:
                held.add(side)  # a client without a player: held while connected, not claimed
                continue
            try:
                holder = await self.store.call(
                    self.store.claim, row.id, side, player, conn.name if row.online else "")
            except Exception:
                log.exception("could not claim a seat of game %s", row.id)
                raise GameError("storage", "join: the seat could not be claimed; try again") from None
            if holder == player:
                held.add(side)
                if conn.name and row.online and not (row.black_name, row.gold_name)[side]:
                    if side == 0:
                        row.black_name = conn.name
                    else:
                        row.gold_name = conn.name
            if side == 0:
                row.black_player = holder
            else:
                row.gold_player = holder
        taken = {s for s in named if row.owners[s] not in (None, player)}
        if taken and note is None and not (named & held):
            seat = " and ".join(("Black", "Gold")[s] for s in sorted(taken))
            note = ("seat_taken", f"join: {seat} is another player's seat; you are "
                    + ("watching" if not held else "on your own seat"))
        return tuple(sorted(held)), note

    def moved_games(self, old: str, new: str) -> None:
        """The store gave every seat of player ``old`` to ``new`` (a sign-in):
        the games in memory follow."""
        for game in self.games.values():
            if game.row.black_player == old:
                game.row.black_player = new
            if game.row.gold_player == old:
                game.row.gold_player = new

    async def send_state(self, game: Game, conn: Conn) -> None:
        """Send the game's state to one connection."""
        await self._send(conn, self.view(game).to_json([SIDE_LETTERS[s] for s in conn.seats]))

    def leave(self, conn: Conn) -> None:
        """Detach a connection; when it held a seat the others hear of it."""
        game = conn.game
        if game is None:
            return
        game.conns.discard(conn)
        held = conn.seats
        conn.game, conn.seats = None, ()
        if held:
            self._share_presence(game)
        game.mark_presence(now_ms())
        if not game.conns:
            self._locked(game, self._pause_clock)  # a computer-against-computer game nobody watches
        self._evict(game)
        if held:
            self._spawn(self.broadcast(game))

    async def _locked_action(self, conn: Conn, fn: Callable[[Conn, Any], Awaitable[None]], msg: Any) -> None:
        """Handle a message of a connection on a game (``fn(conn, msg)``)
        holding the game's lock: one change of a game at a time, each
        checked against the game as the store has it."""
        game = conn.game
        if game is None:
            raise GameError("not_joined", "join a game first")
        async with game.lock:
            if conn.game is not game:
                raise GameError("not_joined", "join a game first")
            if game.unsure:
                await self._resync(game)
            await fn(conn, msg)

    async def _resync(self, game: Game) -> None:
        """Read a game again from the store after the store could not say
        whether its last action was stored (``game.unsure``); the others
        hear of any change.  :class:`GameError` ``storage`` while the store
        cannot be read (lock held)."""
        try:
            loaded = await self.store.call(self.store.load, game.row.id)
        except Exception:
            log.exception("could not reload game %s", game.row.id)
            loaded = None
        if loaded is None:
            raise GameError("storage", "the game's database cannot be reached; try again in a moment")
        seq = game.seq
        game.adopt(Game.build(*loaded))
        game.unsure = False
        if game.seq != seq:
            self._kick(game)
            await self.broadcast(game)

    async def end(self, conn: Conn, msg: ResignMsg | AbortMsg) -> None:
        """A resignation or an abort from a seat holder: stored, then broadcast."""
        await self._locked_action(conn, self._end_action, msg)

    async def _end_action(self, conn: Conn, msg: ResignMsg | AbortMsg) -> None:
        game = conn.game
        what = "resign" if isinstance(msg, ResignMsg) else "abort"
        if game is None:
            raise GameError("not_joined", "join a game first")
        if not conn.seats:
            raise GameError("not_your_turn", f"{what}: a spectator holds no seat")
        if msg.seq is not None and msg.seq != game.seq:
            raise GameError("stale", f"{what}: the game is at action {game.seq}, not {msg.seq}")
        if game.state == OVER:
            raise GameError("over", f"{what}: the match is over")
        if isinstance(msg, AbortMsg):
            token = "abort"
        else:
            # holding both seats (hotseat): the side whose action the game awaits resigns
            act = game.to_act()
            side = conn.seats[0] if len(conn.seats) == 1 or act is None else act
            token = f"resign-{SIDE_LETTERS[side]}"
        await self._play(game, token)
        await self.broadcast(game)

    def _seat_holder(self, conn: Conn, what: str) -> Game:
        game = conn.game
        if game is None:
            raise GameError("not_joined", "join a game first")
        if not conn.seats:
            raise GameError("not_your_turn", f"{what}: a spectator holds no seat")
        return game

    def _alone(self, game: Game, conn: Conn) -> bool:
        """Whether the connection needs nobody's consent: it holds both seats
        (hotseat) or plays the computer."""
        return len(conn.seats) == 2 or "human" not in (game.kinds()[1 - conn.seats[0]],)

    async def _set_offer(self, game: Game, offer: str | None) -> None:
        try:
            stored = await self.store.call(self.store.set_offer, game.row.id, game.seq, offer)
        except Exception:
            log.exception("could not store an offer in game %s", game.row.id)
            raise GameError("storage", "the offer could not be saved; try again") from None
        if not stored:
            raise GameError("stale", f"the game has moved on (at action {game.seq})")
        game.row.offer = offer
        await self.broadcast(game)

    async def _answer(self, game: Game, conn: Conn, kind: str, action: str) -> tuple[int, int] | None:
        """The offer part of a takeback or rematch message from one seat of a
        game between people: make (or, when the other side offered the
        same, accept), decline or withdraw.  Returns ``(side that offered,
        side accepting)`` when an offer was accepted, else ``None``."""
        mine = conn.seats[0]
        offer = game.offer()
        theirs = offer if offer is not None and offer[0] == kind and offer[1] != mine else None
        if action == "decline":
            if offer is None or offer[0] != kind:
                raise GameError("no_offer", f"{kind}: no {kind} offer to decline")
            await self._set_offer(game, None)
            return None
        if action == "accept" or theirs is not None:
            if theirs is None:
                raise GameError("no_offer", f"{kind}: the opponent has offered no {kind}")
            return theirs[1], mine
        if offer is not None and offer[0] == kind:
            raise GameError("not_allowed", f"{kind}: you have offered it already; wait for the answer")
        await self._set_offer(game, f"{kind}-{SIDE_LETTERS[mine]}")
        return None

    async def takeback(self, conn: Conn, msg: TakebackMsg) -> None:
        """Take back moves of the round being played: at once when the
        connection holds both seats or plays the computer, else by an offer
        the opponent accepts (docs/web.md, "Game controls")."""
        await self._locked_action(conn, self._takeback, msg)

    async def _takeback(self, conn: Conn, msg: TakebackMsg) -> None:
        game = self._seat_holder(conn, "takeback")
        if game.state == OVER:
            raise GameError("over", "takeback: the match is over")
        if game.match.state != PLAYING:
            raise GameError("not_allowed", "takeback: the round is over, and a won round stands")
        if self._alone(game, conn):
            if msg.action != "offer":
                raise GameError("no_offer", f"takeback: nothing to {msg.action} here")
            side = None if len(conn.seats) == 2 else conn.seats[0]
        else:
            offer = game.offer()
            answering = offer is not None and offer[0] == "takeback" and offer[1] != conn.seats[0]
            if msg.action == "offer" and not answering and not game.takeback_count(conn.seats[0]):
                raise GameError("not_allowed", "takeback: you have no move to take back in this round")
            answered = await self._answer(game, conn, "takeback", msg.action)
            if answered is None:
                return
            side = answered[0]
        count = game.takeback_count(side)
        if not count:
            raise GameError("not_allowed", "takeback: no move to take back in this round")
        if game.task is not None and not game.task.done():
            game.task.cancel()  # the computer was answering the move taken back
            game.thinking = False
        letter = SIDE_LETTERS[side if side is not None else game.movers[-1]]
        await self._play(game, f"undo-{letter}-{count}")
        await self.broadcast(game)

    async def rematch(self, conn: Conn, msg: RematchMsg) -> None:
        """Once the match is over, the same game again with the colours
        swapped: at once alone (hotseat, the computer), else by offer and
        acceptance.  Every connection holding a seat is sent the new game."""
        await self._locked_action(conn, self._rematch, msg)

    async def _rematch(self, conn: Conn, msg: RematchMsg) -> None:
        game = self._seat_holder(conn, "rematch")
        if game.state != OVER:
            raise GameError("not_allowed", "rematch: the match is not over")
        if game.row.rematch is None:
            if self._alone(game, conn):
                if msg.action != "offer":
                    raise GameError("no_offer", f"rematch: nothing to {msg.action} here")
            elif await self._answer(game, conn, "rematch", msg.action) is None:
                return
            made = await self._make_rematch(game)
        else:
            made = game.row.rematch
        game.row.rematch, game.row.offer = made, None
        await self.broadcast(game)
        await self._started(game, made)

    async def _make_rematch(self, game: Game) -> str:
        old = game.row
        tokens: list[str | None] = [None, None]
        shared = new_id(18)
        kinds = (old.gold, old.black)  # the colours swapped
        for side, kind in enumerate(kinds):
            if kind == "human":
                tokens[side] = new_id(18) if old.online else shared
        row = GameRow.new(
            new_id(),
            target=old.target, series=old.series,
            black=old.gold, gold=old.black,
            black_name=old.gold_name, gold_name=old.black_name,
            black_token=tokens[0], gold_token=tokens[1],
            black_player=old.gold_player, gold_player=old.black_player,
            online=old.online, seed=self.rng.randrange(1 << 30), delay=old.delay,
            to_act="b", rated=old.rated,
            clock_initial=old.clock_initial, clock_increment=old.clock_increment,
            clock_days=old.clock_days,
        )
        if row.control is not None:
            row.set_clock(ClockState.start(row.control))
        try:
            made = await self.store.call(self.store.create_rematch, old.id, row)
        except Exception:
            log.exception("could not store the rematch of game %s", old.id)
            raise GameError("storage", "rematch: the new game could not be saved; try again") from None
        if made is None:
            raise GameError("no_game", f"rematch: no game {old.id!r}")
        return made

    async def _started(self, game: Game, new: str) -> None:
        """Tell every connection holding a seat of ``game`` about its rematch
        ``new`` (with the tokens of the seats a connection that is no player
        held, now of the other colour)."""
        row = None
        for conn in list(game.conns):
            if not conn.seats:
                continue
            tokens: dict[str, str] = {}
            if conn.player is None:
                if row is None:
                    loaded = await self.store.call(self.store.load, new)
                    row = None if loaded is None else loaded[0]
                if row is not None:
                    for side in conn.seats:
                        token = (row.black_token, row.gold_token)[1 - side]
                        if token is not None:
                            tokens[SIDE_LETTERS[1 - side]] = token
            await self._send(conn, StartedFrame(new, tokens).to_json())

    async def claim(self, conn: Conn, msg: ClaimMsg) -> None:
        """Claim the win of a real-time game between people whose opponent
        has been away (no connection on their seat) ``claim_after_s``."""
        await self._locked_action(conn, self._claim, msg)

    async def _claim(self, conn: Conn, msg: ClaimMsg) -> None:
        game = self._seat_holder(conn, "claim")
        if game.state == OVER:
            raise GameError("over", "claim: the match is over")
        if not game.claimable() or len(conn.seats) != 1:
            raise GameError("not_allowed", "claim: only in an online real-time game between two people")
        other = 1 - conn.seats[0]
        if await self._load_elsewhere(game) or self.store.shared:
            game.mark_presence(now_ms())  # as the store has it now
        away = game.away_since[other]
        if game.online_seats()[other] or away is None:
            raise GameError("not_allowed", "claim: your opponent is connected")
        left = self.claim_after_s * 1000 - (now_ms() - away)
        if left > 0:
            raise GameError("not_allowed", f"claim: your opponent left {(now_ms() - away) / 1000:.0f} s ago; "
                            f"you can claim the win in {left / 1000:.0f} s")
        await self._play(game, f"abandon-{SIDE_LETTERS[other]}")
        await self.broadcast(game)

    async def act(self, conn: Conn, msg: MoveMsg | FillMsg) -> None:
        """A move or fill from a connection: checked, stored, then broadcast."""
        await self._locked_action(conn, self._act, msg)

    async def _act(self, conn: Conn, msg: MoveMsg | FillMsg) -> None:
        game = conn.game
        if game is None:
            raise GameError("not_joined", "join a game first")
        what = msg.move if isinstance(msg, MoveMsg) else msg.direction
        if not conn.seats:
            raise GameError("not_your_turn", f"{what}: a spectator holds no seat")
        # a move sent against an old position is stale, whoever's turn it is now
        if msg.seq is not None and msg.seq != game.seq:
            raise GameError("stale", f"{what}: the game is at action {game.seq}, not {msg.seq}")
        side = game.to_act()
        if side is None:
            raise GameError("over", f"{what}: the match is over")
        if side not in conn.seats:
            raise GameError(
                "not_your_turn",
                f"{what}: it is {('Black', 'Gold')[side]}'s turn and you do not hold that seat",
            )
        if isinstance(msg, MoveMsg) and game.match.state != PLAYING:
            raise GameError("illegal", f"{what}: the round is over; choose to fill left or right")
        if isinstance(msg, FillMsg) and game.match.state != FILL:
            raise GameError("illegal", f"{what}: a fill is chosen only after a round ends")
        await self._play(game, what)
        await self.broadcast(game)

    async def _play(self, game: Game, token: str) -> None:
        """Check an action with the rules and store it; only then does the
        game take it (its lock held: tried on a :meth:`Game.fork`, so
        nothing reads an action the store does not hold).  When the store
        refuses it the game stays as the store has it (:meth:`_recover`)
        and ``storage`` (or ``stale``, when the store had moved on) is
        raised."""
        seq = game.seq
        now = now_ms()
        clock = game.clock
        if clock is not None and not token.startswith("time-"):
            flag = clock.flagged(now)
            if flag is not None:  # too late: the flag fell first, and that is what is stored
                await self._play(game, f"time-{flag}")
                await self.broadcast(game)
                raise GameError("time", f"{token}: {('Black', 'Gold')[SIDE_LETTERS.index(flag)]}'s time ran out")
        trial = game.fork()
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
        try:
            await self.store.call(
                self.store.append,
                game.row.id, seq, token, state=trial.state,
                points=(trial.match.points[0], trial.match.points[1]),
                clock=trial.clock, ended=None if trial.ended is None else trial.ended[0],
                to_act=trial.to_act_letter(),
            )
        except asyncio.CancelledError:
            game.unsure = True  # the server stops: whether it was stored is not known here
            raise
        except Exception:
            log.exception("could not store action %d of game %s", seq, game.row.id)
            game.failures += 1
            await self._recover(game, seq, token)  # raises, unless it was stored
        else:
            game.adopt(trial)
        game.failures = 0
        game.row.offer = None  # stored: every action ends the offer pending
        if game.state == OVER and game.row.rated:
            try:
                await self._rate(game)
            except Exception:  # the game is stored: it is rated when next loaded
                log.exception("could not rate game %s", game.row.id)
            await self._load_ratings(game)
        self._kick(game)

    async def _recover(self, game: Game, seq: int, token: str) -> None:
        """After action ``seq`` (``token``) failed to store: read the game
        again from the store (it may have been stored after all, the commit
        done but its answer lost, or another process may have stored
        another action first).  Returns when it was stored; otherwise
        raises the refusal.  When the store cannot even be read the game
        stays as it was, marked ``unsure``: it is read again before its
        next action (:meth:`_resync`)."""
        try:
            loaded = await self.store.call(self.store.load, game.row.id)
            fresh = None if loaded is None else Game.build(*loaded)
        except Exception:
            log.exception("could not reload game %s", game.row.id)
            fresh = None
        if fresh is None:
            game.unsure = True
            raise GameError("storage", f"{token}: the move could not be saved (the database cannot be "
                            "reached); try again in a moment")
        game.unsure = False
        game.adopt(fresh)
        if game.seq > seq and game.tokens[seq] == token:
            return  # stored after all: the caller announces it
        if game.seq > seq:  # another writer was first: everyone catches up
            self._kick(game)
            await self.broadcast(game)
            raise GameError("stale", f"{token}: the game has moved on (at action {game.seq})")
        raise GameError("storage", f"{token}: the move could not be saved; try again")

    async def _close(self, conn: Conn, error: GameError) -> None:
        """Send an error to a connection and close it (:data:`REJOIN`)."""
        await self.error(conn, error.code, str(error))
        if conn.close is not None:
            with contextlib.suppress(Exception):
                await conn.close(REJOIN, "rejoin: the game is reloaded from the store")

    async def broadcast(self, game: Game) -> None:
        """Send the game's state to every connection, each with its own seats."""
        if not game.conns:
            return
        view = self.view(game)  # written once: only each connection's seats differ
        frames: dict[tuple[int, ...], str] = {}
        sends = []
        for conn in list(game.conns):
            frame = frames.get(conn.seats)
            if frame is None:
                frame = frames[conn.seats] = view.to_json([SIDE_LETTERS[s] for s in conn.seats])
            sends.append(self._send(conn, frame))
        await asyncio.gather(*sends)

    def _evict(self, game: Game) -> None:
        """Forget a game nobody is connected to (it is all in the store)."""
        if not game.conns and not game.thinking and self.games.get(game.row.id) is game:
            del self.games[game.row.id]

    async def _send(self, conn: Conn, frame: str) -> None:
        with contextlib.suppress(Exception):
            await conn.send_text(frame)

    async def error(self, conn: Conn, code: str, message: str) -> None:
        """Send an error frame to one connection."""
        await self._send(conn, ErrorFrame(code, message).to_json())

    # -- the computer -------------------------------------------------------------

    def _kick(self, game: Game) -> None:
        """Start the computer's move if the game waits for one.  A
        computer-against-computer game thinks only while someone watches: it
        pauses after the move it is thinking about and goes on when someone
        joins (:meth:`join` kicks).  A computer facing a person answers even
        when the person has left (its clock may be running)."""
        side = game.to_act()
        if side is None or game.kinds()[side] == "human" or game.thinking or not self.can_think:
            return
        if not game.conns and "human" not in game.kinds():
            self._locked(game, self._pause_clock)
            return
        game.thinking = True
        if not self.store.shared:  # nobody else thinks about it: shown thinking at once
            game.leased_seq = game.seq
        game.task = asyncio.get_running_loop().create_task(self._think(game, side))

    async def _take_turn(self, game: Game) -> bool:
        """Whether this process is to think about the game's computer move:
        with other processes on the database, the one holding the lease."""
        if not self.store.shared:
            return True
        now = now_ms()
        try:
            return await self.store.call(self.store.take_turn, game.row.id, game.seq, now + THINK_LEASE_MS, now)
        except Exception:
            log.exception("could not take the computer's turn in game %s", game.row.id)
            return False

    async def _pause_clock(self, game: Game) -> None:
        """Stop the clock of a computer-against-computer game nobody watches
        (it pauses: no flag falls while nobody can see it)."""
        clock = game.clock
        if clock is None or clock.running is None or "human" in game.kinds() or game.state == OVER:
            return
        if game.conns or game.thinking:  # someone came back meanwhile
            return
        await self._store_clock(game, clock.stop(now_ms()))

    async def _resume_clock(self, game: Game) -> None:
        """Start again the clock of a paused computer-against-computer game
        (after the first move a clock always runs until the match is over)."""
        clock, act = game.clock, game.to_act_letter()
        if clock is None or clock.running is not None or act is None or not game.seq or "human" in game.kinds():
            return
        await self._store_clock(game, clock.begin(act, now_ms()))

    async def _store_clock(self, game: Game, clock: ClockState) -> None:
        try:
            if await self.store.call(self.store.set_clock, game.row.id, game.seq, clock):
                game.clock = clock
                game.row.set_clock(clock)
        except Exception:  # the clock keeps its stored state; the game goes on
            log.exception("could not store the clock of game %s", game.row.id)

    def renew_pool(self, broken: Executor | None) -> None:
        """Replace a broken process pool (a worker died) with a fresh one."""
        if self.pool is broken and self.pool_factory is not None:
            log.warning("the computer's process pool broke: starting a new one")
            if broken is not None:
                broken.shutdown(wait=False, cancel_futures=True)
            self.pool = self.pool_factory()

    @property
    def can_think(self) -> bool:
        """Whether this server runs the engine (a pool or a job queue)."""
        return self.pool is not None or self.jobs is not None

    async def run_in_pool(self, fn: Callable[..., Any], *args: Any, queue: str = "moves") -> Any:
        """Run ``fn(*args)`` in the process pool (renewed once if it broke),
        or on the job queue's ``queue`` when there is one."""
        if self.jobs is not None:
            return await self.jobs.run(queue, fn, *args)
        loop = asyncio.get_running_loop()
        for attempt in (1, 2):
            pool = self.pool
            if pool is None:
                raise GameError("no_engine", "this server runs without the computer")
            try:
                return await loop.run_in_executor(pool, fn, *args)
            except BrokenExecutor:
                self.renew_pool(pool)
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    async def _think(self, game: Game, side: int) -> None:
        seq = game.seq
        try:
            if self.store.shared:
                if not await self._take_turn(game):  # another process thinks about it
                    game.thinking = False
                    self._evict(game)
                    return
                if game.seq == seq:
                    game.leased_seq = seq
                    await self.broadcast(game)  # this process's connections see it thinking
            async with game.lock:
                if game.seq == seq:
                    await self._resume_clock(game)
            log.info("game %s: the computer thinks about action %d", game.row.id, seq)
            if game.failures:  # the store refused the last write: give it time
                await asyncio.sleep(min(RETRY_MAX_S, RETRY_S * 2 ** (game.failures - 1)))
            if game.row.delay:
                await asyncio.sleep(game.row.delay)
            token = await self.run_in_pool(
                worker.computer_action,
                game.row.target,
                game.row.series,
                game.row.start_kpn,
                list(game.played),  # the moves in effect (no takebacks, no endings)
                game.kinds()[side],
                game.row.seed + seq,
            )
        except asyncio.CancelledError:
            game.thinking = False
            raise
        except Exception:
            log.exception("computer move failed in game %s", game.row.id)
            game.thinking = False
            game.failures += 1  # a broken pool or an unreachable queue: think again, after a pause
            if game.conns and self.games.get(game.row.id) is game:
                self._kick(game)
            self._evict(game)
            return
        async with game.lock:
            game.thinking = False
            if game.seq != seq or self.games.get(game.row.id) is not game:
                self._evict(game)
                return
            try:
                await self._play(game, token)
            except GameError as exc:
                log.warning("computer action %s refused in game %s: %s", token, game.row.id, exc)
                if exc.code == "storage" and game.conns and self.games.get(game.row.id) is game:
                    self._kick(game)  # think again, after a pause (game.failures)
                self._evict(game)
                return
            await self.broadcast(game)
        self._evict(game)

    # -- flags ----------------------------------------------------------------

    def start(self) -> None:
        """Start watching the clocks (the server calls it once it runs), and
        the computer in every game where a person waits for its move (it was
        thinking when the server stopped)."""
        task = asyncio.get_running_loop().create_task(self._flags())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        self._flag_task = task
        if self.store.shared:  # other processes serve these games too: hear of their changes
            self._listen_task = asyncio.get_running_loop().create_task(self._listen())
        if self.can_think:
            self._spawn(self._answer_waiting())

    async def _answer_waiting(self) -> None:
        """Start the computer in every game where a person waits for its
        move (it was thinking when the server stopped)."""
        try:
            waiting = await self.store.call(self.store.computer_to_act)
        except Exception:
            log.exception("could not look for games waiting for the computer")
            waiting = []
        for gid in waiting:
            with contextlib.suppress(Exception):
                game = await self._hold(gid)
                if game is not None:
                    game.joining -= 1
                    self._kick(game)
                    self._evict(game)  # kept while it thinks

    async def _flags(self) -> None:
        """End on time every game whose running clock ran out: the games in
        memory every ``FLAG_TICK_S``, and every ``FLAG_SCAN_S`` the store's
        overdue games that nobody has open (decided with no message from
        anyone, and after a restart too)."""
        last_scan = last_renew = 0.0
        while True:
            await asyncio.sleep(FLAG_TICK_S)
            try:
                if self.store.shared and time.monotonic() - last_renew >= PRESENCE_RENEW_S:
                    last_renew = time.monotonic()
                    await self._renew()
                now = now_ms()
                due = [g for g in list(self.games.values()) if g.clock is not None and g.clock.flagged(now)]
                if time.monotonic() - last_scan >= FLAG_SCAN_S:
                    last_scan = time.monotonic()
                    for game in [g for g in self.games.values() if g.unsure]:
                        with contextlib.suppress(GameError):  # the store was unreachable: is it back?
                            async with game.lock:
                                if game.unsure:
                                    await self._resync(game)
                    for gid in await self.store.call(self.store.overdue, now):
                        if gid not in self.games:
                            stored = await self.load(gid)
                            if stored is not None and stored.clock is not None and stored.clock.flagged(now):
                                due.append(stored)
                for game in due:
                    await self.flag(game)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("checking the clocks failed")

    # -- other processes -----------------------------------------------------------

    async def _listen(self) -> None:
        """Hear of the changes other processes make to the games this one
        holds (PostgreSQL ``LISTEN`` on :data:`kamisado.web.storage.CHANNEL`;
        each change is announced by its own committed transaction) and bring
        those games up to date (:meth:`refresh`).  A lost connection is
        opened again, after a pause that doubles up to ``LISTEN_RETRY_MAX_S``;
        then every game held is refreshed, for what was missed meanwhile."""
        import psycopg

        pause = LISTEN_RETRY_S
        while True:
            try:
                conn = await psycopg.AsyncConnection.connect(self.store.listen_conninfo(), autocommit=True)
                async with conn:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    await conn.execute(f"LISTEN {LOBBY_CHANNEL}")
                    pause = LISTEN_RETRY_S
                    for game_id in list(self.games):  # what was missed meanwhile
                        await self.refresh(game_id)
                    if self.on_lobby is not None:
                        await self.on_lobby(self.store.origin, "tick")
                    heard: asyncio.Queue[tuple[str, str, str]] = asyncio.Queue()
                    worker = asyncio.get_running_loop().create_task(self._heard(heard))
                    try:
                        async for note in conn.notifies():
                            origin, _, rest = note.payload.partition(" ")
                            if origin != self.store.origin:  # this process's own: done already
                                heard.put_nowait((note.channel, origin, rest))
                    finally:
                        worker.cancel()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("listening for other processes' changes failed (%s); again in %.1f s", exc, pause)
                await asyncio.sleep(pause)
                pause = min(LISTEN_RETRY_MAX_S, pause * 2)

    async def _heard(self, heard: asyncio.Queue[tuple[str, str, str]]) -> None:
        """Act on what other processes announced: everything that has come
        since the last look at once, each game brought up to date once
        however many changes it had (under load the notices come faster
        than the store is read)."""
        while True:
            notes = [await heard.get()]
            while not heard.empty():
                notes.append(heard.get_nowait())
            states: dict[str, None] = {}
            presences: dict[str, None] = {}
            for channel, origin, rest in notes:
                if channel == LOBBY_CHANNEL:
                    if self.on_lobby is not None:
                        await self.on_lobby(origin, rest)
                    continue
                game_id, _, kind = rest.partition(" ")
                if game_id in self.games:
                    (presences if kind == "presence" else states)[game_id] = None
            # the games at once (their reads run side by side in the store's threads)
            done = await asyncio.gather(*(self.refresh(game_id) for game_id in states), return_exceptions=True)
            for game_id, result in zip(states, done, strict=True):
                if isinstance(result, Exception):
                    log.error("could not bring game %s up to date", game_id, exc_info=result)
            for game_id in presences:
                game = self.games.get(game_id)
                if game is not None and game_id not in states and await self._load_elsewhere(game):
                    game.mark_presence(now_ms())
                    await self.broadcast(game)

    async def _renew(self) -> None:
        """With other processes on the database: say this one lives (its
        presence rows), notice the seats whose process stopped renewing
        theirs, and take over a computer move whose thinker's lease ran out."""
        await self.store.call(self.store.renew_presence, now_ms())
        if self.on_lobby is not None:  # challenges of a process that died age out
            await self.on_lobby(self.store.origin, "tick")
        held = list(self.games.values())
        elsewhere = await self.store.call(self.store.presence_elsewhere_of, [g.row.id for g in held])  # one query
        for game in held:
            before = game.online_seats()
            game.elsewhere = elsewhere.get(game.row.id, {})
            if game.online_seats() != before:
                game.mark_presence(now_ms())
                await self.broadcast(game)
            if not game.thinking:
                self._kick(game)

    async def refresh(self, game_id: str) -> None:
        """Bring a game in memory up to what the store holds (another process
        changed it) and tell its connections; nothing when nothing changed."""
        game = self.games.get(game_id)
        if game is None:
            return
        async with game.lock:
            await self._refresh(game)

    async def _refresh(self, game: Game) -> None:
        game_id = game.row.id
        try:  # only the actions this process lacks
            loaded = await self.store.call(self.store.load, game_id, since=game.seq)
        except Exception:
            log.exception("could not reload game %s", game_id)
            game.unsure = True  # read again every second until the store answers
            return
        if loaded is None or self.games.get(game_id) is not game:
            return
        row, new = loaded

        def seen(g: Game) -> tuple[Any, ...]:
            r = g.row
            return (g.seq, r.offer, r.rematch, r.owners, r.black_name, r.gold_name, g.clock, r.thinker)

        before = seen(game)
        try:
            if row.actions != game.seq + len(new):  # cannot happen: the store moved on meanwhile
                raise KamisadoError("the store moved on while it was read")
            trial = game.fork()
            for token in new:  # the same rules replay them: same result as a rebuild
                trial.apply(token)
            trial.row, trial.clock = row, row.clock
        except Exception:  # anything odd: rebuild it whole from the store
            try:
                full = await self.store.call(self.store.load, game_id)
            except Exception:
                log.exception("could not reload game %s", game_id)
                return
            if full is None or self.games.get(game_id) is not game:
                return
            trial = Game.build(*full)
        game.adopt(trial)
        game.unsure = False
        if seen(game) == before:
            return
        if game.state == OVER:
            await self._load_ratings(game)
        self._kick(game)
        await self.broadcast(game)

    async def flag(self, game: Game) -> None:
        """End a game on time if its running clock has run out."""
        async with game.lock:
            clock = game.clock
            flagged = None if clock is None else clock.flagged(now_ms())
            if flagged is None or game.state == OVER:
                return
            if game.task is not None and not game.task.done():
                game.task.cancel()  # a computer still thinking has lost on time
            try:
                await self._play(game, f"time-{flagged}")
            except GameError as exc:
                log.warning("flag in game %s not stored: %s", game.row.id, exc)
                return
            await self.broadcast(game)

    async def close(self) -> None:
        """Stop watching the clocks and every computer that is thinking."""
        if self._flag_task is not None:
            self._flag_task.cancel()
        if self._listen_task is not None:
            self._listen_task.cancel()
        for game in self.games.values():
            if game.task is not None and not game.task.done():
                game.task.cancel()
        for task in list(self._tasks):
            task.cancel()
