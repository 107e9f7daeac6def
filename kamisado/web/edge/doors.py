"""Who may keep a connection open (issue 40, item 1): slow clients.

uvicorn times out only the idle time between two requests of a kept-alive
connection; a client that sends part of a request head and stops
("slowloris") would hold its socket, and a file descriptor, for ever.
:class:`Doors` watches every connection of one server, through the
protocol classes :func:`protocols` makes (uvicorn's h11 protocol and its
websocket protocol, subclassed; passed as ``uvicorn.Config(http=..., ws=...)``):

- **The head in time.** A connection must send a whole request head
  within ``head_timeout`` seconds of opening, and each later request of a
  kept-alive connection within ``head_timeout`` of the previous answer's
  end; else it is closed (with a 408 when part of a head came). A request
  whose head came is never cut by this: its body has its own limit
  (:mod:`kamisado.web.edge.edge`), and an upgraded websocket none.
- **A cap per address.** At most ``per_address`` connections open at once
  from one peer address (IPv6: its /64); the next is answered 503 with
  ``Connection: close`` at once. The reverse proxies of
  ``--forwarded-allow-ips`` are not capped so (every visitor comes through
  them: the peer is the proxy; the proxy caps its own clients).
- **A cap in all.** At most ``total`` connections open at once, below the
  process's file-descriptor limit (:func:`default_total`), so the database,
  the pool and the log always get theirs. At the cap, a new connection
  closes the one that has waited longest for its head; when none waits,
  the new one is answered 503.

Refusals and timeouts are logged once a minute with a count
(:class:`kamisado.web.basics.noise.Repeats`).

>>> doors = Doors(DoorLimits(head_timeout=10.0, per_address=2, total=2), close=lambda conn: None)
>>> a, b, c = object(), object(), object()
>>> doors.admit(a, "10.0.0.1"), doors.admit(b, "10.0.0.1"), doors.admit(c, "10.0.0.1")
(None, None, 'too many connections from this address')
>>> doors.waits(a); doors.waits(b); doors.admit(c, "10.0.0.2")  # at the cap: a waited longest
>>> doors.evictions, len(doors), doors.waiting()
(1, 2, 1)
>>> v6 = Doors(DoorLimits(per_address=1))  # IPv6: one /64 is one address
>>> v6.admit(a, "2001:db8::1"), v6.admit(b, "2001:db8::2"), v6.admit(c, "2001:db8:0:1::1")
(None, 'too many connections from this address', None)
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import logging
import resource
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from kamisado.web.basics.noise import Repeats
from kamisado.web.edge.guard import client_key

__all__ = ["DoorLimits", "Doors", "default_total", "protocols"]

log = logging.getLogger("kamisado.web.doors")

#: The file descriptors kept back from connections: the database and its
#: pool, the process pool's pipes, the log, files served (at least this many).
RESERVE_MIN = 100


def default_total(soft_limit: int | None = None) -> int:
    """The cap on connections open at once: the file-descriptor limit
    (``RLIMIT_NOFILE``'s soft limit; ``soft_limit`` for tests) less a
    reserve of a tenth, at least :data:`RESERVE_MIN`, never under 16.

    >>> default_total(20_000), default_total(1024), default_total(100)
    (18000, 922, 16)
    """
    if soft_limit is None:
        soft_limit = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        if soft_limit == resource.RLIM_INFINITY:
            soft_limit = 1 << 20
    return max(16, soft_limit - max(RESERVE_MIN, soft_limit // 10))


@dataclass(frozen=True)
class DoorLimits:
    """The limits on connections (0: none). ``exempt``: the peers not
    capped per address, as ``--forwarded-allow-ips`` lists them (``*``:
    every peer).

    >>> DoorLimits(exempt=("10.0.0.0/8",)).is_exempt("10.1.2.3"), DoorLimits().is_exempt("10.1.2.3")
    (True, False)
    """

    head_timeout: float = 10.0
    per_address: int = 256
    total: int = 0
    exempt: tuple[str, ...] = ()

    def is_exempt(self, peer: str) -> bool:
        """Whether ``peer`` is a proxy (no cap per address)."""
        if not self.exempt:
            return False
        if "*" in self.exempt:
            return True
        try:
            address = ipaddress.ip_address(peer)
        except ValueError:
            return False
        return any(address in net for net in _networks(self.exempt))


@functools.lru_cache(maxsize=8)
def _networks(items: tuple[str, ...]) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    return tuple(ipaddress.ip_network(item, strict=False) for item in items)


class Doors:
    """The connections of one server: their peers, and those waiting for
    a request head, the longest-waiting first. A connection is any
    hashable object (a transport); ``close`` closes one (by default its
    ``close()``; a test may pass a no-op)."""

    def __init__(self, limits: DoorLimits, close: Callable[[Any], None] | None = None,
                 repeats: Repeats | None = None) -> None:
        self.limits = limits
        self._close = close or (lambda conn: conn.close())
        self.repeats = repeats or Repeats(log)
        self._peers: dict[Any, str] = {}  # connection: its client_key (addr:...)
        self._counts: dict[str, int] = {}
        self._waiting: dict[Any, None] = {}  # ordered: the longest-waiting first
        #: how many connections were closed to make room
        self.evictions = 0

    def __len__(self) -> int:
        return len(self._peers)

    def admit(self, conn: Any, peer: str) -> str | None:
        """Count ``conn`` from ``peer`` (an address: IPv6 counted by its
        /64) in, or say why not (it is then not counted): too many from its
        address, or too many in all with none waiting for its head (else the
        longest-waiting is closed)."""
        limits = self.limits
        key = client_key({"client": (peer, 0)})
        if limits.per_address and self._counts.get(key, 0) >= limits.per_address \
                and not limits.is_exempt(peer):
            self.repeats.failed("refused connections: too many from one address", peer, Refused(
                f"{limits.per_address} open from it (--connections-per-address)"), level=logging.WARNING, traceback=False)
            return "too many connections from this address"
        if limits.total and len(self._peers) >= limits.total:
            if not self._waiting:
                self.repeats.failed("refused connections: too many open", peer, Refused(
                    f"{limits.total} open, none waiting for its head (--max-connections)"),
                    level=logging.WARNING, traceback=False)
                return "too many connections"
            oldest = next(iter(self._waiting))
            self.repeats.failed("closed the connections that waited longest for a request head",
                                self._peers.get(oldest, "")[5:], Refused(f"{limits.total} open (--max-connections)"),
                                level=logging.WARNING, traceback=False)
            self.release(oldest)
            self.evictions += 1
            self._close(oldest)
        self._peers[conn] = key
        self._counts[key] = self._counts.get(key, 0) + 1
        return None

    def waits(self, conn: Any) -> None:
        """``conn`` waits for a request head from now on."""
        if conn in self._peers:
            self._waiting.pop(conn, None)
            self._waiting[conn] = None

    def came(self, conn: Any) -> None:
        """``conn``'s request head came."""
        self._waiting.pop(conn, None)

    def release(self, conn: Any) -> None:
        """``conn`` is closed (again: nothing)."""
        self._waiting.pop(conn, None)
        peer = self._peers.pop(conn, None)
        if peer is not None:
            left = self._counts[peer] - 1
            if left:
                self._counts[peer] = left
            else:
                del self._counts[peer]

    def waiting(self) -> int:
        """How many connections wait for a request head."""
        return len(self._waiting)


class Refused(Exception):
    """Why a connection was refused or closed (in the log's line)."""


def _refuse(transport: asyncio.Transport, status: bytes, why: str) -> None:
    body = why.encode() + b"\n"
    transport.write(b"HTTP/1.1 " + status + b"\r\ncontent-type: text/plain; charset=utf-8\r\n"
                    b"content-length: " + str(len(body)).encode() + b"\r\nconnection: close\r\n"
                    b"retry-after: 10\r\n\r\n" + body)
    transport.close()


def protocols(doors: Doors) -> tuple[type[H11Protocol], type[WebSocketsSansIOProtocol]]:
    """uvicorn's HTTP (h11) and websocket protocol classes with ``doors``
    at the door: ``uvicorn.Config(app, http=http, ws=ws)``."""

    class Http(H11Protocol):
        """uvicorn's h11 protocol: counted by ``doors``, the head in time."""

        gate: ClassVar[Doors] = doors
        _head_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            why = self.gate.admit(transport, self.client[0] if self.client else "")
            if why is not None:
                _refuse(transport, b"503 Service Unavailable", why)
                return
            self._await_head()

        def connection_lost(self, exc: Exception | None) -> None:
            self._head_came()
            self.gate.release(self.transport)
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            self._check_head()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._check_head()

        def handle_websocket_upgrade(self, event: h11.Request) -> None:
            self._head_came()  # the socket stays counted until the websocket closes
            super().handle_websocket_upgrade(event)

        def _check_head(self) -> None:
            if self.transport.is_closing() or self.transport.get_protocol() is not self:
                return
            if self.conn.their_state is h11.IDLE:  # no head of the next request yet
                if self._head_timer is None:
                    self._await_head()
            else:
                self._head_came()

        def _await_head(self) -> None:
            if self.gate.limits.head_timeout:
                self._head_timer = self.loop.call_later(self.gate.limits.head_timeout, self._head_late)
            self.gate.waits(self.transport)

        def _head_came(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None
            self.gate.came(self.transport)

        def _head_late(self) -> None:
            self._head_timer = None
            if self.transport.is_closing():
                return
            if self.conn.trailing_data[0]:  # part of a head came: say why (a silent preconnect is not logged)
                self.gate.repeats.failed(
                    f"closed connections that sent no whole request head in {self.gate.limits.head_timeout:g} s",
                    self.client[0] if self.client else None, Refused("too slow (--header-timeout)"),
                    level=logging.WARNING, traceback=False)
                _refuse(self.transport, b"408 Request Timeout", "the request head took too long")
            else:
                self.transport.close()

    class Ws(WebSocketsSansIOProtocol):
        """uvicorn's websocket protocol: its socket leaves ``doors`` when it closes."""

        gate: ClassVar[Doors] = doors

        def connection_lost(self, exc: Exception | None) -> None:
            self.gate.release(self.transport)
            super().connection_lost(exc)

    return Http, Ws
