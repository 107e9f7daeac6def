"""A game's chat (issue 27, item 5): the players' room and the spectators' room.

In an online game between two people each game has two rooms: a seat
holder writes in and reads the players' room (``players``), everyone else
the spectators' room (``spectators``); neither reads the other's.  A game
against the computer, or a hotseat game (one browser holds both seats),
has no chat: a ``chat`` frame there is refused (``no_chat``).

A message is free text (one line, at most
:data:`kamisado.web.basics.messages.CHAT_MAX` characters) or a canned message's
code (:data:`kamisado.web.basics.messages.CANNED`), which each reader's page says
in its own language.  It is stored (:meth:`kamisado.web.store.storage.Store.add_chat`)
before anyone is sent it, so a reload shows it, and another process on the
same PostgreSQL database hears of it (``NOTIFY``, kind ``chat``:
:meth:`kamisado.web.play.news.News`) and sends it to its own connections on the
game (:func:`refresh`).  The page shows every message as text, never as
HTML; muting the opponent is the page's (kept in the browser).

Moderation (docs/web-moderation.md): a player a moderator muted is refused
(``muted``, with the time the mute ends), so their chat reaches nobody;
a message is never sent to a connection whose player blocks its writer
(at delivery and in the history a join is sent; the blocks are read from
the store, so a block made through any process counts).

A join is sent its room's last messages (:func:`history`).  Each room is
read from the store once while the game is in memory
(:attr:`kamisado.web.play.game.Game.chat_log`), on the event loop, and kept up
by what is said here and heard from the other processes: a game's later
joins (a new game's second player, every rejoin) read nothing.  A game
this process created (:class:`Unwritten`) is not read at all: nobody can
have written in it unless another process announced a message meanwhile.
Losing the ``LISTEN`` connection, which may miss announcements, forgets
what was read (:func:`forget`) and which games were unwritten.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from kamisado.rules.board import SIDE_LETTERS
from kamisado.web.basics.messages import ChatFrame, ChatMsg
from kamisado.web.play.state import GameError
from kamisado.web.store.database import StoreErrors

if TYPE_CHECKING:
    from kamisado.web.play.game import Conn, Game

__all__ = ["HISTORY", "PLAYERS", "ROOMS", "SPECTATORS", "UNWRITTEN_MAX", "Unwritten", "check", "forget",
           "history", "refresh", "room_of", "say"]

PLAYERS = "players"
SPECTATORS = "spectators"
ROOMS = (PLAYERS, SPECTATORS)
#: how many of a game's messages a page is sent when it joins, and how many
#: of its last messages a process reads when another process announced one
HISTORY = 200


#: how many of the games it created last a process remembers as unwritten
UNWRITTEN_MAX = 10_000


class Unwritten:
    """The games this process created whose chat nobody can have written in
    yet (:attr:`kamisado.web.play.games.Hub.unwritten`): their first join reads
    nothing.  A game leaves it on that join, when another process announces
    a message in it while it is not in memory here (one in memory keeps its
    own log, :func:`refresh`), when the ``LISTEN`` connection is lost, and
    when :data:`UNWRITTEN_MAX` newer games came after it."""

    def __init__(self, limit: int = UNWRITTEN_MAX) -> None:
        self.limit = limit
        self._ids: dict[str, None] = {}  # oldest first

    def __contains__(self, game_id: object) -> bool:
        return game_id in self._ids

    def add(self, game_id: str) -> None:
        """A game created here, its chat empty."""
        self._ids[game_id] = None
        while len(self._ids) > self.limit:
            del self._ids[next(iter(self._ids))]

    def discard(self, game_id: str) -> None:
        """Someone may have written in the game."""
        self._ids.pop(game_id, None)

    def clear(self) -> None:
        """Any game may have been written in (announcements were missed)."""
        self._ids.clear()


def has_chat(game: Game) -> bool:
    """Whether a game has a chat: online, both seats people's."""
    return game.row.online and all(kind == "human" for kind in game.kinds())


def room_of(conn: Conn) -> str:
    """The room a connection writes in and reads: a seat holder's is the players'."""
    return PLAYERS if conn.seats else SPECTATORS


def check(game: Game, conn: Conn) -> None:
    """Refuse a chat message of a connection that may not chat in the game
    (:class:`GameError` ``no_chat``)."""
    if not has_chat(game):
        raise GameError("no_chat", "chat: only in an online game between two people "
                        "(not against the computer, not in a hotseat game)")
    if len(conn.seats) > 1:
        raise GameError("no_chat", "chat: you hold both seats of this game")


def _wire(row: dict[str, Any]) -> dict[str, Any]:
    """A stored message as the frame carries it (no player id)."""
    return {"id": row["id"], "at": row["at"], "name": row["name"], "side": row["side"],
            "text": row["text"], "canned": row["canned"]}


def _remember(game: Game, rows: list[dict[str, Any]]) -> None:
    """Add messages to the game's :attr:`~kamisado.web.play.game.Game.chat_log`
    (each once, in the order of their ids, each room's last :data:`HISTORY`)."""
    for room in ROOMS:
        mine = [r for r in rows if r["room"] == room]
        if not mine:
            continue
        log = game.chat_log.setdefault(room, [])
        known = {r["id"] for r in log}
        log.extend(r for r in mine if r["id"] not in known)
        log.sort(key=lambda r: r["id"])
        del log[:-HISTORY]


def forget(game: Game) -> None:
    """Forget what was read of the game's chat (the next join of each room
    reads it again): the process may have missed an announcement."""
    game.chat_read.clear()


async def _blocked(game: Game, readers: list[Conn], rows: list[dict[str, Any]]) -> set[tuple[str, str]]:
    """Which ``(reader, writer)`` players of these readers and messages are
    blocks (one read of the store; none when no message has a writer)."""
    pairs = sorted({(c.player, r["player"]) for c in readers for r in rows
                    if c.player is not None and r.get("player") and c.player != r["player"]})
    if not pairs:
        return set()
    store = game.store
    try:
        found: set[tuple[str, str]] = await store.call(store.blocking, pairs)
    except StoreErrors as exc:  # the store is away: better unsent than sent to a blocker
        game.served_by.repeats.failed("could not read the blocks", game.row.id, exc)
        return set(pairs)
    return found


async def _send(game: Game, rows: list[dict[str, Any]]) -> None:
    """Send messages to the game's connections on this process, each room's
    to its readers (none to a reader whose player blocks its writer), and
    remember them (:func:`_remember`)."""
    _remember(game, rows)
    readers = list(game.conns)
    blocked = await _blocked(game, readers, rows)
    for room in ROOMS:
        mine = [r for r in rows if r["room"] == room]
        if not mine:
            continue
        text = ChatFrame(game.row.id, room, [_wire(r) for r in mine]).to_json()
        for conn in readers:
            if room_of(conn) != room:
                continue
            shown = [r for r in mine if (conn.player, r.get("player")) not in blocked]
            if len(shown) == len(mine):
                await game.send(conn, text)
            elif shown:
                await game.send(conn, ChatFrame(game.row.id, room, [_wire(r) for r in shown]).to_json())
    game.chat_seen.update(r["id"] for r in rows)


def _muted_text(until: float) -> str:
    at = datetime.fromtimestamp(until, UTC).strftime("%Y-%m-%d %H:%M UTC")
    return f"chat: a moderator muted you until {at}; your messages reach nobody until then"


async def say(game: Game, conn: Conn, msg: ChatMsg) -> None:
    """Store a message of a connection in its room, then send it to that
    room's readers on this process (the others hear of it from the store)."""
    check(game, conn)
    room = room_of(conn)
    side: str | None = None
    if room == PLAYERS:
        seat = conn.seats[0]
        side, name = SIDE_LETTERS[seat], game.seat_names()[seat]
    else:
        name = conn.name
    store = game.store
    if conn.player is not None:
        try:
            until, closed = await store.call(store.standing, conn.player)
        except StoreErrors as exc:
            game.served_by.repeats.failed("could not read a mute", game.row.id, exc)
            raise GameError("storage", "chat: the message could not be saved; try again") from None
        if closed is not None:  # (a websocket of another process, until its session watch closes it)
            raise GameError("closed", "chat: this account was closed by a moderator")
        if until is not None and until > time.time():
            raise GameError("muted", _muted_text(until))
    try:
        row = await store.call(store.add_chat, game.row.id, room, conn.player, name, side,
                               msg.text, msg.canned)
    except StoreErrors as exc:
        game.served_by.repeats.failed("could not store a chat message", game.row.id, exc)
        raise GameError("storage", "chat: the message could not be saved; try again") from None
    await _send(game, [row])


async def history(game: Game, conn: Conn) -> None:
    """Send a connection that joined the game its room's messages (the
    last :data:`HISTORY`: the page replaces what it showed); nothing in a
    game without chat, nor while the room has no message (a page reads
    from the state frame whether the game has a chat and which room is
    its)."""
    if not has_chat(game) or len(conn.seats) > 1:
        return
    room = room_of(conn)
    unwritten = game.served_by.unwritten
    if game.row.id in unwritten:  # created here, and nobody wrote in it since
        unwritten.discard(game.row.id)  # (its log now hears of what is written)
        game.chat_read.update(ROOMS)
    if room not in game.chat_read:  # read once while the game is in memory
        store = game.store
        try:
            read = await store.chat_of_async(game.row.id, room, 0, HISTORY)
        except Exception as exc:  # the store is away: the game plays on, its chat shows later
            game.served_by.repeats.failed("could not read a game's chat", game.row.id, exc)
            return
        # with what was said or heard of while it was read (the log holds
        # every message since the game came into memory, the read those before)
        _remember(game, read)
        game.chat_read.add(room)
    rows = game.chat_log.get(room, [])
    if rows:
        blocked = await _blocked(game, [conn], rows)
        game.chat_seen.update(r["id"] for r in rows)
        rows = [r for r in rows if (conn.player, r.get("player")) not in blocked]
    if not rows:
        return
    await game.send(conn, ChatFrame(game.row.id, room, [_wire(r) for r in rows], True).to_json())


async def refresh(game: Game) -> None:
    """Send the game's connections here the messages another process
    stored (it announced them: ``chat``): the game's last messages are read
    and those not sent here yet are sent (ids are the database's, shared by
    every game: two processes' messages may commit out of order, so no id
    marks where to read from)."""
    store = game.store
    try:
        rows = await store.chat_of_async(game.row.id, None, 0, HISTORY)
    except Exception as exc:  # what was read of it may now lack this message
        forget(game)
        game.served_by.repeats.failed("could not read a game's chat", game.row.id, exc)
        return
    new = [r for r in rows if r["id"] not in game.chat_seen]
    if new:
        await _send(game, new)
