"""The clocks of the games in play: flags that fall, and clocks that pause.

:class:`Flags` watches every running clock: the games in memory every
:data:`FLAG_TICK_S`, and every :data:`FLAG_SCAN_S` the store's overdue
games that nobody has open (decided with no message from anyone, and
after a restart too); a game whose flag fell ends on time (:func:`flag`).
The same scan reads again the games the store could not answer for
(``unsure``), to see whether it is back.

A computer-against-computer game nobody watches pauses its clock
(:func:`pause_clock`) and starts it again when its computer thinks once
more (:func:`resume_clock`).  The clock arithmetic itself is
:mod:`kamisado.web.clocks`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import TYPE_CHECKING

from kamisado.rules.match import OVER
from kamisado.web import clocks
from kamisado.web.clocks import ClockState
from kamisado.web.state import GameError

if TYPE_CHECKING:
    from kamisado.web.game import Game
    from kamisado.web.games import Hub

__all__ = ["FLAG_SCAN_S", "FLAG_TICK_S", "Flags", "flag", "pause_clock", "resume_clock"]

log = logging.getLogger("kamisado.web")

#: How often the server looks for flags that fell (in memory; the store's
#: overdue games are looked up every ``FLAG_SCAN_S``).
FLAG_TICK_S = 0.2
FLAG_SCAN_S = 1.0


class Flags:
    """The hub's watch over the clocks (:meth:`run`, a task of the hub's)."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub

    async def run(self) -> None:
        """End on time every game whose running clock ran out: the games in
        memory every ``FLAG_TICK_S``, and every ``FLAG_SCAN_S`` the store's
        overdue games that nobody has open."""
        hub, store = self.hub, self.hub.store
        last_scan = 0.0
        while True:
            await asyncio.sleep(FLAG_TICK_S)
            try:
                now = clocks.now_ms()
                due = [g for g in list(hub.games.values()) if g.clock is not None and g.clock.flagged(now)]
                if time.monotonic() - last_scan >= FLAG_SCAN_S:
                    last_scan = time.monotonic()
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
                for game in due:
                    await flag(game)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                hub.repeats.failed("checking the clocks failed", None, exc)


async def flag(game: Game) -> None:
    """End a game on time if its running clock has run out."""
    async with game.lock:
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
