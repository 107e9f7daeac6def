"""The connection's edge: slow request bodies and clients that leave.

:class:`Edge` is an ASGI middleware around the whole app (inside the
proxy headers, so it sees the client's address):

- **A request body must arrive in time**: all of it within
  :data:`BODY_TIMEOUT_S` (10 s) of the request's start, or the request is
  refused with ``408`` and the connection closed.  Without it a client
  sending less than its ``Content-Length`` held a request (and its
  connection) open for as long as it liked.
- **A client that leaves** mid-request (its body cut short) or mid-answer
  (a websocket gone while frames are sent to it) is one line in the log,
  never a traceback; many of them are counted, once a minute
  (:class:`kamisado.web.basics.noise.Repeats`).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from starlette.requests import ClientDisconnect
from starlette.websockets import WebSocketDisconnect
from uvicorn.protocols.utils import ClientDisconnected

from kamisado.web.basics.noise import Repeats
from kamisado.web.edge.guard import client_key

__all__ = ["BODY_TIMEOUT_S", "DISCONNECTS", "BodyTimeout", "Edge"]

log = logging.getLogger("kamisado.web")

#: The longest a request body may take to arrive, from the request's start (seconds).
BODY_TIMEOUT_S = 10.0

#: What a client that went away raises in the app: a body cut short
#: (Starlette's ``ClientDisconnect``), a websocket closed while it was sent
#: to (``WebSocketDisconnect``, uvicorn's ``ClientDisconnected``).  Nothing
#: broader: a connection refused by the database is no client leaving.
DISCONNECTS: tuple[type[BaseException], ...] = (ClientDisconnect, WebSocketDisconnect, ClientDisconnected)

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class BodyTimeout(Exception):
    """The request's body did not arrive in time (raised by ``receive``)."""


class Edge:
    """ASGI middleware: the body deadline and one line per client that leaves."""

    def __init__(self, app: ASGIApp, body_timeout_s: float = BODY_TIMEOUT_S,
                 repeats: Repeats | None = None) -> None:
        self.app = app
        self.body_timeout_s = body_timeout_s
        self.repeats = repeats or Repeats(log)

    def _where(self, scope: Scope) -> str:
        what = scope.get("method", "websocket") if scope["type"] == "http" else "websocket"
        return f"{what} {scope.get('path', '')} from {client_key(scope).partition(':')[2]}"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        started = False

        async def watch(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            if kind == "http":
                await self.app(scope, self._in_time(receive), watch)
            else:
                await self.app(scope, receive, send)
        except BodyTimeout:
            self.repeats.failed(f"a request body did not come within {self.body_timeout_s:g} s: refused",
                                self._where(scope), level=logging.WARNING)
            if not started:
                await _refuse(send, self.body_timeout_s)
        except DISCONNECTS as exc:
            self.repeats.failed("a client left before its answer", self._where(scope), exc,
                                level=logging.INFO, traceback=False)

    def _in_time(self, receive: Receive) -> Receive:
        """``receive``, refusing a body not all there by the deadline."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.body_timeout_s
        done = False

        async def in_time() -> Message:
            nonlocal done
            if done:  # the body is in: waiting for the client to leave is not limited
                return await receive()
            try:
                async with asyncio.timeout_at(deadline):
                    message = await receive()
            except TimeoutError:
                raise BodyTimeout from None
            if message["type"] != "http.request" or not message.get("more_body", False):
                done = True
            return message

        return in_time


async def _refuse(send: Send, timeout_s: float) -> None:
    body = json.dumps({"error": f"the request body did not arrive within {timeout_s:g} s"}).encode()
    await send({
        "type": "http.response.start",
        "status": 408,
        "headers": [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),  # the rest of the body is never read
        ],
    })
    await send({"type": "http.response.body", "body": body})
