"""News from other processes: what they changed in the games this one holds.

With several processes on one PostgreSQL database, every change to a game
is announced on :data:`kamisado.web.store.storage.CHANNEL` by its own committed
transaction (and the lobby's on :data:`~kamisado.web.store.storage.LOBBY_CHANNEL`).
:class:`News` listens (``LISTEN``), and brings each game held here up to
what the store holds (:meth:`News.refresh`): it reads only the actions this
process lacks, replays them through the rules, and tells the game's
connections.  A lost listening connection is opened again, after a pause
that doubles up to :data:`LISTEN_RETRY_MAX_S`; then every game held is
refreshed, for what was missed meanwhile.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

from kamisado.rules.board import KamisadoError
from kamisado.rules.match import OVER
from kamisado.web.basics import clocks
from kamisado.web.basics.noise import reason
from kamisado.web.play import chat
from kamisado.web.play.game import Game, HubFace, load_ratings
from kamisado.web.play.state import GameState
from kamisado.web.store.storage import CHANNEL, LOBBY_CHANNEL

if TYPE_CHECKING:
    from kamisado.web.play.computer import Computer
    from kamisado.web.play.flags import Flags
    from kamisado.web.play.presence import Presence


class NewsHub(HubFace, Protocol):
    """What the news use of the hub: :class:`~kamisado.web.play.game.HubFace`,
    the lobby's handler, the games without chat, and the services told of
    another process's change."""

    on_lobby: Callable[[str, str], Awaitable[None]] | None
    unwritten: chat.Unwritten

    @property
    def computer(self) -> Computer: ...
    @property
    def flags(self) -> Flags: ...
    @property
    def presence(self) -> Presence: ...


__all__ = ["LISTEN_RETRY_MAX_S", "LISTEN_RETRY_S", "News"]

log = logging.getLogger("kamisado.web")

#: Listening for other processes' changes: the first pause after a lost
#: connection (seconds), doubled up to the second.
LISTEN_RETRY_S = 0.2
LISTEN_RETRY_MAX_S = 5.0


class News:
    """The hub's ear for the other processes (:meth:`run`, a task of the hub's)."""

    def __init__(self, hub: NewsHub) -> None:
        self.hub = hub

    async def run(self) -> None:
        """Hear of the changes other processes make to the games this one
        holds (PostgreSQL ``LISTEN``) and bring those games up to date
        (:meth:`refresh`), opening a lost connection again."""
        import psycopg

        hub, store = self.hub, self.hub.store
        pause = LISTEN_RETRY_S
        while True:
            try:
                conn = await psycopg.AsyncConnection.connect(store.listen_conninfo(), autocommit=True)
                async with conn:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    await conn.execute(f"LISTEN {LOBBY_CHANNEL}")
                    pause = LISTEN_RETRY_S
                    hub.unwritten.clear()  # a chat message may have been missed
                    for game_id in list(hub.games):  # what was missed meanwhile
                        game = hub.games.get(game_id)
                        if game is not None:  # its chat too, read again on the next join
                            chat.forget(game)
                        await self.refresh(game_id)
                    if hub.on_lobby is not None:
                        await hub.on_lobby(store.origin, "tick")
                    heard: asyncio.Queue[tuple[str, str, str]] = asyncio.Queue()
                    worker = asyncio.get_running_loop().create_task(self._heard(heard))
                    try:
                        async for note in conn.notifies():
                            origin, _, rest = note.payload.partition(" ")
                            if origin != store.origin:  # this process's own: done already
                                heard.put_nowait((note.channel, origin, rest))
                    finally:
                        worker.cancel()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("listening for other processes' changes failed (%s); again in %.1f s",
                            reason(exc), pause)  # one line; the pause grows to a few seconds
                await asyncio.sleep(pause)
                pause = min(LISTEN_RETRY_MAX_S, pause * 2)

    async def _heard(self, heard: asyncio.Queue[tuple[str, str, str]]) -> None:
        """Act on what other processes announced: everything that has come
        since the last look at once, each game brought up to date once
        however many changes it had (under load the notices come faster
        than the store is read)."""
        hub = self.hub
        while True:
            notes = [await heard.get()]
            while not heard.empty():
                notes.append(heard.get_nowait())
            states: dict[str, None] = {}
            presences: dict[str, None] = {}
            chats: dict[str, None] = {}
            for channel, origin, rest in notes:
                if channel == LOBBY_CHANNEL:
                    if hub.on_lobby is not None:
                        await hub.on_lobby(origin, rest)
                    continue
                game_id, _, kind = rest.partition(" ")
                if game_id == "*" and kind == "clocks":  # moved forward over an outage
                    hub.flags.reread()
                elif game_id in hub.games:
                    {"presence": presences, "chat": chats}.get(kind, states)[game_id] = None
                elif kind == "chat":  # its first join here reads the chat
                    hub.unwritten.discard(game_id)
            # the games at once (their reads run side by side in the store's threads)
            done = await asyncio.gather(*(self.refresh(game_id) for game_id in states), return_exceptions=True)
            for game_id, result in zip(states, done, strict=True):
                if isinstance(result, Exception):
                    hub.repeats.failed("could not bring a game up to date", game_id, result)
            for game_id in chats:  # a chat message stored by another process
                game = hub.games.get(game_id)
                if game is not None:
                    try:
                        await chat.refresh(game)
                    except Exception as exc:
                        hub.repeats.failed("could not read a game's chat", game_id, exc)
            for game_id in presences:
                game = hub.games.get(game_id)
                if game is not None and game_id not in states and await hub.presence.load_elsewhere(game):
                    game.mark_presence(clocks.now_ms())
                    await game.broadcast()

    async def refresh(self, game_id: str) -> None:
        """Bring a game in memory up to what the store holds (another process
        changed it) and tell its connections; nothing when nothing changed."""
        game = self.hub.games.get(game_id)
        if game is None:
            return
        async with game.lock:
            await self._refresh(game)

    async def _refresh(self, game: Game) -> None:
        hub, store = self.hub, self.hub.store
        game_id = game.row.id
        try:  # only the actions this process lacks
            loaded = await store.load_async(game_id, since=game.seq)
        except Exception as exc:
            hub.repeats.failed("could not reload a game", game_id, exc)
            game.unsure = True  # read again every second until the store answers
            return
        if loaded is None or hub.games.get(game_id) is not game:
            return
        row, new = loaded

        def seen(g: Game) -> tuple[Any, ...]:
            r = g.row
            return (g.seq, r.offer, r.rematch, r.owners, r.black_name, r.gold_name, g.clock, r.thinker)

        before = seen(game)
        trial: GameState
        try:
            if row.actions != game.seq + len(new):  # cannot happen: the store moved on meanwhile
                raise KamisadoError("the store moved on while it was read")
            trial = game.fork()
            for token in new:  # the same rules replay them: same result as a rebuild
                trial.apply(token)
            trial.row, trial.clock = row, row.clock
        except Exception:  # anything odd: rebuild it whole from the store
            try:
                full = await store.load_async(game_id)
            except Exception as exc:
                hub.repeats.failed("could not reload a game", game_id, exc)
                return
            if full is None or hub.games.get(game_id) is not game:
                return
            trial = GameState.build(*full)
        game.adopt(trial)
        game.unsure = False
        if seen(game) == before:
            return
        if game.state == OVER:
            await load_ratings(game)
        hub.computer.kick(game)
        await game.broadcast()
