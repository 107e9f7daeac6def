"""The websocket: each frame read into a message and handed to its handler.

One connection per page (``/ws``): :func:`ws_endpoint` reads each frame
with :func:`kamisado.web.basics.messages.parse` and looks its handler up in
:data:`HANDLERS` (message type -> handler): a game's actions go to the game
the connection is on (:class:`kamisado.web.play.game.Game`), joins and creates
to the :class:`kamisado.web.play.games.Hub`, the lobby's messages to the
:class:`kamisado.web.community.lobby.Lobby`.  A frame that is not a message, or an
action the server refuses, gets an error frame and the connection stays;
so does a handler that fails (``server``).  Frames are rate limited per
address and per player, all their connections together
(:mod:`kamisado.web.edge.guard`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from kamisado.web.accounts.players import player_in_thread, session_key
from kamisado.web.accounts.sessions import BEARER, TOKEN_SOCKET, Bearer, SessionSockets
from kamisado.web.basics.messages import (
    AbortMsg,
    AcceptMsg,
    CancelMsg,
    ChallengeMsg,
    ChatMsg,
    ClaimMsg,
    ComputerMoveMsg,
    CreatedFrame,
    CreateMsg,
    DeclineMsg,
    FillMsg,
    JoinMsg,
    LobbyMsg,
    Message,
    MoveMsg,
    NoticesMsg,
    PingMsg,
    PongFrame,
    ProtocolError,
    RematchMsg,
    ResignMsg,
    SeekMsg,
    TakebackMsg,
    UnseekMsg,
    parse,
)
from kamisado.web.community.lobby import Lobby
from kamisado.web.edge.guard import (
    RateLimiter,
    client_key,
    client_keys,
    frame_limit,
    refusal,
)
from kamisado.web.play import chat
from kamisado.web.play.game import Conn, send_error
from kamisado.web.play.games import Hub
from kamisado.web.play.state import GameError
from kamisado.web.site.pages import hub_of
from kamisado.web.store.database import StoreErrors

__all__ = ["HANDLERS", "POLICY_VIOLATION", "Session", "ws_endpoint"]

log = logging.getLogger("kamisado.web")

#: The close code for a connection that floods far past its frame limit.
POLICY_VIOLATION = 1008


@dataclass
class Session:
    """One websocket and what its handlers need: the hub, the lobby, the
    rate limits and the connection (the seats it holds, its player)."""

    ws: WebSocket
    hub: Hub
    lobby: Lobby
    limiter: RateLimiter
    conn: Conn
    #: when the frame being handled was read (``time.perf_counter``): a
    #: move's round trip is measured from it (:mod:`kamisado.web.basics.metrics`)
    received: float = 0.0
    #: the scopes of the personal token it was opened with (``None``: a
    #: browser, by its cookie): each frame needs one (:data:`FRAME_SCOPES`)
    scopes: frozenset[str] | None = None

    async def error(self, code: str, message: str) -> None:
        """Send an error frame to the connection."""
        await send_error(self.conn, code, message)

    async def may_create(self) -> bool:
        """Take from the address's ``create`` limit (as POST /api/games
        does); when it is spent, say so and return ``False``."""
        wait = await self.limiter.take_all_async("create", client_keys(self.ws.scope))
        if wait:
            await self.error("rate_limited", refusal(self.limiter.limits["create"], wait)[0])
            return False
        return True


Handler = Callable[[Session, Any], Awaitable[None]]


async def _join(s: Session, msg: JoinMsg) -> None:
    await s.hub.join(s.conn, msg)
    game = s.conn.game
    if game is not None and game.row.id == msg.game:  # its room's chat, after the state
        await chat.history(game, s.conn)


async def _chat(s: Session, msg: ChatMsg) -> None:
    """A chat message: refused where the game has no chat, then limited
    per address and per player (``chat``), then stored and sent."""
    game = s.hub.game_of(s.conn)
    chat.check(game, s.conn)
    limit = s.limiter.limits.get("chat")
    wait = await s.limiter.take_all_async("chat", client_keys(s.ws.scope))
    if wait and limit is not None:
        await s.error("rate_limited", "chat: " + refusal(limit, wait)[0])
        return
    await chat.say(game, s.conn, msg)


async def _act(s: Session, msg: MoveMsg | FillMsg) -> None:
    await s.hub.game_of(s.conn).act(s.conn, msg)
    if type(msg) is MoveMsg:  # stored and sent to the game: the move's round trip
        s.hub.metrics.moved(time.perf_counter() - s.received)


async def _computer_act(s: Session, msg: ComputerMoveMsg) -> None:
    await s.hub.game_of(s.conn).computer_act(s.conn, msg)


async def _end(s: Session, msg: ResignMsg | AbortMsg) -> None:
    await s.hub.game_of(s.conn).end(s.conn, msg)


async def _takeback(s: Session, msg: TakebackMsg) -> None:
    await s.hub.game_of(s.conn).takeback(s.conn, msg)


async def _rematch(s: Session, msg: RematchMsg) -> None:
    await s.hub.game_of(s.conn).rematch(s.conn, msg)


async def _claim(s: Session, msg: ClaimMsg) -> None:
    await s.hub.game_of(s.conn).claim(s.conn, msg)


async def _lobby(s: Session, msg: LobbyMsg) -> None:
    await s.lobby.watch(s.conn, msg)


async def _challenge(s: Session, msg: ChallengeMsg) -> None:
    if await s.may_create():
        await s.lobby.post(s.hub, s.conn, msg)


async def _cancel(s: Session, msg: CancelMsg) -> None:
    await s.lobby.cancel(s.conn, msg)


async def _accept(s: Session, msg: AcceptMsg) -> None:
    await s.lobby.accept(s.hub, s.conn, msg)


async def _seek(s: Session, msg: SeekMsg) -> None:
    await s.lobby.seek(s.hub, s.conn, msg)


async def _unseek(s: Session, msg: UnseekMsg) -> None:
    await s.lobby.seeks.unseek(s.conn)


async def _notices(s: Session, msg: NoticesMsg) -> None:
    await s.lobby.notices(s.hub, s.conn)


async def _decline(s: Session, msg: DeclineMsg) -> None:
    await s.lobby.decline(s.hub, s.conn, msg)


async def _ping(s: Session, msg: PingMsg) -> None:
    await s.ws.send_text(PongFrame().to_json())


async def _create(s: Session, msg: CreateMsg) -> None:
    if await s.may_create():
        game, tokens = await s.hub.create(msg, s.conn.player, s.conn.registered, s.conn.name)
        await s.ws.send_text(CreatedFrame(game.row.id, tokens).to_json())


#: Each message type's handler (every type :func:`kamisado.web.basics.messages.parse` returns).
HANDLERS: dict[type[Message], Handler] = {
    JoinMsg: _join,
    MoveMsg: _act,
    FillMsg: _act,
    ComputerMoveMsg: _computer_act,
    ResignMsg: _end,
    AbortMsg: _end,
    TakebackMsg: _takeback,
    RematchMsg: _rematch,
    ClaimMsg: _claim,
    LobbyMsg: _lobby,
    ChallengeMsg: _challenge,
    CancelMsg: _cancel,
    AcceptMsg: _accept,
    ChatMsg: _chat,
    NoticesMsg: _notices,
    DeclineMsg: _decline,
    SeekMsg: _seek,
    UnseekMsg: _unseek,
    PingMsg: _ping,
    CreateMsg: _create,
}


#: The scope a frame needs on a connection opened with a personal token
#: (docs/web-tokens.md); a frame not named here needs ``play``.
FRAME_SCOPES: dict[type[Message], str] = {
    JoinMsg: "read",
    LobbyMsg: "read",
    NoticesMsg: "read",
    PingMsg: "read",
    ChallengeMsg: "challenge",
    AcceptMsg: "challenge",
    DeclineMsg: "challenge",
    CancelMsg: "challenge",
    SeekMsg: "challenge",
    UnseekMsg: "challenge",
}


async def dispatch(s: Session, frame: str | bytes) -> None:
    """Handle one frame: parsed, then handed to its handler; a refusal
    (a malformed frame, an action refused) or a failure becomes an error
    frame, never the end of the connection."""
    try:
        msg = parse(frame)
        needed = FRAME_SCOPES.get(type(msg), "play")
        if s.scopes is not None and needed not in s.scopes:
            raise ProtocolError(f"this token lacks the scope {needed}", "token_scope")
        handler = HANDLERS.get(type(msg))
        if handler is None:  # a message type with no handler: a server's fault
            raise ProtocolError(f"no handler for message type {type(msg).__name__}", "server")
        await handler(s, msg)
    except (ProtocolError, GameError) as exc:
        await s.error(exc.code, str(exc))
    except WebSocketDisconnect:
        raise  # the connection went while it was answered: it ends (ws_endpoint)
    except Exception:
        log.exception("error handling a frame")
        await s.error("server", "the server failed on this message")


async def ws_endpoint(ws: WebSocket) -> None:
    """One page's websocket: each frame handed to :func:`dispatch`.

    Frames are limited per address and per player, all of its connections
    together (``frame``): one over the limit gets a ``rate_limited`` error
    and is dropped.  A connection that empties its address's or player's
    ``flood`` bucket (ten times as many) is closed (1008), and they are kept
    out a while (:class:`kamisado.web.edge.guard.Sockets`: their new websockets
    are refused, their open ones closed at their next frame).  A create
    frame (and a challenge) also takes from the address's ``create`` limit,
    as POST /api/games does.  A decline or a cancel takes from ``answer``
    instead of ``frame``, so that declining a flood of challenges is never
    refused for the frames the rest of the page used."""
    await ws.accept()
    hub = hub_of(ws)
    limiter: RateLimiter = ws.app.state.limiter
    keys = client_keys(ws.scope)  # the address, and the player of the cookie
    conn = Conn(ws.send_text, ws.close)
    try:  # the player its browser is (its cookie), or none
        player = await player_in_thread(ws)
    except StoreErrors:
        log.exception("could not read the player of a websocket")
        await send_error(conn, "storage", "the store cannot be read; try again")
        await ws.close(1013, "try again later")
        return
    except Exception:  # a bug: said so, and logged with its traceback (never "store down")
        log.exception("could not read the player of a websocket")
        await send_error(conn, "server", "the server failed on this connection")
        await ws.close(1011, "server error")
        return
    if player is not None:
        conn.player, conn.name = player.id, player.name
        conn.registered = player.account is not None
        conn.bot = player.bot
    # a signed-in session's websocket is closed when the session ends
    key = session_key(ws) if conn.registered else None
    bearer = ws.scope.get(BEARER)
    if isinstance(bearer, Bearer):  # a token's: closed when the token is revoked
        key = TOKEN_SOCKET + bearer.token
    sockets: SessionSockets = ws.app.state.session_sockets

    async def ended() -> None:
        await ws.close(POLICY_VIOLATION, "the session ended")

    if key is not None:
        sockets.add(key, ended)
    session = Session(ws, hub, ws.app.state.lobby, limiter, conn,
                      scopes=bearer.scopes if isinstance(bearer, Bearer) else None)
    hub.open_conns.add(conn)  # told when the server restarts (kamisado.web.site.ops.drain)
    await session.lobby.arrive(hub, conn)  # its player is online
    caps = limiter.sockets
    try:
        while True:
            message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                break
            session.received = time.perf_counter()
            if caps is not None and caps.kept_out(keys):
                await session.error("rate_limited", "kept out after a flood of websocket frames")
                await ws.close(POLICY_VIOLATION, "kept out")
                break
            if limiter.take_all("flood", keys):
                if caps is not None and caps.limits.keep_out:
                    caps.keep_out(keys)
                    log.warning("closing a websocket from %s: frame flood; kept out %g s",
                                client_key(ws.scope), caps.limits.keep_out)
                else:
                    log.warning("closing a websocket from %s: frame flood", client_key(ws.scope))
                await session.error("rate_limited", "too many websocket frames: the connection is closed")
                await ws.close(POLICY_VIOLATION, "too many frames")
                break
            frame = message.get("text")
            if frame is None:
                frame = message.get("bytes") or b""
            name = frame_limit(frame)
            wait = limiter.take_all(name, keys)
            limit = limiter.limits.get(name)
            if wait and limit is not None:
                await session.error("rate_limited", refusal(limit, wait)[0] + "; the frame was dropped")
                continue
            await dispatch(session, frame)
    finally:  # a client gone mid-answer (WebSocketDisconnect) is one line in the log (kamisado.web.edge.edge)
        if key is not None:
            sockets.discard(key, ended)
        hub.open_conns.discard(conn)
        hub.leave(conn)
        await session.lobby.gone(conn)  # its challenges go with it; its player may be offline
