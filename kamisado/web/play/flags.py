"""The clocks of the games in play: flags that fall, clocks that pause, outages given back.

:class:`Flags` watches every running clock: the games in memory every
:data:`FLAG_TICK_S`, and every :data:`FLAG_SCAN_S` the store's overdue
games that nobody has open (decided with no message from anyone, and
after a restart too); a game whose flag fell ends on time (:func:`flag`).
The same scan reads again the games the store could not answer for
(``unsure``), to see whether it is back.

A player's time runs only while a server can take the player's move: a
server lives and reaches the store.  Every :data:`FLAG_SCAN_S` each
server says so in the store (:meth:`Flags.beat`,
:meth:`kamisado.web.store.storage.Store.keep_alive`); a server starting up, or
one that could not reach the store, finds out how long no server reached
it, and when that is more than :data:`OUTAGE_MS` (every server was
stopped, or the store was down) every running clock is moved forward by
that time, once.  Until a server has reached the store again after it
failed, no flag falls and no action is taken (:meth:`Flags.ensure_live`):
the clocks are moved forward first.

A computer-against-computer game nobody watches pauses its clock
(:func:`pause_clock`) and starts it again when its computer thinks once
more (:func:`resume_clock`).  The clock arithmetic itself is
:mod:`kamisado.web.basics.clocks`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Protocol

from kamisado.rules.match import OVER
from kamisado.web.basics import clocks
from kamisado.web.basics.clocks import ClockState
from kamisado.web.play.game import Game, HubFace
from kamisado.web.play.state import GameError
from kamisado.web.store.database import StoreErrors


class _News(Protocol):
    async def refresh(self, game_id: str) -> None: ...


class FlagsHub(HubFace, Protocol):
    """What the flags use of the hub: :class:`~kamisado.web.play.game.HubFace`
    and the news of other processes (a game another process changed is read
    again before its flag falls)."""

    @property
    def news(self) -> _News: ...

__all__ = ["FLAG_SCAN_S", "FLAG_TICK_S", "OUTAGE_MS", "Flags", "flag", "pause_clock", "resume_clock"]

log = logging.getLogger("kamisado.web")

#: How often the server looks for flags that fell (in memory; the store's
#: overdue games are looked up every ``FLAG_SCAN_S``).
FLAG_TICK_S = 0.2
FLAG_SCAN_S = 1.0
#: No server reached the store for longer than this (each says it does
#: every ``FLAG_SCAN_S``): an outage, whose time every running clock is
#: given back (a server starting on a database no other process serves,
#: SQLite, gives back any time it was away).
OUTAGE_MS = 3_000


class Flags:
    """The hub's watch over the clocks (:meth:`run`, a task of the hub's)."""

    def __init__(self, hub: FlagsHub) -> None:
        self.hub = hub
        #: whether this process reached the store at its last try: until it
        #: has (again), no flag falls and no clock is charged
        self.live = False
        #: the outage :meth:`beat` looks for (``Store.keep_alive``'s
        #: ``outage_ms``): at start-up (any time away on a database only
        #: this process serves), after the store failed, else ``None``
        self._look: int | None = OUTAGE_MS if hub.store.shared else 0
        #: when the clocks were last moved forward, as far as this process knows
        self._moved = 0
        self._beating: asyncio.Lock | None = None
        self._down = False

    async def pause(self, game: Game) -> None:
        """Stop the clock of a computer-against-computer game nobody watches
        (:func:`pause_clock`; lock held)."""
        await pause_clock(game)

    def store_failed(self) -> None:
        """The store could not be reached: no flag falls and no action is
        taken until a :meth:`beat` has reached it again (and moved the
        clocks forward over the outage, when it was one)."""
        if not self._down:
            log.warning("the database cannot be reached: no flag falls until it can")
        self.live, self._down = False, True
        if self._look is None:
            self._look = OUTAGE_MS

    async def beat(self) -> None:
        """Tell the store that this server reaches it; after a failure (or
        at start-up) have the time of an outage given back to the running
        clocks, and re-read the games held here when the clocks were moved
        forward (by this process or another).  :class:`GameError`
        ``storage`` when the store cannot be reached."""
        if self._beating is None:
            self._beating = asyncio.Lock()
        async with self._beating:
            store = self.hub.store
            try:
                moved, given = await store.call(store.keep_alive, clocks.now_ms(), self._look)
            except StoreErrors as exc:
                self.store_failed()
                raise GameError("storage", "the database cannot be reached; try again in a moment") from exc
            if self._down:
                log.warning("the database can be reached again")
            self.live, self._look, self._down = True, None, False
            if given:
                log.warning("no server could take a move for %.1f s: that time is given back to every"
                            " running clock", given / 1000)
            if moved > self._moved:
                self._moved = moved
                self.reread()

    async def ensure_live(self) -> None:
        """Return once this process reaches the store (:meth:`beat` when it
        did not at its last try); :class:`GameError` ``storage`` if not."""
        if not self.live:
            await self.beat()

    def reread(self) -> None:
        """The clocks were moved forward in the store: every timed game held
        here is read again before its next action or flag, and its
        connections are shown its clock."""
        hub = self.hub
        for game in list(hub.games.values()):
            if game.clock is not None and game.clock.running is not None:
                game.unsure = True
                hub.spawn(hub.news.refresh(game.row.id))

    async def run(self) -> None:
        """End on time every game whose running clock ran out: the games in
        memory every ``FLAG_TICK_S``, and every ``FLAG_SCAN_S`` the store's
        overdue games that nobody has open, once this server said it
        reaches the store (:meth:`beat`)."""
        hub, store = self.hub, self.hub.store
        last_scan = 0.0
        while True:
            await asyncio.sleep(FLAG_TICK_S)
            try:
                now = clocks.now_ms()
                due = [g for g in list(hub.games.values())
                       if g.clock is not None and not g.unsure and g.clock.flagged(now)]
                if time.monotonic() - last_scan >= FLAG_SCAN_S:
                    last_scan = time.monotonic()
                    try:
                        await self.beat()
                    except GameError:
                        continue  # the store cannot be reached: no flag falls meanwhile
                    for game in [g for g in hub.games.values() if g.unsure]:
                        with contextlib.suppress(GameError):  # the store was unreachable: is it back?
                            async with game.lock:
                                if game.unsure:
                                    await game.resync()
                    for gid in await store.call(store.overdue, now):
                        if gid not in hub.games:
                            stored = await hub.load(gid)
                            if stored is not None and stored.clock is not None and stored.clock.flagged(now):
                                due.append(stored)
                if not self.live:
                    continue
                for game in due:
                    await flag(game)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                hub.repeats.failed("checking the clocks failed", None, exc)


async def flag(game: Game) -> None:
    """End a game on time if its running clock has run out."""
    async with game.lock:
        try:
            await game.ready()  # the clocks as the store has them, moved forward over an outage
        except GameError:
            return
        clock = game.clock
        flagged = None if clock is None else clock.flagged(clocks.now_ms())
        if flagged is None or game.state == OVER:
            return
        if game.task is not None and not game.task.done():
            game.task.cancel()  # a computer still thinking has lost on time
        try:
            await game.play(f"time-{flagged}")
        except GameError as exc:
            game.served_by.repeats.failed("a flag could not be stored", game.row.id, exc,
                                          level=logging.WARNING, traceback=False)
            return
        await game.broadcast()


async def pause_clock(game: Game) -> None:
    """Stop the clock of a computer-against-computer game nobody watches
    (it pauses: no flag falls while nobody can see it).  Lock held."""
    clock = game.clock
    if clock is None or clock.running is None or "human" in game.kinds() or game.state == OVER:
        return
    if game.conns or game.thinking:  # someone came back meanwhile
        return
    await _store_clock(game, clock.stop(clocks.now_ms()))


async def resume_clock(game: Game) -> None:
    """Start again the clock of a paused computer-against-computer game
    (after the first move a clock always runs until the match is over).
    Lock held."""
    clock, act = game.clock, game.to_act_letter()
    if clock is None or clock.running is not None or act is None or not game.seq or "human" in game.kinds():
        return
    await _store_clock(game, clock.begin(act, clocks.now_ms()))


async def _store_clock(game: Game, clock: ClockState) -> None:
    store = game.store
    try:
        if await store.call(store.set_clock, game.row.id, game.seq, clock):
            game.clock = clock
            game.row.set_clock(clock)
    except Exception as exc:  # the clock keeps its stored state; the game goes on
        game.served_by.repeats.failed("could not store the clock of a game", game.row.id, exc)
