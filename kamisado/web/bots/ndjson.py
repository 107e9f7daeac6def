"""Newline-delimited JSON streams (``application/x-ndjson``), as lichess's
API streams them: one JSON object per line, and an empty line whenever
nothing was said for :data:`KEEPALIVE_S`, so that a client (and every proxy
between) can tell a quiet stream from a dead one.

>>> import asyncio
>>> async def two():
...     yield {"type": "a"}
...     yield {"type": "b", "n": 1}
>>> async def read():
...     return [line async for line in lines(two(), keepalive_s=5.0)]
>>> asyncio.run(read())
[b'{"type":"a"}\\n', b'{"type":"b","n":1}\\n']
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import orjson
from starlette.responses import StreamingResponse

__all__ = ["KEEPALIVE_S", "MEDIA_TYPE", "lines", "stream"]

#: The seconds of silence after which the stream sends an empty line.
KEEPALIVE_S = 7.0

MEDIA_TYPE = "application/x-ndjson"


async def lines(events: AsyncIterator[dict[str, Any]], keepalive_s: float = KEEPALIVE_S) -> AsyncIterator[bytes]:
    """Each event of ``events`` as one line of JSON, with an empty line
    after each ``keepalive_s`` of silence; ``events`` is closed when the
    stream is (the client left, or the server stops).

    >>> async def slow():
    ...     await asyncio.sleep(0.05)
    ...     yield {"late": True}
    >>> async def read():
    ...     return [line async for line in lines(slow(), keepalive_s=0.01)][-1]
    >>> asyncio.run(read())
    b'{"late":true}\\n'
    """
    source = aiter(events)
    pending: asyncio.Future[dict[str, Any]] | None = None
    try:
        while True:
            if pending is None:
                pending = asyncio.ensure_future(anext(source))
            done, _ = await asyncio.wait({pending}, timeout=keepalive_s)
            if not done:
                yield b"\n"
                continue
            try:
                event = pending.result()
            except StopAsyncIteration:
                return
            finally:
                pending = None
            yield orjson.dumps(event) + b"\n"
    finally:
        if pending is not None:
            pending.cancel()
            with contextlib.suppress(BaseException):
                await pending
        close = getattr(source, "aclose", None)
        if close is not None:
            await close()


def stream(events: AsyncIterator[dict[str, Any]], keepalive_s: float = KEEPALIVE_S,
           headers: dict[str, str] | None = None) -> StreamingResponse:
    """An HTTP answer streaming ``events`` as newline-delimited JSON
    (:func:`lines`); no proxy buffers it (``X-Accel-Buffering: no``)."""
    head = {"Cache-Control": "no-store", "X-Accel-Buffering": "no", **(headers or {})}
    return StreamingResponse(lines(events, keepalive_s), media_type=MEDIA_TYPE, headers=head)
