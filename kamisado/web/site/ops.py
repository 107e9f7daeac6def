"""Running the server as a service: health and readiness checks, metrics,
JSON logs, and the graceful stop.

- ``GET /healthz``: 200 while the process lives (it touches nothing else).
- ``GET /readyz``: 200 when the database answers (and the job queue, when
  there is one); 503 with the reason when one does not, or while the
  server stops.
- ``GET /metrics``: the Prometheus metrics (:mod:`kamisado.web.basics.metrics`),
  only to the addresses of ``--metrics-allow`` (:func:`parse_allow`;
  localhost by default); 403 to any other.
- ``--log-format json``: one JSON object a line (:class:`JsonFormatter`).
- SIGTERM (or Ctrl-C): :class:`GracefulServer` stops accepting
  connections, tells every websocket ``{"type": "restarting"}``, lets what
  is being stored be stored (:func:`drain`), then closes the connections
  and stops.

>>> allow = parse_allow("localhost, 10.0.0.0/8")
>>> [allowed(allow, a) for a in ("127.0.0.1", "::1", "10.1.2.3", "192.168.0.1", "::ffff:127.0.0.1")]
[True, True, True, False, True]
>>> parse_allow("10.0.0.300")
Traceback (most recent call last):
...
ValueError: expected addresses or networks (10.0.0.0/8, ::1, localhost) separated by commas, found '10.0.0.300'
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import ipaddress
import json
import logging
import socket
from types import FrameType
from typing import Any

import uvicorn
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from kamisado.web.basics.messages import RestartingFrame
from kamisado.web.play.game import send

__all__ = [
    "DRAIN_S",
    "LOCALHOST",
    "READY_TIMEOUT_S",
    "ROUTES",
    "GracefulServer",
    "JsonFormatter",
    "allowed",
    "drain",
    "healthz",
    "metrics",
    "parse_allow",
    "readyz",
]

log = logging.getLogger("kamisado.web")

Network = ipaddress.IPv4Network | ipaddress.IPv6Network

#: ``localhost`` in ``--metrics-allow``: the loopback addresses.
LOCALHOST: tuple[Network, ...] = (ipaddress.ip_network("127.0.0.0/8"), ipaddress.ip_network("::1/128"))
#: How long readiness waits for the database or the queue to answer (seconds).
READY_TIMEOUT_S = 2.0
#: How long a stopping server waits for what it is storing (seconds).
DRAIN_S = 30.0


# -- the checks -----------------------------------------------------------------------


async def healthz(request: Request) -> Response:
    """200 while the process lives: it asks nothing of the database."""
    return PlainTextResponse("ok\n")


async def readyz(request: Request) -> Response:
    """200 ``{"ready": true, ...}`` when the database (and the job queue, if
    set) answer within :data:`READY_TIMEOUT_S`; 503 with ``reason`` when
    one does not, or while the server stops (``restarting``)."""
    hub = request.app.state.hub
    checks: dict[str, str] = {}
    problems: list[str] = []
    if hub.draining:
        return JSONResponse({"ready": False, "reason": "restarting: the server is stopping"}, 503)
    try:
        await asyncio.wait_for(hub.store.ping_async(), READY_TIMEOUT_S)
        checks["database"] = "ok"
    except Exception as exc:
        checks["database"] = _why(exc)
        problems.append(f"database: {checks['database']}")
    jobs = hub.computer.jobs
    if jobs is not None:
        try:
            await asyncio.wait_for(jobs.ping(), READY_TIMEOUT_S)
            checks["queue"] = "ok"
        except Exception as exc:
            checks["queue"] = _why(exc)
            problems.append(f"queue: {checks['queue']}")
    if problems:
        return JSONResponse({"ready": False, "reason": "; ".join(problems), **checks}, 503)
    return JSONResponse({"ready": True, **checks})


def _why(exc: BaseException) -> str:
    """One line saying why a check failed."""
    if isinstance(exc, TimeoutError):
        return f"no answer within {READY_TIMEOUT_S:g} s"
    orig = getattr(exc, "orig", None)
    text = str(orig if orig is not None else exc).strip() or type(exc).__name__
    return " ".join(text.split())


# -- the metrics ------------------------------------------------------------------------


def parse_allow(text: str) -> tuple[Network, ...]:
    """The networks of ``--metrics-allow``: addresses (a network of one) and
    networks separated by commas; ``localhost`` is :data:`LOCALHOST`."""
    out: list[Network] = []
    for word in (w.strip() for w in text.split(",")):
        if not word:
            continue
        if word.lower() == "localhost":
            out.extend(LOCALHOST)
            continue
        try:
            out.append(ipaddress.ip_network(word, strict=False))
        except ValueError:
            raise ValueError(
                "expected addresses or networks (10.0.0.0/8, ::1, localhost) separated by"
                f" commas, found {word!r}") from None
    if not out:
        raise ValueError("expected at least one address or network (localhost by default)")
    return tuple(out)


def allowed(networks: tuple[Network, ...], host: str | None) -> bool:
    """Whether the client address ``host`` is in one of ``networks``."""
    if not host:
        return False
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return False  # not an address (a Unix socket, a test client's name)
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return any(address in net for net in networks)


async def metrics(request: Request) -> Response:
    """The Prometheus metrics, to the addresses of ``--metrics-allow`` only."""
    networks: tuple[Network, ...] = request.app.state.metrics_allow
    client = request.client.host if request.client is not None else None
    if not allowed(networks, client):
        return JSONResponse({"error": "refused: /metrics is served only to the addresses of"
                             " --metrics-allow"}, 403)
    hub = request.app.state.hub
    try:
        depths = await asyncio.wait_for(hub.computer.depths(), READY_TIMEOUT_S)
    except Exception:
        depths = {"moves": float("nan"), "analysis": float("nan")}
    hub.metrics.set_depths(depths)
    from prometheus_client import CONTENT_TYPE_LATEST

    return Response(hub.metrics.exposition(), media_type=CONTENT_TYPE_LATEST)


ROUTES = [
    Route("/healthz", healthz, methods=["GET", "HEAD"]),
    Route("/readyz", readyz, methods=["GET", "HEAD"]),
    Route("/metrics", metrics),
]


# -- the logs -------------------------------------------------------------------------


class JsonFormatter(logging.Formatter):
    """A log record as one JSON object on one line: ``time`` (UTC, ISO
    8601 with milliseconds), ``level``, ``logger``, ``message`` and, when
    there is one, ``exception`` (its traceback as text).  Written with
    ``json`` in ASCII, so any text (a lone surrogate too) makes valid JSON.

    >>> record = logging.LogRecord("kamisado.web", logging.WARNING, __file__, 1, "game %s", ("x",), None)
    >>> record.created = 0.0
    >>> JsonFormatter().format(record)
    '{"time": "1970-01-01T00:00:00.000Z", "level": "WARNING", "logger": "kamisado.web", "message": "game x"}'
    """

    def format(self, record: logging.LogRecord) -> str:
        when = datetime.datetime.fromtimestamp(record.created, datetime.UTC)
        out: dict[str, Any] = {
            "time": when.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            out["exception"] = record.exc_text
        if record.stack_info:
            out["stack"] = self.formatStack(record.stack_info)
        return json.dumps(out)


def configure_logging(fmt: str) -> dict[str, Any] | None:
    """Set up the server's logs in format ``text`` (the message alone) or
    ``json`` (:class:`JsonFormatter`), on standard error; returns the
    ``log_config`` for uvicorn (``None`` for JSON: uvicorn's loggers then
    pass their records to the root logger's handler)."""
    if fmt == "json":
        handler = logging.StreamHandler()
        handler.setFormatter(JsonFormatter())
        root = logging.getLogger()
        root.handlers[:] = [handler]
        root.setLevel(logging.INFO)
        return None
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    config: dict[str, Any] = uvicorn.config.LOGGING_CONFIG
    return config


# -- the graceful stop ----------------------------------------------------------------


async def drain(app: Any, timeout: float = DRAIN_S) -> None:
    """The first steps of a graceful stop: no action is stored any more
    (``hub.draining``: an action is refused ``restarting``), every websocket
    is sent ``{"type": "restarting"}``, every event stream ends
    (:mod:`kamisado.web.bots`), and each game's action being
    stored is stored (its lock is free once it is), for at most
    ``timeout`` seconds."""
    hub = app.state.hub
    hub.draining = True
    events = getattr(app.state, "events", None)
    if events is not None:
        events.close()
    conns = list(hub.open_conns)
    log.info("kamisado web: stopping: %d websocket(s) told the server restarts", len(conns))
    frame = RestartingFrame().to_json()
    await asyncio.gather(*(send(conn, frame) for conn in conns))

    async def stored() -> None:
        for game in list(hub.games.values()):
            async with game.lock:
                pass

    try:
        await asyncio.wait_for(stored(), timeout)
    except TimeoutError:
        log.warning("kamisado web: stopping: the store did not finish within %g s", timeout)


class GracefulServer(uvicorn.Server):
    """uvicorn's server with a graceful stop for ``app`` (a SIGTERM, a
    Ctrl-C, ``handle_exit``): the listening sockets close first (a proxy
    sends new connections to another process), then :func:`drain`, then
    uvicorn's own shutdown (the websockets closed with 1012, "service
    restart"; the requests under way finished; the app's lifespan ends,
    which closes the store).  A second Ctrl-C stops at once.
    ``stopped_by``: the first signal that stopped it (None: none yet).

    >>> import signal
    >>> server = GracefulServer(uvicorn.Config(app=None), app=None)
    >>> server.handle_exit(signal.SIGINT, None)
    >>> server.should_exit, server.stopped_by == signal.SIGINT
    (True, True)
    """

    def __init__(self, config: uvicorn.Config, app: Any) -> None:
        super().__init__(config)
        self.app = app
        self.stopped_by: int | None = None

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if self.stopped_by is None:
            self.stopped_by = sig
        super().handle_exit(sig, frame)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        if not self.force_exit:
            for server in self.servers:
                server.close()  # no new connection
            for sock in sockets or []:
                with contextlib.suppress(OSError):
                    sock.close()
            if getattr(self.app.state, "hub", None) is not None:
                await drain(self.app)
        await super().shutdown(sockets)
