"""Who is connected to each seat, over every process that serves the database.

With several processes on one PostgreSQL database (``store.shared``), a
seat may be held through another process: each process writes which seats
of its games its connections hold (:meth:`Presence.share`, the ``presence``
table, announced to the others), renews its rows every
:data:`PRESENCE_RENEW_S` while it lives (:meth:`Presence.renew`), and reads
who holds a game's seats elsewhere (:meth:`Presence.load_elsewhere`).  A
seat counts as connected while its process renewed it within
:data:`PRESENCE_TTL_MS`; a process that died ages out, and a computer move
it held the lease on is taken over.  On one process (SQLite) all of this
is nothing: the connections in memory say it all
(:meth:`kamisado.web.play.game.Game.held_here`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Protocol

from kamisado.web.basics import clocks
from kamisado.web.play.game import PRESENCE_TTL_MS, Game, HubFace

if TYPE_CHECKING:
    from kamisado.web.play.computer import Computer


class PresenceHub(HubFace, Protocol):
    """What presence uses of the hub: :class:`~kamisado.web.play.game.HubFace`,
    the lobby's handler and the computer (a lease of a process gone is taken over)."""

    on_lobby: Callable[[str, str], Awaitable[None]] | None

    @property
    def computer(self) -> Computer: ...


__all__ = ["PRESENCE_RENEW_S", "PRESENCE_TTL_MS", "Presence"]

log = logging.getLogger("kamisado.web")

#: A process renews its presence this often; a seat held through it counts
#: as connected while it renewed within :data:`PRESENCE_TTL_MS`.
PRESENCE_RENEW_S = 10.0


class Presence:
    """The hub's share of who is connected, with the other processes."""

    def __init__(self, hub: PresenceHub) -> None:
        self.hub = hub
        #: games whose held seats changed since the store last heard: written
        #: by one task, in order
        self._due: set[str] = set()
        self._wake: asyncio.Event | None = None
        #: held while this process writes its presence rows: a renewal and a
        #: write of the same rows at once could deadlock in the database
        #: (each locks them in its own order)
        self._writing: asyncio.Lock | None = None

    def _lock(self) -> asyncio.Lock:
        if self._writing is None:
            self._writing = asyncio.Lock()
        return self._writing

    async def load_elsewhere(self, game: Game) -> bool:
        """Read who holds the game's seats through other processes; returns
        whether that changed who counts as connected."""
        store = self.hub.store
        if not store.shared:
            return False
        before = game.online_seats()
        try:
            game.elsewhere = await store.presence_elsewhere_async(game.row.id)
        except Exception as exc:
            self.hub.repeats.failed("could not read who is connected to a game", game.row.id, exc)
            return False
        return game.online_seats() != before

    def share(self, game: Game) -> None:
        """Tell the other processes (soon, in order) which seats of the game
        this one holds."""
        if not self.hub.store.shared:
            return
        self._due.add(game.row.id)
        if self._wake is None:
            self._wake = asyncio.Event()
            self.hub.spawn(self._write(self._wake))
        self._wake.set()

    async def _write(self, wake: asyncio.Event) -> None:
        """Write the held seats of the games :meth:`share` named, as they
        are when written (one task: the last write is the latest)."""
        hub, store = self.hub, self.hub.store
        while True:
            await wake.wait()
            wake.clear()
            due, self._due = self._due, set()
            held: dict[str, tuple[bool, bool]] = {}
            for game_id in due:
                game = hub.games.get(game_id)
                held[game_id] = (False, False) if game is None else game.held_here()
            try:
                async with self._lock():
                    await store.set_presence_async(held, clocks.now_ms())
            except Exception as exc:
                hub.repeats.failed("could not store who is connected to the games", None, exc)

    async def run(self) -> None:
        """Renew this process's presence every ``PRESENCE_RENEW_S`` (a task
        of the hub's while other processes share the database)."""
        while True:
            try:
                await self.renew()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self.hub.repeats.failed("renewing this process's presence failed", None, exc)
            await asyncio.sleep(PRESENCE_RENEW_S)

    async def renew(self) -> None:
        """Say this process lives (its presence rows), notice the seats whose
        process stopped renewing theirs, and take over a computer move whose
        thinker's lease ran out."""
        hub, store = self.hub, self.hub.store
        async with self._lock():
            await store.renew_presence_async(clocks.now_ms())
        if hub.on_lobby is not None:  # challenges of a process that died age out
            await hub.on_lobby(store.origin, "tick")
        held = list(hub.games.values())
        elsewhere = await store.presence_elsewhere_of_async([g.row.id for g in held])  # one query
        for game in held:
            before = game.online_seats()
            game.elsewhere = elsewhere.get(game.row.id, {})
            if game.online_seats() != before:
                game.mark_presence(clocks.now_ms())
                await game.broadcast()
            if not game.thinking:
                hub.computer.kick(game)
